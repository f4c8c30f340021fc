import Foundation
import TapwireCommandLine
import TapwireCore
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

enum AppsCommand {
    static let usage = """
    tapwire apps create NAME [--format text|json] [--database-url URL]
      Creates an app and prints its write key (for the app) and read key (for reports). They are
      shown once: only their hashes are stored.
    tapwire apps list [--format text|json] [--database-url URL]
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let action = args.positional() else { throw CLIError("say what to do: `tapwire apps create NAME` or `tapwire apps list`") }
        let format = try OutputFormat.parse(try args.option("format"))
        let location = try DatabaseLocation.resolve(&args)
        switch action {
        case "create":
            guard let name = args.positional() else { throw CLIError("give the app a name: `tapwire apps create NAME`") }
            try args.finish()
            let connection = try location.connect()
            defer { connection.close() }
            try DatabaseLocation.requireCurrentSchema(connection)
            let created = try AppStore().createApp(named: name, on: connection)
            switch format {
            case .json:
                print(JSONValue.object([("app", .string(created.name)), ("writeKey", .string(created.writeKey.text)),
                                        ("readKey", .string(created.readKey.text))]).serialized())
            case .text:
                print("""
                app:       \(created.name)
                write key: \(created.writeKey.text)
                read key:  \(created.readKey.text)

                The keys are shown only now. The write key goes into the app (it can only post events);
                the read key reads reports. `tapwire keys rotate \(created.name) --kind write` replaces one.
                """)
            }
        case "list":
            try args.finish()
            let connection = try location.connect()
            defer { connection.close() }
            try DatabaseLocation.requireCurrentSchema(connection)
            let apps = try AppStore().listApps(on: connection)
            switch format {
            case .json:
                print(JSONValue.object([("apps", .array(apps.map { app in
                    .object([("app", .string(app.name)), ("createdAt", .string(app.createdAt.description)),
                             ("activeWriteKeys", .int(app.activeWriteKeys)), ("activeReadKeys", .int(app.activeReadKeys))])
                }))]).serialized())
            case .text:
                if apps.isEmpty { print("no apps yet: `tapwire apps create NAME` makes one") }
                let width = max(4, apps.map(\.name.count).max() ?? 0)
                if !apps.isEmpty { print("APP".padding(toLength: width, withPad: " ", startingAt: 0) + "  CREATED                   WRITE KEYS  READ KEYS") }
                for app in apps {
                    print(app.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + app.createdAt.description
                          + "  " + String(app.activeWriteKeys).padding(toLength: 10, withPad: " ", startingAt: 0) + "  " + String(app.activeReadKeys))
                }
            }
        default:
            throw CLIError("unknown apps action \(action): use create or list")
        }
        return 0
    }
}

enum KeysCommand {
    static let usage = """
    tapwire keys rotate APP [--kind write|read] [--grace 7d] [--format text|json] [--database-url URL]
      Makes a new key. The app's previous keys of that kind keep working for the grace period
      (default 7 days, long enough for an app update carrying the new write key to roll out);
      --grace 0 revokes them at once.
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard args.positional() == "rotate" else { throw CLIError("usage: tapwire keys rotate APP [--kind write|read] [--grace 7d]") }
        guard let name = args.positional() else { throw CLIError("name the app: `tapwire keys rotate APP`") }
        let kindText = try args.option("kind") ?? "write"
        guard let kind = APIKey.Kind(rawValue: kindText) else { throw CLIError("--kind must be write or read") }
        let graceText = try args.option("grace")
        var grace = AppStore.defaultGraceSeconds
        if let graceText {
            guard let seconds = DurationText.seconds(graceText) else { throw CLIError("--grace takes a duration such as 0, 12h or 7d") }
            grace = seconds
        }
        let format = try OutputFormat.parse(try args.option("format"))
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()
        let connection = try location.connect()
        defer { connection.close() }
        try DatabaseLocation.requireCurrentSchema(connection)
        let key = try AppStore().rotateKey(appNamed: name, kind: kind, graceSeconds: grace, on: connection)
        switch format {
        case .json:
            print(JSONValue.object([("app", .string(name)), ("kind", .string(kind.rawValue)), ("key", .string(key.text)),
                                    ("previousKeysExpireInSeconds", .int(grace))]).serialized())
        case .text:
            print("new \(kind.rawValue) key for \(name): \(key.text)")
            print(grace == 0 ? "the previous \(kind.rawValue) keys are revoked now" : "the previous \(kind.rawValue) keys keep working for \(graceText ?? "7d")")
        }
        return 0
    }
}

enum OutputFormat {
    case text, json
    static func parse(_ text: String?) throws(CLIError) -> OutputFormat {
        switch text ?? "text" {
        case "text", "table": return .text
        case "json": return .json
        default: throw CLIError("--format must be text or json")
        }
    }
}
