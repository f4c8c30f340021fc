import Foundation
import TapwireCommandLine
import TapwireServer

/// One configurable value: its flag, its environment variable, its default and how it applies.
/// The list below is the single source for `tapwire serve --help` and the README table.
struct Setting: Sendable {
    var flag: String
    var environment: String
    var defaultText: String
    var help: String
    var apply: @Sendable (inout CollectorConfiguration, String) throws(CLIError) -> Void
}
