import TapwireCore
import TapwireStatistics

/// Optional filters, one per dimension; a dimension without one matches everything. A missing
/// campaign or variant matches "".
public struct ReportFilters: Sendable, Equatable {
    public private(set) var values: [ReportDimension: String] = [:]

    public init(_ values: [ReportDimension: String] = [:]) {
        self.values = values
    }

    public init(appVersion: String? = nil, platform: String? = nil, campaign: String? = nil, variant: String? = nil, os: String? = nil) {
        values[.appVersion] = appVersion
        values[.platform] = platform
        values[.campaign] = campaign
        values[.variant] = variant
        values[.os] = os
    }

    public subscript(dimension: ReportDimension) -> String? {
        get { values[dimension] }
        set { values[dimension] = newValue }
    }

    public var isEmpty: Bool { values.isEmpty }

    /// The filters set, in the dimensions' order.
    public var pairs: [(ReportDimension, String)] {
        ReportDimension.allCases.compactMap { dimension in values[dimension].map { (dimension, $0) } }
    }

    /// Whether an event with these values passes.
    public func passes(_ event: DimensionValues) -> Bool {
        values.allSatisfy { event[$0.key] == $0.value }
    }

    /// One element per dimension, in `ReportDimension.allCases` order, NULL where there is no filter:
    /// the parameter sql/queries/report_raw_*.sql pass to tapwire_event_matches() (migration 0150).
    var sqlArray: [String?] { ReportDimension.allCases.map { values[$0] } }
}
