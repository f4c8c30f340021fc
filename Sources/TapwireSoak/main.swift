// tapwire-soak: `make soak`. A private PostgreSQL, the collector, and N client processes (the SDK's
// tapwire-client-harness) recording events at a target rate while faults are injected on a
// schedule; then every client is drained and each client's log of recorded ids is checked
// against the database: recorded = stored + dropped (as the SDK reported), no duplicates, no
// orphan dedup claims, rollups equal to a rebuild from raw. Loopback only; bounded in time.
//
// The options, the fault schedule and the verdict are values in TapwireSoakCore; the processes
// and the database are driven by `SoakDriver`. Exit 0: PASS; 1: FAIL; 2: the soak could not run.
import Foundation
import TapwireSoakCore

let teardown = Teardown()
let parsed: SoakOptions
do {
    parsed = try SoakOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch SoakOptions.ParseError.helpRequested {
    print(SoakOptions.usage)
    exit(0)
} catch {
    teardown.fail("\(error)")
}
let options = parsed.binDirectory.isEmpty ? {
    var resolved = parsed
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    resolved.binDirectory = (me as NSString).deletingLastPathComponent
    return resolved
}() : parsed

let finished = SoakDriver(options: options, teardown: teardown).run()
let verdict = SoakVerdict(finished.facts)
for line in verdict.lines { print(line) }
if verdict.passed {
    try? finished.database.postgres.removeData()
    try? FileManager.default.removeItem(atPath: finished.work)
    exit(0)
}
try? finished.database.postgres.stop()
print("work directory kept: \(finished.work) (the database: \(finished.database.postgres.binDirectory)/pg_ctl -D \(finished.database.postgres.dataDirectory) start)")
exit(1)
