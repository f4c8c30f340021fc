import Testing
@testable import TapwireStore
import TapwireTestSupport

/// The text[] literals parameters travel in (`PostgresValue.textArray`, written byte by byte:
/// docs/reports.md, "Issue 33's ratio at 2M events"): PostgreSQL, not a second encoder, is the
/// judge that they read back as the same elements.
@Suite struct PostgresValueTests {
    static let alphabet: [String] = ["a", "Z", "0", ".", " ", ",", "{", "}", "\"", "\\", "'", "é", "✓", "日", "🙂", "\u{301}", "\t"]

    /// Random lists (a fixed linear congruential sequence: the same lists every run).
    static func lists(count: Int) -> [[String?]] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { _ in
            (0..<next(6)).map { _ -> String? in
                if next(8) == 0 { return nil }
                return (0..<next(9)).map { _ in alphabet[next(alphabet.count)] }.joined()
            }
        }
    }

    @Test func literalsQuoteEveryElementAndEscapeQuotesAndBackslashes() {
        #expect(PostgresValue.textArray([String?]()) == "{}")
        #expect(PostgresValue.textArray(["", nil, "a\"b\\c", "✓,{}"]) == #"{"",NULL,"a\"b\\c","✓,{}"}"#)
        #expect(PostgresValue.textArray(["6.3.5", "6.3.6"]) == #"{"6.3.5","6.3.6"}"#)
    }

    @Test func postgreSQLReadsBackTheSameElements() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        for list in Self.lists(count: 2_000) + [["", nil, "a\"b\\c", "✓,{}", "NULL"]] {
            let rows = try connection.query("SELECT e FROM unnest($1::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n",
                                            [PostgresValue.textArray(list)]).rows.map { $0[0] }
            #expect(rows == list, "\(list)")
        }
    }
}
