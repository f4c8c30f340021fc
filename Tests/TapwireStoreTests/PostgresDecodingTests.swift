import Foundation
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// Rows decoded to typed values where a store reads them (`PostgresDecodable`): each type from
/// PostgreSQL's own text output, NULL only where the type is Optional, and every mistake an
/// `unexpectedResult` error that names the column and the statement but never the value.
@Suite struct PostgresDecodingTests {
    static func row(_ values: [String?], columns: [String], statement: String? = "sql/queries/example.sql") -> QueryResult.Row {
        QueryResult(columns: columns, rows: [values], affectedRows: 0, statement: statement).namedRows[0]
    }

    @Test func valuesDecodeFromWhatPostgreSQLWrites() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let result = try connection.query("""
            SELECT true AS yes, false AS no, NULL::bigint AS nothing, 9007199254740993::bigint AS big, (-7)::smallint AS small,
                   1.5::float8 AS ratio, 'Infinity'::float8 AS unbounded, 'reply ✓'::text AS label, 'response'::text AS type,
                   (extract(epoch FROM timestamptz '2026-01-05 17:00:00.123456+00') * 1000000)::bigint AS at_us
            """)
        let row = try #require(result.namedRows.first)
        #expect(try row.decode("yes", as: Bool.self) == true)
        #expect(try row.decode("no", as: Bool.self) == false)
        #expect(try row.decode("nothing", as: Int64?.self) == nil)
        #expect(try row.decode("big", as: Int64.self) == 9_007_199_254_740_993)
        #expect(try row.decode("small", as: Int16.self) == -7)
        #expect(try row.decode("ratio", as: Double.self) == 1.5)
        #expect(try row.decode("unbounded", as: Double.self) == .infinity)
        #expect(try row.decode("label", as: String.self) == "reply ✓")
        #expect(try row.decode("type", as: EventType.self) == .response)
        #expect(try row.decode("at_us", as: Timestamp.self) == Timestamp(iso8601: "2026-01-05T17:00:00.123456Z"))
        #expect(try row.decode("big", as: Int64?.self) == 9_007_199_254_740_993)
        // The statement the result came from is kept for the errors.
        #expect(result.statement != nil)
    }

    @Test func aWholeRowDecodesByPositionIntoATuple() throws {
        let row = Self.row(["1.1", "1767632400000000", nil], columns: ["app_version", "?column?", "?column?"])
        let (version, first, missing) = try row.decode((String, Timestamp, Int64?).self)
        #expect(version == "1.1" && first == Timestamp(microseconds: 1_767_632_400_000_000) && missing == nil)
        #expect(try row.decode(column: 1, as: Int64.self) == 1_767_632_400_000_000)
    }

    @Test func aMistakeIsAnErrorNamingTheColumnAndTheStatementButNeverTheValue() throws {
        let row = Self.row(["secret-category", nil, "maybe"], columns: ["category", "count", "flag"])
        func failure(_ body: () throws -> Void) -> DatabaseError? {
            do { try body(); return nil } catch { return error as? DatabaseError }
        }
        let null = try #require(failure { _ = try row.decode("count", as: Int64.self) })
        #expect(null.code == .unexpectedResult && null.message.contains("count") && null.message.contains("NULL"))
        #expect(null.query == "sql/queries/example.sql")
        let notANumber = try #require(failure { _ = try row.decode("category", as: Int64.self) })
        #expect(notANumber.code == .unexpectedResult && notANumber.message.contains("category"))
        #expect(!notANumber.description.contains("secret-category"), "\(notANumber)")
        let notABool = try #require(failure { _ = try row.decode("flag", as: Bool.self) })
        #expect(notABool.code == .unexpectedResult && !notABool.description.contains("maybe"))
        let unknownColumn = try #require(failure { _ = try row.decode("cnt", as: Int64?.self) })
        #expect(unknownColumn.code == .unexpectedResult && unknownColumn.message.contains("cnt"))
        let shape = try #require(failure { _ = try row.decode((String, Int64?).self) })
        #expect(shape.code == .unexpectedResult && shape.message.contains("3 columns"))
        let pastTheEnd = try #require(failure { _ = try row.decode(column: 3, as: String.self) })
        #expect(pastTheEnd.code == .unexpectedResult)
        let unknownType = try #require(failure { _ = try Self.row(["open"], columns: ["type"]).decode("type", as: EventType.self) })
        #expect(unknownType.code == .unexpectedResult)
    }

    @Test func aResultDecodesEveryRowOrItsOneValue() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp("decoded")
        let connection = try db.connect()
        defer { connection.close() }
        let apps = try connection.query(EmbeddedSQL.appsList).decode(AppRecord.self)
        #expect(apps.map(\.name) == ["decoded"] && apps.first?.appId == app.appId)
        #expect(apps.first?.activeWriteKeys == 1 && apps.first?.activeReadKeys == 1)
        #expect(try connection.query(EmbeddedSQL.appByName, ["nobody"]).decodeFirst(AppRecord.self) == nil)
        #expect(try connection.query("SELECT count(*) FROM apps").value(Int64.self) == 1)
        #expect(try connection.query("SELECT NULL::float8").value(Double?.self) == nil)
        do throws(DatabaseError) {
            _ = try connection.query("SELECT 1 WHERE false").value(Int.self)
            Issue.record("no row decoded as a value")
        } catch {
            #expect(error.code == .unexpectedResult)
        }
    }
}
