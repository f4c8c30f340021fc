import Foundation
import TapwireCommandLine
import TapwireStore

enum MigrateCommand {
    static let usage = """
    tapwire migrate [--database-url URL]
      Applies the schema migrations that are not applied yet. Safe to run twice, and from two
      processes at once (they take turns on an advisory lock).
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()
        let connection = try location.connect()
        defer { connection.close() }
        let applied = try Migrator().migrate(connection)
        if applied.isEmpty {
            print("schema is current (version \(Migrator().latestVersion))")
        } else {
            for migration in applied { print("applied \(migration.name)") }
        }
        return 0
    }
}
