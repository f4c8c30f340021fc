import Synchronization
import TapwireCore

/// A Prometheus registry: counters, gauges and histograms with labels, rendered in the text
/// exposition format (version 0.0.4). Each family caps its number of series: past the cap, the
/// values of its foldable labels become "other", so a flood of random categories cannot grow
/// memory or the scrape without bound.
///
/// A counter family declared with `exposesCreated` is followed by a gauge `<name>_created`: when
/// each of its series was created in this process (Unix seconds, the OpenMetrics "created"
/// value). With it an alert rule can tell that a series' first value is all new events, which
/// `increase()` cannot see (docs/alerting.md).
public final class MetricsRegistry: Sendable {
    public enum Kind: String, Sendable { case counter, gauge, histogram }

    struct Series {
        var value: Double = 0
        var bucketCounts: [UInt64] = []
        var sum: Double = 0
        var count: UInt64 = 0
        /// Wall-clock Unix seconds when the series was created.
        var created: Double = 0
    }

    struct Family {
        var name: String
        var help: String
        var kind: Kind
        var labelNames: [String]
        var foldable: Set<Int>
        var maxSeries: Int
        var buckets: [Double]
        var exposesCreated: Bool
        var series: [[String]: Series] = [:]
        var order: [[String]] = []
    }

    struct Gauge: Sendable {
        var name: String
        var help: String
        var sample: @Sendable () -> Double
    }

    private let families = Mutex<[String: Family]>([:])
    private let familyOrder = Mutex<[String]>([])
    private let gauges = Mutex<[Gauge]>([])
    private let wallClock: @Sendable () -> Double

    /// `wallClock` (Unix seconds) stamps the creation of series; tests pass a fixed one.
    public init(wallClock: @escaping @Sendable () -> Double = { Timestamp.now.secondsSince1970 }) {
        self.wallClock = wallClock
    }

    /// Declares a family (idempotent). `foldableLabels` name the labels folded to "other" at the cap;
    /// `exposesCreated` (counters only) adds the `<name>_created` gauge of each series' creation time.
    public func declare(_ name: String, help: String, kind: Kind, labels: [String] = [], foldableLabels: [String] = [],
                        maxSeries: Int = 1000, buckets: [Double] = [], exposesCreated: Bool = false) {
        let inserted = families.withLock { all -> Bool in
            guard all[name] == nil else { return false }
            let fold = Set(foldableLabels.compactMap { labels.firstIndex(of: $0) })
            all[name] = Family(name: name, help: help, kind: kind, labelNames: labels, foldable: fold, maxSeries: maxSeries,
                               buckets: buckets.sorted(), exposesCreated: exposesCreated && kind == .counter)
            return true
        }
        if inserted { familyOrder.withLock { $0.append(name) } }
    }

    /// A gauge read at scrape time (queue depth, connections).
    public func gauge(_ name: String, help: String, sample: @escaping @Sendable () -> Double) {
        gauges.withLock { $0.append(Gauge(name: name, help: help, sample: sample)) }
    }

    public func increment(_ name: String, _ labels: [String] = [], by amount: Double = 1) {
        update(name, labels) { series, _ in series.value += amount }
    }

    public func set(_ name: String, _ labels: [String] = [], to value: Double) {
        update(name, labels) { series, _ in series.value = value }
    }

    public func observe(_ name: String, _ labels: [String] = [], _ value: Double) {
        update(name, labels) { series, buckets in
            if series.bucketCounts.isEmpty { series.bucketCounts = [UInt64](repeating: 0, count: buckets.count) }
            for (i, bound) in buckets.enumerated() where value <= bound { series.bucketCounts[i] += 1 }
            series.sum += value
            series.count += 1
        }
    }

    private func update(_ name: String, _ labels: [String], _ body: (inout Series, [Double]) -> Void) {
        families.withLock { all in
            guard var family = all[name], labels.count == family.labelNames.count else { return }
            var key = labels
            if family.series[key] == nil, family.series.count >= family.maxSeries {
                for index in family.foldable { key[index] = "other" }
                if family.series[key] == nil, family.series.count >= family.maxSeries + 64 { return }
            }
            if family.series[key] == nil {
                family.series[key] = Series(created: (wallClock() * 1000).rounded() / 1000)
                family.order.append(key)
            }
            body(&family.series[key]!, family.buckets)
            all[name] = family
        }
    }

