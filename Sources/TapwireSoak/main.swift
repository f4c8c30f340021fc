// tapwire-soak: `make soak`. A private PostgreSQL, the collector, and N client processes (the SDK's
// tapwire-client-harness) recording events at a target rate while faults are injected on a
// schedule; then every client is drained and each client's log of recorded ids is checked
// against the database: recorded = stored + dropped (as the SDK reported), no duplicates, no
// orphan dedup claims, rollups equal to a rebuild from raw. Loopback only; bounded in time.
import Foundation
import Synchronization
import TapwireCore
import TapwireLoopbackClient
import TapwireStore
#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered, so the progress shows when the output is a pipe.
func say(_ text: String) { FileHandle.standardOutput.write(Data(("soak: " + text + "\n").utf8)) }

/// What to stop before exiting on an error: the database and the collector, once started.
nonisolated(unsafe) var cleanup: [() -> Void] = []

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data("tapwire-soak: \(text)\n".utf8))
    for step in cleanup.reversed() { step() }
    exit(2)
}

struct SoakOptions {
    var seconds = 300.0
    var clients = 4
    var rate: Double?
    var benchJSON: String?
    var fraction = 0.7
    var binDirectory = ""
    var work = ""
    var maxRSSMiB = 512
    var clientKills = 3

    static let usage = """
    usage: tapwire-soak [--seconds 300] [--clients 4] [--rate EVENTS_PER_S | --bench-json FILE [--fraction 0.7]]
                        [--bin DIR] [--work DIR] [--max-rss-mib 512] [--client-kills 3]
      --rate         the total recording rate; otherwise --fraction of endToEndEventsPerSecond in the
                     JSON `tapwire-bench ingest --json FILE` wrote (make soak runs the bench first)
      --bin          where tapwire, tapwire-client-harness and tapwire-bench are (default: next to
                     this program)
      --work         scratch directory (default: a new one under /tmp, removed when the soak passes)
      --max-rss-mib  the collector's documented memory cap; the soak fails if its peak RSS passes it
    Prints the figures and exits 1 if any of them is off.
    """

    static func parse(_ arguments: [String]) -> SoakOptions {
        var o = SoakOptions()
        var args = arguments
        func value(_ name: String) -> String {
            guard !args.isEmpty else { fail("\(name) needs a value\n\(usage)") }
            return args.removeFirst()
        }
        func number(_ name: String) -> Double {
            guard let n = Double(value(name)), n > 0 else { fail("\(name) needs a positive number") }
            return n
        }
        while !args.isEmpty {
            let name = args.removeFirst()
            switch name {
            case "--seconds": o.seconds = number(name)
            case "--clients": o.clients = max(1, Int(number(name)))
            case "--rate": o.rate = number(name)
            case "--bench-json": o.benchJSON = value(name)
            case "--fraction": o.fraction = number(name)
            case "--bin": o.binDirectory = value(name)
            case "--work": o.work = value(name)
            case "--max-rss-mib": o.maxRSSMiB = Int(number(name))
            case "--client-kills": o.clientKills = Int(value(name)) ?? 3
            case "-h", "--help": print(usage); exit(0)
            default: fail("unknown option \(name)\n\(usage)")
            }
        }
        if o.binDirectory.isEmpty {
            let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            o.binDirectory = (me as NSString).deletingLastPathComponent
        }
        return o
    }
}

let options = SoakOptions.parse(Array(CommandLine.arguments.dropFirst()))
let tapwire = options.binDirectory + "/tapwire"
let harness = options.binDirectory + "/tapwire-client-harness"
let bench = options.binDirectory + "/tapwire-bench"
for path in [tapwire, harness] where !FileManager.default.isExecutableFile(atPath: path) {
    fail("\(path) is not built (swift build builds it; --bin says where it is)")
}
let work = options.work.isEmpty ? "/tmp/tapwire-soak-\(getpid())" : options.work
try? FileManager.default.removeItem(atPath: work)
do {
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
} catch { fail("cannot make \(work): \(error)") }

let launched = Date()
/// When recording starts (after the bench): the fault schedule and the deadline count from here.
nonisolated(unsafe) var started = Date()
func elapsed() -> Double { Date().timeIntervalSince(started) }
func stamp() -> String { String(format: "%6.1fs", elapsed()) }

// MARK: the database

