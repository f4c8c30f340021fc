import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireStore

enum DevicesCommand {
    static let usage = """
    tapwire devices forget --app NAME --device ID [--format text|json] [--database-url URL]
      Removes every stored event of the install id ID and every row that holds it (its
      conversions' credits, its notifications' conversion rows, its queued attribution), in one
      transaction. The rollups, which hold no install id, keep their counts. Prints what each
      table held and the id's digest (the first 16 hex digits of its SHA-256), never the id.
      Over HTTP: POST /v1/devices/forget with the app's admin key (docs/outcomes.md).
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard args.positional() == "forget" else { throw CLIError("usage: tapwire devices forget --app NAME --device ID") }
        guard let name = try args.option("app") else { throw CLIError("name the app: `tapwire devices forget --app NAME --device ID`") }
        guard let deviceId = try args.option("device"), !deviceId.isEmpty else {
            throw CLIError("give the install id: `tapwire devices forget --app \(name) --device ID` (the deviceId the app's batches carried)")
        }
        if let problem = FieldRules.problem(with: deviceId, maxBytes: IngestLimits().maxTagBytes) {
            throw CLIError("--device \(problem): no stored install id can be that")
        }
        let format = try OutputFormat.parse(try args.option("format"))
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()
        let connection = try location.connect()
        defer { connection.close() }
        try DatabaseLocation.requireCurrentSchema(connection)
        let app = try AppStore().app(named: name, on: connection)
        let forgotten = try DeviceStore().forget(deviceId: deviceId, appId: app.appId, on: connection)
        switch format {
        case .json:
            print(JSONValue.object([("app", .string(name))] + (forgotten.json.objectValue?.members.map { ($0.key, $0.value) } ?? [])).serialized())
        case .text:
            print("forgot device \(forgotten.device) (SHA-256 prefix) of \(name):")
            for (table, rows) in forgotten.removed { print("  \(table): \(rows)") }
        }
        return 0
    }
}
