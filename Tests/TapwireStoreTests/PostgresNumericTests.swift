import Testing
@testable import TapwireStore
import TapwireTestSupport

/// The binary result path (`PostgresConnection.queryBinary`, `BinaryQueryResult`) against a real
/// PostgreSQL: every `numeric` decoded from numeric_send's bytes prints as PostgreSQL prints it
/// (numeric_out), over random values of every size and scale, negatives, zeros and the cut-off
/// places of a computed scale; NaN and ±Infinity are refused; each other type reads back as sent.
@Suite struct PostgresNumericTests {
    /// Random numeric literals (a fixed linear congruential sequence: the same values every run):
    /// 0 to 60 integer digits, 0 to 45 places, leading and trailing zeros, either sign.
    static func literals(count: Int) -> [String] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        func digits(_ n: Int) -> String {
            String(decoding: (0..<n).map { _ in UInt8(ascii: "0") + UInt8(next(4) == 0 ? 0 : next(10)) }, as: UTF8.self)
        }
        return (0..<count).map { _ in
            let integer = [0, 1, 2, 4, 5, 8, 19, 20, 38, 60][next(10)], places = [0, 0, 1, 3, 4, 5, 20, 27, 28, 45][next(10)]
            let sign = next(2) == 0 ? "-" : ""
            return sign + (integer == 0 ? "0" : digits(integer)) + (places == 0 ? "" : "." + digits(places))
        }
    }

    static let edges = ["0", "-0", "0.000", "1", "-1", "9999", "10000", "0.0001", "0.00001", "12345.678900", "-0.5",
                        "99999999999999999999999999999999999999", "100000000000000000000000000000000000000",
                        "0.000000000000000000000000001", "1e-60", "1e100", "-123456789012345678901234567890.123456789"]

    @Test func everyNumericPrintsAsPostgreSQLPrintsIt() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        // The literals as typed, and computed values whose last group holds places past the scale.
        let values = Self.edges + Self.literals(count: 3_000)
        let result = try connection.queryBinary("""
            SELECT v, v::text AS t, d, d::text AS dt
            FROM (SELECT v::numeric AS v, round(v::numeric / 7, (n % 41)::int) AS d
                  FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n)) s
            """, [PostgresValue.textArray(values)])
        #expect(result.rowCount == values.count)
        var fast = 0
        for row in 0..<result.rowCount {
            for (value, text) in [(0, 1), (2, 3)] {
                let numeric = try #require(try result.numeric(row, value))
                let printed = try #require(try result.text(row, text))
                #expect(numeric.text == printed, "\(values[row])")
                // The scaled integer, where there is one, is the same digits.
                if let (high, low) = numeric.scaledInteger {
                    fast += 1
                    let unsigned = printed.hasPrefix("-") ? String(printed.dropFirst()) : printed
                    let expected = String(unsigned.filter { $0 != "." }.drop { $0 == "0" })
                    #expect(Int128Digits.decimal(high, low) == (expected.isEmpty ? "0" : expected), "\(printed)")
                }
            }
        }
        #expect(fast > 1_000)
    }

    /// The numerics read in place (`scaledNumeric`, no digits array) are the decoded ones' sign,
    /// places and scaled integer, over the same values; NaN and ±Infinity are refused there too.
    @Test func aNumericReadInPlaceIsTheDecodedOnesScaledInteger() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let values = Self.edges + Self.literals(count: 3_000)
        let result = try connection.queryBinary("""
            SELECT v, d, NULL::numeric AS missing
            FROM (SELECT v::numeric AS v, round(v::numeric / 7, (n % 41)::int) AS d
                  FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n)) s
            """, [PostgresValue.textArray(values)])
        var fitting = 0
        for row in 0..<result.rowCount {
            for column in 0..<2 {
                let numeric = try #require(try result.numeric(row, column))
                let scaled = try #require(try result.scaledNumeric(row, column))
                #expect(scaled.negative == numeric.negative && scaled.scale == numeric.scale, "\(numeric.text)")
                #expect(scaled.magnitude.map { [$0.high, $0.low] } == numeric.scaledInteger.map { [$0.high, $0.low] }, "\(numeric.text)")
                #expect(scaled.int64 == numeric.int64, "\(numeric.text)")
                if scaled.magnitude != nil { fitting += 1 }
            }
            #expect(try result.scaledNumeric(row, 2) == nil)
        }
        #expect(fitting > 1_000 && fitting < 2 * result.rowCount)
        let special = try connection.queryBinary("SELECT 'NaN'::numeric AS a, 'Infinity'::numeric AS b, '-Infinity'::numeric AS c, 1::bigint AS d")
        for column in 0..<3 {
            do throws(DatabaseError) {
                _ = try special.scaledNumeric(0, column)
                Issue.record("column \(column) read in place")
            } catch {
                #expect(error.code == .unexpectedResult)
                #expect(error.query == special.statement)
            }
        }
        #expect(throws: DatabaseError.self) { _ = try special.scaledNumeric(0, 3) }
    }

    /// Bytes that are not numeric_send's are refused in place as `init(binary:)` refuses them.
    @Test func malformedBytesAreRefusedInPlace() {
        for bytes: [UInt8] in [[0, 1, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10], [0, 2, 0, 0, 0, 0, 0, 0, 0, 1],
                               [0, 1, 0, 0, 0xC0, 0, 0, 0, 0, 1], [0xFF, 0xFF, 0, 0, 0, 0, 0, 0]] {
            // The field in the middle of a larger buffer, as in a result.
            let buffer: [UInt8] = [9, 9, 9] + bytes + [9, 9]
            let scaled = PostgresNumeric.scaled(buffer, start: 3, length: bytes.count)
            #expect(scaled == nil, "\(bytes)")
            #expect(throws: DatabaseError.self) { _ = try PostgresNumeric(binary: bytes[...]) }
        }
        // 1.5: one digit before the point, 5000 after it, scale 1.
        let bytes: [UInt8] = [9, 0, 2, 0, 0, 0, 0, 0, 1, 0, 1, 0x13, 0x88, 9]
        let scaled = PostgresNumeric.scaled(bytes, start: 1, length: 12)
        #expect(scaled?.magnitude.map { [$0.high, $0.low] } == [0, 15])
    }

    @Test func nanAndInfinityAreRefused() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let result = try connection.queryBinary("SELECT 'NaN'::numeric AS a, 'Infinity'::numeric AS b, '-Infinity'::numeric AS c, 1.5::numeric AS d")
        for column in 0..<3 {
            #expect(throws: DatabaseError.self) { _ = try result.numeric(0, column) }
            do throws(DatabaseError) {
                _ = try result.numeric(0, column)
            } catch {
                #expect(error.code == .unexpectedResult)
                #expect(error.query == result.statement)
            }
        }
        #expect(try result.numeric(0, 3)?.text == "1.5")
        // Bytes that are not numeric_send's: too short, a digit past 9999, a length that disagrees.
        #expect(throws: DatabaseError.self) { _ = try PostgresNumeric(binary: [0, 1, 0, 0, 0, 0][...]) }
        #expect(throws: DatabaseError.self) { _ = try PostgresNumeric(binary: [0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10][...]) }
        #expect(throws: DatabaseError.self) { _ = try PostgresNumeric(binary: [0, 2, 0, 0, 0, 0, 0, 0, 0, 1][...]) }
    }

    @Test func eachTypeReadsBackAsSentAndAnotherTypeIsRefused() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let result = try connection.queryBinary("""
            SELECT $1::bigint AS i8, (-7)::int AS i4, 3::smallint AS i2, true AS yes, false AS no, 'é✓'::text AS t,
                   'v'::varchar AS vc, 0.1::float8 AS f, '-1e300'::float8 AS big, NULL::bigint AS missing,
                   ARRAY[1, -2, 9223372036854775807]::bigint[] AS a, '{}'::bigint[] AS empty,
                   ARRAY[32767, -1, -32768, 256]::smallint[] AS small, ARRAY[1, NULL]::bigint[] AS holed, ARRAY[1]::int[] AS i4s,
                   sum(x) AS total, 2.5::numeric AS places
            FROM (VALUES (9223372036854775807::bigint), (9223372036854775807)) v(x)
            """, ["-9223372036854775808"])
        #expect(result.rowCount == 1)
        func at(_ name: String) throws -> Int { try result.position(name) }
        #expect(try result.integer(0, at("i8")) == Int64.min)
        #expect(try result.integer(0, at("i4")) == -7)
        #expect(try result.integer(0, at("i2")) == 3)
        #expect(try result.bool(0, at("yes")) == true)
        #expect(try result.bool(0, at("no")) == false)
        #expect(try result.text(0, at("t")) == "é✓")
        #expect(try result.text(0, at("vc")) == "v")
        #expect(try result.float8(0, at("f"))?.bitPattern == (0.1).bitPattern)
        #expect(try result.float8(0, at("big")) == -1e300)
        #expect(try result.integer(0, at("missing")) == nil)
        #expect(result.isNull(0, try at("missing")))
        #expect(try result.integerArray(0, at("a")) == [1, -2, Int(Int64.max)])
        #expect(try result.integerArray(0, at("empty")) == [])
        // smallint[] (a histogram's bins): two bytes an element, sign-extended.
        #expect(try result.integerArray(0, at("small")) == [32767, -1, -32768, 256])
        #expect(throws: DatabaseError.self) { _ = try result.integerArray(0, at("holed")) }
        #expect(throws: DatabaseError.self) { _ = try result.integerArray(0, at("i4s")) }
        // A sum of bigints is a numeric without places: an integer when it fits, an error naming
        // the column (never the value) when it does not or when it has places.
        #expect(try result.numeric(0, at("total"))?.text == "18446744073709551614")
        for name in ["total", "places"] {
            let position = try at(name)
            do throws(DatabaseError) {
                let value = try result.integer(0, position)
                Issue.record("\(name) read as the integer \(String(describing: value))")
            } catch {
                #expect(error.code == .unexpectedResult)
                #expect(error.message.contains(name))
                #expect(!error.message.contains("18446744073709551614") && !error.message.contains("2.5"))
            }
        }
        // Another type than the read names is an error naming the column and the statement.
        let i8 = try at("i8")
        do throws(DatabaseError) {
            _ = try result.bool(0, i8)
            Issue.record("a bigint read as a boolean")
        } catch {
            #expect(error.code == .unexpectedResult)
            #expect(error.message.contains("i8"))
            #expect(error.query == result.statement)
        }
        #expect(throws: DatabaseError.self) { _ = try result.numeric(0, at("f")) }
        #expect(throws: DatabaseError.self) { _ = try result.text(0, at("i4")) }
        #expect(throws: DatabaseError.self) { _ = try result.position("nowhere") }
        #expect(throws: DatabaseError.self) { _ = try connection.queryBinary("SELECT 1/0") }
    }

    @Test func smallIntegersOfANumericSum() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let result = try connection.queryBinary("SELECT sum(x) AS s FROM unnest($1::bigint[]) x GROUP BY x < 0 ORDER BY 1",
                                                ["{-5,-9223372036854775808,7,12}"])
        #expect(throws: DatabaseError.self) { _ = try result.integer(0, 0) }  // below Int64.min
        #expect(try result.integer(1, 0) == 19)
    }
}
