import Foundation

/// How every client runs tapwire-client-harness: the program, the collector and the app's key.
struct HarnessCommand: Sendable {
    let executable: String
    let endpoint: String
    let writeKey: String
}
