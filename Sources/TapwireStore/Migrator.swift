import Foundation
import TapwireCore

/// Applies `sql/migrations/*.sql` in order, each in its own transaction, recording them in
/// schema_migrations. Each transaction holds a transaction-scoped advisory lock and reads, under
/// it, whether its migration was applied, so concurrent runs (two collectors starting at once)
/// take turns and apply each migration once. No session state: `tapwire migrate` works through a
/// transaction pooler (PgBouncer) as well as directly.
///
/// A migration's statements are sent one at a time (`SQLScript`), which Citus needs. On a Citus
/// coordinator each migration's transaction also runs in sequential mode, a migration whose
/// statement Citus cannot run has that statement replaced by its `sql/citus/` file, and every
/// run ends by laying out any table not laid out yet (a database that moved to Citus after it
/// was migrated). The recorded checksums are those of `sql/migrations/`, whichever server ran
/// them (docs/deployment.md, "Where PostgreSQL and Citus differ").
///
/// A migration whose transaction loses a lock race (40P01 deadlock, 40001) is run again, up to
/// `attempts` times: during a rolling upgrade the previous release's collectors keep committing,
/// and a migration that locks the tables they write in another order than their commits do can
/// deadlock with one of them. Its transaction rolled back, so running it again is safe. So is
/// one whose lock wait passed the operator's `lock_timeout` (55P03): a migration's transaction
/// turns the server's timeouts off, waits for its turn on the migrations' lock, then takes the
/// operator's `lock_timeout` back for its statements (docs/deployment.md, "The server's timeouts").
public struct Migrator: Sendable {
    public struct Applied: Sendable, Equatable {
        public var version: Int
        public var name: String
    }

    let migrations: [EmbeddedMigration]
    /// How many times one migration's transaction is run when it loses a lock race.
    let attempts = 5

    public init() { migrations = EmbeddedSQL.migrations }

    /// The migrations up to `version` only: a test makes a database as an older release left it.
    init(through version: Int) { migrations = EmbeddedSQL.migrations.filter { $0.version <= version } }

    /// Other migrations than the product's: a test's, to make one lose a lock race on purpose.
    init(migrations: [EmbeddedMigration]) { self.migrations = migrations }

    public var latestVersion: Int { migrations.last?.version ?? 0 }

    static func checksum(_ sql: String) -> String { SHA256.hex(Array(sql.utf8)) }

    /// One migration's transaction, run again while it loses a lock race (up to `attempts`
    /// times); any other failure, or the last attempt's, is a `migrationFailed`.
    private func apply(_ migration: EmbeddedMigration, checksum: String, citus: Bool, on connection: PostgresConnection,
                       logger: Logger?) throws(DatabaseError) -> Outcome {
        var backoff = Backoff(baseSeconds: 0.2, maxSeconds: 2)
        var random = SystemRandomNumberGenerator()
        var attempt = 1
        while true {
            do {
                return try connection.transaction(timeouts: .off) { () throws(DatabaseError) -> Outcome in
                    try connection.query(EmbeddedSQL.migrationsLock)
                    try connection.query(EmbeddedSQL.migrationsOperatorLockTimeout)
                    if let recorded = try connection.query(EmbeddedSQL.migrationsChecksum, [String(migration.version)]).namedRows.first {
                        return try recorded.decode("checksum", as: String.self) == checksum ? .alreadyApplied : .edited
                    }
                    if citus { try connection.query(EmbeddedSQL.migrationsCitusSequential) }
                    for statement in try Self.statements(of: migration, citus: citus) { try connection.query(statement) }
                    try connection.query(EmbeddedSQL.migrationsRecord, [String(migration.version), migration.name, checksum])
                    return .applied
                }
            } catch where (error.isTransientConflict || error.isLockNotAvailable) && attempt < attempts && connection.isUsable {
                logger?.warning("migration lost a lock race; running it again",
                                ["version": .of(migration.version), "name": .string(migration.name), "attempt": .of(attempt),
                                 "sqlstate": .string(error.sqlState ?? "")])
                Thread.sleep(forTimeInterval: backoff.nextDelay(using: &random))
                attempt += 1
            } catch {
                throw DatabaseError(.migrationFailed, sqlState: error.sqlState, "migration \(migration.name) failed: \(error.message)",
                                    query: error.query)
            }
        }
    }

    /// Returns the migrations this call applied (empty when the schema was already current).
    @discardableResult
    public func migrate(_ connection: PostgresConnection, logger: Logger? = nil) throws(DatabaseError) -> [Applied] {
        let citus = try connection.transaction(timeouts: .off) { () throws(DatabaseError) -> Bool in
            try connection.query(EmbeddedSQL.migrationsLock)
            try connection.query(EmbeddedSQL.migrationsBootstrap)
            return try connection.query(EmbeddedSQL.citusInstalled).value(Bool.self)
        }
        var applied: [Applied] = []
        for migration in migrations {
            let checksum = Self.checksum(migration.sql)
            let outcome = try apply(migration, checksum: checksum, citus: citus, on: connection, logger: logger)
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
        if citus, migrations.count == EmbeddedSQL.migrations.count {
            do {
                try connection.transaction(timeouts: .off) { () throws(DatabaseError) in
                    try connection.query(EmbeddedSQL.migrationsLock)
                    try connection.query(EmbeddedSQL.migrationsOperatorLockTimeout)
                    try connection.query(EmbeddedSQL.migrationsCitusSequential)
                    try connection.query(EmbeddedSQL.citusApplyLayout)
                }
            } catch {
                throw DatabaseError(.migrationFailed, sqlState: error.sqlState, "laying out the tables on Citus failed: \(error.message)",
                                    query: error.query)
            }
        }
        return applied
    }

    /// The statements `migration` runs, one at a time, each named by its file and position. On
    /// Citus, the statement its `sql/citus/` file names (`-- replaces: <how it begins>`) is
    /// swapped for that file's statements; a file that names no statement, or several, is a
    /// mistake in the code and fails the migration.
    static func statements(of migration: EmbeddedMigration, citus: Bool) throws(DatabaseError) -> [SQL] {
        let script = SQLScript(migration.sql).statements
        var statements = script.enumerated().map { index, statement in
            SQL(statement.text, name: "\(migration.file), statement \(index + 1)")
        }
        guard citus, let replacement = migration.citus else { return statements }
        let marker = "-- replaces: "
        guard let line = replacement.sql.split(separator: "\n").first(where: { $0.hasPrefix(marker) }) else {
            throw DatabaseError(.migrationFailed, "\(replacement.file) does not say which statement it replaces (a line `\(marker)…`)",
                                query: replacement.file)
        }
        let begins = String(line.dropFirst(marker.count)).trimmingCharacters(in: [" "])
        let matches = script.indices.filter { script[$0].head.hasPrefix(begins) }
        guard matches.count == 1, let index = matches.first else {
            throw DatabaseError(.migrationFailed, "\(replacement.file) replaces the statement of \(migration.file) that begins \"\(begins)\", and \(matches.count) do",
                                query: replacement.file)
        }
        let swapped = SQLScript(replacement.sql).statements.enumerated().map { offset, statement in
            SQL(statement.text, name: "\(replacement.file), statement \(offset + 1)")
        }
        statements.replaceSubrange(index...index, with: swapped)
        return statements
    }

    private enum Outcome { case applied, alreadyApplied, edited }

    /// The highest applied version, or 0 on an empty database.
    public func currentVersion(_ connection: PostgresConnection) throws(DatabaseError) -> Int {
        try connection.query(EmbeddedSQL.migrationsCurrentVersion).value(Int.self)
    }
}