    /// Replaces the series of a family that `matches` selects with `values`: a gauge of what a
    /// scan found, so the series of something that is gone disappears. Values that fold into one
    /// series at the cap are added up.
    public func replace(_ name: String, where matches: ([String]) -> Bool, with values: [([String], Double)]) {
        families.withLock { all in
            guard var family = all[name] else { return }
            let gone = Set(family.order.filter(matches))
            guard !gone.isEmpty || !values.isEmpty else { return }
            for key in gone { family.series[key] = nil }
            family.order.removeAll { gone.contains($0) }
            all[name] = family
        }
        for (labels, value) in values {
            update(name, labels) { series, _ in series.value += value }
        }
    }

    /// The value of one series (tests and `tapwire` internals).
    public func value(_ name: String, _ labels: [String] = []) -> Double? {
        families.withLock { $0[name]?.series[labels]?.value }
    }

    public func seriesCount(_ name: String) -> Int { families.withLock { $0[name]?.series.count ?? 0 } }

    /// When a series was created (Unix seconds), for families that expose it.
    public func created(_ name: String, _ labels: [String] = []) -> Double? {
        families.withLock { $0[name]?.series[labels]?.created }
    }

    /// `tapwire_x_total` → `tapwire_x_created`, as OpenMetrics names a counter's created value.
    public static func createdName(of counter: String) -> String {
        (counter.hasSuffix("_total") ? String(counter.dropLast(6)) : counter) + "_created"
    }

    public func render() -> String {
        var out = ""
        let names = familyOrder.withLock { $0 }
        let snapshot = families.withLock { $0 }
        for name in names {
            guard let family = snapshot[name] else { continue }
            out += "# HELP \(name) \(Self.escapeHelp(family.help))\n# TYPE \(name) \(family.kind.rawValue)\n"
            for key in family.order {
                guard let series = family.series[key] else { continue }
                let labels = Self.labels(family, key)
                switch family.kind {
                case .counter, .gauge:
                    out += "\(name)\(Self.braces(labels)) \(Self.number(series.value))\n"
                case .histogram:
                    var cumulative: UInt64 = 0
                    for (i, bound) in family.buckets.enumerated() {
                        cumulative = series.bucketCounts.isEmpty ? 0 : series.bucketCounts[i]
                        out += "\(name)_bucket\(Self.braces(labels + ["le=\"\(Self.number(bound))\""])) \(cumulative)\n"
                    }
                    out += "\(name)_bucket\(Self.braces(labels + ["le=\"+Inf\""])) \(series.count)\n"
                    out += "\(name)_sum\(Self.braces(labels)) \(Self.number(series.sum))\n"
                    out += "\(name)_count\(Self.braces(labels)) \(series.count)\n"
                }
            }
            if family.exposesCreated {
                let created = Self.createdName(of: name)
                out += "# HELP \(created) When each series of \(name) was created in this process (Unix seconds).\n# TYPE \(created) gauge\n"
                for key in family.order {
                    guard let series = family.series[key] else { continue }
                    out += "\(created)\(Self.braces(Self.labels(family, key))) \(Self.number(series.created))\n"
                }
            }
        }
        for gauge in gauges.withLock({ $0 }) {
            out += "# HELP \(gauge.name) \(Self.escapeHelp(gauge.help))\n# TYPE \(gauge.name) gauge\n"
            out += "\(gauge.name) \(Self.number(gauge.sample()))\n"
        }
        return out
    }

    static func labels(_ family: Family, _ key: [String]) -> [String] {
        zip(family.labelNames, key).map { "\($0)=\"\(escapeLabel($1))\"" }
    }

    static func braces(_ labels: [String]) -> String { labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}" }

    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func escapeHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            out += rest[rest.startIndex..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