let postgres: EmbeddedPostgres
do {
    postgres = try EmbeddedPostgres(dataDirectory: work + "/pg", port: EmbeddedPostgres.freePort(), durable: true)
    try postgres.start()
    try postgres.createDatabase("soak")
} catch { fail("PostgreSQL: \(error)") }
let databaseURL = postgres.url(database: "soak")
cleanup.append { try? postgres.stop() }

func connect() throws -> PostgresConnection { try PostgresConnection(url: databaseURL, applicationName: "tapwire-soak") }

/// pg_ctl as the postgres user when we are root (the server refuses to run as root).
func pgctl(_ arguments: [String]) -> Bool {
    let command = postgres.binDirectory + "/pg_ctl"
    let result = geteuid() == 0
        ? try? Subprocess.run("/sbin/runuser", ["-u", "postgres", "--", command] + arguments, captureOutput: false)
        : try? Subprocess.run(command, arguments, captureOutput: false)
    return result?.status == 0
}

let appId: Int64
let writeKey: String
do {
    let setup = try connect()
    try Migrator().migrate(setup)
    let app = try AppStore().createApp(named: "soak", on: setup)
    appId = app.appId
    writeKey = app.writeKey.text
    setup.close()
} catch { fail("setting up the database: \(error)") }

// MARK: the target rate

var peakRate: Double?
if options.rate == nil {
    let file = options.benchJSON ?? work + "/bench.json"
    if !FileManager.default.fileExists(atPath: file) {
        guard FileManager.default.isExecutableFile(atPath: bench) else {
            fail("\(bench) is not built (swift build builds it; --bin says where it is; --rate skips the bench)")
        }
        say("no bench figures; running `tapwire-bench ingest` (200 batches × 500) for the peak throughput")
        let run = try? Subprocess.run(bench, ["ingest", "--database-url", postgres.url(), "--batches", "200", "--json", file,
                                              "--tapwire", tapwire])
        if run?.status != 0 { fail("the bench failed: \(run?.output.suffix(500) ?? "")") }
    }
    guard let data = FileManager.default.contents(atPath: file), let json = try? JSONParser().parse([UInt8](data)),
          let peak = json["endToEndEventsPerSecond"]?.numberValue?.double, peak > 0 else {
        fail("\(file) has no endToEndEventsPerSecond (write it with `tapwire-bench ingest --json FILE`)")
    }
    peakRate = peak
}
let targetRate = options.rate ?? (peakRate! * options.fraction)

// MARK: the collector

/// The collector process, restartable on the same port; its peak RSS is sampled across restarts.
final class CollectorProcess: Sendable {
    let port = EmbeddedPostgres.freePort()
    private let child = Mutex<Subprocess.Child?>(nil)
    private let peak = Atomic<Int>(0)
    let restarts = Atomic<Int>(0)

    func start() {
        let log = work + "/collector.log"
        guard let spawned = try? Subprocess.spawn(tapwire, ["serve", "--database-url", databaseURL, "--port", String(port), "--log-level", "warning"],
                                                  logPath: log, environment: ["TAPWIRE_RATE_LIMIT": "0"]) else { fail("cannot start the collector") }
        child.withLock { $0 = spawned }
        for _ in 0..<300 {
            if HTTPClientConnection.answers200(port: port) { return }
            usleep(100_000)
        }
        fail("the collector did not come up; see \(log)")
    }

    func sample() {
        guard let current = child.withLock({ $0 }) else { return }
        let rss = current.peakResidentBytes
        if rss > peak.load(ordering: .relaxed) { peak.store(rss, ordering: .relaxed) }
    }

    func kill9() {
        sample()
        guard let current = child.withLock({ c -> Subprocess.Child? in defer { c = nil }; return c }) else { return }
        current.signal(SIGKILL)
        _ = current.wait(timeout: 10)
    }

    func stop() {
        sample()
        guard let current = child.withLock({ c -> Subprocess.Child? in defer { c = nil }; return c }) else { return }
        current.signal(SIGINT)
        if current.wait(timeout: 30) == nil { current.signal(SIGKILL); _ = current.wait(timeout: 5) }
    }

    var peakRSS: Int { peak.load(ordering: .relaxed) }
}

let collector = CollectorProcess()
cleanup.append { collector.kill9() }
collector.start()
let endpoint = "http://127.0.0.1:\(collector.port)"
let sampler = Thread {
    while true {
        collector.sample()
        Thread.sleep(forTimeInterval: 0.25)
    }
}
sampler.start()

