/// A dimension events are described by, which a report can filter on (`--platform iOS`) and
/// group by (`--by platform`). This is the one declaration of each: its names on the command
/// line, in query strings, in JSON and CSV, and its value for an event. The SQL side is
/// `tapwire_dimension_value` and `tapwire_event_matches` (sql/migrations/0150_report_rollups.sql),
/// which a test holds to this list; adding a dimension is a case here, a case there, and a column the events carry
/// (docs/architecture.md, "Adding a report dimension").
public enum ReportDimension: String, Sendable, CaseIterable, Hashable, Comparable {
    case appVersion
    case platform
    case campaign
    case variant
    /// The major version of the OS (`18` of `osVersion` "18.1"): iOS 18's notification summaries
    /// change what gets tapped, so teams compare by it.
    case os

    /// The name of the filter option (`--version 3.2`, `?version=3.2`) and of the `--by` value.
    public var flag: String {
        switch self {
        case .appVersion: return "version"
        case .platform: return "platform"
        case .campaign: return "campaign"
        case .variant: return "variant"
        case .os: return "os"
        }
    }

    /// Every spelling accepted for `--by` and as a filter option, the JSON name first.
    public var spellings: [String] {
        switch self {
        case .appVersion: return ["appVersion", "version", "app-version", "app_version"]
        case .platform: return ["platform"]
        case .campaign: return ["campaign"]
        case .variant: return ["variant"]
        case .os: return ["os", "osVersion", "os-version", "os_version"]
        }
    }

    /// A column heading and a phrase for people.
    public var label: String {
        switch self {
        case .appVersion: return "app version"
        case .platform: return "platform"
        case .campaign: return "campaign"
        case .variant: return "variant"
        case .os: return "OS version"
        }
    }

    /// What the filter matches and what an absent value is stored as.
    public var help: String {
        switch self {
        case .appVersion: return "the app version of the batch context"
        case .platform: return "the platform of the batch context (iOS, iPadOS, watchOS, macOS, visionOS)"
        case .campaign: return "the event's campaign ('' matches events without one)"
        case .variant: return "the event's A/B variant ('' matches events without one)"
        case .os: return "the major OS version of the batch context (18 for 18.1; '' when not sent)"
        }
    }

    /// The filter parameter's description in docs/openapi.json, where it has one.
    public var apiDescription: String? {
        switch self {
        case .appVersion: return "Only this app version."
        case .platform, .campaign, .variant: return nil
        case .os: return "Only this major OS version (18 for iOS 18.x)."
        }
    }

    /// Accepts the JSON name and the command-line spellings, in any case.
    public init?(flag: String) {
        let lowered = flag.lowercased()
        guard let found = ReportDimension.allCases.first(where: { $0.spellings.contains { $0.lowercased() == lowered } }) else { return nil }
        self = found
    }

    public static func < (a: ReportDimension, b: ReportDimension) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The OS major version of an `osVersion` ("18.1" → "18", nil → ""): what the rollups and the
    /// filters key on. SQL: split_part(coalesce(os_version, ''), '.', 1).
    public static func osMajor(_ osVersion: String?) -> String {
        guard let osVersion else { return "" }
        // The prefix before the first dot, found in the UTF-8 view: split(separator:) built an
        // array of substrings per event, 8 % of a rebuilt day's instructions (docs/benchmarks.md).
        guard let dot = osVersion.utf8.firstIndex(of: UInt8(ascii: ".")) else { return osVersion }
        return String(osVersion[..<dot])
    }
}
