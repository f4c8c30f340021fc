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

    public init(configuration: RegressionConfiguration = .default) {
        precondition(configuration.problem == nil, configuration.problem ?? "")
        self.configuration = configuration
    }

    static let hour = RollupDeltas.microsecondsPerHour
    static let day = RollupDeltas.microsecondsPerDay

    /// The check of one app as of `asOf`: the newest version that delivered in the horizon before
    /// it, against the versions before it, over the candidate's first `horizonDays` days.
    public func check(appId: Int64, asOf: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> RegressionCheck {
        try RollupStore().foldBeforeReading(on: connection) // count every acknowledged event
        let looksEnd = RollupDeltas.floor(asOf.microseconds, Self.hour)
        let horizon = Int64(configuration.horizonDays) * Self.day
        let lookback = RollupDeltas.floor(looksEnd, Self.day) - horizon
        var firstDays: [String: Int64] = [:]
        for row in try connection.query(EmbeddedSQL.regressionVersions, [String(appId), Self.text(lookback), Self.text(looksEnd)]).rows {
            guard row.count == 2, let version = row[0], let first = row[1].flatMap({ Int64($0) }) else {
                throw DatabaseError(.unexpectedResult, "a regression version row has an unexpected shape")
            }
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
        let end = min(looksEnd, release + horizon)
        let rows = try rows(appId: appId, from: release, to: end, on: connection)
        let manifests = try ManifestStore().currentManifests(appId: appId, on: connection)
        var rule = configuration
        rule.candidateVersion = candidate
        let evaluation = ReleaseRegressionRule(configuration: rule).evaluate(rows: rows, manifests: manifests, asOf: end)
        var days: [RegressionSeriesKey: [RegressionDay]] = [:]
        if case .comparison(let comparison) = evaluation {
            for finding in comparison.findings {
                days[RegressionSeriesKey(category: finding.category, outcome: finding.outcome)] =
                    ReleaseRegressionRule.days(rows: rows, category: finding.category, outcome: finding.outcome, candidate: candidate,
                                               baselineVersions: finding.baselineVersions, asOf: end)
            }
        }
        return RegressionCheck(asOf: asOf.microseconds, looksEnd: end, daysRead: .init(from: release, to: end),
                               evaluation: evaluation, days: days)
    }

    /// The hourly rows of [from, to) (from a UTC midnight): one per hour, category, version and
    /// platform with anything counted, its actions attached.
    public func rows(appId: Int64, from: Int64, to: Int64, on connection: PostgresConnection) throws(DatabaseError) -> [RegressionRow] {
        let parameters = [String(appId), Self.text(from), Self.text(to)]
        struct Cell: Hashable {
            var day: Int64
            var category: String
            var version: String
            var platform: String
        }
        var actions: [Cell: [(action: String, counts: [Int64])]] = [:]
        for row in try connection.query(EmbeddedSQL.regressionActions, parameters).rows {
            guard row.count == 6, let day = row[0].flatMap({ Int64($0) }), let category = row[1], let version = row[2],
                  let platform = row[3], let action = row[4], let counts = PostgresValue.int64Array(row[5]), counts.count == 24
            else { throw DatabaseError(.unexpectedResult, "a release action row has an unexpected shape") }
            actions[Cell(day: day, category: category, version: version, platform: platform), default: []].append((action, counts))
        }
        var out: [RegressionRow] = []
        for row in try connection.query(EmbeddedSQL.regressionCounts, parameters).rows {
            guard row.count == 8, let day = row[0].flatMap({ Int64($0) }), let category = row[1], let version = row[2],
                  let platform = row[3], let delivered = PostgresValue.int64Array(row[4]), let opens = PostgresValue.int64Array(row[5]),
                  let dismissals = PostgresValue.int64Array(row[6]), let replies = PostgresValue.int64Array(row[7]),
                  [delivered.count, opens.count, dismissals.count, replies.count].allSatisfy({ $0 == 24 })
            else { throw DatabaseError(.unexpectedResult, "a release counts row has an unexpected shape") }
            let cellActions = actions.removeValue(forKey: Cell(day: day, category: category, version: version, platform: platform)) ?? []
            for h in 0..<24 {
                let hour = day + Int64(h) * Self.hour
                if hour >= to { break }
                var perAction: [String: Int] = [:]
                for (action, counts) in cellActions where counts[h] != 0 { perAction[action] = Int(counts[h]) }
                guard delivered[h] != 0 || opens[h] != 0 || dismissals[h] != 0 || replies[h] != 0 || !perAction.isEmpty else { continue }
                out.append(RegressionRow(category: category, appVersion: version, platform: platform, hour: hour,
                                         delivered: Int(delivered[h]), opens: Int(opens[h]), dismissals: Int(dismissals[h]),
                                         textReplies: Int(replies[h]), actions: perAction))
            }
        }
        // Every action row has its counts row (the fold writes both from the same events).
        if !actions.isEmpty { throw DatabaseError(.unexpectedResult, "release action rows without their counts row") }
        return out
    }

    static func text(_ microseconds: Int64) -> String { Timestamp(microseconds: microseconds).description }
}
