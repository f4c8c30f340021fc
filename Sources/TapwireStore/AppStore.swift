import TapwireCore

/// Apps and their keys. Keys are stored as SHA-256 of the secret and compared in constant time.
public struct AppStore: Sendable {
    /// How long a rotated-out key keeps working unless told otherwise: long enough for an app
    /// release carrying the new write key to reach most devices.
    public static let defaultGraceSeconds: Int64 = 7 * 86_400

    public init() {}

    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        func ok(_ c: UInt8, first: Bool) -> Bool {
            (48...57).contains(c) || (65...90).contains(c) || (97...122).contains(c) || (!first && (c == 46 || c == 95 || c == 45))
        }
        return ok(bytes[0], first: true) && bytes.dropFirst().allSatisfy { ok($0, first: false) }
    }

    public func createApp(named name: String, on connection: PostgresConnection) throws -> CreatedApp {
        guard Self.isValidName(name) else {
            throw AppStoreError(code: .invalidName, message: "app names are 1-64 characters: letters, digits, '.', '_' and '-', starting with a letter or digit")
        }
        let writeKey = APIKey.generate(kind: .write)
        let readKey = APIKey.generate(kind: .read)
        do {
            return try connection.transaction { () throws(DatabaseError) -> CreatedApp in
                let appId = try connection.query(EmbeddedSQL.appCreate, [name]).value(Int64.self)
                try insert(writeKey, appId: appId, expiresInSeconds: nil, on: connection)
                try insert(readKey, appId: appId, expiresInSeconds: nil, on: connection)
                return CreatedApp(appId: appId, name: name, writeKey: writeKey, readKey: readKey)
            }
        } catch {
            if error.isUniqueViolation {
                throw AppStoreError(code: .duplicateName, message: "an app named \(name) already exists")
            }
            throw error
        }
    }

    func insert(_ key: APIKey, appId: Int64, expiresInSeconds: Int64?, on connection: PostgresConnection) throws(DatabaseError) {
        try connection.query(EmbeddedSQL.keyInsert, [key.keyId, String(appId), key.kind.rawValue,
                                                     PostgresValue.hex(key.secretHash), expiresInSeconds.map(String.init)])
    }

    public func app(named name: String, on connection: PostgresConnection) throws -> AppRecord {
        guard let app = try connection.query(EmbeddedSQL.appByName, [name]).decodeFirst(AppRecord.self) else {
            throw AppStoreError(code: .unknownApp, message: "no app named \(name); `tapwire apps list` shows the apps, `tapwire apps create \(name)` makes one")
        }
        return app
    }

    public func listApps(on connection: PostgresConnection) throws(DatabaseError) -> [AppRecord] {
        try connection.query(EmbeddedSQL.appsList).decode(AppRecord.self)
    }

    /// Makes a new key of `kind`; the app's previous keys of that kind keep working for
    /// `graceSeconds` (0 revokes them now).
    public func rotateKey(appNamed name: String, kind: APIKey.Kind, graceSeconds: Int64,
                          on connection: PostgresConnection) throws -> APIKey {
        let app = try app(named: name, on: connection)
        let key = APIKey.generate(kind: kind)
        try connection.transaction { () throws(DatabaseError) in
            try connection.query(EmbeddedSQL.keyExpireOld, [String(app.appId), kind.rawValue, String(max(0, graceSeconds))])
            try insert(key, appId: app.appId, expiresInSeconds: nil, on: connection)
        }
        return key
    }

    /// The app a key belongs to, or nil for an unknown, wrong or expired key. The secret's hash
    /// is compared in constant time.
    public func resolve(_ key: APIKey, on connection: PostgresConnection) throws(DatabaseError) -> KeyIdentity? {
        guard let stored = try connection.query(EmbeddedSQL.keyLookup, [key.keyId]).decodeFirst(StoredKey.self) else { return nil }
        let matches = constantTimeEquals(stored.secretHash, key.secretHash)
        guard matches, stored.kind == key.kind, stored.active else { return nil }
        return KeyIdentity(appId: stored.appId, appName: stored.appName, kind: stored.kind, keyId: key.keyId)
    }

    /// A row of sql/queries/key_lookup.sql: the key's app, kind, secret hash and whether it is in force.
    private struct StoredKey: PostgresRowDecodable {
        var appId: Int64
        var appName: String
        var kind: APIKey.Kind
        var secretHash: [UInt8]
        var active: Bool

        init(row: QueryResult.Row) throws(DatabaseError) {
            appId = try row.decode("app_id")
            appName = try row.decode("name")
            kind = try row.decode("kind")
            guard let hash = PostgresValue.bytes(fromHex: try row.decode("secret_hash")) else {
                throw DatabaseError(.unexpectedResult, "column secret_hash is not hex", query: EmbeddedSQL.keyLookup.name)
            }
            secretHash = hash
            active = try row.decode("active")
        }
    }
}
