// tapwire-client-harness: drives the SDK core as a child process for the crash-safety and soak
// tests. It records events into a queue directory (logging each id once `record` has returned,
// so the log lists only durable events), flushes as it goes, and can drain the queue; a tap and a
// conversion on request, and a wait to be killed in between.
import Foundation
import Synchronization
import TapwireClient

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
do {
    if let tap = options.tap {
        let id = try client.recordResponse(NotificationResponseValues(actionIdentifier: SystemActionIdentifier.open, notificationId: tap,
                                                                      deliveryDate: Date(timeIntervalSinceNow: -5),
                                                                      content: NotificationContentValues(categoryIdentifier: "message")))
        log?.write(Data((id.description + "\n").utf8))
    }
    if let name = options.convert {
        log?.write(Data((try client.recordConversion(name).description + "\n").utf8))
    }
} catch {
    fail("record failed: \(error)", code: 1)
}
// The crash tests kill the process here: whatever it recorded must be on disk already.
while options.hang { sleep(3600) }
if options.drain { add(await client.drain(timeout: options.timeout), to: &total) }

let stats = client.stats
print(#"{"recorded":\#(options.record),"requests":\#(total.requests),"accepted":\#(total.accepted),"duplicates":\#(total.duplicates),"rejected":\#(rejectedCount.withLock { $0 }),"remaining":\#(stats.count),"dropped":\#(stats.dropped),"tornTailBytes":\#(stats.recovery.tornTailBytes)}"#)
exit(options.drain && stats.count > 0 ? 2 : 0)
