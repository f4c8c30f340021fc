import Foundation

public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    public var name: String {
        switch self {
        case .debug: return "debug"
        case .info: return "info"
        case .warning: return "warning"
        case .error: return "error"
        }
    }

    public init?(name: String) {
        guard let match = LogLevel.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = match
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}
