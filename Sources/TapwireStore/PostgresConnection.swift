import CLibPQ
#if canImport(Glibc)
import Glibc
#endif
import TapwireCore

// The one file that calls libpq (the choke point, as NIOPosix/System.swift is for syscalls).
// Every PQ* call is here; each result is checked, each PGresult is cleared by `defer`, and no
// pointer leaves its `withUnsafe…` scope.

/// One libpq connection. It is owned by exactly one object and used from one thread at a time
/// (deliberately not Sendable); `close()` may be called any number of times.
public final class PostgresConnection {
    private var handle: OpaquePointer?
    /// The connection string, kept to reconnect; never logged (it may hold a password).
    private let url: String
    /// Kept to reconnect as the same client (`pg_stat_activity.application_name`).
    private let applicationName: String
    private let connectTimeoutSeconds: Int
    /// What the connection's notice receiver saw; outlives every handle it is given to.
    private let notices = Notices()

    /// A FATAL the server sent while the connection sat idle, as it does just before it ends a
    /// session (`idle_session_timeout`, `pg_terminate_backend`, a shutdown): libpq hands such an
    /// unasked error to the notice receiver and keeps the connection OK until it reads the end of
    /// the stream, which may come later than the FATAL's bytes. Written by the receiver, which
    /// libpq calls only inside this connection's own calls (on the thread using it), and read by
    /// `closedWhileIdle`.
    private final class Notices {
        var fatal = false
    }

    /// What this connection's transactions do with the server's timeouts unless one says
    /// otherwise (`transaction(_:timeouts:_:)`): `.off` for a connection that does only the
    /// collector's background work (the fold's, the findings monitor's).
    public let serverTimeouts: ServerTimeouts

    /// Connects, or throws `connectionFailed` with libpq's message (which never includes the password).
    public init(url: String, applicationName: String = "tapwire", connectTimeoutSeconds: Int = 5,
                serverTimeouts: ServerTimeouts = .operators) throws(DatabaseError) {
        self.url = url
        self.applicationName = applicationName
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.serverTimeouts = serverTimeouts
        self.handle = try Self.connect(url: url, applicationName: applicationName, timeout: connectTimeoutSeconds, notices: notices)
    }

    deinit { close() }

