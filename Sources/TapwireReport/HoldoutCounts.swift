import Foundation

/// What the database keeps for one campaign's holdout (rollup_holdouts, docs/holdouts.md): per
/// UTC day and arm, the devices first assigned that day, and the devices whose first conversion
/// within the window fell on that day with the sums of their values' powers.
public struct HoldoutCounts: Sendable, Equatable {
    public var campaign: String
    /// The conversion window after assignment, as the report states it ("7 days").
    public var window: String
    /// Every holdout share the campaign's assignments stated; more than one withholds the campaign.
    public var statedShares: [Double]
    /// In day order.
    public var days: [Day]

    public struct Arm: Sendable, Equatable {
        public var assigned: Int
        public var converted: Int
        public var valueSum: Decimal
        public var valueSquares: Decimal
        public var valueCubes: Decimal
        public init(assigned: Int = 0, converted: Int = 0, valueSum: Decimal = 0, valueSquares: Decimal = 0, valueCubes: Decimal = 0) {
            self.assigned = assigned
            self.converted = converted
            self.valueSum = valueSum
            self.valueSquares = valueSquares
            self.valueCubes = valueCubes
        }

        public static func + (a: Arm, b: Arm) -> Arm {
            Arm(assigned: a.assigned + b.assigned, converted: a.converted + b.converted, valueSum: a.valueSum + b.valueSum,
                valueSquares: a.valueSquares + b.valueSquares, valueCubes: a.valueCubes + b.valueCubes)
        }
    }

    public struct Day: Sendable, Equatable {
        /// The UTC day, YYYY-MM-DD.
        public var day: String
        public var treated: Arm
        public var heldOut: Arm
        public init(day: String, treated: Arm, heldOut: Arm) {
            self.day = day
            self.treated = treated
            self.heldOut = heldOut
        }
    }

    public init(campaign: String, window: String, statedShares: [Double], days: [Day]) {
        self.campaign = campaign
        self.window = window
        self.statedShares = statedShares
        self.days = days
    }
}
