import Foundation
import TapwireClient

struct Options {
    var queue: URL?
    var endpoint: URL?
    var key = ProcessInfo.processInfo.environment["TAPWIRE_WRITE_KEY"] ?? ""
    var record = 0
    var log: URL?
    var flushEvery = 0
    var drain = false
    var timeout = 60.0
    var batch = 500
    var durability = QueueDurability.fsyncEveryRecord
    var appVersion = "1.0.0"
    var seed = 0
    var tap: String?
    var convert: String?
    var hang = false

    static let usage = """
    usage: tapwire-client-harness --queue DIR --endpoint URL [--key WRITE_KEY] [--record N] [--log FILE]
                                  [--flush-every K] [--drain] [--timeout SECONDS] [--batch N]
                                  [--durability fsync|buffered] [--app-version V] [--seed S]
                                  [--tap NOTIFICATION_ID] [--convert NAME] [--hang]
      --record N       record N events (the key may also come from TAPWIRE_WRITE_KEY)
      --log FILE       append each recorded event id, one per line, after record returns
      --flush-every K  flush after every K records (0: never while recording)
      --drain          flush until the queue is empty or --timeout passes; exit 2 if events remain
      --tap ID         then record an open of notification ID (remembered for the direct window)
      --convert NAME   then record a conversion NAME (it names the tap within the direct window)
      --hang           then wait until killed, without flushing or closing anything
    Prints one JSON line with the counts when done.
    """

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var o = Options()
        var i = 0
        func value(_ name: String) -> String? {
            i += 1
            return i < arguments.count ? arguments[i] : nil
        }
        while i < arguments.count {
            let name = arguments[i]
            switch name {
            case "--queue": guard let v = value(name) else { return .failure(UsageError("--queue needs a directory")) }; o.queue = URL(fileURLWithPath: v)
            case "--endpoint":
                guard let v = value(name), let url = URL(string: v), url.scheme != nil else { return .failure(UsageError("--endpoint needs a URL such as http://127.0.0.1:8080")) }
                o.endpoint = url
            case "--key": guard let v = value(name) else { return .failure(UsageError("--key needs the app's write key")) }; o.key = v
            case "--record": guard let v = value(name), let n = Int(v), n >= 0 else { return .failure(UsageError("--record needs a count")) }; o.record = n
            case "--log": guard let v = value(name) else { return .failure(UsageError("--log needs a file")) }; o.log = URL(fileURLWithPath: v)
            case "--flush-every": guard let v = value(name), let n = Int(v), n >= 0 else { return .failure(UsageError("--flush-every needs a count")) }; o.flushEvery = n
            case "--drain": o.drain = true
            case "--timeout": guard let v = value(name), let t = Double(v), t > 0 else { return .failure(UsageError("--timeout needs seconds")) }; o.timeout = t
            case "--batch": guard let v = value(name), let n = Int(v), n > 0 else { return .failure(UsageError("--batch needs a count")) }; o.batch = n
            case "--durability":
                switch value(name) {
                case "fsync": o.durability = .fsyncEveryRecord
                case "buffered": o.durability = .osBuffered
                default: return .failure(UsageError("--durability is fsync or buffered"))
                }
            case "--app-version": guard let v = value(name) else { return .failure(UsageError("--app-version needs a value")) }; o.appVersion = v
            case "--seed": guard let v = value(name), let n = Int(v) else { return .failure(UsageError("--seed needs an integer")) }; o.seed = n
            case "--tap": guard let v = value(name) else { return .failure(UsageError("--tap needs a notification id")) }; o.tap = v
            case "--convert": guard let v = value(name) else { return .failure(UsageError("--convert needs a conversion name")) }; o.convert = v
            case "--hang": o.hang = true
            case "-h", "--help": return .failure(UsageError(""))
            default: return .failure(UsageError("unknown option \(name)"))
            }
            i += 1
        }
        guard o.queue != nil else { return .failure(UsageError("--queue is required")) }
        guard o.endpoint != nil else { return .failure(UsageError("--endpoint is required")) }
        if o.record > 0 || o.drain || o.flushEvery > 0, o.key.isEmpty { return .failure(UsageError("--key (or TAPWIRE_WRITE_KEY) is required to send")) }
        return .success(o)
    }
}