    private static func connect(url: String, applicationName: String, timeout: Int, notices: Notices) throws(DatabaseError) -> OpaquePointer {
        // Defaults first, then the URL (expand_dbname=1), so whatever the URL says wins. Only
        // startup parameters a transaction pooler passes on (PgBouncer refuses `options`): no
        // session setting is relied on, since behind a pooler each transaction may run on another
        // server session. Settings a statement needs are in its SQL (`AT TIME ZONE 'UTC'`,
        // explicit formats) or transaction-local (`transaction`); docs/deployment.md, "PgBouncer".
        let keys = ["connect_timeout", "application_name", "client_encoding", "dbname"]
        let values = [String(timeout), applicationName, "UTF8", url]
        let connection: OpaquePointer? = withCStringArray(keys) { keyPointers in
            withCStringArray(values) { valuePointers in
                PQconnectdbParams(keyPointers, valuePointers, 1)
            }
        }
        guard let connection else { throw DatabaseError(.connectionFailed, "libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(connection)
            PQfinish(connection)
            throw DatabaseError(.connectionFailed, message)
        }
        // NOTICEs ("already exists, skipping") are noise; warnings still reach stderr as before.
        // A FATAL here is the server ending the session while it sat idle (`Notices`). The
        // argument is `notices`, unretained: the PostgresConnection holding it outlives the handle
        // (PQfinish in `close`, before a new handle is made).
        notices.fatal = false
        PQsetNoticeReceiver(connection, { argument, result in
            guard let result, let severity = PQresultErrorField(result, Int32(UInt8(ascii: "V"))) else { return }
            switch String(cString: severity) {
            case "WARNING":
                let message = PQresultErrorMessage(result)!
                _ = write(STDERR_FILENO, message, strlen(message))
            case "FATAL", "PANIC":
                if let argument { Unmanaged<Notices>.fromOpaque(argument).takeUnretainedValue().fatal = true }
            default:
                return
            }
        }, Unmanaged.passUnretained(notices).toOpaque())
        return connection
    }

    public func close() {
        if let handle {
            PQfinish(handle)
            self.handle = nil
        }
    }

    /// False once the server has gone away or the connection was closed.
    public var isUsable: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Whether the server closed this connection while it sat idle between transactions
    /// (`idle_session_timeout`, PgBouncer's `client_idle_timeout`, `pg_terminate_backend`, a
    /// restart or failover): libpq notices that only when it next reads, so `isUsable` stays
    /// true and the next statement would fail on it. Asked before a connection idle since its
    /// last use is used again (docs/deployment.md, "The server's timeouts"). No round trip: one
    /// `poll` of the socket with a zero timeout. An idle connection's socket is readable only
    /// when the server sent something unasked (the FATAL 57P05 or 57P01 and the end of the
    /// stream before it closes; a NOTIFY, a parameter's new value): that is read
    /// (`PQconsumeInput`) and parsed (`PQisBusy`), until the socket has nothing more. The answer
    /// is true, and `isUsable` false, once the read met the end of the stream, or once what was
    /// read held a FATAL (`Notices`): the server sends it, then ends the session, and the end of
    /// the stream may reach the socket later (the session leaves `pg_stat_activity` before its
    /// socket is closed), so the connection is closed here rather than waited for.
    /// Also asked of a connection left idle inside its transaction (a `TransactionLock`'s, whose
    /// open transaction holds the lock): no statement is in flight there either. False for a
    /// closed connection, and for one with a statement in flight (its own read finds the loss).
    public func closedWhileIdle() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE, PQTRANS_INTRANS, PQTRANS_INERROR: break
        default: return false
        }
        for _ in 0..<8 {
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            var ready = poll(&descriptor, 1, 0)
            while ready < 0 && errno == EINTR { ready = poll(&descriptor, 1, 0) }
            guard ready > 0 else { return false }
            // 0: the read failed (the end of the stream, a reset): libpq has marked the connection bad.
            if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK { return PQstatus(handle) != CONNECTION_OK }
            // Parses what was read: an unasked error goes to the notice receiver.
            _ = PQisBusy(handle)
            if notices.fatal {
                close()
                return true
            }
        }
        return false
    }

    /// Replaces a broken connection with a new one to the same database, as the same client
    /// (its application name, connect timeout and `serverTimeouts`).
    public func reconnect() throws(DatabaseError) {
        close()
        handle = try Self.connect(url: url, applicationName: applicationName, timeout: connectTimeoutSeconds, notices: notices)
    }

    /// A new connection to the same database (for a `TransactionLock` beside this one).
    public func connectAgain(applicationName: String = "tapwire", serverTimeouts: ServerTimeouts = .operators) throws(DatabaseError) -> PostgresConnection {
        try PostgresConnection(url: url, applicationName: applicationName, serverTimeouts: serverTimeouts)
    }

    /// Runs a statement the database built (`format('… %I', $1)`) for DDL that takes no
    /// parameters, such as CREATE DATABASE: `builder` returns its text, `name` names it in errors.
    public func runBuiltStatement(_ builder: SQL, _ parameters: [String?], name: String) throws(DatabaseError) {
        guard let text = try query(builder, parameters).scalar else {
            throw DatabaseError(.unexpectedResult, "no statement was built", query: builder.name)
        }
        try query(SQL(text, name: name))
    }

    /// The server's process id for this session (pg_backend_pid), used by tests that pause it.
    public var backendPID: Int32 {
        guard let handle else { return 0 }
        return PQbackendPID(handle)
    }

    /// A statement outside a transaction on a connection whose `serverTimeouts` are not the
    /// operator's runs in a transaction of its own, which carries their `SET LOCAL`s (a session
    /// `SET` would outlive it behind a transaction pooler).
    private var needsOwnTransaction: Bool {
        guard serverTimeouts != .operators, let handle else { return false }
        return PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    private func live() throws(DatabaseError) -> OpaquePointer {
        guard let handle else { throw DatabaseError(.connectionLost, "the connection is closed") }
        return handle
    }

    /// Runs one parameterised statement. Values are sent separately from the SQL text ($1, $2, …),
    /// in text format; nil is SQL NULL. This is the only way values reach a query. An error names
    /// the statement (`sql.name`).
    @discardableResult
    public func query(_ sql: SQL, _ parameters: [String?] = []) throws(DatabaseError) -> QueryResult {
        if needsOwnTransaction { return try transaction { () throws(DatabaseError) in try query(sql, parameters) } }
        do throws(DatabaseError) {
            let connection = try live()
            let result: OpaquePointer? = withOptionalCStringArray(parameters) { values in
                PQexecParams(connection, sql.text, Int32(parameters.count), nil, values, nil, nil, 0)
            }
            return try consume(result, connection: connection).naming(sql)
        } catch {
            throw error.naming(sql)
        }
    }

    /// Runs one parameterised statement as `query(_:_:)` does, its rows returned in binary
    /// (resultFormat 1): each field as the column type's send function wrote it, read by type in
    /// `BinaryQueryResult` without building a String per value.
    public func queryBinary(_ sql: SQL, _ parameters: [String?] = []) throws(DatabaseError) -> BinaryQueryResult {
        if needsOwnTransaction { return try transaction { () throws(DatabaseError) in try queryBinary(sql, parameters) } }
        do throws(DatabaseError) {
            let connection = try live()
            let result: OpaquePointer? = withOptionalCStringArray(parameters) { values in
                PQexecParams(connection, sql.text, Int32(parameters.count), nil, values, nil, nil, 1)
            }
            var rows = try consumeBinary(result, connection: connection)
            rows.statement = sql.name
            return rows
        } catch {
            throw error.naming(sql)
        }
    }

    /// A statement written inline, in binary (`SQL(inline:)`): for tests and tools.
    package func queryBinary(_ sql: String, _ parameters: [String?] = []) throws(DatabaseError) -> BinaryQueryResult {
        try queryBinary(SQL(inline: sql), parameters)
    }

    /// A statement written inline, named by its own text (`SQL(inline:)`): for tests and tools.
    /// Not public: the product's statements live in `sql/` (docs/architecture.md), and
    /// `SourceRulesTests` holds product modules to that.
    @discardableResult
    package func query(_ sql: String, _ parameters: [String?] = []) throws(DatabaseError) -> QueryResult {
        try query(SQL(inline: sql), parameters)
    }

    /// Starts a transaction with no settings of its own but the connection's `serverTimeouts`
    /// (a `TransactionLock`'s).
    func begin() throws(DatabaseError) {
        try executeScript(serverTimeouts == .operators ? Self.beginStatement : Self.beginWithoutTimeouts)
    }

    /// Ends the current transaction without its changes; a failure is ignored (the caller is
    /// leaving the connection).
    func rollback() { _ = try? query(Self.rollbackStatement) }

    private static let beginStatement = SQL("BEGIN", name: "BEGIN")
    private static let beginWithoutTimeouts = SQL("BEGIN; " + ServerTimeouts.offSettings, name: "BEGIN")
    private static let rollbackStatement = SQL("ROLLBACK", name: "ROLLBACK")
    private static let commitStatement = SQL("COMMIT", name: "COMMIT")

    /// What a transaction does with the server's `statement_timeout`, `lock_timeout` and
    /// `idle_in_transaction_session_timeout`, which an operator may set per role or database
    /// (docs/deployment.md, "The server's timeouts"). Only ever transaction-local (`SET LOCAL`):
    /// behind a transaction pooler the next transaction may run on another server session.
    public enum ServerTimeouts: Sendable, Equatable {
        /// The operator's: work a request waits for (a batch's commit, a report's reads).
        case operators
        /// All three off for the transaction: the collector's background work and the
        /// maintenance commands, whose transactions grow with a backlog or a range and which a
        /// timeout would cut at the same point on every retry, so they would never be done.
        case off

        static let offSettings = "SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0; SET LOCAL idle_in_transaction_session_timeout = 0"
    }

    /// How a transaction starts.
    public enum TransactionStart: Sendable {
        case readWrite
        /// One snapshot for every read inside, and no writes (the report).
        case readOnlySnapshot

        /// BEGIN and the transaction-local settings every transaction runs with, sent as one
        /// round trip. JIT is off: every statement here takes milliseconds, and a misestimated
        /// cost made PostgreSQL spend ~40 ms compiling a report query that runs in 30.
        /// With `timeouts` other than the operator's, their `SET LOCAL`s too, in the same round trip.
        func script(_ timeouts: ServerTimeouts) -> SQL {
            switch (self, timeouts) {
            case (.readWrite, .operators): return Self.readWriteScript
            case (.readWrite, .off): return Self.readWriteNoTimeouts
            case (.readOnlySnapshot, .operators): return Self.readOnlySnapshotScript
            case (.readOnlySnapshot, .off): return Self.readOnlySnapshotNoTimeouts
            }
        }

        private static let readWriteText = "BEGIN; SET LOCAL jit = off"
        private static let readOnlySnapshotText = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL jit = off"
        private static let readWriteScript = SQL(readWriteText, name: "BEGIN")
        private static let readWriteNoTimeouts = SQL(readWriteText + "; " + ServerTimeouts.offSettings, name: "BEGIN")
        private static let readOnlySnapshotScript = SQL(readOnlySnapshotText, name: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        private static let readOnlySnapshotNoTimeouts = SQL(readOnlySnapshotText + "; " + ServerTimeouts.offSettings,
                                                            name: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    /// Runs `body` as one transaction: BEGIN, then COMMIT when `body` returns. When `body` or the
    /// COMMIT throws, the transaction is rolled back and the error rethrown as it was. The
    /// ROLLBACK is only sent while the connection is usable (a lost connection has no transaction
    /// left) and its own failure is ignored, so it never hides the error that caused it. A
    /// connection lost during COMMIT leaves the outcome unknown: that is `connectionLost`, which
    /// callers answer as "not stored, retry" (a retry is exact: dedup).
    /// `timeouts`: what the transaction does with the server's timeouts; by default the
    /// connection's (`serverTimeouts`).
    @discardableResult
    public func transaction<T>(_ start: TransactionStart = .readWrite, timeouts: ServerTimeouts? = nil,
                               _ body: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        try executeScript(start.script(timeouts ?? serverTimeouts))
        do {
            let value = try body()
            try query(Self.commitStatement)
            return value
        } catch {
            if isUsable { rollback() }
            throw error
        }
    }

    /// A read-only snapshot transaction, run again (up to `attempts` times) when the server
    /// cancels it with 40001: on a hot standby, replaying a change a query's snapshot still
    /// needs (a vacuum's cleanup, a dropped partition) cancels the query ("conflict with
    /// recovery"); a new snapshot does not conflict with what was already replayed.
    public func readOnlySnapshot<T>(attempts: Int = 3, timeouts: ServerTimeouts? = nil,
                                    _ body: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        var attempt = 1
        while true {
            do {
                return try transaction(.readOnlySnapshot, timeouts: timeouts, body)
            } catch where error.isTransientConflict && attempt < attempts && isUsable {
                attempt += 1
            }
        }
    }

    /// Runs one statement without parameters and cancels it (SQLSTATE 57014) once it has run
    /// `seconds`: a time limit kept by the client, for statements that cannot run in a
    /// transaction block (where `SET LOCAL lock_timeout` would do) and must not set a session
    /// setting, which a transaction pooler would leave behind for other clients.
    @discardableResult
    public func query(_ sql: SQL, cancellingAfter seconds: Double) throws(DatabaseError) -> QueryResult {
        do throws(DatabaseError) {
            let connection = try live()
            guard PQsendQueryParams(connection, sql.text, 0, nil, nil, nil, nil, 0) == 1 else {
                throw DatabaseError(isUsable ? .queryFailed : .connectionLost, Self.message(connection))
            }
            let deadline = monotonicNanoseconds() + UInt64(max(0, seconds) * 1e9)
            var cancelSent = false
            while PQisBusy(connection) == 1 {
                let now = monotonicNanoseconds()
                let wait = cancelSent ? Int32(-1) : Int32(clamping: now >= deadline ? 0 : (deadline - now) / 1_000_000 + 1)
                var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, wait)
                if ready == 0, !cancelSent, monotonicNanoseconds() >= deadline {
                    Self.sendCancel(connection)
                    cancelSent = true
                    continue
                }
                if ready < 0, errno == EINTR { continue }
                guard PQconsumeInput(connection) == 1 else {
                    throw DatabaseError(.connectionLost, Self.message(connection))
                }
            }
            var outcome: Result<QueryResult, DatabaseError>?
            while let result = PQgetResult(connection) {
                let this: Result<QueryResult, DatabaseError>
                do throws(DatabaseError) { this = .success(try consume(result, connection: connection).naming(sql)) } catch { this = .failure(error) }
                if case .failure = outcome {} else { outcome = this }
            }
            guard let outcome else { throw DatabaseError(.unexpectedResult, "no result") }
            return try outcome.get()
        } catch {
            throw error.naming(sql)
        }
    }

    /// Asks the server to cancel what this connection is running (a separate connection of
    /// libpq's; the statement then fails with SQLSTATE 57014).
    private static func sendCancel(_ connection: OpaquePointer) {
        guard let cancel = PQgetCancel(connection) else { return }
        defer { PQfreeCancel(cancel) }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &buffer, Int32(buffer.count))
    }

    /// Runs a script of several statements with no parameters (migrations only).
    public func executeScript(_ sql: SQL) throws(DatabaseError) {
        do throws(DatabaseError) {
            let connection = try live()
            let result = PQexec(connection, sql.text)
            _ = try consume(result, connection: connection)
            // A script can leave further results; drain them so the connection is ready.
            while let extra = PQgetResult(connection) {
                defer { PQclear(extra) }
                if let error = Self.error(from: extra, connection: connection) { throw error }
            }
        } catch {
            throw error.naming(sql)
        }
    }

    /// A script written inline, named by its own text (`SQL(inline:)`).
    public func executeScript(_ sql: String) throws(DatabaseError) {
        try executeScript(SQL(inline: sql))
    }

    /// COPY … FROM STDIN: sends `data` (already in the format the statement names) and returns
    /// the number of rows the server took.
    @discardableResult
    public func copyIn(_ sql: SQL, data: [UInt8]) throws(DatabaseError) -> Int {
        do throws(DatabaseError) {
            return try copy(sql.text, data: data)
        } catch {
            throw error.naming(sql)
        }
    }

    /// Sends a COPY statement and checks the server entered the COPY state asked for.
    private func startCopy(_ sql: String, expecting status: ExecStatusType) throws(DatabaseError) -> OpaquePointer {
        let connection = try live()
        let start = PQexec(connection, sql)
        defer { PQclear(start) }
        guard let start, PQresultStatus(start) == status else {
            throw Self.error(from: start, connection: connection) ?? DatabaseError(.copyFailed, "COPY did not start")
        }
        return connection
    }

    private func copy(_ sql: String, data: [UInt8]) throws(DatabaseError) -> Int {
        let connection = try startCopy(sql, expecting: PGRES_COPY_IN)
        let chunk = 1 << 18
        var offset = 0
        var sendFailure: String?
        data.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { bytes in
                while offset < bytes.count {
                    let length = min(chunk, bytes.count - offset)
                    if PQputCopyData(connection, bytes.baseAddress! + offset, Int32(length)) != 1 {
                        sendFailure = Self.message(connection)
                        return
                    }
                    offset += length
                }
            }
        }
        if PQputCopyEnd(connection, sendFailure) != 1 {
            sendFailure = sendFailure ?? Self.message(connection)
        }
        var copied = 0
        var failure: DatabaseError?
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            if let error = Self.error(from: result, connection: connection) {
                failure = failure ?? error
            } else {
                copied = Int(String(cString: PQcmdTuples(result))) ?? 0
            }
        }
        if let failure { throw failure }
        if let sendFailure {
            throw DatabaseError(isUsable ? .copyFailed : .connectionLost, sendFailure)
        }
        return copied
    }

    /// Runs `COPY (…) TO STDOUT`, handing `receive` each piece of data as it arrives (in binary
    /// COPY, a row per piece), so the caller need not hold the whole output. When `receive`
    /// throws, the rest is read and dropped, so the connection stays usable, and the error is
    /// rethrown.
    public func copyOut(_ sql: SQL, receive: ([UInt8]) throws(DatabaseError) -> Void) throws(DatabaseError) {
        do throws(DatabaseError) {
            try copyOut(sql.text, receive: receive)
        } catch {
            throw error.naming(sql)
        }
    }

    /// `COPY (…) TO STDOUT` of a statement the database built: `builder` takes the values as
    /// parameters and returns the COPY's text with them quoted (`format('%L')`), which is then
    /// run, named as `builder`. COPY takes no bind parameters, and a COPY that read them from
    /// transaction-local settings would not be planned with their values: on Citus such a read
    /// of one app goes to every shard, and the settings are read on the workers, which lack them
    /// (docs/deployment.md, "Where PostgreSQL and Citus differ").
    public func copyOut(built builder: SQL, _ parameters: [String?], receive: ([UInt8]) throws(DatabaseError) -> Void) throws(DatabaseError) {
        guard let text = try query(builder, parameters).scalar else {
            throw DatabaseError(.unexpectedResult, "no statement was built", query: builder.name)
        }
        try copyOut(SQL(text, name: builder.name), receive: receive)
    }

    private func copyOut(_ sql: String, receive: ([UInt8]) throws(DatabaseError) -> Void) throws(DatabaseError) {
        let connection = try startCopy(sql, expecting: PGRES_COPY_OUT)
        var receiverFailure: DatabaseError?
        var receiveFailure: String?
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(connection, &buffer, 0)
            if length > 0, let buffer {
                defer { PQfreemem(buffer) }
                guard receiverFailure == nil else { continue }
                let piece = buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                    Array(UnsafeBufferPointer(start: $0, count: Int(length)))
                }
                do { try receive(piece) } catch { receiverFailure = error }
                continue
            }
            if length == -2 { receiveFailure = Self.message(connection) }
            break // -1: the COPY is done; its final result follows
        }
        var failure: DatabaseError?
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            if let error = Self.error(from: result, connection: connection) { failure = failure ?? error }
        }
        if let failure { throw failure }
        if let receiveFailure {
            throw DatabaseError(isUsable ? .copyFailed : .connectionLost, receiveFailure)
        }
        if let receiverFailure { throw receiverFailure }
    }

    /// Turns a PGresult into rows or an error, and clears it.
    private func consume(_ result: OpaquePointer?, connection: OpaquePointer) throws(DatabaseError) -> QueryResult {
        defer { PQclear(result) }
        if let error = Self.error(from: result, connection: connection) { throw error }
        guard let result else { throw DatabaseError(.unexpectedResult, "no result") }
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = []
        columns.reserveCapacity(columnCount)
        for c in 0..<columnCount { columns.append(String(cString: PQfname(result, Int32(c)))) }
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for r in 0..<rowCount {
            var row: [String?] = []
            row.reserveCapacity(columnCount)
            for c in 0..<columnCount {
                if PQgetisnull(result, Int32(r), Int32(c)) == 1 {
                    row.append(nil)
                } else {
                    let length = Int(PQgetlength(result, Int32(r), Int32(c)))
                    let value = PQgetvalue(result, Int32(r), Int32(c))!
                    row.append(value.withMemoryRebound(to: UInt8.self, capacity: length) {
                        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                    })
                }
            }
            rows.append(row)
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return QueryResult(columns: columns, rows: rows, affectedRows: affected)
    }

    /// Copies a binary PGresult's fields into one buffer, and clears it.
    private func consumeBinary(_ result: OpaquePointer?, connection: OpaquePointer) throws(DatabaseError) -> BinaryQueryResult {
        defer { PQclear(result) }
        if let error = Self.error(from: result, connection: connection) { throw error }
        guard let result else { throw DatabaseError(.unexpectedResult, "no result") }
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = [], types: [UInt32] = []
        columns.reserveCapacity(columnCount)
        types.reserveCapacity(columnCount)
        for c in 0..<columnCount {
            columns.append(String(cString: PQfname(result, Int32(c))))
            types.append(UInt32(PQftype(result, Int32(c))))
        }
        var starts: [Int] = [], lengths: [Int32] = []
        starts.reserveCapacity(rowCount * columnCount)
        lengths.reserveCapacity(rowCount * columnCount)
        // The buffer sized once: grown append by append, its copies were a tenth of a report's decoding.
        var total = 0
        for r in 0..<rowCount {
            for c in 0..<columnCount {
                let length = PQgetisnull(result, Int32(r), Int32(c)) == 1 ? -1 : PQgetlength(result, Int32(r), Int32(c))
                starts.append(total)
                lengths.append(length)
                total += Int(max(length, 0))
            }
        }
        // Each field copied with one memcpy into its place (an append per field was a third of this step).
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            for r in 0..<rowCount {
                for c in 0..<columnCount {
                    let index = r * columnCount + c, length = Int(lengths[index])
                    guard length > 0, let base = buffer.baseAddress else { continue }
                    memcpy(base + starts[index], PQgetvalue(result, Int32(r), Int32(c)), length)
                }
            }
            initialized = total
        }
        return BinaryQueryResult(columns: columns, types: types, bytes: bytes, starts: starts, lengths: lengths, rowCount: rowCount)
    }

    /// The error a result carries, with its SQLSTATE, or nil when it succeeded.
    private static func error(from result: OpaquePointer?, connection: OpaquePointer) -> DatabaseError? {
        guard let result else {
            let lost = PQstatus(connection) != CONNECTION_OK
            return DatabaseError(lost ? .connectionLost : .queryFailed, message(connection))
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_COPY_IN:
            return nil
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            var text = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
                ?? String(cString: PQresultErrorMessage(result))
            if let detail = PQresultErrorField(result, Int32(UInt8(ascii: "D"))) { text += " (" + String(cString: detail) + ")" }
            let lost = PQstatus(connection) != CONNECTION_OK
            return DatabaseError(lost ? .connectionLost : .queryFailed, sqlState: state,
                                 text.trimmingCharacters(in: [" ", "\n"]))
        }
    }

    private static func message(_ connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection)).trimmingCharacters(in: [" ", "\n"])
    }
}

extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}

/// Calls `body` with a NULL-free array of C strings that lives only for the call.
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    withOptionalCStringArray(strings.map { Optional($0) } + [nil], body)
}

/// Calls `body` with an array of C strings (nil entries stay NULL) that lives only for the call.
/// All strings are copied into one buffer, so there is one allocation and no pointer escapes.
private func withOptionalCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    var storage: [CChar] = []
    var offsets: [Int?] = []
    offsets.reserveCapacity(strings.count)
    for string in strings {
        guard let string else { offsets.append(nil); continue }
        offsets.append(storage.count)
        storage.append(contentsOf: string.utf8.map { CChar(bitPattern: $0) })
        storage.append(0)
    }
    return storage.withUnsafeBufferPointer { buffer in
        let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in offset.map { buffer.baseAddress! + $0 } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
