enum PostgresEpoch {
    /// µs from 1970 (Tapwire's timestamps) to 2000 (PostgreSQL's binary timestamps).
    static let offsetMicroseconds: Int64 = 946_684_800_000_000
}
