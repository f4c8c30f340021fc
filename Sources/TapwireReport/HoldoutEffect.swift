import Foundation
import TapwireStatistics

/// What one campaign's notifications caused, from its randomised holdout (docs/holdouts.md):
/// treated against held-out conversion rate over the devices assigned, with a fixed-horizon and
/// an anytime-valid interval, value per assigned device with an interval for skewed revenue, and
/// the split checked first. A sample-ratio mismatch, or assignments that state different shares,
/// withhold every estimate with the reason.
public struct HoldoutEffect: Sendable, Equatable {
    public var campaign: String
    public var window: String
    public var treated: ArmRate
    public var heldOut: ArmRate
    public var srm: SplitCheck
    /// Why the estimates below are absent: the split, or too few devices. Nil when they are shown.
    public var withheld: String?
    /// Treated rate minus held-out rate, and Newcombe's 95% interval (one look decided in advance).
    public var difference: Double?
    public var ci95: ConfidenceInterval?
    public var relativeLift: Double?
    /// The same difference with the normal-mixture confidence sequence, looked at once per UTC day.
    public var anytimeValid: AnytimeValid?
    public var valuePerDevice: ValuePerDevice?
    /// Each UTC day's look, cumulative from the campaign's first day: what the HTML chart draws.
    public var looks: [Look] = []

    public struct ArmRate: Sendable, Equatable {
        public var devices: Int
        public var converted: Int
        public var rate: Double?
        public var ci95: ConfidenceInterval?
    }

    /// The split against the stated holdout share: Pearson's χ² for one look and Lindon & Malek's
    /// sequential p-value over the daily looks. `mismatch` uses the sequential one at α = 0.001,
    /// because the report is read every day.
    public struct SplitCheck: Sendable, Equatable {
        public var expectedShare: Double?
        public var observedShare: Double?
        public var pValue: Double?
        public var sequentialPValue: Double?
        public var mismatch: Bool
    }

    public struct AnytimeValid: Sendable, Equatable {
        public var ci95: ConfidenceInterval
        /// The first UTC day whose look excluded 0; nil if none has.
        public var decidedOn: String?
    }

    /// One daily look: every device assigned, and converted, up to the end of `day`, and the
    /// anytime-valid interval of the difference at that look (nil while the estimates are
    /// withheld or the look has no estimate yet).
    public struct Look: Sendable, Equatable {
        public var day: String
        public var treated: HoldoutCounts.Arm
        public var heldOut: HoldoutCounts.Arm
        public var anytimeValid: ConfidenceInterval?

        public var treatedRate: Double? { ProportionStatistics.share(treated.converted, of: treated.assigned) }
        public var heldOutRate: Double? { ProportionStatistics.share(heldOut.converted, of: heldOut.assigned) }
        /// Treated rate minus held-out rate at this look.
        public var difference: Double? {
            guard let t = treatedRate, let h = heldOutRate else { return nil }
            return t - h
        }
    }

    public struct ValuePerDevice: Sendable, Equatable {
        public var treated: Double
        public var heldOut: Double
        public var difference: Double
        /// MOVER over each arm's skew-adjusted interval (`SkewAdjustedMeanDifference`); nil when
        /// neither arm's values vary, or when withheld.
        public var ci95: ConfidenceInterval?
        /// Why `ci95` is nil though the values vary: the smaller arm holds too few devices for the
        /// values' skewness (`SkewedSampleSize`, Cochran's rule as Sugden, Smith & Jones 2000
        /// refine it). Nil when the interval is shown.
        public var withheld: String?
        /// G₁ of every assigned device's value, both arms together, and the devices the smaller
        /// arm needs for the interval to be shown (nil: no count would do).
        public var skewness: Double
        public var devicesNeeded: Int?
    }

    /// α of the split check, as Statsig, Eppo and GrowthBook use.
    public static let srmAlpha = 0.001

