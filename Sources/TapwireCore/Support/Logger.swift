import Foundation

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
