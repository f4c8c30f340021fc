import Foundation
import TapwireSoakCore
import TapwireStore
import TapwireRollupOracle
#if canImport(Glibc)
import Glibc
#endif

/// The effectful side of the soak: starts PostgreSQL and the collector, runs the clients and the
/// fault schedule, drains every queue and queries the database, and hands back the facts the
/// verdict is computed from. Gives up through `teardown` (exit 2) when the setup cannot be done.
struct SoakDriver {
    let options: SoakOptions
    let teardown: Teardown

    var tapwire: String { options.binDirectory + "/tapwire" }
    var harness: String { options.binDirectory + "/tapwire-client-harness" }
    var bench: String { options.binDirectory + "/tapwire-bench" }

    /// What a finished run leaves: its facts, and the database and directory the end keeps or removes.
    struct Finished {
        let facts: SoakFacts
        let database: SoakDatabase
        let work: String
    }

    func run() -> Finished {
        for path in [tapwire, harness] where !FileManager.default.isExecutableFile(atPath: path) {
            teardown.fail("\(path) is not built (swift build builds it; --bin says where it is)")
        }
        let work = options.work.isEmpty ? "/tmp/tapwire-soak-\(getpid())" : options.work
        try? FileManager.default.removeItem(atPath: work)
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch { teardown.fail("cannot make \(work): \(error)") }
        let launched = Date()

        let database: SoakDatabase
        do { database = try SoakDatabase.start(in: work) } catch { teardown.fail("PostgreSQL: \(error)") }
        teardown.add { try? database.postgres.stop() }
        let app = createApp(database)
        let benchPeak = options.rate == nil ? measureBenchPeak(database, work: work) : nil
        let targetRate = SoakRate.target(options, benchPeak: benchPeak)

        let collector = CollectorProcess(tapwire: tapwire, databaseURL: database.url, work: work, teardown: teardown)
        teardown.add { collector.kill9() }
        collector.start()
        collector.startSampling()

        // Recording: the clients in threads, the faults on this one.
        let clock = RecordingClock()
        let command = HarnessCommand(executable: harness, endpoint: collector.endpoint, writeKey: app.writeKey)
        let perClient = targetRate / Double(options.clients)
        let slots = (0..<options.clients).map { ClientSlot(index: $0, rate: perClient, work: work, harness: command) }
        let capped = ClientSlot(index: options.clients, rate: 1, work: work, harness: command)
        let deadline = clock.started.addingTimeInterval(options.seconds)
        say(String(format: "%d clients at %.0f events/s in total%@ for %.0f s; collector on %@; PostgreSQL on port %d; work in %@",
                   options.clients, targetRate, benchPeak.map { String(format: " (%.0f%% of the bench peak %.0f events/s)", options.fraction * 100, $0) } ?? "",
                   options.seconds, collector.endpoint, database.postgres.port, work))
        let clientsDone = DispatchGroup()
        for slot in slots {
            clientsDone.enter()
            Thread { slot.loop(until: deadline); clientsDone.leave() }.start()
        }
        let schedule = FaultSchedule(seconds: options.seconds, clients: options.clients, clientKills: options.clientKills)
        let faults = FaultInjector(database: database, collector: collector, slots: slots, capped: capped).run(schedule, clock: clock)
        clientsDone.wait()
        say("\(clock.stamp()) recording stopped after \(slots.reduce(0) { $0 + $1.rounds.load(ordering: .relaxed) }) rounds; draining every queue")

        // Drain and check.
        var clients: [SoakFacts.Client] = []
        var remaining = 0
        var drainFailures: [String] = []
        for slot in slots + [capped] {
            var dropped = 0, rejected = 0
            if let (status, report) = slot.runHarness(["--drain", "--timeout", "120"], output: slot.queue + ".drain"), let report {
                // The queue's drop count is kept across processes (in its head file): the drain's is the total.
                dropped = report.dropped
                rejected = slot.rejected.load(ordering: .relaxed) + report.rejected
                remaining += report.remaining
                if status != 0 { drainFailures.append("client \(slot.index): drain exited \(status) with \(report.remaining) left") }
            } else {
                drainFailures.append("client \(slot.index): the drain did not run")
            }
            clients.append(SoakFacts.Client(index: slot.index, isCapped: slot === capped, ids: [], dropped: dropped, rejected: rejected,
                                            killed: slot.killed.load(ordering: .relaxed), rounds: slot.rounds.load(ordering: .relaxed),
                                            startFailures: slot.failures.load(ordering: .relaxed)))
        }
        collector.stop()
        for (i, slot) in (slots + [capped]).enumerated() { clients[i].ids = slot.loggedIds() }

        let checks = check(database, appId: app.appId)
        let facts = SoakFacts(
            totalSeconds: Date().timeIntervalSince(launched), recordingSeconds: options.seconds, targetRate: targetRate, benchPeak: benchPeak,
            clients: clients, storedRows: checks.storedRows, integrityRow: checks.integrityRow, remaining: remaining, drainFailures: drainFailures,
            rollupsFolded: checks.folded, rebuildStatus: checks.rebuildStatus, digestBefore: checks.before, digestAfter: checks.after,
            digestOracle: checks.oracle,
            usageDiff: checks.usageDiff, collectorPeakRSS: collector.peakRSS, collectorRestarts: collector.restarts.load(ordering: .relaxed),
            maxRSSMiB: options.maxRSSMiB, faultLog: faults.log, faultsNotInjected: faults.notInjected)
        return Finished(facts: facts, database: database, work: work)
    }

