import TapwireCore

/// The release-regression check over the release rollups (migration 0080) and the current
/// manifests (docs/regressions.md, "The hourly check"). It reads a version's first
/// `horizonDays` UTC days at most, so its cost does not grow with the version's age.
///
/// Looks are whole hours: evaluating at an instant uses the hours that ended at or before it,
/// so an instant within an hour shows the look of that hour's start, and replaying an earlier
/// instant shows what the hourly check said then (with any events that arrived late since,
/// counted at their own time).
public struct RegressionStore: Sendable {
    public var configuration: RegressionConfiguration
    /// How its reads count every acknowledged event (`ReadFold`).
    public var fold: any ReadFold

    public init(configuration: RegressionConfiguration = .default, fold: any ReadFold = OwnFold()) {
        precondition(configuration.problem == nil, configuration.problem ?? "")
        self.configuration = configuration
        self.fold = fold
    }

    static let hour = RollupDeltas.microsecondsPerHour
    static let day = RollupDeltas.microsecondsPerDay

    /// The check of one app as of `asOf`: the newest version that delivered in the horizon before
    /// it, against the versions before it, over the candidate's first `horizonDays` days.
    public func check(appId: Int64, asOf: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> RegressionCheck {
        try fold.foldBeforeReading(on: connection) // count every acknowledged event
        let looksEnd = RollupDeltas.floor(asOf.microseconds, Self.hour)
        let horizon = Int64(configuration.horizonDays) * Self.day
        let lookback = RollupDeltas.floor(looksEnd, Self.day) - horizon
        // One snapshot for the versions, the rows and the manifests (and read again when a
        // standby cancels it with a recovery conflict).
        return try connection.readOnlySnapshot { () throws(DatabaseError) -> RegressionCheck in
            var firstDays: [String: Int64] = [:]
            for row in try connection.query(EmbeddedSQL.regressionVersions, [String(appId), Self.text(lookback), Self.text(looksEnd)]).namedRows {
                let (version, first) = try row.decode((String, Int64).self)
                firstDays[version] = first
            }
            let newestFirst = firstDays.keys.sorted(by: ReleaseRegressionRule.newer)
            guard let candidate = configuration.candidateVersion ?? newestFirst.first else {
                return RegressionCheck(asOf: asOf.microseconds, looksEnd: looksEnd, daysRead: nil,
                                       evaluation: .noComparison("no app version delivered in the \(configuration.horizonDays) days before the instant evaluated"))
            }
            guard let release = firstDays[candidate] else {
                return RegressionCheck(asOf: asOf.microseconds, looksEnd: looksEnd, daysRead: nil,
                                       evaluation: .noComparison("version \(candidate) delivered nothing in the \(configuration.horizonDays) days before the instant evaluated"))
            }
            guard firstDays.count > 1 else {
                // Nothing to compare with: the rows would say the same, so they are not read.
                return RegressionCheck(asOf: asOf.microseconds, looksEnd: looksEnd, daysRead: nil,
                                       evaluation: .noComparison("only version \(candidate) delivered: there is no earlier version to compare it with"))
            }
            let end = min(looksEnd, release + horizon)
            let days = try readDays(appId: appId, from: release, to: end, on: connection)
            let manifests = try ManifestStore().currentManifests(appId: appId, on: connection)
            var rule = configuration
            rule.candidateVersion = candidate
            let (evaluation, charts) = ReleaseRegressionRule(configuration: rule).evaluate(days: days, manifests: manifests, asOf: end)
            return RegressionCheck(asOf: asOf.microseconds, looksEnd: end, daysRead: .init(from: release, to: end),
                                   evaluation: evaluation, days: charts)
        }
    }

    /// The day rows of the UTC days [from, to) (from a UTC midnight; the rule drops the hours at
    /// or after `to`): one per day, category, version and platform with anything counted, its
    /// actions attached. In one read-only snapshot of its own.
    public func days(appId: Int64, from: Int64, to: Int64, on connection: PostgresConnection) throws(DatabaseError) -> [RegressionDayRow] {
        try connection.readOnlySnapshot { () throws(DatabaseError) -> [RegressionDayRow] in
            try readDays(appId: appId, from: from, to: to, on: connection)
        }
    }

    /// `days`, inside the caller's transaction.
    private func readDays(appId: Int64, from: Int64, to: Int64, on connection: PostgresConnection) throws(DatabaseError) -> [RegressionDayRow] {
        // A few thousand rows by the primary key: parallel workers would cost more than they save.
        try connection.query(EmbeddedSQL.reportNoParallelWorkers)
        let range = [String(appId), Self.text(from), Self.text(to)]
        var actions = ReleaseActionReader()
        try connection.copyOut(built: EmbeddedSQL.regressionActions, range) { (piece) throws(DatabaseError) in try actions.consume(piece) }
        var counts = ReleaseCountsReader(actions: try actions.finish())
        try connection.copyOut(built: EmbeddedSQL.regressionCounts, range) { (piece) throws(DatabaseError) in try counts.consume(piece) }
        return try counts.finish()
    }

    static func text(_ microseconds: Int64) -> String { Timestamp(microseconds: microseconds).description }
}

/// What identifies a release rollup row: its UTC day, category, app version and platform.
private struct ReleaseRowKey: Equatable {
    var day: Int64
    var category: String
    var appVersion: String
    var platform: String

