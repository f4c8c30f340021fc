import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireStore

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
