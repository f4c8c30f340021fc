import TapwireCore

/// The report, outcome and demo fixtures post events at fixed dates of October to December 2026,
/// chosen for what those days are in their zones (Kolkata's and Kathmandu's offsets, St John's
/// before its daylight saving). The collector refuses events older than 400 days, so from late
/// 2027 those fixtures would be refused and their suites fail by the calendar alone. A test
/// collector therefore accepts events back to `earliest`, and never less than the product's 400
/// days; a test of the limit itself sets the product's value back.
public enum FixtureDates {
    /// No fixture posts an event before this.
    public static let earliest = Timestamp(iso8601: "2026-10-01T00:00:00Z")!

    /// The age limit a test collector uses at `now`: the product's, or as far back as `earliest`.
    public static func ageLimit(now: Timestamp) -> Int64 {
        let day: Int64 = 86_400_000_000
        return max(IngestLimits().maxEventAgeMicroseconds, now.microseconds - earliest.microseconds + day)
    }
}
