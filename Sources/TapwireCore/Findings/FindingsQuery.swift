/// Which findings a reader asks for: the instant they are evaluated as of, the window before it,
/// the least severity shown, and whether a look the collectors stored may be served. Parsed by
/// one function for `tapwire alerts` and the HTTP API (`GET /v1/findings`,
/// `/v1/reports/regressions`, `/v1/reports/mismatches`), so they accept the same values, refuse
/// the same mistakes with the same sentences, and cap the window at 400 days alike.
public struct FindingsQuery: Sendable, Equatable {
    /// Only events before it count (a window family reads [since, asOf); a look family its looks
    /// up to the hour at or before it).
    public var asOf: Timestamp
    /// The start of the window of a family that reads one (category mismatches).
    public var since: Timestamp
    public var minimumSeverity: FindingSeverity
    public var look: Look

    /// The longest window: the event store keeps about 400 days.
    public static let maximumWindowSeconds: Int64 = 400 * 86_400

    public init(asOf: Timestamp, since: Timestamp, minimumSeverity: FindingSeverity = .info, look: Look = .current) {
        self.asOf = asOf
        self.since = since
        self.minimumSeverity = minimumSeverity
        self.look = look
    }

    /// Whether a stored look may answer.
    public enum Look: Sendable, Equatable {
        /// The look the collectors stored for the hour, while it applies (the same settings and
        /// manifests); else computed.
        case current
        /// Computed from the rollups now: `fresh`, and every replay (`at`), which asks what the
        /// data says about that instant.
        case computed
    }

    /// The parameters, by what they mean.
    public enum Parameter: Sendable, Hashable, CaseIterable {
        /// The instant evaluated: a duration back from now or an ISO 8601 time; default now.
        case at
        /// Another name of `at` (the mismatch report's, and the CLI's synonym).
        case until
        /// The window's start: a duration back from now or an ISO 8601 time.
        case since
        /// `true` computes the current look again.
        case fresh
        case minimumSeverity
    }

    /// How a front end names the parameters in its messages, and what it assumes when one is absent.
    public struct Conventions: Sendable {
        public var names: [Parameter: String]
        /// The name the front end's instant goes by (`at`, or `until` for the mismatch report).
        public var instant: Parameter
        /// The window when `since` is absent: this long before the instant.
        public var defaultWindowSeconds: Int64
        public var defaultSeverity: FindingSeverity

        public init(names: [Parameter: String], instant: Parameter, defaultWindowSeconds: Int64, defaultSeverity: FindingSeverity) {
            self.names = names
            self.instant = instant
            self.defaultWindowSeconds = defaultWindowSeconds
            self.defaultSeverity = defaultSeverity
        }

        /// The HTTP API's query parameters: a day's window, every severity.
        public static let http = Conventions(names: [.at: "at", .until: "until", .since: "since", .fresh: "fresh", .minimumSeverity: "minSeverity"],
                                             instant: .at, defaultWindowSeconds: 86_400, defaultSeverity: .info)
        /// `tapwire alerts`: a day's window, warnings and errors (what cron should hear about).
        public static let commandLine = Conventions(names: [.at: "--at", .until: "--until", .since: "--since", .fresh: "--fresh",
                                                            .minimumSeverity: "--min-severity"],
                                                    instant: .at, defaultWindowSeconds: 86_400, defaultSeverity: .warning)

        func name(_ parameter: Parameter) -> String { names[parameter] ?? "\(parameter)" }
    }

    /// The query the values given mean (a value per parameter present; `fresh` as `true` or
    /// `false`), as of `now`. Every duration counts back from now. Every mistake is an error that
    /// names the parameter as the caller spells it and says the fix.
    public static func parse(_ values: [Parameter: String], now: Timestamp, conventions: Conventions) throws(FindingsQueryError) -> FindingsQuery {
        func name(_ parameter: Parameter) -> String { conventions.name(parameter) }
        if values[.at] != nil, values[.until] != nil {
            throw FindingsQueryError(.conflicting, "\(name(.at)) and \(name(.until)) are the same; give one")
        }
        let instantParameter: Parameter = values[.at] != nil ? .at : values[.until] != nil ? .until : conventions.instant
        let asOf = try time(values[instantParameter], name: name(instantParameter), now: now) ?? now
        guard asOf <= now.adding(seconds: 86_400) else {
            throw FindingsQueryError(.outOfRange, "\(name(instantParameter)) must not be more than a day in the future")
        }
        let since = try time(values[.since], name: name(.since), now: now)
            ?? asOf.adding(microseconds: -conventions.defaultWindowSeconds * 1_000_000)
        guard since < asOf else { throw FindingsQueryError(.outOfRange, "\(name(.since)) must be before \(name(instantParameter))") }
        guard asOf.microseconds - since.microseconds <= maximumWindowSeconds * 1_000_000 else {
            throw FindingsQueryError(.outOfRange, "the window is at most 400 days; pass a later \(name(.since))")
        }
        var severity = conventions.defaultSeverity
        if let text = values[.minimumSeverity] {
            guard let named = FindingSeverity(name: text) else {
                throw FindingsQueryError(.invalidValue, "\(name(.minimumSeverity)) must be info, warning or error, got \(FieldRules.truncatedForEcho(text))")
            }
            severity = named
        }
        var fresh = false
        if let text = values[.fresh] {
            guard let flag = Bool(text.lowercased()) else { throw FindingsQueryError(.invalidValue, "\(name(.fresh)) must be true or false") }
            fresh = flag
        }
        let replay = values[.at] != nil || values[.until] != nil
        if fresh, replay {
            throw FindingsQueryError(.conflicting, "\(name(.fresh)) recomputes the current look and \(name(instantParameter)) always computes: give one of them")
        }
        return FindingsQuery(asOf: asOf, since: since, minimumSeverity: severity, look: fresh || replay ? .computed : .current)
    }

    /// A duration back from now (`30m`, `24h`, `7d`) or an ISO 8601 time; nil when absent.
    static func time(_ text: String?, name: String, now: Timestamp) throws(FindingsQueryError) -> Timestamp? {
        guard let text, !text.isEmpty else { return nil }
        if let seconds = DurationText.seconds(text) { return now.adding(microseconds: -seconds * 1_000_000) }
        if let instant = Timestamp(iso8601: text) { return instant }
        throw FindingsQueryError(.invalidValue,
                                 "\(name) must be a duration back from now (30m, 24h, 7d) or an ISO 8601 time, got \(FieldRules.truncatedForEcho(text))")
    }
}
