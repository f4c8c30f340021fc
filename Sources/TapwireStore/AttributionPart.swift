/// The part of an app's attribution queue an install id belongs to (migration 0328): two
/// connections can attribute one app at once, each a part, and a device is in one part only, so
/// they never write the same device's credits (docs/outcomes.md, "Attribution in parts by install
/// id"). The part is PostgreSQL's hashtextextended(id, 0) modulo `count`, taken non-negative, the
/// expression of tapwire_queue_attribution; a conversion without an install id is in part 0.
public enum AttributionPart {
    /// The parts; the database's tapwire_attribution_parts() says the same (a test checks).
    public static let count = 2

    /// The part of `device` (nil: a conversion without an install id).
    public static func of(_ device: String?) -> Int {
        guard let device else { return 0 }
        let hash = Int64(bitPattern: PostgresHash.textExtended(device))
        return Int((hash % Int64(count) + Int64(count)) % Int64(count))
    }
}
