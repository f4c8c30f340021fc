import TapwireStatistics

extension Fmt {
    /// The holdouts of a report as sentences, one per campaign, then the combined estimate and
    /// what is said of opens: what the table and the Markdown show (docs/holdouts.md).
    static func holdoutLines(_ report: EngagementReport) -> [String] {
        guard !report.holdouts.isEmpty else { return [] }
        var lines: [String] = []
        for h in report.holdouts {
            var line = "\(h.campaign) (window \(h.window); first assignment kept): treated \(count(h.treated.devices)) devices, "
                + "\(count(h.treated.converted)) converted (\(percent(h.treated.rate, digits: 2))); held out \(count(h.heldOut.devices)), "
                + "\(count(h.heldOut.converted)) converted (\(percent(h.heldOut.rate, digits: 2))). "
            line += "Split: \(percent(h.srm.observedShare, digits: 2)) held out, stated \(percent(h.srm.expectedShare, digits: 2)), "
                + "χ² p \(pValue(h.srm.pValue)), sequential p \(pValue(h.srm.sequentialPValue))\(h.srm.mismatch ? ", MISMATCH" : ""). "
            if let withheld = h.withheld {
                line += "Estimates withheld: \(withheld)."
            } else {
                line += "Difference \(points(h.difference.map { $0 * 100 })) \(interval(h.ci95, signed: true)) (95%), lift \(lift(h.relativeLift)); "
                    + "anytime-valid \(interval(h.anytimeValid?.ci95, signed: true))"
                    + (h.anytimeValid?.decidedOn.map { ", decided on \($0)" } ?? ", not decided") + "."
                if let v = h.valuePerDevice {
                    line += " Value per assigned device: \(fixed(v.treated, 2)) treated, \(fixed(v.heldOut, 2)) held out, "
                        + "difference \(fixed(v.difference, 2)) "
                        + (v.withheld.map { "(interval withheld: \($0))." } ?? "\(interval(v.ci95, scale: 1, signed: true)).")
                }
            }
            lines.append(line)
        }
        if let c = report.holdoutsCombined {
            lines.append("Over \(c.campaigns.count) campaigns, stratified by campaign (Mantel–Haenszel): "
                         + "\(points(c.difference * 100)) \(interval(c.ci95, signed: true)), p \(pValue(c.pValue)).")
        }
        lines.append("Opens: " + HoldoutCombined.opensNote + ".")
        return lines
    }
}