    /// The schema and the app the clients record into.
    private func createApp(_ database: SoakDatabase) -> (appId: Int64, writeKey: String) {
        do {
            let setup = try database.connect()
            try Migrator().migrate(setup)
            let app = try AppStore().createApp(named: "soak", on: setup)
            setup.close()
            return (app.appId, app.writeKey.text)
        } catch { teardown.fail("setting up the database: \(error)") }
    }

    /// The bench's end-to-end peak from `--bench-json`, or from a `tapwire-bench ingest` run now.
    private func measureBenchPeak(_ database: SoakDatabase, work: String) -> Double {
        let file = options.benchJSON ?? work + "/bench.json"
        if !FileManager.default.fileExists(atPath: file) {
            guard FileManager.default.isExecutableFile(atPath: bench) else {
                teardown.fail("\(bench) is not built (swift build builds it; --bin says where it is; --rate skips the bench)")
            }
            say("no bench figures; running `tapwire-bench ingest` (200 batches × 500) for the peak throughput")
            // Only the peak is used: the half-peak phase is kept to its shortest.
            let run = try? Subprocess.run(bench, ["ingest", "--database-url", database.postgres.url(), "--batches", "200", "--json", file,
                                                  "--half-peak-seconds", "1", "--tapwire", tapwire])
            if run?.status != 0 { teardown.fail("the bench failed: \(run?.output.suffix(500) ?? "")") }
        }
        guard let data = FileManager.default.contents(atPath: file), let peak = SoakRate.benchPeak(json: [UInt8](data)) else {
            teardown.fail("\(file) has no endToEndEventsPerSecond (write it with `tapwire-bench ingest --json FILE`)")
        }
        return peak
    }

    /// What the database says once every queue is drained and the collector stopped.
    private struct Checks {
        var storedRows: [String]
        var integrityRow: [String?]
        var folded: Bool
        var before: [String?]
        var usageDiff: [String?]
        var rebuildStatus: Int32?
        var after: [String?]
        var oracle: [String?]
    }

    private func check(_ database: SoakDatabase, appId: Int64) -> Checks {
        let check: PostgresConnection
        do { check = try database.connect() } catch { teardown.fail("cannot connect for the checks: \(error)") }
        let app = [String(appId)]
        // The checker's own test: TAPWIRE_SOAK_SABOTAGE=N loses N acknowledged events (and, with
        // "dup", stores one twice) behind the collector's back; the soak must then fail.
        if let sabotage = ProcessInfo.processInfo.environment["TAPWIRE_SOAK_SABOTAGE"] {
            let lose = Int(sabotage.prefix { $0.isNumber }) ?? 0
            _ = try? check.query(SoakSQL.sabotageDelete, [String(appId), String(lose)])
            if sabotage.hasSuffix("dup") {
                _ = try? check.query(SoakSQL.sabotageDuplicate, app)
            }
            say("sabotage: deleted \(lose) stored events\(sabotage.hasSuffix("dup") ? " and stored one twice" : "")")
        }
        let storedRows = (try? check.query(SoakSQL.storedIds, app).rows.compactMap { $0[0] }) ?? []
        let integrity = (try? check.query(SoakSQL.integrity, app).rows.first) ?? []
        // The rollups as the group commits left them (their pending deltas folded, as the collector
        // does every two seconds), against `tapwire rollups rebuild` (the same Swift aggregates,
        // from raw events) and against the SQL recomputation from raw events (the oracle).
        let folded = (try? RollupStore().fold(on: check)) != nil
        let before = (try? check.query(SoakSQL.rollupsDigest, app).rows.first) ?? []
        let usageDiff = (try? check.query(SoakSQL.mismatchUsageDiff, app).rows.first) ?? []
        let rebuild = try? Subprocess.run(tapwire, ["rollups", "rebuild", "--app", "soak", "--database-url", database.url])
        let after = (try? check.query(SoakSQL.rollupsDigest, app).rows.first) ?? []
        var oracle: [String?] = []
        if let range = try? RollupStore().eventHours(appId: appId, on: check),
           (try? RollupOracle.recompute(appId: appId, from: range.from, to: range.to, on: check)) != nil {
            oracle = (try? check.query(SoakSQL.rollupsDigest, app).rows.first) ?? []
        }
        check.close()
        return Checks(storedRows: storedRows, integrityRow: integrity, folded: folded, before: before, usageDiff: usageDiff,
                      rebuildStatus: rebuild?.status, after: after, oracle: oracle)
    }
}
