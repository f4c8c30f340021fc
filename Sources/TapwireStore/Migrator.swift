import TapwireCore

/// Applies `sql/migrations/*.sql` in order, each in its own transaction, recording them in
/// schema_migrations. A session advisory lock makes concurrent runs (two collectors starting at
/// once) take turns; the second finds nothing to do.
public struct Migrator: Sendable {
    public struct Applied: Sendable, Equatable {
        public var version: Int
        public var name: String
    }

    let migrations: [EmbeddedMigration]

    public init() { migrations = EmbeddedSQL.migrations }

    public var latestVersion: Int { migrations.last?.version ?? 0 }

    static func checksum(_ sql: String) -> String { SHA256.hex(Array(sql.utf8)) }

    /// Returns the migrations this call applied (empty when the schema was already current).
    @discardableResult
    public func migrate(_ connection: PostgresConnection, logger: Logger? = nil) throws(DatabaseError) -> [Applied] {
        try connection.query(EmbeddedSQL.migrationsLock)
        defer { _ = try? connection.query(EmbeddedSQL.migrationsUnlock) }
        try connection.query(EmbeddedSQL.migrationsBootstrap)

        var done: [Int: String] = [:]
        for row in try connection.query(EmbeddedSQL.migrationsApplied).rows {
            if let version = row[0].flatMap({ Int($0) }), let checksum = row[2] { done[version] = checksum }
        }
        var applied: [Applied] = []
        for migration in migrations {
            let checksum = Self.checksum(migration.sql)
            if let recorded = done[migration.version] {
                guard recorded == checksum else {
                    throw DatabaseError(.migrationFailed, "migration \(migration.name) was edited after it was applied; add a new migration instead",
                                        query: migration.file)
                }
                continue
            }
            do {
                try connection.transaction { () throws(DatabaseError) in
                    try connection.executeScript(migration.script)
                    try connection.query(EmbeddedSQL.migrationsRecord, [String(migration.version), migration.name, checksum])
                }
            } catch {
                throw DatabaseError(.migrationFailed, sqlState: error.sqlState, "migration \(migration.name) failed: \(error.message)",
                                    query: error.query)
            }
            logger?.info("migration applied", ["version": .of(migration.version), "name": .string(migration.name)])
            applied.append(Applied(version: migration.version, name: migration.name))
        }
        return applied
    }

    /// The highest applied version, or 0 on an empty database.
    public func currentVersion(_ connection: PostgresConnection) throws(DatabaseError) -> Int {
        Int(try connection.query(EmbeddedSQL.migrationsCurrentVersion).scalar ?? "0") ?? 0
    }
}
