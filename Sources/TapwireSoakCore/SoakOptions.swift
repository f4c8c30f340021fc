// The soak's flags, read once from the arguments (swift-argument-parser style, without the package):
// a value with the defaults `make soak` relies on, and a typed error whose text the program prints.

/// What `tapwire-soak` was asked to do.
public struct SoakOptions: Sendable, Equatable {
    public var seconds = 300.0
    public var clients = 4
    /// The total recording rate; nil: `fraction` of the bench's end-to-end peak.
    public var rate: Double?
    public var benchJSON: String?
    public var fraction = 0.7
    /// Empty: next to this program (the caller resolves it, that needs the file system).
    public var binDirectory = ""
    /// Empty: a new directory under /tmp.
    public var work = ""
    public var maxRSSMiB = 512
    public var clientKills = 3

    public init() {}

    public static let usage = """
    usage: tapwire-soak [--seconds 300] [--clients 4] [--rate EVENTS_PER_S | --bench-json FILE [--fraction 0.7]]
                        [--bin DIR] [--work DIR] [--max-rss-mib 512] [--client-kills 3]
      --rate         the total recording rate; otherwise --fraction of endToEndEventsPerSecond in the
                     JSON `tapwire-bench ingest --json FILE` wrote (make soak runs the bench first)
      --bin          where tapwire, tapwire-client-harness and tapwire-bench are (default: next to
                     this program)
      --work         scratch directory (default: a new one under /tmp, removed when the soak passes)
      --max-rss-mib  the collector's documented memory cap; the soak fails if its peak RSS passes it
    Prints the figures and exits 1 if any of them is off.
    """

    /// Why the arguments were not run. `helpRequested` is not a failure: the program prints the
    /// usage and exits 0 (as swift-argument-parser's clean exit).
    public enum ParseError: Error, Equatable, CustomStringConvertible, Sendable {
        case missingValue(option: String)
        case notPositive(option: String)
        case notACount(option: String)
        case unknownOption(String)
        case helpRequested

        public var description: String {
            switch self {
            case .missingValue(let name): "\(name) needs a value\n\(SoakOptions.usage)"
            case .notPositive(let name): "\(name) needs a positive number"
            case .notACount(let name): "\(name) needs a whole number, 0 or more"
            case .unknownOption(let name): "unknown option \(name)\n\(SoakOptions.usage)"
            case .helpRequested: SoakOptions.usage
            }
        }
    }

    /// The options the arguments (without the program's name) ask for; the first bad one throws.
    public static func parse(_ arguments: [String]) throws(ParseError) -> SoakOptions {
        var o = SoakOptions()
        var args = arguments[...]
        func value(_ name: String) throws(ParseError) -> String {
            guard let next = args.popFirst() else { throw .missingValue(option: name) }
            return next
        }
        func number(_ name: String) throws(ParseError) -> Double {
            guard let n = Double(try value(name)), n > 0 else { throw .notPositive(option: name) }
            return n
        }
        while let name = args.popFirst() {
            switch name {
            case "--seconds": o.seconds = try number(name)
            case "--clients": o.clients = max(1, Int(try number(name)))
            case "--rate": o.rate = try number(name)
            case "--bench-json": o.benchJSON = try value(name)
            case "--fraction": o.fraction = try number(name)
            case "--bin": o.binDirectory = try value(name)
            case "--work": o.work = try value(name)
            case "--max-rss-mib": o.maxRSSMiB = Int(try number(name))
            case "--client-kills":
                guard let kills = Int(try value(name)), kills >= 0 else { throw .notACount(option: name) }
                o.clientKills = kills
            case "-h", "--help": throw .helpRequested
            default: throw .unknownOption(name)
            }
        }
        return o
    }
}
