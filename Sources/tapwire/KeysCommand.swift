import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireStore

enum KeysCommand {
    static let usage = """
    tapwire keys rotate APP [--kind write|read|admin] [--grace 7d] [--format text|json] [--database-url URL]
      Makes a new key. The app's previous keys of that kind keep working for the grace period
      (default 7 days, long enough for an app update carrying the new write key to roll out);
      --grace 0 revokes them at once. An admin key (twa_…) may delete the app's data
      (POST /v1/devices/forget) and nothing else; apps are created without one.
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard args.positional() == "rotate" else { throw CLIError("usage: tapwire keys rotate APP [--kind write|read|admin] [--grace 7d]") }
        guard let name = args.positional() else { throw CLIError("name the app: `tapwire keys rotate APP`") }
        let kindText = try args.option("kind") ?? "write"
        guard let kind = APIKey.Kind(rawValue: kindText) else { throw CLIError("--kind must be write, read or admin") }
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
