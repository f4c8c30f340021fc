import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireStore
import TapwireTestSupport

/// tapwire_uplift_terms (migration 0150, the stored form the fold keeps exactly) against
/// `UpliftDay.add` (the in-memory form, `MantelHaenszelSums.add`'s formulas on the used cells):
/// over random strata, sparse and large, with cells unused for no delivery or more engaged than
/// delivered, the sums agree to rounding and every count exactly.
@Suite struct UpliftTermsTests {
    @Test func theStoredTermsAreTheInMemoryOnes() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        var rng = SeededGenerator(seed: 1985)
        for round in 0..<20 {
            var strata: [(rich: (delivered: Int, engaged: Int), text: (delivered: Int, engaged: Int))] = []
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                func cell() -> (delivered: Int, engaged: Int) {
                    let scale = [0, 1, 3, 40, 5_000, 2_000_000].randomElement(using: &rng)!
                    let delivered = Int.random(in: 0...scale, using: &rng)
                    let engaged = Int.random(in: 0...(delivered + (Int.random(in: 0..<8, using: &rng) == 0 ? 5 : 0)), using: &rng)
                    return (delivered, engaged)
                }
                strata.append((cell(), cell()))
            }
            var swift = UpliftDay()
            for s in strata { swift.add(rich: s.rich, textOnly: s.text) }
            func array(_ values: [Int]) -> String { "{" + values.map(String.init).joined(separator: ",") + "}" }
            let row = try #require(try connection.query("""
                SELECT sum(t.strata), sum(t.excluded_delivered), sum(t.weights)::text, sum(t.numerator)::text, sum(t.p)::text, sum(t.q)::text,
                       sum(t.null_sum)::text, sum(t.deviation)::text, sum(t.used_rich_delivered), sum(t.used_rich_engaged),
                       sum(t.used_text_delivered), sum(t.used_text_engaged), sum(t.both_rich_delivered), sum(t.both_rich_engaged),
                       sum(t.both_text_delivered), sum(t.both_text_engaged), sum(t.not_meaningful_delivered), sum(t.engaged_without_deliveries)
                FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[]) AS c(rd, re, td, te)
                CROSS JOIN LATERAL tapwire_uplift_terms(c.rd, c.re, c.td, c.te) t
                """, [array(strata.map(\.rich.delivered)), array(strata.map(\.rich.engaged)), array(strata.map(\.text.delivered)),
                      array(strata.map(\.text.engaged))]).rows.first)
            let int = { (i: Int) in Int(row[i] ?? "") ?? -1 }, real = { (i: Int) in Double(row[i] ?? "") ?? .nan }
            #expect(int(0) == swift.sums.strata && int(1) == swift.sums.excludedTrials, "round \(round): strata")
            #expect([int(8), int(9), int(10), int(11)] == [swift.rich.delivered, swift.rich.engaged, swift.textOnly.delivered, swift.textOnly.engaged])
            #expect([int(12), int(13), int(14), int(15)] == [swift.bothSides.n1, swift.bothSides.x1, swift.bothSides.n2, swift.bothSides.x2])
            #expect(int(16) == swift.notMeaningfulDelivered && int(17) == swift.engagedWithoutDeliveries)
            func near(_ sql: Double, _ swift: Double) -> Bool { abs(sql - swift) <= 1e-9 * max(1, abs(sql), abs(swift)) }
            let sums = swift.sums
            #expect(near(real(2), sums.weights) && near(real(3), sums.numerator) && near(real(4), sums.p), "round \(round): \(row)")
            #expect(near(real(5), sums.q) && near(real(6), sums.nullSum) && near(real(7), sums.deviation), "round \(round): \(row)")
        }
    }
}
