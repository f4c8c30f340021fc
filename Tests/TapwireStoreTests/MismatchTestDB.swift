import TapwireCore
@testable import TapwireStore
#if canImport(Glibc)
import Glibc
#endif

/// A fresh, migrated database per test on the server named by TAPWIRE_TEST_ADMIN_URL.
/// Stand-in until TapwireTestSupport lands on main.
struct MismatchTestDB {
    let url: String
    let connection: PostgresConnection

    static func fresh() throws -> MismatchTestDB {
        let admin = getenv("TAPWIRE_TEST_ADMIN_URL").map { String(cString: $0) } ?? "postgresql://postgres@127.0.0.1:55440/postgres"
        let name = "mm_" + String(UInt64.random(in: 0..<UInt64.max), radix: 36)
        let adminConnection = try PostgresConnection(url: admin)
        try adminConnection.query("CREATE DATABASE \(name)")
        adminConnection.close()
        let url = admin.replacingLastPathComponent(with: name)
        let connection = try PostgresConnection(url: url)
        try Migrator().migrate(connection)
        return MismatchTestDB(url: url, connection: connection)
    }

    func createApp(_ name: String) throws -> CreatedApp { try AppStore().createApp(named: name, on: connection) }
}

extension String {
    func replacingLastPathComponent(with name: String) -> String {
        guard let slash = lastIndex(of: "/") else { return self }
        return String(self[...slash]) + name
    }
}
