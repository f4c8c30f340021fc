// tapwire-client-harness: drives the SDK core as a child process for the crash-safety and soak
// tests. It records events into a queue directory (logging each id once `record` has returned,
// so the log lists only durable events), flushes as it goes, and can drain the queue.
import Foundation
import Synchronization
import TapwireClient

struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

struct Options {
    var queue: URL?
    var endpoint: URL?
    var key = ProcessInfo.processInfo.environment["TAPWIRE_WRITE_KEY"] ?? ""
    var record = 0
    var log: URL?
    var flushEvery = 0
    var drain = false
    var timeout = 60.0
    var batch = 500
    var durability = QueueDurability.fsyncEveryRecord
    var appVersion = "1.0.0"
    var seed = 0

    static let usage = """
    usage: tapwire-client-harness --queue DIR --endpoint URL [--key WRITE_KEY] [--record N] [--log FILE]
                                  [--flush-every K] [--drain] [--timeout SECONDS] [--batch N]
                                  [--durability fsync|buffered] [--app-version V] [--seed S]
      --record N       record N events (the key may also come from TAPWIRE_WRITE_KEY)
      --log FILE       append each recorded event id, one per line, after record returns
      --flush-every K  flush after every K records (0: never while recording)
      --drain          flush until the queue is empty or --timeout passes; exit 2 if events remain
    Prints one JSON line with the counts when done.
    """

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var o = Options()
        var i = 0
        func value(_ name: String) -> String? {
            i += 1
            return i < arguments.count ? arguments[i] : nil
        }
        while i < arguments.count {
            let name = arguments[i]
            switch name {
            case "--queue": guard let v = value(name) else { return .failure(UsageError("--queue needs a directory")) }; o.queue = URL(fileURLWithPath: v)
            case "--endpoint":
                guard let v = value(name), let url = URL(string: v), url.scheme != nil else { return .failure(UsageError("--endpoint needs a URL such as http://127.0.0.1:8080")) }
                o.endpoint = url
            case "--key": guard let v = value(name) else { return .failure(UsageError("--key needs the app's write key")) }; o.key = v
            case "--record": guard let v = value(name), let n = Int(v), n >= 0 else { return .failure(UsageError("--record needs a count")) }; o.record = n
            case "--log": guard let v = value(name) else { return .failure(UsageError("--log needs a file")) }; o.log = URL(fileURLWithPath: v)
            case "--flush-every": guard let v = value(name), let n = Int(v), n >= 0 else { return .failure(UsageError("--flush-every needs a count")) }; o.flushEvery = n
            case "--drain": o.drain = true
            case "--timeout": guard let v = value(name), let t = Double(v), t > 0 else { return .failure(UsageError("--timeout needs seconds")) }; o.timeout = t
            case "--batch": guard let v = value(name), let n = Int(v), n > 0 else { return .failure(UsageError("--batch needs a count")) }; o.batch = n
            case "--durability":
                switch value(name) {
                case "fsync": o.durability = .fsyncEveryRecord
                case "buffered": o.durability = .osBuffered
                default: return .failure(UsageError("--durability is fsync or buffered"))
                }
            case "--app-version": guard let v = value(name) else { return .failure(UsageError("--app-version needs a value")) }; o.appVersion = v
            case "--seed": guard let v = value(name), let n = Int(v) else { return .failure(UsageError("--seed needs an integer")) }; o.seed = n
            case "-h", "--help": return .failure(UsageError(""))
            default: return .failure(UsageError("unknown option \(name)"))
            }
            i += 1
        }
        guard o.queue != nil else { return .failure(UsageError("--queue is required")) }
        guard o.endpoint != nil else { return .failure(UsageError("--endpoint is required")) }
        if o.record > 0 || o.drain || o.flushEvery > 0, o.key.isEmpty { return .failure(UsageError("--key (or TAPWIRE_WRITE_KEY) is required to send")) }
        return .success(o)
    }
}

