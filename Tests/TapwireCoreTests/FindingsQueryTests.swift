import Testing
@testable import TapwireCore

/// One parser for the findings query of `tapwire alerts` and the HTTP API: the same values mean
/// the same instants, the same mistakes get the same sentences (each in its front end's
/// spelling), and the window is at most 400 days for both.
@Suite struct FindingsQueryTests {
    static let now = Timestamp(iso8601: "2026-12-04T12:00:00Z")!

    static func parse(_ values: [FindingsQuery.Parameter: String], _ conventions: FindingsQuery.Conventions = .http) throws(FindingsQueryError) -> FindingsQuery {
        try FindingsQuery.parse(values, now: now, conventions: conventions)
    }

    static func message(_ values: [FindingsQuery.Parameter: String], _ conventions: FindingsQuery.Conventions = .http) -> String? {
        do throws(FindingsQueryError) {
            _ = try parse(values, conventions)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func defaultsAreNowADayBackAndTheCurrentLook() throws {
        let http = try Self.parse([:])
        #expect(http == FindingsQuery(asOf: Self.now, since: Self.now.adding(seconds: -86_400), minimumSeverity: .info, look: .current))
        #expect(try Self.parse([:], .commandLine).minimumSeverity == .warning)
    }

    @Test func everyDurationCountsBackFromNowAndAnInstantComputes() throws {
        let q = try Self.parse([.at: "2h", .since: "30h", .minimumSeverity: "critical"])
        #expect(q.asOf == Self.now.adding(seconds: -7_200) && q.since == Self.now.adding(seconds: -108_000))
        #expect(q.minimumSeverity == .error && q.look == .computed)
        #expect(try Self.parse([.until: "2026-12-01T00:00:00Z"], .commandLine).asOf == Timestamp(iso8601: "2026-12-01T00:00:00Z"))
        #expect(try Self.parse([.fresh: "TRUE"]).look == .computed)
        #expect(try Self.parse([.fresh: "false"]).look == .current)
        #expect(try Self.parse([.at: "0"]).asOf == Self.now)
    }

    @Test func theWindowIsAtMost400DaysForBothFrontEnds() throws {
        #expect(try Self.parse([.since: "400d"]).since == Self.now.adding(seconds: -400 * 86_400))
        #expect(Self.message([.since: "401d"]) == "the window is at most 400 days; pass a later since")
        #expect(Self.message([.since: "401d"], .commandLine) == "the window is at most 400 days; pass a later --since")
        #expect(Self.message([.since: "\(DurationText.maximumSeconds)s"])?.contains("400 days") == true)
    }

    @Test func mistakesAreNamedAsEachFrontEndSpellsThem() {
        #expect(Self.message([.since: "yesterday"]) == "since must be a duration back from now (30m, 24h, 7d) or an ISO 8601 time, got yesterday")
        #expect(Self.message([.at: "yesterday"], .commandLine)?.hasPrefix("--at must be a duration back from now") == true)
        #expect(Self.message([.since: "1h", .at: "2h"]) == "since must be before at")
        #expect(Self.message([.since: "1h", .until: "2h"], .commandLine) == "--since must be before --until")
        #expect(Self.message([.at: "1h", .until: "2h"], .commandLine) == "--at and --until are the same; give one")
        #expect(Self.message([.minimumSeverity: "loud"], .commandLine) == "--min-severity must be info, warning or error, got loud")
        #expect(Self.message([.fresh: "maybe"]) == "fresh must be true or false")
        #expect(Self.message([.fresh: "true", .at: "1h"])?.hasPrefix("fresh recomputes the current look and at always computes") == true)
        #expect(Self.message([.fresh: "true", .until: "1h"], .commandLine)?.contains("--fresh") == true)
        #expect(Self.message([.at: "2026-12-06T00:00:00Z"]) == "at must not be more than a day in the future")
        #expect(Self.message([.since: "1h", .until: "9223372036854775807w"])?.hasPrefix("until must be a duration") == true)
        let long = String(repeating: "x", count: 500)
        #expect((Self.message([.since: long])?.count ?? 0) < 300, "an echoed value is cut")
    }

    /// The mismatch report's instant is `until`, and its window a week.
    @Test func aFrontEndChoosesItsInstantAndWindow() throws {
        let mismatches = FindingsQuery.Conventions(names: FindingsQuery.Conventions.http.names, instant: .until,
                                                   defaultWindowSeconds: 7 * 86_400, defaultSeverity: .info)
        #expect(try Self.parse([:], mismatches).since == Self.now.adding(seconds: -7 * 86_400))
        #expect(Self.message([.since: "1h", .until: "2h"], mismatches) == "since must be before until")
        #expect(Self.message([.since: "2d"], mismatches) == nil)
    }
}
