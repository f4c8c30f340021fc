import Foundation
import TapwireCore

/// One CSV row per category (and one for all categories, and per group with --by), then one per
/// holdout campaign and one over them; quoted and formula-guarded by `CSVField.escape`. Rates are
/// fractions; difference columns (`_pp`) are percentage points.
public struct CSVReportRenderer: Sendable {
    public init() {}

    public static let header = engagementHeader + holdoutHeader + valueWithheldHeader

    /// The category rows' columns, and the holdout rows' first three (group_dimension `holdout`,
    /// group_value the campaign, category empty).
    static let engagementHeader = [
        "group_dimension", "group_value", "category", "delivered", "sent", "base", "opens", "actions_total", "engaged",
        "engagement_rate", "engagement_ci_low", "engagement_ci_high", "text_replies", "reply_p50_length", "reply_p90_length",
        "dismiss_measurable", "dismissals", "dismiss_rate", "rich_delivered", "rich_engaged", "rich_rate", "rich_ci_low",
        "rich_ci_high", "text_delivered", "text_engaged", "text_rate", "text_ci_low", "text_ci_high", "uplift_sufficient",
        "difference_pp", "difference_ci_low_pp", "difference_ci_high_pp", "relative_lift", "p_value", "media_requested",
        "media_not_shown", "media_failure_rate", "ttr_p50_seconds", "ttr_p90_seconds", "actions",
        "adjusted_sufficient", "adjusted_difference_pp", "adjusted_ci_low_pp", "adjusted_ci_high_pp", "adjusted_p_value",
        "adjusted_strata", "excluded_delivered", "confounded", "minimum_detectable_difference_pp", "target_difference_pp",
        "days_to_detect", "engagement_not_meaningful", "rich_not_meaningful", "text_not_meaningful",
        "uplift_not_meaningful_delivered", "uplift_engaged_without_deliveries", "excluded_categories",
        "adjusted_anytime_ci_low_pp", "adjusted_anytime_ci_high_pp", "adjusted_decided_on",
        // Conversions (schema version 3): one `name=value` per conversion name (`name:CUR` when it
        // has a currency), separated by `;`, as `actions` lists actions.
        "conversions_direct", "conversions_influenced", "conversions_converted", "conversion_rate", "conversion_ci_low",
        "conversion_ci_high", "value_per_delivered", "value_per_delivered_ci_low", "value_per_delivered_ci_high",
        "direct_conversions_by_action", "conversion_rich_rate", "conversion_text_rate", "conversion_difference_pp",
        "conversion_adjusted_difference_pp", "conversion_adjusted_ci_low_pp", "conversion_adjusted_ci_high_pp",
        "conversion_confounded", "conversion_anytime_ci_low_pp", "conversion_anytime_ci_high_pp",
    ]

    /// Why each conversion's value per delivered interval is empty though its values vary
    /// (`CategoryConversion.valuePerDeliveredWithheld`), a `name=reason` list as the conversion
    /// columns; last, so that every earlier column keeps its place. Empty on the holdout rows.
    static let valueWithheldHeader = ["value_per_delivered_withheld"]

    /// Holdouts (docs/holdouts.md): every figure of a campaign's `holdouts` object in the JSON,
    /// filled only on the holdout rows (the category rows leave them empty, as the holdout rows
    /// leave the category columns). The row over campaigns (group_dimension `holdout_combined`)
    /// fills the difference, its interval and the two `holdout_combined_` columns.
    static let holdoutHeader = [
        "holdout_window", "holdout_first_assignment_kept", "holdout_treated_devices", "holdout_treated_converted",
        "holdout_treated_rate", "holdout_treated_ci_low", "holdout_treated_ci_high", "holdout_held_out_devices",
        "holdout_held_out_converted", "holdout_held_out_rate", "holdout_held_out_ci_low", "holdout_held_out_ci_high",
        "holdout_withheld", "holdout_difference_pp", "holdout_difference_ci_low_pp", "holdout_difference_ci_high_pp",
        "holdout_relative_lift", "holdout_anytime_ci_low_pp", "holdout_anytime_ci_high_pp", "holdout_decided_on",
        "holdout_value_treated", "holdout_value_held_out", "holdout_value_difference", "holdout_value_ci_low",
        "holdout_value_ci_high", "holdout_srm_expected_share", "holdout_srm_observed_share", "holdout_srm_p_value",
        "holdout_srm_sequential_p_value", "holdout_srm_mismatch", "holdout_combined_campaigns", "holdout_combined_p_value",
        "holdout_value_withheld",
    ]

