import TapwireCore

/// Applies `sql/migrations/*.sql` in order, each in its own transaction, recording them in
/// schema_migrations. Each transaction holds a transaction-scoped advisory lock and reads, under
/// it, whether its migration was applied, so concurrent runs (two collectors starting at once)
/// take turns and apply each migration once. No session state: `tapwire migrate` works through a
/// transaction pooler (PgBouncer) as well as directly.
public struct Migrator: Sendable {
    public struct Applied: Sendable, Equatable {
        public var version: Int
        public var name: String
    }

    let migrations: [EmbeddedMigration]

    public init() { migrations = EmbeddedSQL.migrations }

    /// The migrations up to `version` only: a test makes a database as an older release left it.
    init(through version: Int) { migrations = EmbeddedSQL.migrations.filter { $0.version <= version } }

    public var latestVersion: Int { migrations.last?.version ?? 0 }

    static func checksum(_ sql: String) -> String { SHA256.hex(Array(sql.utf8)) }

    /// Returns the migrations this call applied (empty when the schema was already current).
    @discardableResult
    public func migrate(_ connection: PostgresConnection, logger: Logger? = nil) throws(DatabaseError) -> [Applied] {
        try connection.transaction { () throws(DatabaseError) in
            try connection.query(EmbeddedSQL.migrationsLock)
            try connection.query(EmbeddedSQL.migrationsBootstrap)
        }
        var applied: [Applied] = []
        for migration in migrations {
            let checksum = Self.checksum(migration.sql)
            let outcome: Outcome
            do {
                outcome = try connection.transaction { () throws(DatabaseError) -> Outcome in
                    try connection.query(EmbeddedSQL.migrationsLock)
                    if let recorded = try connection.query(EmbeddedSQL.migrationsChecksum, [String(migration.version)]).namedRows.first {
                        return try recorded.decode("checksum", as: String.self) == checksum ? .alreadyApplied : .edited
                    }
                    try connection.executeScript(migration.script)
                    try connection.query(EmbeddedSQL.migrationsRecord, [String(migration.version), migration.name, checksum])
                    return .applied
                }
            } catch {
                throw DatabaseError(.migrationFailed, sqlState: error.sqlState, "migration \(migration.name) failed: \(error.message)",
                                    query: error.query)
            }
            switch outcome {
            case .alreadyApplied:
                continue
            case .edited:
                throw DatabaseError(.migrationFailed, "migration \(migration.name) was edited after it was applied; add a new migration instead",
                                    query: migration.file)
            case .applied:
                logger?.info("migration applied", ["version": .of(migration.version), "name": .string(migration.name)])
                applied.append(Applied(version: migration.version, name: migration.name))
            }
        }
        return applied
    }

    private enum Outcome { case applied, alreadyApplied, edited }

    /// The highest applied version, or 0 on an empty database.
    public func currentVersion(_ connection: PostgresConnection) throws(DatabaseError) -> Int {
        try connection.query(EmbeddedSQL.migrationsCurrentVersion).value(Int.self)
    }
}