// MARK: the clients

/// What one harness run printed (its last line is a JSON object of counts).
struct HarnessReport {
    var recorded = 0, accepted = 0, duplicates = 0, rejected = 0, remaining = 0, dropped = 0
    init() {}
    init?(output: String) {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let json = try? JSONParser().parse(String(line)) else { return nil }
        func n(_ key: String) -> Int { Int(json[key]?.numberValue?.integer ?? 0) }
        recorded = n("recorded"); accepted = n("accepted"); duplicates = n("duplicates"); rejected = n("rejected")
        remaining = n("remaining"); dropped = n("dropped")
    }
}

/// One client: a queue directory and an id log, recorded into by successive harness processes
/// (each records a round of events and flushes as it goes), paced to its share of the rate.
final class ClientSlot: Sendable {
    let index: Int
    let queue: String
    let log: String
    let rate: Double
    private let current = Mutex<Subprocess.Child?>(nil)
    let rounds = Atomic<Int>(0)
    let killed = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    let failures = Atomic<Int>(0)

    init(index: Int, rate: Double) {
        self.index = index
        self.rate = rate
        queue = work + "/client-\(index)"
        log = work + "/client-\(index).ids"
    }

    /// Runs the harness once; nil if it could not start.
    func runHarness(_ arguments: [String], output: String) -> (status: Int32, report: HarnessReport?)? {
        try? FileManager.default.removeItem(atPath: output)
        guard let child = try? Subprocess.spawn(harness, ["--queue", queue, "--endpoint", endpoint, "--key", writeKey, "--log", log,
                                                          "--durability", "buffered", "--batch", "500"] + arguments, logPath: output)
        else { return nil }
        current.withLock { $0 = child }
        let status = child.wait(timeout: 600) ?? -1
        current.withLock { $0 = nil }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (status, HarnessReport(output: text))
    }

    func loop(until deadline: Date) {
        let roundEvents = max(200, Int(rate * 2))
        var seed = index * 100_000_000
        let begun = Date()
        var recorded = 0
        while Date() < deadline {
            guard let (status, report) = runHarness(["--record", String(roundEvents), "--flush-every", "500", "--seed", String(seed)],
                                                    output: queue + ".out") else {
                failures.add(1, ordering: .relaxed)
                Thread.sleep(forTimeInterval: 0.5)
                continue
            }
            rounds.add(1, ordering: .relaxed)
            seed += roundEvents
            recorded += roundEvents
            if status != 0, status != 128 + SIGKILL { failures.add(1, ordering: .relaxed) }
            if let report { rejected.add(report.rejected, ordering: .relaxed) }
            // Pace: this slot's events so far should have taken recorded / rate seconds.
            let due = begun.addingTimeInterval(Double(recorded) / rate)
            if due > Date(), due < deadline { Thread.sleep(until: due) }
        }
    }

    /// kill -9 of the harness process running now, if any.
    func killCurrent() -> Bool {
        guard let child = current.withLock({ $0 }) else { return false }
        child.signal(SIGKILL)
        killed.add(1, ordering: .relaxed)
        return true
    }
}

started = Date()
let perClient = targetRate / Double(options.clients)
let slots = (0..<options.clients).map { ClientSlot(index: $0, rate: perClient) }
let capped = ClientSlot(index: options.clients, rate: 1)
let deadline = started.addingTimeInterval(options.seconds)
say(String(format: "%d clients at %.0f events/s in total%@ for %.0f s; collector on %@; PostgreSQL on port %d; work in %@",
           options.clients, targetRate, peakRate.map { String(format: " (%.0f%% of the bench peak %.0f events/s)", options.fraction * 100, $0) } ?? "",
           options.seconds, endpoint, postgres.port, work))
let clientsDone = DispatchGroup()
for slot in slots {
    clientsDone.enter()
    Thread { slot.loop(until: deadline); clientsDone.leave() }.start()
}

// MARK: the faults

struct Fault {
    var at: Double
    var name: String
    var run: () -> String
}

var faultLog: [String] = []
/// Faults of the schedule that could not be put in place: the run did not test what it says, so
/// it fails rather than passing on a shorter schedule.
var faultsNotInjected: [String] = []

