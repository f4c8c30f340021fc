import TapwireCore
import TapwireStatistics
import TapwireStore

/// The report as JSON, in the shape of schemas/engagement-report.v3.json. Keys keep this order;
/// every rate and difference is a fraction (0.125 = 12.5%, a difference of 0.0829 = 8.29 pp).
public struct JSONReportRenderer: Sendable {
    public init() {}

    public func render(_ report: EngagementReport, pretty: Bool = true) -> String {
        json(report).serialized(pretty: pretty) + "\n"
    }

    public func json(_ report: EngagementReport) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("schemaVersion", .int(EngagementReport.schemaVersion)),
            ("app", .string(report.app)),
            ("from", .string(report.from.iso8601(fractionDigits: 3))),
            ("to", .string(report.to.iso8601(fractionDigits: 3))),
            ("timeZone", .string(report.timeZone)),
            ("filters", .object(ReportDimension.allCases.map { dimension in (dimension.rawValue, .optional(report.filters[dimension])) })),
            ("groupBy", .optional(report.groupBy?.rawValue)),
            ("source", .string(report.source.rawValue)),
            ("generatedAt", .string(report.generatedAt.iso8601(fractionDigits: 3))),
            ("minimumSample", .object([
                ("perSide", .int(report.minimumSample.perSide)),
                ("expectedCount", .double(report.minimumSample.expectedCount)),
            ])),
            ("targetDifference", number(report.targetDifference)),
            ("resolution", .object([
                ("replyLength", .string(EngagementReport.replyLengthResolution)),
                ("timeToResponse", .string(EngagementReport.timeToResponseResolution)),
            ])),
            ("categories", .array(report.categories.map(category))),
            ("overall", category(report.overall)),
        ]
        if report.groupBy != nil {
            members.append(("groups", .array(report.groups.map { group in
                .object([
                    ("dimension", .string(group.dimension.rawValue)),
                    ("value", .string(group.value)),
                    ("categories", .array(group.categories.map(category))),
                    ("overall", category(group.overall)),
                ])
            })))
        }
        // Schema version 3: conversions (docs/outcomes.md).
        members.append(("attribution", .object([
            ("directWindow", .optional(report.attribution?.directSeconds)),
            ("influenceWindow", .optional(report.attribution?.influenceSeconds)),
            ("valueInterval", .string(ConversionValueInterval.method)),
            ("conversionsOmitted", .optional(report.conversionsOmitted)),
        ])))
        members.append(("conversions", .array(report.conversions.map { t in
            .object([
                ("name", .string(t.name)), ("currency", .string(t.currency)), ("direct", .int(t.direct)),
                ("influenced", .int(t.influenced)), ("unattributed", .int(t.unattributed)), ("conversions", .int(t.conversions)),
                ("value", number(t.value)), ("directValue", number(t.directValue)), ("influencedValue", number(t.influencedValue)),
                ("unattributedValue", number(t.unattributedValue)),
            ])
        })))
        if !report.holdouts.isEmpty {
            members.append(("holdouts", .array(report.holdouts.map(holdout))))
            members.append(("holdoutsCombined", report.holdoutsCombined.map { c in
                .object([("campaigns", .array(c.campaigns.map { .string($0) })), ("method", .string("mantel-haenszel, stratified by campaign")),
                         ("difference", number(c.difference)), ("ci95", interval(c.ci95)), ("pValue", number(c.pValue, digits: 12))])
            } ?? .null))
        }
        return .object(members)
    }

    /// One campaign's holdout (docs/holdouts.md): the names issue 36 gives tools.
    func holdout(_ h: HoldoutEffect) -> JSONValue {
        func arm(_ a: HoldoutEffect.ArmRate) -> JSONValue {
            .object([("devices", .int(a.devices)), ("converted", .int(a.converted)), ("rate", number(a.rate)), ("ci95", interval(a.ci95))])
        }
        return .object([
            ("campaign", .string(h.campaign)),
            ("window", .string(h.window)),
            ("firstAssignmentKept", .bool(true)),
            ("treated", arm(h.treated)),
            ("heldOut", arm(h.heldOut)),
            ("withheld", .optional(h.withheld)),
            ("difference", number(h.difference)),
            ("ci95", interval(h.ci95)),
            ("relativeLift", number(h.relativeLift)),
            ("anytimeValid", h.anytimeValid.map { .object([("ci95", interval($0.ci95)), ("decidedOn", .optional($0.decidedOn))]) } ?? .null),
            ("valuePerDevice", h.valuePerDevice.map { v in
                .object([("treated", number(v.treated)), ("heldOut", number(v.heldOut)), ("difference", number(v.difference)),
                         ("ci95", interval(v.ci95)), ("method", .string("mover over skew-adjusted means")),
                         ("withheld", .optional(v.withheld)), ("skewness", number(v.skewness)), ("devicesNeeded", .optional(v.devicesNeeded))])
            } ?? .null),
            ("opens", .object([("difference", .null), ("reason", .string(HoldoutCombined.opensNote))])),
            ("srm", .object([
                ("expectedShare", number(h.srm.expectedShare)),
                ("observedShare", number(h.srm.observedShare)),
                ("pValue", number(h.srm.pValue, digits: 12)),
                ("sequentialPValue", number(h.srm.sequentialPValue, digits: 12)),
                ("mismatch", .bool(h.srm.mismatch)),
            ])),
            ("looks", .array(h.looks.map(look))),
        ])
    }

    /// One UTC day's look of a campaign (`HoldoutEffect.looks`, what the HTML chart draws).
    func look(_ l: HoldoutEffect.Look) -> JSONValue {
        func arm(_ a: HoldoutCounts.Arm, _ rate: Double?) -> JSONValue {
            .object([("devices", .int(a.assigned)), ("converted", .int(a.converted)), ("rate", number(rate))])
        }
        return .object([("day", .string(l.day)), ("treated", arm(l.treated, l.treatedRate)), ("heldOut", arm(l.heldOut, l.heldOutRate)),
                        ("difference", number(l.difference)), ("anytimeValid", interval(l.anytimeValid))])
    }

    func category(_ c: CategoryEngagement) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("category", .optional(c.category)),
            ("title", .optional(c.title)),
            ("delivered", .int(c.delivered)),
            ("sent", .int(c.sent)),
            ("opens", .int(c.opens)),
            ("actions", .object(c.actions.map { ($0.identifier, .int($0.count)) })),
            ("actionRates", .object(c.actions.map { ($0.identifier, number($0.rate)) })),
            ("textReplies", .object([
                ("count", .int(c.textReplies.count)),
                ("p50Length", .optional(c.textReplies.p50Length)),
                ("p90Length", .optional(c.textReplies.p90Length)),
            ])),
            ("dismiss", .object([
                ("measurable", .bool(c.dismiss.measurable)),
                ("count", .optional(c.dismiss.count)),
                ("rate", number(c.dismiss.rate)),
                ("base", .optional(c.dismiss.base)),
            ])),
            ("engaged", .int(c.engaged)),
            ("engagementRate", number(c.engagementRate)),
            ("engagementCI95", interval(c.engagementCI95)),
            ("engagementNotMeaningful", .optional(c.engagementNotMeaningful)),
            ("base", .string(c.base.rawValue)),
            ("rich", side(c.uplift.rich)),
            ("textOnly", side(c.uplift.textOnly)),
            ("uplift", uplift(c.uplift)),
            ("media", .object([
                ("requested", .int(c.media.requested)),
                ("notShown", .int(c.media.notShown)),
                ("failureRate", number(c.media.rate)),
            ])),
            ("timeToResponse", .object([
                ("samples", .int(c.timeToResponse.samples)),
                ("p50Seconds", number(c.timeToResponse.p50Seconds, digits: 3)),
                ("p90Seconds", number(c.timeToResponse.p90Seconds, digits: 3)),
            ])),
            ("daily", .array(c.daily.map { point in
                .object([("date", .string(point.date)), ("delivered", .int(point.delivered)), ("engaged", .int(point.engaged))])
            })),
        ]
        members.append(("conversions", .array(c.conversions.map { v in
            .object([
                ("name", .string(v.name)), ("currency", .string(v.currency)), ("direct", .int(v.direct)),
                ("influenced", .int(v.influenced)), ("converted", .int(v.converted)), ("delivered", .int(v.delivered)),
                ("rate", number(v.rate)), ("ci95", interval(v.ci95)), ("value", number(v.valueSum)),
                ("valuePerDelivered", number(v.valuePerDelivered)), ("valuePerDeliveredCI95", interval(v.valuePerDeliveredCI95)),
                ("valuePerDeliveredWithheld", .optional(v.valuePerDeliveredWithheld)), ("valueSkewness", number(v.valueSkewness)),
                ("valueDeliveredNeeded", .optional(v.valueDeliveredNeeded)),
            ])
        })))
        members.append(("directConversionsByAction", .object(c.directConversionsByAction.keys.sorted().map { action in
            (action.wrappedValue, .object(c.directConversionsByAction[action]!.keys.sorted().map { ($0.wrappedValue, .int(c.directConversionsByAction[action]![$0]!)) }))
        })))
        members.append(("conversionUplift", .array(c.conversionUplift.map { u in
            .object([
                ("name", .string(u.name)), ("currency", .string(u.currency)),
                ("rich", conversionSide(u.uplift.rich)), ("textOnly", conversionSide(u.uplift.textOnly)),
                ("uplift", uplift(u.uplift)),
            ])
        })))
        if c.category == nil {
            members.append(("excludedCategories", .array(c.excludedCategories.map { e in
                .object([("category", .string(e.category)), ("reason", .string(e.reason.rawValue)), ("delivered", .int(e.delivered)),
                         ("sent", .int(e.sent)), ("engaged", .int(e.engaged))])
            })))
        }
        return .object(members)
    }

    func side(_ s: SideEngagement) -> JSONValue {
        // notMeaningful stays for readers of schema version 2: a side is the sum of its used
        // cells, so it never has more engaged than delivered (uplift.notMeaningfulDelivered says
        // what was left out).
        .object([("delivered", .int(s.delivered)), ("engaged", .int(s.engaged)), ("rate", number(s.rate)), ("ci95", interval(s.ci95)),
                 ("notMeaningful", .null)])
    }

    /// A side of rich vs text-only on conversion: its converted notifications over its delivered.
    func conversionSide(_ s: SideEngagement) -> JSONValue {
        .object([("delivered", .int(s.delivered)), ("converted", .int(s.engaged)), ("rate", number(s.rate)), ("ci95", interval(s.ci95))])
    }

    /// The pooled difference (as before, now a fraction), the adjusted one, and how long until
    /// the difference is known.
    func uplift(_ u: RichUplift) -> JSONValue {
        let adjusted = u.adjusted
        return .object([
            ("method", .string("pooled")),
            ("difference", number(u.comparison.difference)),
            ("ci95", interval(u.comparison.differenceCI)),
            ("relativeLift", number(u.relativeLift)),
            ("pValue", number(u.pValue, digits: 12)),
            ("sufficient", .bool(u.sufficient)),
            ("reason", .optional(u.comparison.insufficientReason)),
            ("notMeaningfulDelivered", .int(u.notMeaningfulDelivered)),
            ("engagedWithoutDeliveries", .int(u.engagedWithoutDeliveries)),
            ("adjusted", .object([
                ("difference", number(adjusted.difference)),
                ("ci95", interval(adjusted.ci95)),
                ("pValue", number(adjusted.pValue, digits: 12)),
                ("method", .string(AdjustedUplift.method)),
                ("strata", .int(adjusted.strata)),
                ("excludedDelivered", .int(adjusted.excludedDelivered)),
                ("sufficient", .bool(adjusted.sufficient)),
                ("reason", .optional(adjusted.reason)),
                ("anytimeValid", .object([
                    ("ci95", interval(adjusted.anytime.ci95)),
                    ("decidedOn", .optional(adjusted.anytime.decidedOn)),
                    ("looks", .int(adjusted.anytime.looks)),
                    ("lookEvery", .string("UTC day")),
                    ("method", .string(AnytimeAdjusted.method)),
                ])),
            ])),
            ("confounded", .bool(u.confounded)),
            ("minimumDetectableDifference", number(u.detection.minimumDetectableDifference)),
            ("targetDifference", number(u.detection.target)),
            ("targetSource", .string(u.detection.targetSource.rawValue)),
            ("daysToDetect", number(u.detection.daysToDetect, digits: 1)),
        ])
    }

    func interval(_ ci: ConfidenceInterval?) -> JSONValue {
        guard let ci else { return .null }
        return .object([("lower", number(ci.lower)), ("upper", number(ci.upper))])
    }

    /// Rounded so output is stable and readable (6 decimals; more for tiny p-values).
    func number(_ value: Double?, digits: Int = 6) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .double(Rounding.round(value, digits: digits))
    }
}