    public init(_ counts: HoldoutCounts, minimum: MinimumSample = .default,
                tuningEffectiveTrials: Double = AnytimeUplift.defaultTuning) {
        campaign = counts.campaign
        window = counts.window
        var running = (treated: HoldoutCounts.Arm(), heldOut: HoldoutCounts.Arm())
        var looks = counts.days.map { day in
            running = (running.treated + day.treated, running.heldOut + day.heldOut)
            return Look(day: day.day, treated: running.treated, heldOut: running.heldOut)
        }
        defer { self.looks = looks } // on every return: the bands are filled in below when the estimates are shown
        let total = running
        func rate(_ arm: HoldoutCounts.Arm) -> ArmRate {
            ArmRate(devices: arm.assigned, converted: arm.converted, rate: ProportionStatistics.share(arm.converted, of: arm.assigned),
                    ci95: ProportionStatistics.wilson(successes: arm.converted, trials: arm.assigned))
        }
        treated = rate(total.treated)
        heldOut = rate(total.heldOut)

        // The split, first: under one stated share, cumulative assigned counts day by day.
        let share = counts.statedShares.count == 1 ? counts.statedShares[0] : nil
        let devices = total.treated.assigned + total.heldOut.assigned
        var check = SplitCheck(expectedShare: share, observedShare: devices > 0 ? Double(total.heldOut.assigned) / Double(devices) : nil,
                               pValue: nil, sequentialPValue: nil, mismatch: false)
        if let share, devices > 0 {
            check.pValue = SampleRatioTest.chiSquare(counts: [total.treated.assigned, total.heldOut.assigned],
                                                     expectedShares: [1 - share, share])?.pValue
            if let test = SequentialSampleRatioTest(expectedShares: [1 - share, share]) {
                var p = 1.0
                for look in looks {
                    p = test.pValue(counts: [look.treated.assigned, look.heldOut.assigned], previous: p) ?? p
                }
                check.sequentialPValue = p
                check.mismatch = p < Self.srmAlpha
            }
        }
        srm = check
        if counts.statedShares.count > 1 {
            withheld = "the assignments state different holdout shares (" + counts.statedShares.sorted().map { String($0) }.joined(separator: ", ")
                + "): the split cannot be checked"
            return
        }
        if check.mismatch {
            withheld = String(format: "sample ratio mismatch: %.4f of the devices were held out where %.4f was intended (sequential p = %.2g < %.3g): the randomisation or the logging is broken",
                              check.observedShare ?? 0, share ?? 0, check.sequentialPValue ?? 0, Self.srmAlpha)
            return
        }
        if let reason = Self.insufficiency(total.treated, total.heldOut, minimum: minimum) {
            withheld = reason
            return
        }
        let (x1, n1, x2, n2) = (total.treated.converted, total.treated.assigned, total.heldOut.converted, total.heldOut.assigned)
        difference = Double(x1) / Double(n1) - Double(x2) / Double(n2)
        ci95 = ProportionStatistics.newcombeDifference(x1: x1, n1: n1, x2: x2, n2: n2)
        relativeLift = ProportionStatistics.relativeLift(x1: x1, n1: n1, x2: x2, n2: n2)

        // One look per UTC day, each over every device assigned and converted up to it.
        let boundary = NormalMixtureBoundary(alpha: 0.05, optimizedAt: tuningEffectiveTrials)
        var decidedOn: String?
        var latest: ConfidenceInterval?
        for i in looks.indices {
            let (t, h) = (looks[i].treated, looks[i].heldOut)
            var counted = UpliftDay()
            counted.add(rich: (t.assigned, t.converted), textOnly: (h.assigned, h.converted))
            guard let estimate = counted.snapshot.estimate(boundary: boundary) else { continue }
            looks[i].anytimeValid = estimate.anytimeValid
            latest = estimate.anytimeValid
            if decidedOn == nil, !estimate.anytimeValid.contains(0) { decidedOn = looks[i].day }
        }
        anytimeValid = latest.map { AnytimeValid(ci95: $0, decidedOn: decidedOn) }

        func moments(_ arm: HoldoutCounts.Arm) -> SkewAdjustedMean.Moments? {
            SkewAdjustedMean.moments(count: arm.assigned, decimalSum: arm.valueSum, decimalSumOfSquares: arm.valueSquares,
                                     decimalSumOfCubes: arm.valueCubes)
        }
        if let t = moments(total.treated), let h = moments(total.heldOut), let pooled = moments(total.treated + total.heldOut),
           total.treated.valueSum > 0 || total.heldOut.valueSum > 0 {
            let rule = SkewedSampleSize.difference(firstCount: n1, secondCount: n2, pooled: pooled)
            var value = ValuePerDevice(treated: t.mean, heldOut: h.mean, difference: t.mean - h.mean, ci95: nil, withheld: nil,
                                       skewness: rule.skewness, devicesNeeded: rule.minimumCount)
            if rule.sufficient {
                value.ci95 = SkewAdjustedMeanDifference.interval(first: t, second: h)
            } else {
                value.withheld = Self.valueInsufficiency(rule, smallerArm: n2 <= n1 ? "held-out" : "treated")
            }
            valuePerDevice = value
        }
    }

    /// Why the value interval is withheld, in the words of a holdout.
    static func valueInsufficiency(_ rule: SkewedSampleSize.Verdict, smallerArm: String) -> String {
        let needed = rule.minimumCount.map { "at least \($0) devices in each arm" } ?? "more devices than any campaign has"
        return "the \(smallerArm) arm has \(rule.smallerCount) devices; values as skewed as these (G1 \(String(format: "%.1f", rule.skewness)), "
            + "both arms together) need \(needed) for the 95% interval to cover (n > 28 + 25·G1²: Cochran's rule, as Sugden, Smith & Jones 2000 refine it)"
    }

    /// Why a campaign's arms are too small to compare, in the words of a holdout (the thresholds
    /// are the report's `MinimumSample`).
    static func insufficiency(_ treated: HoldoutCounts.Arm, _ heldOut: HoldoutCounts.Arm, minimum: MinimumSample) -> String? {
        if treated.assigned < minimum.perSide || heldOut.assigned < minimum.perSide {
            return "fewer than \(minimum.perSide) devices assigned in an arm (treated \(treated.assigned), held out \(heldOut.assigned))"
        }
        let pooled = Double(treated.converted + heldOut.converted) / Double(treated.assigned + heldOut.assigned)
        if Double(min(treated.assigned, heldOut.assigned)) * min(pooled, 1 - pooled) < minimum.expectedCount {
            return "fewer than \(Int(minimum.expectedCount)) conversions (or non-conversions) expected in the smaller arm"
        }
        return nil
    }
}
