import Testing
@testable import TapwireStore

/// The splitter the migrations run through (statement by statement, which Citus needs), and the
/// Citus replacements of applied migrations' statements: pure, no database.
@Suite struct SQLScriptTests {
    func texts(_ script: String) -> [String] { SQLScript(script).statements.map { String($0.head) } }

    @Test func semicolonsInsideQuotesCommentsAndBodiesDoNotEndAStatement() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE t (a text DEFAULT 'x;y''z;');
            /* a block; /* nested; */ still; */ SELECT "odd;name" FROM t;
            CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $fn$ BEGIN RETURN 1; END $fn$;
            SELECT $$a;b$$, E'back\\';slash', $1;
            SELECT x$y FROM t
            """
        #expect(texts(script) == [
            "CREATE TABLE t (a text DEFAULT 'x;y''z;')",
            "SELECT \"odd;name\" FROM t",
            "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $fn$ BEGIN RETURN 1; END $fn$",
            "SELECT $$a;b$$, E'back\\';slash', $1",
            "SELECT x$y FROM t",
        ])
    }

    @Test func commentsAloneAreNoStatement() {
        #expect(texts("-- only a comment\n;;  /* and another */ ;\n").isEmpty)
        let statement = SQLScript("-- why\n-- more\nSELECT 1;").statements
        #expect(statement.count == 1 && statement[0].text.hasPrefix("-- why") && statement[0].head == "SELECT 1")
    }

    /// Every migration splits into statements none of which is a `BEGIN ATOMIC` body (which the
    /// splitter does not know) or only part of a dollar-quoted body.
    @Test func everyMigrationSplitsIntoWholeStatements() throws {
        for migration in EmbeddedSQL.migrations {
            let statements = SQLScript(migration.sql).statements
            #expect(!statements.isEmpty, "\(migration.file)")
            #expect(!migration.sql.uppercased().contains("BEGIN ATOMIC"), "\(migration.file) uses BEGIN ATOMIC")
            for statement in statements {
                let dollars = statement.text.components(separatedBy: "$fn$").count - 1
                #expect(dollars % 2 == 0, "\(migration.file): a statement cuts a $fn$ body: \(statement.head.prefix(60))")
            }
        }
        // The statements, joined again, are the script: nothing is lost but the separators.
        let core = try #require(EmbeddedSQL.migrations.first)
        let rejoined = SQLScript(core.sql).statements.map(\.text).joined(separator: ";")
        #expect(rejoined.filter { !$0.isWhitespace && $0 != ";" } == core.sql.filter { !$0.isWhitespace && $0 != ";" })
    }

    /// On plain PostgreSQL a migration runs as written; on Citus its `sql/citus/` file replaces the
    /// one statement it names, and only that.
    @Test func citusReplacesTheStatementItsFileNames() throws {
        let amended = EmbeddedSQL.migrations.filter { $0.citus != nil }
        #expect(Set(amended.map(\.version)) == [30, 100, 308])
        for migration in amended {
            let plain = try Migrator.statements(of: migration, citus: false)
            let onCitus = try Migrator.statements(of: migration, citus: true)
            #expect(plain.map(\.text) == SQLScript(migration.sql).statements.map(\.text))
            let replaced = plain.filter { statement in !onCitus.contains { $0.text == statement.text } }
            #expect(replaced.count == 1, "\(migration.file): \(replaced.map(\.name))")
            #expect(onCitus.contains { $0.name.hasPrefix(migration.citus?.file ?? "?") })
        }
        // 0308's generic plan of the uplift insert is not for Citus (docs/deployment.md).
        let uplift = try #require(amended.first { $0.version == 308 })
        #expect(try Migrator.statements(of: uplift, citus: true).allSatisfy { !$0.text.contains("SET plan_cache_mode") })
        #expect(try Migrator.statements(of: uplift, citus: false).contains { $0.text.contains("SET plan_cache_mode = force_generic_plan") })
        let layout = try #require(amended.first { $0.version == 30 })
        #expect(try Migrator.statements(of: layout, citus: true).suffix(3).map { String(SQLScript($0.text).statements[0].head) } == [
            "SELECT create_reference_table('apps')", "SELECT create_reference_table('api_keys')", "SELECT tapwire_apply_citus_layout()",
        ])
    }

    @Test func aReplacementThatNamesNoStatementFailsTheMigration() throws {
        var migration = try #require(EmbeddedSQL.migrations.first { $0.version == 30 })
        migration.citus = ("-- replaces: SELECT something_else()\nSELECT 1", "sql/citus/test.sql")
        let error = #expect(throws: DatabaseError.self) { try Migrator.statements(of: migration, citus: true) }
        #expect(error?.code == .migrationFailed && error?.query == "sql/citus/test.sql")
        migration.citus = ("SELECT 1", "sql/citus/test.sql")
        #expect(throws: DatabaseError.self) { try Migrator.statements(of: migration, citus: true) }
        // Never consulted without Citus.
        #expect(try Migrator.statements(of: migration, citus: false).count == SQLScript(migration.sql).statements.count)
    }
}
