import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireStore
import TapwireTestSupport

/// A day's arrays travel to the fold trimmed (`RollupDeltaRows.trimmedRunning`, `trimmedHours`)
/// and the database puts them back (tapwire_running_slots, tapwire_hour_slots in migration 0150):
/// over random days, sparse and full, zero and not, what comes back is what was sent.
@Suite struct TrimmedSlotsTests {
    @Test func runningSumsComeBackWhole() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        var rng = SeededGenerator(seed: 97)
        for round in 0..<200 {
            // Quarter-hour counts with a few filled quarters (a fold's minutes), or many (a rebuilt day), or none.
            let filled = [0, 1, 2, 5, 96].randomElement(using: &rng)!
            var pair = [[Int64](repeating: 0, count: 96), [Int64](repeating: 0, count: 96)]
            for _ in 0..<filled {
                let quarter = Int.random(in: 0..<96, using: &rng)
                pair[0][quarter] += Int64.random(in: 0...5, using: &rng)
                pair[1][quarter] += Int64.random(in: 0...2, using: &rng)
            }
            let running = pair.map { counts in counts.reduce(into: [Int64(0)]) { $0.append($0.last! + $1) } }
            let trimmed = RollupDeltaRows.trimmedRunning(running)
            #expect(trimmed.bodies.allSatisfy { !$0.isEmpty && $0.count <= 97 })
            for (index, whole) in running.enumerated() {
                let back = try connection.query("SELECT tapwire_running_slots($1::smallint, $2::bigint[])::text",
                                                [String(trimmed.lead), Self.literal(trimmed.bodies[index])]).scalar
                #expect(back == Self.literal(whole), "round \(round), array \(index): lead \(trimmed.lead), \(trimmed.bodies[index])")
            }
        }
    }

    @Test func hourCountsComeBackWhole() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        var rng = SeededGenerator(seed: 24)
        for round in 0..<200 {
            var hours = [[Int64]](repeating: [Int64](repeating: 0, count: 24), count: 4)
            for _ in 0..<[0, 1, 3, 24].randomElement(using: &rng)! {
                let hour = Int.random(in: 0..<24, using: &rng)
                hours[Int.random(in: 0..<4, using: &rng)][hour] += Int64.random(in: 1...9, using: &rng)
            }
            let trimmed = RollupDeltaRows.trimmedHours(hours)
            #expect(trimmed.bodies.allSatisfy { !$0.isEmpty })
            for (index, whole) in hours.enumerated() {
                let back = try connection.query("SELECT tapwire_hour_slots($1::smallint, $2::bigint[])::text",
                                                [String(trimmed.lead), Self.literal(trimmed.bodies[index])]).scalar
                #expect(back == Self.literal(whole), "round \(round), array \(index)")
            }
        }
    }

    static func literal(_ values: [Int64]) -> String { "{" + values.map(String.init).joined(separator: ",") + "}" }
}