/// A connection for a fault, retried: a loaded machine can take longer than one connect timeout
/// to fork a backend.
func connectForFault(attempts: Int = 4) -> PostgresConnection? {
    for attempt in 1...attempts {
        if let connection = try? connect() { return connection }
        if attempt < attempts { Thread.sleep(forTimeInterval: 0.5) }
    }
    return nil
}
func writerBackends() -> [Int32] {
    guard let c = try? connect() else { return [] }
    defer { c.close() }
    return (try? c.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'tapwire-writer'").rows.compactMap { $0[0].flatMap { Int32($0) } }) ?? []
}

let T = options.seconds
var faults: [Fault] = [
    Fault(at: 0.10 * T, name: "slow database (pg_sleep(0.25) before every id claim)") {
        let window = max(3, 0.08 * T)
        guard let c = connectForFault() else {
            faultsNotInjected.append("slow database: could not connect to PostgreSQL to install it")
            return "NOT INJECTED: could not connect"
        }
        do { try c.executeScript(SoakSQL.slowInstall) } catch {
            faultsNotInjected.append("slow database: the install failed (\(error))")
            return "NOT INJECTED: install failed: \(error)"
        }
        Thread.sleep(forTimeInterval: window)
        _ = try? c.executeScript(SoakSQL.slowRemove)
        c.close()
        return String(format: "for %.0f s", window)
    },
    Fault(at: 0.22 * T, name: "PostgreSQL stopped (immediate, as in a crash) and restarted") {
        let down = max(3, 0.04 * T)
        let stopped = pgctl(["-D", postgres.dataDirectory, "-m", "immediate", "-w", "stop"])
        Thread.sleep(forTimeInterval: down)
        do { try postgres.start() } catch { return "restart failed: \(error)" }
        return String(format: "down %.0f s%@", down, stopped ? "" : " (stop reported an error)")
    },
    Fault(at: 0.38 * T, name: "collector killed with kill -9 and restarted") {
        collector.kill9()
        Thread.sleep(forTimeInterval: 2)
        collector.start()
        collector.restarts.add(1, ordering: .relaxed)
        return "down 2 s, restarted on the same port"
    },
    Fault(at: 0.50 * T, name: "writer backends paused (SIGSTOP) and resumed") {
        let pids = writerBackends()
        let pause = max(3, 0.03 * T)
        for pid in pids { kill(pid, SIGSTOP) }
        Thread.sleep(forTimeInterval: pause)
        for pid in pids { kill(pid, SIGCONT) }
        return String(format: "%d backends for %.0f s", pids.count, pause)
    },
    Fault(at: 0.60 * T, name: "SDK queue filled to its cap (a client recording offline)") {
        // 40,000 events recorded without flushing: far more than the 8 MiB queue holds, so the
        // oldest are dropped and counted; this queue is drained with the others at the end.
        let result = capped.runHarness(["--record", "40000", "--flush-every", "0", "--seed", "900000000"], output: capped.queue + ".out")
        return "recorded 40000 into one queue, \(result?.report?.dropped ?? -1) dropped by the cap"
    },
]
let killTimes = (0..<options.clientKills).map { 0.3 * T + Double($0) * 0.5 * T / Double(max(1, options.clientKills)) }
for (i, at) in killTimes.enumerated() {
    faults.append(Fault(at: at, name: "client killed with kill -9 (\(i + 1) of \(options.clientKills))") {
        let slot = slots[i % slots.count]
        for _ in 0..<50 {
            if slot.killCurrent() { return "client \(slot.index)'s harness, mid-round; its next round reopens the queue" }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return "no harness was running"
    })
}
faults.sort { $0.at < $1.at }
for fault in faults {
    let wait = fault.at - elapsed()
    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    say("\(stamp()) fault: \(fault.name)")
    let outcome = fault.run()
    faultLog.append("\(fault.name): \(outcome)")
    say("\(stamp())        \(outcome)")
}

clientsDone.wait()
say("\(stamp()) recording stopped after \(slots.reduce(0) { $0 + $1.rounds.load(ordering: .relaxed) }) rounds; draining every queue")

// MARK: drain and check

var droppedBy: [Int: Int] = [:]
var rejectedBy: [Int: Int] = [:]
var remaining = 0
var drainFailures: [String] = []
for slot in slots + [capped] {
    guard let (status, report) = slot.runHarness(["--drain", "--timeout", "120"], output: slot.queue + ".drain"), let report else {
        drainFailures.append("client \(slot.index): the drain did not run")
        continue
    }
    // The queue's drop count is kept across processes (in its head file): the drain's is the total.
    droppedBy[slot.index] = report.dropped
    rejectedBy[slot.index] = slot.rejected.load(ordering: .relaxed) + report.rejected
    remaining += report.remaining
    if status != 0 { drainFailures.append("client \(slot.index): drain exited \(status) with \(report.remaining) left") }
}
collector.stop()
let dropped = droppedBy.values.reduce(0, +)
let rejectedTotal = rejectedBy.values.reduce(0, +)

func readIds(_ path: String) -> [String] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).filter { $0.count == 36 }
}