func fail(_ message: String, code: Int32 = 64) -> Never {
    if !message.isEmpty { FileHandle.standardError.write(Data("tapwire-client-harness: \(message)\n".utf8)) }
    FileHandle.standardError.write(Data((Options.usage + "\n").utf8))
    exit(code)
}

/// A varied, deterministic event for index `i`: deliveries with and without media, opens,
/// replies with a text length, a custom action, and a dismissal.
func record(_ i: Int, on client: TapwireClient) throws(TapwireClientError) -> TelemetryEventID {
    let media = i % 2 == 0 ? [AttachmentValues(typeIdentifier: "public.jpeg")] : []
    let content = NotificationContentValues(categoryIdentifier: i % 3 == 0 ? "social_post" : "message", attachments: media,
                                            userInfo: ["campaign": "harness", "variant": i % 2 == 0 ? "A" : "B"])
    switch i % 5 {
    case 0, 1:
        return try client.recordDelivery(content, notificationId: "harness-\(i)", registeredCategories: ["message", "social_post"])
    case 2:
        return try client.recordResponse(NotificationResponseValues(actionIdentifier: SystemActionIdentifier.open, notificationId: "harness-\(i)",
                                                                    deliveryDate: Date(timeIntervalSinceNow: -5), content: content))
    case 3:
        return try client.recordResponse(NotificationResponseValues(actionIdentifier: "reply", notificationId: "harness-\(i)",
                                                                    deliveryDate: Date(timeIntervalSinceNow: -5), content: content,
                                                                    userTextLength: i % 40))
    default:
        return try client.recordResponse(NotificationResponseValues(actionIdentifier: "like", notificationId: "harness-\(i)",
                                                                    deliveryDate: Date(timeIntervalSinceNow: -5), content: content))
    }
}

let options: Options
switch Options.parse(Array(CommandLine.arguments.dropFirst())) {
case .success(let o): options = o
case .failure(let error): fail(error.message, code: error.message.isEmpty ? 0 : 64)
}

let rejectedCount = Mutex(0)
let client: TapwireClient
do {
    client = try TapwireClient(configuration: TapwireConfiguration(
        writeKey: options.key, endpoint: options.endpoint!, queueDirectory: options.queue!,
        device: DeviceInfo(appVersion: options.appVersion, build: "harness", platform: "iOS", osVersion: "18.1"),
        batch: BatchPolicy(maxEvents: options.batch), durability: options.durability,
        onRejected: { list in rejectedCount.withLock { $0 += list.count } }))
} catch {
    fail("cannot open the queue: \(error)", code: 1)
}

var log: FileHandle?
if let url = options.log {
    if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
    guard let handle = FileHandle(forWritingAtPath: url.path) else { fail("cannot open the log \(url.path)", code: 1) }
    _ = try? handle.seekToEnd()
    log = handle
}

var total = FlushReport()
func add(_ report: FlushReport, to total: inout FlushReport) {
    total.requests += report.requests
    total.accepted += report.accepted
    total.duplicates += report.duplicates
    total.rejected += report.rejected
    total.remaining = report.remaining
}

for i in 0..<options.record {
    let id: TelemetryEventID
    do { id = try record(options.seed &+ i, on: client) } catch { fail("record failed: \(error)", code: 1) }
    // One write(2) per id: a kill -9 cannot lose what the kernel already has.
    log?.write(Data((id.description + "\n").utf8))
    if options.flushEvery > 0 && (i + 1) % options.flushEvery == 0 { add(await client.flush(), to: &total) }
}
if options.drain { add(await client.drain(timeout: options.timeout), to: &total) }

let stats = client.stats
print(#"{"recorded":\#(options.record),"requests":\#(total.requests),"accepted":\#(total.accepted),"duplicates":\#(total.duplicates),"rejected":\#(rejectedCount.withLock { $0 }),"remaining":\#(stats.count),"dropped":\#(stats.dropped),"tornTailBytes":\#(stats.recovery.tornTailBytes)}"#)
exit(options.drain && stats.count > 0 ? 2 : 0)
