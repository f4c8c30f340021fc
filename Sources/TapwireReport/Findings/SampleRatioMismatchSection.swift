import Foundation
import TapwireCore

/// The sample-ratio family's section of an app's findings: every campaign checked, flagged or not.
public struct SampleRatioMismatchSection: FindingsSection {
    var checks: [SampleRatioMismatchFamily.Check]
    public var srm: SampleRatioMismatchFamily

    init(checks: [SampleRatioMismatchFamily.Check], family: SampleRatioMismatchFamily) {
        self.checks = checks
        srm = family
    }

    public var family: any FindingFamily { srm }
    public var findings: [Finding] { checks.compactMap(\.mismatch).map(Finding.init) }
    public var title: String { "Holdout splits" }
    /// Every campaign checked, with its split.
    public var jsonMember: (name: String, value: JSONValue) {
        ("holdoutSplits", .array(checks.map { c in
            .object([("campaign", .string(c.effect.campaign)), ("treated", .int(c.effect.treated.devices)),
                     ("heldOut", .int(c.effect.heldOut.devices)), ("expectedShare", .optional(c.effect.srm.expectedShare.map { String($0) })),
                     ("mismatch", .bool(c.effect.srm.mismatch))])
        }))
    }

    public var table: String {
        guard !checks.isEmpty else { return "Holdout splits: no campaign with assignments in the window.\n" }
        var lines = ["Holdout splits (sequential sample-ratio test, α = 0.001):"]
        for c in checks {
            let s = c.effect.srm
            let verdict = c.mismatch != nil ? "MISMATCH" : (s.expectedShare == nil ? "unchecked" : "ok")
            lines.append(String(format: "  %@  %@: %d treated, %d held out, share %@ against %@, sequential p %@", verdict,
                                TextSafety.printable(c.effect.campaign), c.effect.treated.devices, c.effect.heldOut.devices,
                                s.observedShare.map { String(format: "%.4f", $0) } ?? "–", s.expectedShare.map { String($0) } ?? "several",
                                s.sequentialPValue.map { String(format: "%.2g", $0) } ?? "–"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public var tableHasHeading: Bool { true }

    public var htmlSection: String {
        var html = "<section class=\"tapwire-holdout-splits\"><h2>Holdout splits</h2>\n<ul>\n"
        for c in checks {
            html += "<li>" + HTML.escape(c.effect.campaign) + ": " + (c.mismatch != nil ? "<strong>sample ratio mismatch</strong>" : "split as stated")
                + " (\(c.effect.treated.devices) treated, \(c.effect.heldOut.devices) held out)</li>\n"
        }
        return html + "</ul>\n</section>\n"
    }

    public func filtered(minimumSeverity severity: FindingSeverity) -> any FindingsSection { self }
}