var recordedIds = Set<String>()
var recordedLines = 0
var idsBy: [Int: [String]] = [:]
for slot in slots + [capped] {
    let ids = readIds(slot.log)
    idsBy[slot.index] = ids
    recordedLines += ids.count
    recordedIds.formUnion(ids)
}
let cappedIds = idsBy[capped.index] ?? []

let check: PostgresConnection
do { check = try connect() } catch { fail("cannot connect for the checks: \(error)") }
// The checker's own test: TAPWIRE_SOAK_SABOTAGE=N loses N acknowledged events (and, with
// "dup", stores one twice) behind the collector's back; the soak must then fail.
if let sabotage = ProcessInfo.processInfo.environment["TAPWIRE_SOAK_SABOTAGE"] {
    let lose = Int(sabotage.prefix { $0.isNumber }) ?? 0
    _ = try? check.query(SoakSQL.sabotageDelete, [String(appId), String(lose)])
    if sabotage.hasSuffix("dup") {
        _ = try? check.query(SoakSQL.sabotageDuplicate, [String(appId)])
    }
    say("sabotage: deleted \(lose) stored events\(sabotage.hasSuffix("dup") ? " and stored one twice" : "")")
}
let storedRows = (try? check.query(SoakSQL.storedIds, [String(appId)]).rows.compactMap { $0[0] }) ?? []
let stored = Set(storedRows)
let integrity = (try? check.query(SoakSQL.integrity, [String(appId)]).rows.first) ?? []
let orphanClaims = Int(integrity.count > 2 ? integrity[2] ?? "-1" : "-1") ?? -1
let missing = recordedIds.subtracting(stored)
let unlogged = stored.subtracting(recordedIds)
let duplicatesStored = storedRows.count - stored.count
// The capped queue drops oldest first: what is missing of it must be exactly its first ids.
let cappedMissing = cappedIds.filter { !stored.contains($0) }
let cappedPrefixOK = Set(cappedMissing) == Set(cappedIds.prefix(cappedMissing.count))

// The rollups as the group commits left them (their pending deltas folded, as the collector
// does every second), against the SQL recomputation from raw events.
let folded = (try? RollupStore().fold(on: check)) != nil
let before = (try? check.query(SoakSQL.rollupsDigest, [String(appId)]).rows.first) ?? []
let usageDiff = (try? check.query(SoakSQL.mismatchUsageDiff, [String(appId)]).rows.first) ?? []
let rebuild = try? Subprocess.run(tapwire, ["rollups", "rebuild", "--app", "soak", "--database-url", databaseURL])
let after = (try? check.query(SoakSQL.rollupsDigest, [String(appId)]).rows.first) ?? []
check.close()
let rollupsOK = folded && rebuild?.status == 0 && !before.isEmpty && before == after && (before.first ?? nil)?.hasPrefix("0:") == false
let usageOK = usageDiff.count == 2 && usageDiff.allSatisfy { $0 == "0" }

// MARK: the figures

