import Foundation
import TapwireCommandLine

enum OutputFormat {
    case text, json
    static func parse(_ text: String?) throws(CLIError) -> OutputFormat {
        switch text ?? "text" {
        case "text", "table": return .text
        case "json": return .json
        default: throw CLIError("--format must be text or json")
        }
    }
}
