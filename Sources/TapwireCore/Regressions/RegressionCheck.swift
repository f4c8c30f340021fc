/// The model of the release-regression check: a category's button (or open, reply, dismiss)
/// whose use collapsed in the newest app version, found by `ReleaseRegressionRule` and explained
/// in docs/regressions.md.

/// The hourly check of one app as of an instant, as the store ran it: which days it read, the
/// rule's answer, and the days of every flagged series.
public struct RegressionCheck: Sendable, Equatable {
    /// The instant asked for.
    public var asOf: Int64
    /// The end of the last look: the whole hour at or before `asOf`, or the end of the candidate's
    /// horizon when that came first. Only hours before it were used.
    public var looksEnd: Int64
    /// The UTC days read, [from, to), µs; nil when no version delivered in the horizon before `asOf`.
    public var daysRead: Span?
    public var evaluation: RegressionEvaluation
    /// Per flagged series, by category and outcome: its days, oldest first.
    public var days: [RegressionSeriesKey: [RegressionDay]]
    /// Which look this is and when it was taken: the collectors' stored look of the hour, or
    /// computed for this request. Nil when the caller did not say (a bare `RegressionStore` check).
    public var look: RegressionLookOrigin?

    /// A range of instants [from, to), µs.
    public struct Span: Sendable, Equatable {
        public var from: Int64
        public var to: Int64
        public init(from: Int64, to: Int64) {
            self.from = from
            self.to = to
        }
    }

    public init(asOf: Int64, looksEnd: Int64, daysRead: Span?, evaluation: RegressionEvaluation,
                days: [RegressionSeriesKey: [RegressionDay]] = [:], look: RegressionLookOrigin? = nil) {
        self.asOf = asOf
        self.looksEnd = looksEnd
        self.daysRead = daysRead
        self.evaluation = evaluation
        self.days = days
        self.look = look
    }

    public var comparison: RegressionComparison? {
        if case .comparison(let comparison) = evaluation { comparison } else { nil }
    }
}

extension RegressionCheck: Codable {}

extension RegressionCheck.Span: Codable {}
