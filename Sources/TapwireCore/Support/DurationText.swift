/// Durations as people type them: `30s`, `15m`, `24h`, `7d`, `2w`, or a bare `0`. One parser for
/// the HTTP `since`/`until` parameters and the CLI's --since, --grace and --keep, so they agree.
public enum DurationText {
    /// The largest duration accepted, 10,000 years: far below where microseconds overflow Int64,
    /// so a time this far back can still be subtracted from any other without trapping.
    public static let maximumSeconds: Int64 = 10_000 * 366 * 86_400

    /// The units a duration may end with.
    public enum Unit: Character, Sendable {
        case seconds = "s", minutes = "m", hours = "h", days = "d", weeks = "w"

        public var seconds: Int64 {
            switch self {
            case .seconds: return 1
            case .minutes: return 60
            case .hours: return 3600
            case .days: return 86_400
            case .weeks: return 7 * 86_400
            }
        }
    }

    /// A count and its unit (`7d` → (7, .days)), or nil when `text` is not one; a bare `0` has no
    /// unit and is not one here. Callers that need calendar days rather than seconds (the
    /// report's `since`) use this and add their own bounds.
    public static func parts(_ text: String) -> (count: Int64, unit: Unit)? {
        guard let last = text.last, let unit = Unit(rawValue: last), let count = Int64(text.dropLast()), count >= 0 else { return nil }
        return (count, unit)
    }

    /// The duration in seconds, or nil when `text` is not one (including when it is too large).
    public static func seconds(_ text: String) -> Int64? {
        if text == "0" { return 0 }
        guard let (number, unit) = parts(text) else { return nil }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: unit.seconds)
        guard !overflow, seconds <= maximumSeconds else { return nil }
        return seconds
    }
}
