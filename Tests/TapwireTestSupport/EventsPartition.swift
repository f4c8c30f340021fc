import TapwireCore

/// The daily partitions of `events`, named as tapwire_ensure_event_partitions (migration 0001)
/// names them: `events_` and the UTC day as YYYYMMDD. Tests name a partition from the same day
/// their events are dated in (docs/testing.md), never from SQL `now()` read at another moment.
/// Written here, not asked of the database, so that a test comparing it with the partition a row
/// landed in (StoreTests.createsPartitionsForOldDaysOnDemand) checks the product's naming.
public enum EventsPartition {
    /// The partition that holds the events of UTC day `day` (days since 1970-01-01).
    public static func name(day: Int64) -> String {
        "events_" + CivilCalendar.isoDate(day).replacingOccurrences(of: "-", with: "")
    }

    /// The partition of `day`, made now, that autovacuum leaves alone: a VACUUM summarises every
    /// whole range of a BRIN index (and sets visibility), so a test counting what the fold loop's
    /// tapwire_summarize_recent_event_ranges() did cannot let autovacuum run in between.
    public static func withoutAutovacuum(_ db: TestDatabase, day: Int64) throws -> String {
        try db.query("SELECT tapwire_ensure_event_partitions($1::date, $1::date)", [CivilCalendar.isoDate(day)])
        let partition = name(day: day)
        try db.query("ALTER TABLE \(partition) SET (autovacuum_enabled = off)")
        return partition
    }
}
