import Foundation
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// Lints the schema that all migrations build, against the Citus rules (migration 0030): every
/// table is laid out, every primary and unique key of a distributed table includes app_id, and
/// no foreign key joins two distributed tables or points from a reference table at one. What
/// the layout does on a real Citus cluster is CitusTests' (Tests/CitusTests).
@Suite struct CitusLayoutTests {
    struct Table: Hashable {
        var name: String
        var layout: String
    }

    func layout(_ connection: PostgresConnection) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try connection.query("SELECT table_name, layout FROM tapwire_table_layout").rows {
            result[row[0]!] = row[1]!
        }
        return result
    }

    /// Every table of the schema (partitions belong to their parent).
    func tables(_ connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            SELECT c.relname FROM pg_class c
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
            ORDER BY 1
            """).rows.compactMap { $0[0] }
    }

    /// Problems found by the lint; empty when the schema is valid on Citus.
    static func lint(_ connection: PostgresConnection) throws -> [String] {
        var problems: [String] = []
        var layout: [String: String] = [:]
        for row in try connection.query("SELECT table_name, layout FROM tapwire_table_layout").rows { layout[row[0]!] = row[1]! }
        let tables = try connection.query("""
            SELECT c.relname FROM pg_class c
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
            """).rows.compactMap { $0[0] }
        for table in tables where layout[table] == nil {
            problems.append("table \(table) has no row in tapwire_table_layout (add one in its migration)")
        }
        for (table, _) in layout where !tables.contains(table) {
            problems.append("tapwire_table_layout names \(table), which no migration creates")
        }
        let distributed = Set(layout.filter { $0.value == "distributed" }.keys)
        for table in distributed.sorted() where tables.contains(table) {
            let hasColumn = try connection.query("""
                SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'app_id' AND NOT attisdropped
                """, [table]).scalar == "1"
            if !hasColumn { problems.append("distributed table \(table) has no app_id column") }
            // Primary keys, unique constraints and unique indexes (constraints are indexes too).
            for row in try connection.query("""
                SELECT i.indexrelid::regclass::text,
                       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attname = 'app_id'
                               AND a.attnum = ANY (i.indkey::int2[])) AS has_app_id,
                       i.indexprs IS NOT NULL
                FROM pg_index i WHERE i.indrelid = to_regclass($1) AND i.indisunique
                """, [table]).rows {
                if row[1] != "t" { problems.append("unique key \(row[0] ?? "?") of distributed table \(table) does not include app_id") }
            }
            for row in try connection.query("""
                SELECT conname FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'x'
                """, [table]).rows {
                problems.append("exclusion constraint \(row[0] ?? "?") on distributed table \(table): Citus needs app_id in it")
            }
            // Identity columns of distributed tables must be bigint on Citus.
            for row in try connection.query("""
                SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
                WHERE attrelid = to_regclass($1) AND attidentity <> '' AND NOT attisdropped
                """, [table]).rows where row[1] != "bigint" {
                problems.append("identity column \(table).\(row[0] ?? "?") is \(row[1] ?? "?"); Citus needs bigint")
            }
        }
        for row in try connection.query("""
            SELECT conname, conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint WHERE contype = 'f'
              AND connamespace = current_schema()::regnamespace
            """).rows {
            let from = row[1] ?? "", to = row[2] ?? ""
            let fromLayout = layout[from] ?? "?", toLayout = layout[to] ?? "?"
            if fromLayout == "distributed" && toLayout == "distributed" {
                problems.append("foreign key \(row[0] ?? "?") joins two distributed tables (\(from) → \(to))")
            } else if toLayout == "distributed" {
                problems.append("foreign key \(row[0] ?? "?") from \(fromLayout) table \(from) points at distributed table \(to)")
            } else if fromLayout == "local" && toLayout == "reference" {
                problems.append("foreign key \(row[0] ?? "?") from coordinator-only table \(from) to reference table \(to)")
            }
        }
        return problems.sorted()
    }

    @Test func everyMigrationKeepsTheSchemaValidOnCitus() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        #expect(try Self.lint(connection) == [])
        let layout = try layout(connection)
        // The core of the layout, whatever later migrations add.
        #expect(layout["events"] == "distributed" && layout["event_ids"] == "distributed")
        #expect(layout["apps"] == "reference" && layout["api_keys"] == "reference")
        #expect(Set(try tables(connection)) == Set(layout.keys))
        // Rollup tables of later migrations are distributed by app_id, never reference or local.
        for (table, kind) in layout where table.hasPrefix("rollup_") || table.hasPrefix("mismatch_") {
            #expect(kind == "distributed", "\(table) must be distributed by app_id")
        }
    }

    @Test func theLintCatchesWhatCitusRefuses() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        // A migration that breaks every rule once.
        try connection.executeScript("""
            CREATE TABLE rollup_bad (app_id bigint NOT NULL, day date NOT NULL, n bigint, PRIMARY KEY (day, n));
            CREATE UNIQUE INDEX rollup_bad_day ON rollup_bad (day);
            INSERT INTO tapwire_table_layout VALUES ('rollup_bad', 'distributed', 'test');
            CREATE TABLE rollup_child (app_id bigint NOT NULL, manifest_id bigint NOT NULL, PRIMARY KEY (app_id, manifest_id),
                                       FOREIGN KEY (app_id, manifest_id) REFERENCES manifests (app_id, manifest_id));
            INSERT INTO tapwire_table_layout VALUES ('rollup_child', 'distributed', 'test');
            CREATE TABLE forgotten (id int PRIMARY KEY);
            INSERT INTO tapwire_table_layout VALUES ('vanished', 'reference', 'test');
            """)
        let problems = try Self.lint(connection)
        #expect(problems.contains("unique key rollup_bad_pkey of distributed table rollup_bad does not include app_id"))
        #expect(problems.contains("unique key rollup_bad_day of distributed table rollup_bad does not include app_id"))
        #expect(problems.contains { $0.hasPrefix("foreign key") && $0.contains("joins two distributed tables (rollup_child → manifests)") })
        #expect(problems.contains("table forgotten has no row in tapwire_table_layout (add one in its migration)"))
        #expect(problems.contains("tapwire_table_layout names vanished, which no migration creates"))
        #expect(problems.count == 5)
    }

    @Test func withoutCitusTheMigrationChangesNothing() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        #expect(try connection.query("SELECT tapwire_citus_installed()").scalar == "f")
        #expect(try connection.query("SELECT tapwire_apply_citus_layout()").scalar == "0")
    }
}
