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
    tapwire apps attribution --app NAME [--direct 1h] [--influence 24h] [--format text|json] [--database-url URL]
      Sets the app's attribution windows (default 1h direct, 24h influence; each from 1s to 30d)
      and recomputes every credit of the app under them, with the conversion rollups; without
      --direct and --influence, prints them (docs/outcomes.md).
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
        case "attribution":
            return try attribution(&args, format: format, location: location)
        default:
            throw CLIError("unknown apps action \(action): use create, list or attribution")
        }
        return 0
    }

    /// A window as typed, checked against the columns' bounds (migration 0161) with the fix.
    static func window(_ text: String?, flag: String) throws -> Int64? {
        guard let text else { return nil }
        guard let seconds = DurationText.seconds(text) else { throw CLIError("--\(flag) takes a duration such as 30m, 1h or 7d, got \(text)") }
        guard seconds > 0, seconds <= AttributionStore.maximumWindowSeconds else {
            throw CLIError("--\(flag) must be longer than 0 and at most 30d, got \(text)")
        }
        return seconds
    }

    static func attribution(_ args: inout Arguments, format: OutputFormat, location: DatabaseLocation) throws -> Int32 {
        guard let name = try args.option("app") else {
            throw CLIError("name the app: `tapwire apps attribution --app NAME --direct 1h --influence 24h`")
        }
        let direct = try window(try args.option("direct"), flag: "direct")
        let influence = try window(try args.option("influence"), flag: "influence")
        try args.finish()
        let connection = try location.connect()
        defer { connection.close() }
        try DatabaseLocation.requireCurrentSchema(connection)
        let app = try AppStore().app(named: name, on: connection)
        let store = AttributionStore()
        guard let current = try store.windows(appId: app.appId, on: connection) else {
            throw CLIError("no app named \(name)")
        }
        var recomputed: AttributionStore.Recomputed?
        if direct != nil || influence != nil {
            recomputed = try store.setWindows(appId: app.appId, directSeconds: direct ?? current.direct,
                                              influenceSeconds: influence ?? current.influence, on: connection)
        }
        let windows = (direct: direct ?? current.direct, influence: influence ?? current.influence)
        switch format {
        case .json:
            var members: [(String, JSONValue)] = [("app", .string(name)), ("directWindowSeconds", .int(windows.direct)),
                                                  ("influenceWindowSeconds", .int(windows.influence))]
            if let recomputed {
                members += [("conversionsRecomputed", .int(recomputed.conversions)), ("creditsChanged", .int(recomputed.changedCredits))]
            }
            print(JSONValue.object(members).serialized())
        case .text:
            print("\(name): direct window \(windows.direct)s, influence window \(windows.influence)s")
            if let recomputed {
                print("recomputed the credits of \(recomputed.conversions) conversions: \(recomputed.changedCredits) changed")
            }
        }
        return 0
    }
}
