/// What the strata of one UTC day (or of the part of one a report's range cuts) add to a rich vs
/// text-only comparison: the Mantel–Haenszel sums, the used cells of each side, the strata with
/// both sides, and what was left out. Days add up, so a report's figures and its daily looks are
/// sums of these (docs/reports.md, "Rich vs text-only"); the database keeps one per category and
/// day (rollup_uplift_days, whose terms tapwire_uplift_terms computes as `add` does here).
public struct UpliftDay: Sendable, Equatable {
    public var sums = MantelHaenszelSums()
    /// Delivered and engaged of one side in used cells.
    public struct Side: Sendable, Equatable {
        public var delivered = 0
        public var engaged = 0
        public init(delivered: Int = 0, engaged: Int = 0) {
            self.delivered = delivered
            self.engaged = engaged
        }
    }

    /// Rich delivered and engaged in used cells (a side of a stratum with deliveries and no more
    /// engaged than delivered): the pooled comparison's first group.
    public var rich = Side()
    /// The pooled comparison's second group.
    public var textOnly = Side()
    /// Both sides over the strata that have both: the sample the adjusted difference rests on.
    public var bothSides = StratumCounts(x1: 0, n1: 0, x2: 0, n2: 0)
    /// Deliveries in cells whose engagement exceeds them.
    public var notMeaningfulDelivered = 0
    /// Engaged responses in cells without a delivery.
    public var engagedWithoutDeliveries = 0

    public init() {}

    public init(sums: MantelHaenszelSums, rich: Side, textOnly: Side, bothSides: StratumCounts, notMeaningfulDelivered: Int,
                engagedWithoutDeliveries: Int) {
        self.sums = sums
        self.rich = rich
        self.textOnly = textOnly
        self.bothSides = bothSides
        self.notMeaningfulDelivered = notMeaningfulDelivered
        self.engagedWithoutDeliveries = engagedWithoutDeliveries
    }

    /// Adds one stratum from its two cells (rich and text-only, delivered and engaged). A cell
    /// with no delivery, or more engaged than delivered, is not used: it contributes nothing
    /// but its count of what was left out (docs/reports.md, "Which notifications a figure counts").
    public mutating func add(rich richCell: (delivered: Int, engaged: Int), textOnly textCell: (delivered: Int, engaged: Int)) {
        func use(_ cell: (delivered: Int, engaged: Int)) -> (delivered: Int, engaged: Int) {
            if cell.delivered == 0 {
                engagedWithoutDeliveries += cell.engaged
                return (0, 0)
            }
            if cell.engaged > cell.delivered {
                notMeaningfulDelivered += cell.delivered
                return (0, 0)
            }
            return cell
        }
        let r = use(richCell), t = use(textCell)
        let table = StratumCounts(x1: r.engaged, n1: r.delivered, x2: t.engaged, n2: t.delivered)
        rich.delivered += r.delivered
        rich.engaged += r.engaged
        textOnly.delivered += t.delivered
        textOnly.engaged += t.engaged
        sums.add(table)
        if table.contributes {
            bothSides.x1 += table.x1
            bothSides.n1 += table.n1
            bothSides.x2 += table.x2
            bothSides.n2 += table.n2
        }
    }

    public static func + (a: UpliftDay, b: UpliftDay) -> UpliftDay {
        var sum = a
        sum.sums = a.sums + b.sums
        sum.rich.delivered += b.rich.delivered
        sum.rich.engaged += b.rich.engaged
        sum.textOnly.delivered += b.textOnly.delivered
        sum.textOnly.engaged += b.textOnly.engaged
        sum.bothSides.x1 += b.bothSides.x1
        sum.bothSides.n1 += b.bothSides.n1
        sum.bothSides.x2 += b.bothSides.x2
        sum.bothSides.n2 += b.bothSides.n2
        sum.notMeaningfulDelivered += b.notMeaningfulDelivered
        sum.engagedWithoutDeliveries += b.engagedWithoutDeliveries
        return sum
    }

    /// The look at this point: what `AnytimeUplift` reads.
    public var snapshot: SequentialMantelHaenszel.Snapshot {
        SequentialMantelHaenszel.Snapshot(sums: sums, pooled: bothSides, notMeaningfulTrials: notMeaningfulDelivered)
    }
}
