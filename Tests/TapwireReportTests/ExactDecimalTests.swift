import Testing
import TapwireStatistics
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// `ExactDecimal.double` gives the double `Double(String)` gives, bit for bit: over random decimals
/// of every length and number of places the fast path takes, over exact ties between two doubles
/// (where rounding to even decides) and the decimals one unit in the last place either side of
/// them, and over the inputs it leaves to `Double(String)`.
@Suite struct ExactDecimalTests {
    static func same(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = Double(text)
        let actual = ExactDecimal.double(text)
        #expect(actual?.bitPattern == expected?.bitPattern, "\(text): \(String(describing: actual)) against \(String(describing: expected))",
                sourceLocation: sourceLocation)
    }

    /// `integer` / 10^places written as PostgreSQL writes a numeric of that scale.
    static func decimal(_ integer: String, places: Int, negative: Bool) -> String {
        var text = integer
        if places > 0 {
            if text.count <= places { text = String(repeating: "0", count: places - text.count + 1) + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -places))
        }
        return (negative ? "-" : "") + text
    }

    @Test func theUpliftSumsTakeTheFastPath() {
        #expect(ExactDecimal.fast("123456.78901234567890123456") != nil)
        #expect(ExactDecimal.fast("-0.00000000000000000001") != nil)
        #expect(ExactDecimal.fast("0") != nil)
        #expect(ExactDecimal.fast("1e5") == nil)
        #expect(ExactDecimal.fast("0.0000000000000000000000000001") == nil)  // 28 places
    }

    @Test func edgesAndFallbacks() {
        for text in ["0", "-0", "0.00000000000000000000", "-0.00000000000000000000", "1", "-1", "+2.5", "007.50",
                     "0.00000000000000000001", "-0.00000000000000000001", "0.000000000000000000000000001",
                     "99999999999999999999999999999999999999", "9999999999999999999999999999.9999999999",
                     "99999999999.999999999999999999999999999", "9007199254740993", "9007199254740992.5",
                     "9007199254740993.00000000000000000001", "0.1", "0.2", "0.3", "1.7976931348623157",
                     "123456789012345678901234567890123456789", "1.0000000000000000000000000000000000001",
                     "", "-", ".", ".5", "5.", "1.2.3", "1e5", "1E-5", "NaN", "-NaN", "inf", "Infinity", " 1", "1 ", "0x10", "1_0", "--1"] {
            Self.same(text)
        }
    }

    @Test func randomDecimals() {
        var random = SeededGenerator(seed: 33)
        for _ in 0..<200_000 {
            let length = Int.random(in: 1...38, using: &random)
            var integer = String(Int.random(in: 1...9, using: &random))
            for _ in 1..<length { integer.append(Character(String(Int.random(in: 0...9, using: &random)))) }
            let places = Int.random(in: 0...27, using: &random)
            var text = Self.decimal(integer, places: places, negative: Bool.random(using: &random))
            if Int.random(in: 0..<20, using: &random) == 0 { text = "00" + text.drop(while: { $0 == "-" }) }
            Self.same(text)
        }
    }

    /// The exact midpoint between a double and the next one up, written out in decimal, and its
    /// neighbours one unit in the last place below and above.
    @Test func tiesAndTheirNeighbours() {
        var random = SeededGenerator(seed: 3333)
        for _ in 0..<50_000 {
            let binade = Int.random(in: 26...60, using: &random)  // the double lies in [2^binade, 2^(binade+1))
            let significand = (UInt64(1) << 52) | (random.next() & ((UInt64(1) << 52) - 1))
            let odd = 2 * significand + 1  // the midpoint is odd · 2^(binade - 53)
            let (high, low): (UInt64, UInt64)
            let places: Int
            if binade >= 53 {
                (high, low) = (0, odd << (binade - 53))
                places = 0
            } else {
                places = 53 - binade
                (high, low) = odd.multipliedFullWidth(by: ExactDecimal.powersOfFive[places])
            }
            let negative = Bool.random(using: &random)
            for delta in [0, -1, 1] as [Int64] {
                var (h, l) = (high, low)
                if delta == 1 {
                    let (sum, carry) = l.addingReportingOverflow(1)
                    (h, l) = (h + (carry ? 1 : 0), sum)
                } else if delta == -1 {
                    let (difference, borrow) = l.subtractingReportingOverflow(1)
                    (h, l) = (h - (borrow ? 1 : 0), difference)
                }
                let text = Self.decimal(Int128Digits.decimal(h, l), places: places, negative: negative)
                Self.same(text)
                // The same value with its scale widened by trailing zeros, as a sum of another scale prints it.
                if places > 0 && places + 2 <= 27 { Self.same(text + "00") }
            }
        }
    }

    /// A numeric read in binary gives the double its text gives, bit for bit: random sums of the
    /// uplift's shape (about 25 digits, 20 places) and values of every size and scale (a fixed
    /// sequence: the same values every run).
    @Test func aNumericReadInBinaryGivesTheDoubleOfItsText() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let result = try connection.queryBinary("""
            SELECT v, v::text AS t FROM (
                SELECT round(((n * 7919) % 100003 - 50001)::numeric * 10::numeric ^ (n % 12) / 3, 20) AS v FROM generate_series(1, 4000) n
                UNION ALL SELECT round(((n * 104729) % 1000003 - 500001)::numeric / 7 * 10::numeric ^ (n % 80 - 40), (n % 50)::int)
                    FROM generate_series(1, 4000) n
                UNION ALL SELECT unnest('{0,-1,1e38,99999999999999999999999999999999999999,1e-27,1e-28,0.5,123456789.123456789}'::numeric[])
            ) s
            """)
        #expect(result.rowCount == 8_008)
        for row in 0..<result.rowCount {
            let numeric = try #require(try result.numeric(row, 0))
            let text = try #require(try result.text(row, 1))
            #expect(ExactDecimal.double(numeric).bitPattern == Double(text)?.bitPattern, "\(text)")
            // As a report's row reads it: in place, without the digits array.
            let real = try PostgresReportReader.BinaryRow(result: result, row: row).real(0)
            #expect(real.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }
}