    init(_ fields: [ArraySlice<UInt8>?]) throws(DatabaseError) {
        guard let day = fields[0], let category = fields[1], let version = fields[2], let platform = fields[3] else {
            throw DatabaseError(.unexpectedResult, "a release rollup row with a NULL key column")
        }
        self.day = try BinaryValues.timestamp(day).microseconds
        self.category = BinaryValues.text(category)
        self.appVersion = BinaryValues.text(version)
        self.platform = BinaryValues.text(platform)
    }
}

/// A release rollup array (24 hours, no NULLs) as Swift integers.
private func hours(_ field: ArraySlice<UInt8>?) throws(DatabaseError) -> [Int] {
    let out = try BinaryValues.integerElements(field)
    guard out.count == 24 else { throw DatabaseError(.unexpectedResult, "a release rollup array of \(out.count) hours, not 24") }
    return out
}

/// Reads sql/queries/regression_actions.sql's binary COPY: the action rows in key order.
private struct ReleaseActionReader {
    private var decoder = CopyBinaryDecoder()
    private var rows: [(key: ReleaseRowKey, action: RegressionActionHours)] = []

    mutating func consume(_ data: [UInt8]) throws(DatabaseError) {
        decoder.append(data)
        while let fields = try decoder.nextRow() {
            guard fields.count == 6, let action = fields[4] else {
                throw DatabaseError(.unexpectedResult, "a release action row has an unexpected shape")
            }
            rows.append((try ReleaseRowKey(fields), RegressionActionHours(identifier: BinaryValues.text(action), counts: try hours(fields[5]))))
        }
    }

    func finish() throws(DatabaseError) -> [(key: ReleaseRowKey, action: RegressionActionHours)] {
        guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
        return rows
    }
}

/// Reads sql/queries/regression_counts.sql's binary COPY into day rows, attaching the action
/// rows as it goes: both come in the same key order, so each counts row takes the action rows
/// that follow with its key (no hash, and no string order to agree with the database's).
private struct ReleaseCountsReader {
    private var decoder = CopyBinaryDecoder()
    private let actions: [(key: ReleaseRowKey, action: RegressionActionHours)]
    private var nextAction = 0
    private var rows: [RegressionDayRow] = []

    init(actions: [(key: ReleaseRowKey, action: RegressionActionHours)]) { self.actions = actions }

    mutating func consume(_ data: [UInt8]) throws(DatabaseError) {
        decoder.append(data)
        while let fields = try decoder.nextRow() {
            guard fields.count == 8 else { throw DatabaseError(.unexpectedResult, "a release counts row has an unexpected shape") }
            let key = try ReleaseRowKey(fields)
            var own: [RegressionActionHours] = []
            while nextAction < actions.count, actions[nextAction].key == key {
                own.append(actions[nextAction].action)
                nextAction += 1
            }
            rows.append(RegressionDayRow(category: key.category, appVersion: key.appVersion, platform: key.platform, day: key.day,
                                         delivered: try hours(fields[4]), opens: try hours(fields[5]), dismissals: try hours(fields[6]),
                                         textReplies: try hours(fields[7]), actions: own))
        }
    }

    func finish() throws(DatabaseError) -> [RegressionDayRow] {
        guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
        // Every action row has its counts row (the fold writes both from the same events).
        guard nextAction == actions.count else { throw DatabaseError(.unexpectedResult, "release action rows without their counts row") }
        return rows
    }
}
