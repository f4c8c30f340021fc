import Foundation
import Synchronization

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

/// A value in a log line. Callers pass counts, codes and ids; never keys, user text or IPs.
public enum LogValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral
{
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(Int64(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public static func of<I: BinaryInteger>(_ value: I) -> LogValue { .int(Int64(clamping: value)) }

    var json: JSONValue {
        switch self {
        case .string(let s): return .string(s)
        case .int(let i): return .int(i)
        case .double(let d): return .double((d * 1000).rounded() / 1000)
        case .bool(let b): return .bool(b)
        }
    }
}

/// Where log lines go. The default writes each line with one write(2) to standard error, so
/// lines from different threads never interleave.
public final class LogSink: Sendable {
    private let lines: Mutex<[String]?>
    private let handle: FileHandle?

    public static let standardError = LogSink(handle: FileHandle.standardError)

    init(handle: FileHandle?) {
        self.handle = handle
        self.lines = Mutex(handle == nil ? [] : nil)
    }

    /// A sink that keeps lines in memory, for tests that check what was logged.
    public static func memory() -> LogSink { LogSink(handle: nil) }

    func write(_ line: String) {
        if let handle {
            handle.write(Data((line + "\n").utf8))
        } else {
            lines.withLock { $0?.append(line) }
        }
    }

    public var capturedLines: [String] { lines.withLock { $0 ?? [] } }
}

/// A structured logger: one JSON object per line, with `ts`, `level`, `msg` and fields.
public struct Logger: Sendable {
    public var label: String
    public var minimumLevel: LogLevel
    public var sink: LogSink

    public init(label: String, minimumLevel: LogLevel = .info, sink: LogSink = .standardError) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    public func log(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(level, message, fields.map { ($0.key, $0.value) })
    }

    public func log(_ level: LogLevel, _ message: String, _ fields: [(String, LogValue)]) {
        guard level >= minimumLevel else { return }
        var members: [(String, JSONValue)] = [
            ("ts", .string(Timestamp.now.iso8601(fractionDigits: 3))),
            ("level", .string(level.name)),
            ("logger", .string(label)),
            ("msg", .string(message)),
        ]
        for (key, value) in fields { members.append((key, value.json)) }
        sink.write(JSONValue.object(members).serialized())
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.error, message, fields) }
}

extension Timestamp {
    /// The wall clock now.
    public static var now: Timestamp { Timestamp(seconds: Date().timeIntervalSince1970) }
}

/// A monotonic clock reading in nanoseconds, for latencies and timeouts (never for event times).
public func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