    /// The group_dimension of a campaign's holdout row, and of the row over campaigns (a dimension
    /// of its own: a campaign may be named anything, `*` included).
    static let holdoutDimension = "holdout", holdoutCombinedDimension = "holdout_combined"

    public func render(_ report: EngagementReport) -> String {
        var lines = [Self.header.joined(separator: ",")]
        for row in report.categories + [report.overall] { lines.append(line("", "", row)) }
        for group in report.groups {
            for row in group.categories + [group.overall] { lines.append(line(group.dimension.rawValue, group.value, row)) }
        }
        lines += holdoutLines(report)
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A figure as every numeric cell writes it: rounded to 6 digits, empty when absent.
    static func number(_ v: Double?) -> String { v.map { String(Rounding.round($0, digits: 6)) } ?? "" }

    func line(_ dimension: String, _ value: String, _ c: CategoryEngagement) -> String {
        let n = Self.number
        func i(_ v: Int?) -> String { v.map(String.init) ?? "" }
        let fields: [String] = [
            dimension, value, c.category ?? "*", String(c.delivered), String(c.sent), c.base.rawValue, String(c.opens),
            String(c.engaged - c.opens), String(c.engaged), n(c.engagementRate), n(c.engagementCI95?.lower), n(c.engagementCI95?.upper),
            String(c.textReplies.count), i(c.textReplies.p50Length), i(c.textReplies.p90Length),
            c.dismiss.measurable ? "true" : "false", i(c.dismiss.count), n(c.dismiss.rate),
            String(c.uplift.rich.delivered), String(c.uplift.rich.engaged), n(c.uplift.rich.rate), n(c.uplift.rich.ci95?.lower),
            n(c.uplift.rich.ci95?.upper), String(c.uplift.textOnly.delivered), String(c.uplift.textOnly.engaged),
            n(c.uplift.textOnly.rate), n(c.uplift.textOnly.ci95?.lower), n(c.uplift.textOnly.ci95?.upper),
            c.uplift.sufficient ? "true" : "false", n(c.uplift.differencePoints), n(c.uplift.differenceCIPoints?.lower),
            n(c.uplift.differenceCIPoints?.upper), n(c.uplift.relativeLift), c.uplift.pValue.map { String($0) } ?? "",
            String(c.media.requested), String(c.media.notShown), n(c.media.rate),
            n(c.timeToResponse.p50Seconds), n(c.timeToResponse.p90Seconds),
            c.actions.map { "\($0.identifier)=\($0.count)" }.joined(separator: ";"),
            c.uplift.adjusted.sufficient ? "true" : "false", n(c.uplift.adjusted.difference.map { $0 * 100 }),
            n(c.uplift.adjusted.ci95.map { $0.lower * 100 }), n(c.uplift.adjusted.ci95.map { $0.upper * 100 }),
            c.uplift.adjusted.pValue.map { String($0) } ?? "", String(c.uplift.adjusted.strata),
            String(c.uplift.adjusted.excludedDelivered), c.uplift.confounded ? "true" : "false",
            n(c.uplift.detection.minimumDetectableDifference.map { $0 * 100 }), n(c.uplift.detection.target * 100),
            c.uplift.detection.daysToDetect.map { String(Rounding.round($0, digits: 1)) } ?? "",
            // rich_not_meaningful and text_not_meaningful stay for existing readers; a side is the sum
            // of its used cells, so they are always empty (the next two columns say what was left out).
            c.engagementNotMeaningful ?? "", "", "",
            String(c.uplift.notMeaningfulDelivered), String(c.uplift.engagedWithoutDeliveries),
            c.excludedCategories.map { "\($0.category)=\($0.reason.rawValue)" }.joined(separator: ";"),
            n(c.uplift.adjusted.anytime.ci95.map { $0.lower * 100 }), n(c.uplift.adjusted.anytime.ci95.map { $0.upper * 100 }),
            c.uplift.adjusted.anytime.decidedOn ?? "",
        ] + conversionFields(c) + Array(repeating: "", count: Self.holdoutHeader.count)
            + [c.conversions.compactMap { v in v.valuePerDeliveredWithheld.map { Self.conversionKey(v.name, v.currency) + "=" + $0 } }
                .joined(separator: ";")]
        return fields.map(CSVField.escape).joined(separator: ",")
    }

    /// A row per holdout campaign, then the row over campaigns when the report has one.
    func holdoutLines(_ report: EngagementReport) -> [String] {
        let n = Self.number
        func points(_ v: Double?) -> String { n(v.map { $0 * 100 }) }
        func row(_ dimension: String, _ campaign: String, _ holdout: [String]) -> String {
            ([dimension, campaign, ""] + Array(repeating: "", count: Self.engagementHeader.count - 3) + holdout
                + Array(repeating: "", count: Self.valueWithheldHeader.count))
                .map(CSVField.escape).joined(separator: ",")
        }
        var lines = report.holdouts.map { h in
            let arms = [h.treated, h.heldOut].flatMap { a in [String(a.devices), String(a.converted), n(a.rate), n(a.ci95?.lower), n(a.ci95?.upper)] }
            let v = h.valuePerDevice
            return row(Self.holdoutDimension, h.campaign, [h.window, "true"] + arms + [
                h.withheld ?? "", points(h.difference), points(h.ci95?.lower), points(h.ci95?.upper), n(h.relativeLift),
                points(h.anytimeValid?.ci95.lower), points(h.anytimeValid?.ci95.upper), h.anytimeValid?.decidedOn ?? "",
                n(v?.treated), n(v?.heldOut), n(v?.difference), n(v?.ci95?.lower), n(v?.ci95?.upper),
                n(h.srm.expectedShare), n(h.srm.observedShare), h.srm.pValue.map { String($0) } ?? "",
                h.srm.sequentialPValue.map { String($0) } ?? "", h.srm.mismatch ? "true" : "false", "", "", v?.withheld ?? "",
            ])
        }
        if let c = report.holdoutsCombined {
            var combined = Array(repeating: "", count: Self.holdoutHeader.count)
            for (column, value) in [("holdout_difference_pp", points(c.difference)), ("holdout_difference_ci_low_pp", points(c.ci95.lower)),
                                    ("holdout_difference_ci_high_pp", points(c.ci95.upper)),
                                    ("holdout_combined_campaigns", c.campaigns.joined(separator: ";")),
                                    ("holdout_combined_p_value", String(c.pValue))] {
                combined[Self.holdoutHeader.firstIndex(of: column)!] = value
            }
            lines.append(row(Self.holdoutCombinedDimension, "", combined))
        }
        return lines
    }

    /// How a conversion list names each entry: `name`, or `name:CUR` for one with a value.
    static func conversionKey(_ name: String, _ currency: String) -> String { currency.isEmpty ? name : name + ":" + currency }

    /// The conversion columns of one row, each a `;`-separated list over the conversion names.
    func conversionFields(_ c: CategoryEngagement) -> [String] {
        let n = Self.number
        func list(_ value: (CategoryConversion) -> String) -> String {
            c.conversions.map { Self.conversionKey($0.name, $0.currency) + "=" + value($0) }.joined(separator: ";")
        }
        func upliftList(_ value: (RichUplift) -> String) -> String {
            c.conversionUplift.map { Self.conversionKey($0.name, $0.currency) + "=" + value($0.uplift) }.joined(separator: ";")
        }
        let byAction = c.directConversionsByAction.keys.sorted().flatMap { action in
            c.directConversionsByAction[action]!.keys.sorted().map { "\(action.wrappedValue)/\($0.wrappedValue)=\(c.directConversionsByAction[action]![$0]!)" }
        }
        return [
            list { String($0.direct) }, list { String($0.influenced) }, list { String($0.converted) }, list { n($0.rate) },
            list { n($0.ci95?.lower) }, list { n($0.ci95?.upper) }, list { n($0.valuePerDelivered) },
            list { n($0.valuePerDeliveredCI95?.lower) }, list { n($0.valuePerDeliveredCI95?.upper) },
            byAction.joined(separator: ";"), upliftList { n($0.rich.rate) }, upliftList { n($0.textOnly.rate) },
            upliftList { n($0.differencePoints) }, upliftList { n($0.adjusted.difference.map { $0 * 100 }) },
            upliftList { n($0.adjusted.ci95.map { $0.lower * 100 }) }, upliftList { n($0.adjusted.ci95.map { $0.upper * 100 }) },
            upliftList { $0.confounded ? "true" : "false" },
            upliftList { n($0.adjusted.anytime.ci95.map { $0.lower * 100 }) },
            upliftList { n($0.adjusted.anytime.ci95.map { $0.upper * 100 }) },
        ]
    }
}
