import Foundation
import TapwireCore
import TapwireStatistics
import TapwireStore

/// Sample-ratio mismatches of holdouts (docs/holdouts.md): a campaign whose treated and held-out
/// devices are not in the share its assignments state, by Lindon & Malek's sequential test at
/// α = 0.001 over the daily looks (`HoldoutEffect`). It reads rollup_holdouts (`HoldoutReader`);
/// the monitor runs it every scan, which costs a few rows per campaign and day.
public struct SampleRatioMismatchFamily: FindingFamily {
    /// How far back a monitor scan looks for campaigns with assignments.
    public var lookbackSeconds: Double
    /// How its reads count every acknowledged event (`ReadFold`).
    public var fold: any ReadFold

    public init(lookbackSeconds: Double = 30 * 86_400, fold: any ReadFold = OwnFold()) {
        self.lookbackSeconds = lookbackSeconds
        self.fold = fold
    }

    public var name: String { "sample_ratio_mismatch" }
    public var kinds: [FindingKind] { [.sampleRatioMismatch] }
    public var cadence: FindingCadence { .continuous }

    /// The campaigns with assignments in [since, asOf), each checked over its days before asOf.
    public func section(appId: Int64, appName: String, query: FindingsQuery, on connection: PostgresConnection) throws(DatabaseError) -> any FindingsSection {
        try fold.foldBeforeReading(on: connection)
        let campaigns = try HoldoutReader.campaigns(appId: appId, from: query.since, to: query.asOf, on: connection)
        return SampleRatioMismatchSection(checks: campaigns.map(Self.check), family: self)
    }

    public func appsToScan(at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [(appId: Int64, name: String)] {
        try HoldoutReader.activeApps(since: instant.adding(seconds: -lookbackSeconds), fold: fold, on: connection)
    }

    public func scan(appId: Int64, at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [Finding] {
        let campaigns = try HoldoutReader.campaigns(appId: appId, from: instant.adding(seconds: -lookbackSeconds),
                                                    to: instant.adding(seconds: 1), on: connection)
        return campaigns.map(Self.check).compactMap(\.mismatch).map(Finding.init)
    }

    /// One campaign's split as the report computes it, and its finding if the split is broken.
    struct Check: Sendable, Equatable {
        var effect: HoldoutEffect
        var mismatch: SampleRatioMismatch?
    }

    static func check(_ counts: HoldoutCounts) -> Check {
        let effect = HoldoutEffect(counts)
        guard effect.srm.mismatch, let expected = effect.srm.expectedShare, let observed = effect.srm.observedShare,
              let sequential = effect.srm.sequentialPValue else { return Check(effect: effect, mismatch: nil) }
        return Check(effect: effect, mismatch: SampleRatioMismatch(
            campaign: counts.campaign, treated: effect.treated.devices, heldOut: effect.heldOut.devices, expectedShare: expected,
            observedShare: observed, pValue: effect.srm.pValue, sequentialPValue: sequential, firstDay: counts.days.first?.day ?? ""))
    }

    public func json(_ finding: Finding) -> JSONValue {
        guard let m = finding.evidence as? SampleRatioMismatch else { return .null }
        return .object([("campaign", .string(m.campaign)), ("treated", .int(m.treated)), ("heldOut", .int(m.heldOut)),
                        ("expectedShare", .double(m.expectedShare)), ("observedShare", .double(Rounding.round(m.observedShare, digits: 6))),
                        ("pValue", m.pValue.map { .double(Rounding.round($0, digits: 12)) } ?? .null),
                        ("sequentialPValue", .double(Rounding.round(m.sequentialPValue, digits: 12))), ("firstDay", .string(m.firstDay))])
    }

    public var csvColumns: [String] { ["campaign", "expectedShare", "observedShare", "pValue", "sequentialPValue"] }

    public func csvValues(_ finding: Finding) -> [String: String] {
        guard let m = finding.evidence as? SampleRatioMismatch else { return [:] }
        return ["campaign": m.campaign, "expectedShare": String(m.expectedShare), "observedShare": String(format: "%.6f", m.observedShare),
                "pValue": m.pValue.map { String(format: "%.3g", $0) } ?? "", "sequentialPValue": String(format: "%.3g", m.sequentialPValue)]
    }

    public func messageFacts(_ findings: [Finding]) -> [String] {
        guard let m = findings.first?.evidence as? SampleRatioMismatch else { return [] }
        return [String(format: "%.2f%% of %d devices held out where %.2f%% was intended (sequential p = %.2g, χ² p = %.2g), assignments since %@",
                       m.observedShare * 100, m.treated + m.heldOut, m.expectedShare * 100, m.sequentialPValue, m.pValue ?? 1, m.firstDay)]
    }

    public var css: String { "" }
}