let kills = slots.reduce(0) { $0 + $1.killed.load(ordering: .relaxed) }
let recordingSeconds = options.seconds
let achieved = Double(recordedLines - cappedIds.count) / recordingSeconds
let peakMiB = Double(collector.peakRSS) / 1_048_576
var problems: [String] = []
// Per client: every recorded event not stored must be one its SDK dropped (queue cap, oldest
// first) or the collector rejected. A drop can also hit an event the collector had stored when
// its 200 never reached the client (the client or the collector killed mid-request, PostgreSQL
// crashed mid-commit): each such fault costs at most the one batch (500) a client has in flight.
let answerLosingFaults = collector.restarts.load(ordering: .relaxed) + 1 // the collector kill, the PostgreSQL crash
var storedAnywayTotal = 0
var perClientLines: [String] = []
for slot in slots + [capped] {
    let ids = idsBy[slot.index] ?? []
    let lost = ids.filter { !stored.contains($0) }.count
    let reported = (droppedBy[slot.index] ?? 0) + (rejectedBy[slot.index] ?? 0)
    let storedAnyway = reported - lost
    storedAnywayTotal += max(0, storedAnyway)
    let bound = slot === capped ? 0 : (slot.killed.load(ordering: .relaxed) + answerLosingFaults) * 500
    perClientLines.append("client \(slot.index)\(slot === capped ? " (capped)" : ""): recorded \(ids.count), not stored \(lost), SDK dropped \(droppedBy[slot.index] ?? 0), rejected \(rejectedBy[slot.index] ?? 0), dropped after being stored \(storedAnyway)")
    if lost > reported {
        problems.append("client \(slot.index): \(lost - reported) recorded events are lost: not stored, and neither dropped nor rejected by the SDK")
    } else if storedAnyway > bound {
        problems.append("client \(slot.index): the SDK reported \(storedAnyway) more drops than events missing, over the \(bound) its faults explain")
    }
}
if !cappedPrefixOK { problems.append("the capped queue lost events other than its oldest") }
if duplicatesStored != 0 { problems.append("\(duplicatesStored) duplicate rows stored") }
if orphanClaims != 0 { problems.append("\(orphanClaims) dedup claims have no event row") }
if unlogged.count > kills { problems.append("\(unlogged.count) stored events are in no client's log (at most one per client kill, \(kills), can be)") }
if remaining != 0 { problems.append("\(remaining) events still queued after the drain") }
if !rollupsOK { problems.append("the rollups differ from a rebuild from raw events (before \(before), after \(after), rebuild \(rebuild?.status ?? -1))") }
if !usageOK { problems.append("the mismatch usage rollups differ from the raw events (\(usageDiff))") }
if peakMiB > Double(options.maxRSSMiB) { problems.append(String(format: "collector peak RSS %.0f MiB is over the %d MiB cap", peakMiB, options.maxRSSMiB)) }
problems += drainFailures
problems += faultsNotInjected.map { "a fault of the schedule was not injected: \($0)" }

print("")
print("== soak figures (\(String(format: "%.0f", Date().timeIntervalSince(launched))) s in all)")
print(String(format: "rate:               %.0f events/s recorded on average (target %.0f%@)", achieved, targetRate,
             peakRate.map { String(format: ", %.0f%% of the bench peak %.0f", achieved / $0 * 100, $0) } ?? ""))
print("events recorded:    \(recordedLines) (distinct ids \(recordedIds.count), in \(options.clients + 1) client logs)")
print("events stored:      \(stored.count) of them (\(storedRows.count) rows)")
print("events dropped:     \(missing.count) recorded events not stored; the SDKs reported \(dropped) dropped at their queue caps and \(rejectedTotal) rejected (\(storedAnywayTotal) of those drops were of events already stored, whose 200 a kill or crash cut off)")
for line in perClientLines { print("  " + line) }
print("duplicates stored:  \(duplicatesStored)")
print("orphan dedup claims: \(orphanClaims)")
print("stored, not logged: \(unlogged.count) (a kill between record and log write leaves at most one per kill)")
print("rollups vs rebuild: \(rollupsOK ? "identical" : "DIFFERENT") (rows:digest \(before.compactMap { $0?.split(separator: ":").first }.joined(separator: "/")))")
print("mismatch usage vs raw: \(usageOK ? "identical" : "DIFFERENT \(usageDiff)")")
print(String(format: "collector peak RSS: %.1f MiB (cap %d MiB), restarts %d", peakMiB, options.maxRSSMiB, collector.restarts.load(ordering: .relaxed)))
print("client kills:       \(kills); harness runs: \(slots.reduce(0) { $0 + $1.rounds.load(ordering: .relaxed) }); failed to start: \(slots.reduce(0) { $0 + $1.failures.load(ordering: .relaxed) })")
print("faults injected:")
for line in faultLog { print("  - " + line) }
if problems.isEmpty {
    print("soak: PASS")
    try? postgres.removeData()
    try? FileManager.default.removeItem(atPath: work)
    exit(0)
}
print("soak: FAIL")
for problem in problems { print("  - " + problem) }
try? postgres.stop()
print("work directory kept: \(work) (the database: \(postgres.binDirectory)/pg_ctl -D \(postgres.dataDirectory) start)")
exit(1)
