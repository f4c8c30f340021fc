/// Durations as people type them: `30s`, `15m`, `24h`, `7d`, `2w`, or a bare `0`. One parser for
/// the HTTP `since`/`until` parameters and the CLI's --since, --grace and --keep, so they agree.
public enum DurationText {
    /// The largest duration accepted, 10,000 years: far below where microseconds overflow Int64,
    /// so a time this far back can still be subtracted from any other without trapping.
    public static let maximumSeconds: Int64 = 10_000 * 366 * 86_400

    /// The duration in seconds, or nil when `text` is not one (including when it is too large).
    public static func seconds(_ text: String) -> Int64? {
        if text == "0" { return 0 }
        guard let unit = text.last, let number = Int64(text.dropLast()), number >= 0 else { return nil }
        let perUnit: Int64
        switch unit {
        case "s": perUnit = 1
        case "m": perUnit = 60
        case "h": perUnit = 3600
        case "d": perUnit = 86_400
        case "w": perUnit = 7 * 86_400
        default: return nil
        }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: perUnit)
        guard !overflow, seconds <= maximumSeconds else { return nil }
        return seconds
    }
}
