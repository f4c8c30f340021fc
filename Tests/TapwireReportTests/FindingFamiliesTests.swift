import Testing
import TapwireCore
import TapwireReport
import TapwireStore
import TapwireTestSupport

/// The families of findings are one list (`FindingFamilies`), and the findings' outputs iterate
/// it: a third family, written here as the holdouts issue's `sample_ratio_mismatch` would be
/// (its own kind, evidence, section, columns, message and style), shows up in every output
/// without a line of the renderers changing.
@Suite struct FindingFamiliesTests {
    static let t0 = Timestamp(iso8601: "2026-12-01T10:00:00Z")!

    static let ratioFinding = SampleRatioFamily.finding(version: "2.0", since: t0)

    static var report: FindingsReport {
        let mismatch = MismatchFinding(kind: .unknownCategory, severity: .error, category: "promo", count: 3, appVersions: ["2.0"],
                                       platforms: ["iOS"], firstSeen: t0, lastSeen: t0, message: "m")
        let check = RegressionCheck(asOf: t0.microseconds, looksEnd: t0.microseconds, daysRead: nil,
                                    evaluation: .noComparison("only version 2.0 delivered"))
        return FindingsReport(app: "demo", asOf: t0, sections: [
            CategoryMismatchSection(report: MismatchReport(app: "demo", since: t0.adding(seconds: -86_400), until: t0, findings: [mismatch])),
            ReleaseRegressionSection(check: check),
            SampleRatioSection(findings: [ratioFinding]),
        ])
    }

    @Test func everyKindBelongsToOneFamilyAndEveryFamilyHasItsOwnName() {
        let families = FindingFamilies.all()
        #expect(families.map(\.name) == ["category_mismatch", "release_regression", "sample_ratio_mismatch"])
        #expect(Set(FindingFamilies.kinds.map(\.rawValue)).count == FindingFamilies.kinds.count)
        for kind in FindingFamilies.kinds {
            #expect(FindingKind(rawValue: kind.rawValue) == kind)
            #expect(families.filter { $0.kinds.contains(kind) }.count == 1, "\(kind)")
        }
        #expect(FindingFamilies.kinds.first == .mismatch(MismatchKind.allCases[0]) && FindingFamilies.kinds.suffix(3) == [.engagementRegression, .manifestChange, .sampleRatioMismatch])
    }

    @Test func aThirdFamilyShowsInEveryOutput() throws {
        let report = Self.report
        #expect(report.findings.map(\.kind.rawValue) == ["unknown_category", "sample_ratio_mismatch"], "most severe first")
        // JSON: its findings in its own shape, and its member after the others'.
        let json = try JSONParser().parse(report.json.serialized())
        #expect(json.objectValue?.members.map(\.key) == ["app", "asOf", "findings", "mismatches", "regressions", "sampleRatios"])
        let ratio = try #require(json["findings"]?.arrayValue?.last)
        #expect(ratio["kind"]?.stringValue == "sample_ratio_mismatch" && ratio["observedShare"]?.stringValue == "0.04")
        // CSV: its columns after the others', filled on its rows only.
        #expect(report.csvHeader == ["kind", "severity", "category", "action", "appVersions", "baselineVersion", "count", "candidateRate",
                                     "baselineRate", "difference", "differenceLower", "differenceUpper", "pooledDifference",
                                     "expectedShare", "observedShare", "since", "message"])
        let rows = report.csv.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows[1][6] == "3" && rows[1][13] == "" && rows[2][6] == "" && rows[2][13] == "0.1" && rows[2][14] == "0.04")
        // The table, HTML and the engagement report's sections.
        #expect(report.table.contains("SAMPLE RATIO TABLE") && report.table.contains("2 findings (1 error, 1 warning)"))
        #expect(report.htmlPage.contains("<section class=\"tapwire-srm\">") && report.htmlPage.contains(".tapwire-srm{color:red}"))
        #expect(report.reportText.contains("Sample ratio mismatches\nSAMPLE RATIO TABLE"))
        #expect(report.reportMarkdown.contains("\n## Sample ratio mismatches\n\n```\nSAMPLE RATIO TABLE\n```\n"))
        // Severity filtering reaches its section.
        let errors = report.filtered(minimumSeverity: .error)
        #expect(errors.findings.count == 1 && errors.section(SampleRatioSection.self)?.findings.isEmpty == true)
        // The webhook: a message per key, its facts under the sentence.
        let messages = FindingMessages.outbox(appId: 7, app: "demo", findings: [Self.ratioFinding], family: SampleRatioFamily())
        #expect(messages.map(\.key.detail) == ["holdout"] && messages[0].payload.contains("holdout share off its target"))
    }

    /// The two families' own tables, JSON and CSV columns are where the map says, so the
    /// findings of the two families read as before the list existed.
    @Test func theFamiliesSectionsKeepTheirPlaces() throws {
        let report = Self.report
        #expect(report.section(CategoryMismatchSection.self)?.report.findings.count == 1)
        #expect(report.section(ReleaseRegressionSection.self)?.check.comparison == nil)
        #expect(report.reportText.hasPrefix("\nCategory mismatches\n"))
        #expect(report.reportText.contains("\nRelease regressions as of "))
    }
}
