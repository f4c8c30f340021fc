import Foundation

/// One simulated category: its registration, base engagement rate and media mix.
struct DemoCategory {
    var identifier: String
    var title: String
    var actions: [(id: String, textInput: Bool, destructive: Bool)]
    var customDismiss: Bool
    var baseRate: Double
    var mediaShare: Double
    var weight: Double
    var campaign: (name: String, variants: [String])?
    /// Posted by the backend as `sent` only, never `delivered` (the fallback base).
    var sentOnly = false
}
