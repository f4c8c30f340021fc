import Foundation
import TapwireCore

/// The columns both the terminal table and Markdown show, so the two read alike.
enum ReportColumns {
    static let engagement: [Column<CategoryEngagement>] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Delivered", width: 9, right: true) { $0.base == .sent ? Fmt.dash : Fmt.count($0.delivered) },
        Column(header: "Sent", width: 7, right: true) { $0.sent > 0 ? Fmt.count($0.sent) : Fmt.dash },
        Column(header: "Opens", width: 7, right: true) { Fmt.count($0.opens) },
        Column(header: "Actions", width: 7, right: true) { Fmt.count($0.engaged - $0.opens) },
        Column(header: "Engaged", width: 7, right: true) {
            $0.engagementNotMeaningful != nil ? Fmt.notMeaningful : Fmt.percent($0.engagementRate) + ($0.base == .sent ? "*" : "")
        },
        Column(header: "95% CI", width: 12, right: true) { Fmt.interval($0.engagementCI95) },
        Column(header: "Dismiss", width: 7, right: true) { Fmt.dismiss($0.dismiss) },
        Column(header: "Reply", width: 7, right: true) { Fmt.replyLengths($0.textReplies) },
        Column(header: "TTR p50/90", width: 11, right: true) {
            $0.timeToResponse.samples == 0 ? Fmt.dash : Fmt.seconds($0.timeToResponse.p50Seconds) + "/" + Fmt.seconds($0.timeToResponse.p90Seconds)
        },
    ]

    static let uplift: [Column<CategoryEngagement>] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Rich", width: 7, right: true) { Fmt.sideRate($0.uplift.rich) },
        Column(header: "95% CI", width: 12, right: true) { Fmt.interval($0.uplift.rich.ci95) },
        Column(header: "Text-only", width: 9, right: true) { Fmt.sideRate($0.uplift.textOnly) },
        Column(header: "95% CI", width: 12, right: true) { Fmt.interval($0.uplift.textOnly.ci95) },
        Column(header: "Pooled diff", width: 12, right: true) {
            $0.uplift.sufficient ? Fmt.points($0.uplift.differencePoints) : "insufficient"
        },
        Column(header: "95% CI (pp)", width: 14, right: true) { Fmt.interval($0.uplift.differenceCIPoints, scale: 1, signed: true) },
        Column(header: "Lift", width: 5, right: true) { Fmt.lift($0.uplift.relativeLift) },
        Column(header: "p", width: 6, right: true) { Fmt.pValue($0.uplift.pValue) },
    ]

    /// The difference adjusted for the strata (`EngagementReportBuilder.strataDimensions`), beside the pooled one.
    static let adjusted: [Column<CategoryEngagement>] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Pooled", width: 10, right: true) { $0.uplift.sufficient ? Fmt.points($0.uplift.differencePoints) : Fmt.dash },
        Column(header: "Adjusted", width: 12, right: true) {
            $0.uplift.adjusted.sufficient ? Fmt.points($0.uplift.adjusted.difference.map { $0 * 100 }) : "insufficient"
        },
        Column(header: "95% CI (pp)", width: 14, right: true) { Fmt.interval($0.uplift.adjusted.ci95, signed: true) },
        Column(header: "p", width: 6, right: true) { Fmt.pValue($0.uplift.adjusted.pValue) },
        Column(header: "Strata", width: 6, right: true) { Fmt.count($0.uplift.adjusted.strata) },
        Column(header: "Excluded", width: 9, right: true) { Fmt.count($0.uplift.adjusted.excludedDelivered) },
        Column(header: "Confounded", width: 10, right: false) { $0.uplift.confounded ? Fmt.confoundedMarker : "" },
    ]

    /// How long until the difference is known.
    static let detection: [Column<CategoryEngagement>] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Detectable", width: 10, right: true) {
            $0.uplift.detection.minimumDetectableDifference.map { Fmt.fixed($0 * 100, 1) + " pp" } ?? Fmt.dash
        },
        Column(header: "Target", width: 12, right: true) { Fmt.target($0.uplift.detection) },
        Column(header: "Anytime CI", width: 14, right: true) { Fmt.interval($0.uplift.adjusted.anytime.ci95, signed: true) },
        Column(header: "Decided on", width: 10, right: true) { Fmt.decidedOn($0.uplift.adjusted) },
        Column(header: "When known", width: 34, right: false) { Fmt.fit(Fmt.whenKnown($0.uplift.detection), 34) },
    ]

    static let detail: [Column<CategoryEngagement>] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Rich n", width: 9, right: true) { Fmt.count($0.uplift.rich.delivered) },
        Column(header: "Text n", width: 9, right: true) { Fmt.count($0.uplift.textOnly.delivered) },
        Column(header: "Media fail", width: 10, right: true) {
            $0.media.requested == 0 ? Fmt.dash : Fmt.percent($0.media.rate)
        },
        Column(header: "Replies", width: 7, right: true) { Fmt.count($0.textReplies.count) },
        Column(header: "Top actions (count, rate)", width: 40, right: false) { c in
            let text = c.actions.prefix(3).map { "\($0.identifier) \(Fmt.count($0.count)) \(Fmt.percent($0.rate))" }.joined(separator: ", ")
            return Fmt.fit(text.isEmpty ? Fmt.dash : text, 40)
        },
    ]

    /// Each conversion name per category: what the notifications led to (99 columns).
    static let conversions: [Column<ConversionLine>] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.categoryName, 15) },
        Column(header: "Conversion", width: 14, right: false) { Fmt.fit($0.label, 14) },
        Column(header: "Direct", width: 6, right: true) { Fmt.count($0.conversion.direct) },
        Column(header: "Influenced", width: 10, right: true) { Fmt.count($0.conversion.influenced) },
        Column(header: "Rate", width: 7, right: true) {
            $0.conversion.rate == nil && $0.conversion.delivered > 0 ? Fmt.notMeaningful : Fmt.percent($0.conversion.rate, digits: 2)
        },
        Column(header: "95% CI", width: 12, right: true) { Fmt.interval($0.conversion.ci95) },
        Column(header: "Value/deliv.", width: 12, right: true) { Fmt.money($0.conversion.valuePerDelivered) },
        Column(header: "95% CI", width: 16, right: true) {
            $0.conversion.valuePerDeliveredWithheld == nil ? Fmt.moneyInterval($0.conversion.valuePerDeliveredCI95) : Fmt.withheld
        },
    ]

    /// Rich vs text-only on each conversion name, as the engagement comparison (100 columns).
    static let conversionUplift: [Column<ConversionLine>] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.categoryName, 15) },
        Column(header: "Conversion", width: 12, right: false) { Fmt.fit($0.label, 12) },
        Column(header: "Rich", width: 7, right: true) { $0.uplift.map { Fmt.percent($0.rich.rate, digits: 2) } ?? Fmt.dash },
        Column(header: "Text-only", width: 9, right: true) { $0.uplift.map { Fmt.percent($0.textOnly.rate, digits: 2) } ?? Fmt.dash },
        Column(header: "Pooled", width: 8, right: true) { line in
            line.uplift.map { $0.sufficient ? Fmt.points($0.differencePoints) : Fmt.insufficient } ?? Fmt.dash
        },
        Column(header: "Adjusted", width: 8, right: true) { line in
            line.uplift.map { $0.adjusted.sufficient ? Fmt.points($0.adjusted.difference.map { $0 * 100 }) : Fmt.insufficient } ?? Fmt.dash
        },
        Column(header: "95% CI (pp)", width: 14, right: true) { Fmt.interval($0.uplift?.adjusted.ci95, signed: true) },
        Column(header: "Anytime CI", width: 14, right: true) { Fmt.interval($0.uplift?.adjusted.anytime.ci95, signed: true) },
        Column(header: "Conf.", width: 5, right: false) { $0.uplift?.confounded == true ? Fmt.confoundedMarker : "" },
    ]

    /// Direct conversions by the action of the tap before them (an open shown as "open").
    static let conversionActions: [Column<ConversionActionLine>] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.categoryName, 15) },
        Column(header: "Action", width: 40, right: false) { Fmt.fit($0.action == SystemAction.open ? "open" : $0.action, 40) },
        Column(header: "Conversion", width: 16, right: false) { Fmt.fit($0.name, 16) },
        Column(header: "Direct", width: 7, right: true) { Fmt.count($0.direct) },
    ]
}
