import TapwireCore
import TapwireStatistics

/// A campaign's holdout in the HTML report (docs/holdouts.md), one look per UTC day: above, each
/// arm's cumulative conversion rate; below, the difference (treated minus held out) with the
/// anytime-valid 95% band at every look and the day it first excluded 0. The band is the
/// difference's because that is what the confidence sequence covers: two per-arm bands would
/// invite reading their overlap as "no effect", which it is not. Inline SVG, drawn with the
/// engagement report's pieces (HTMLReportRenderer.swift).
struct HoldoutChart {
    var effect: HoldoutEffect

    static let treatedColour = "#7c3aed"
    static let heldOutColour = "#64748b"

    static let css = """
    svg .treated{fill:none;stroke:\(treatedColour);stroke-width:2}svg .treated-dot{fill:\(treatedColour)}
    svg .held-out{fill:none;stroke:\(heldOutColour);stroke-width:2;stroke-dasharray:6 3}svg .held-out-dot{fill:\(heldOutColour)}
    svg .band{fill:#ddd6fe;stroke:none}svg .band-edge{fill:none;stroke:#a78bfa;stroke-width:1}
    svg .difference{fill:none;stroke:#111827;stroke-width:2}svg .difference-dot{fill:#111827}
    svg .zero{stroke:#9ca3af;stroke-dasharray:2 2}svg .decided{stroke:#b45309;stroke-dasharray:4 3}svg .decided-label{fill:#b45309}

    """

    /// What the two panels are drawn on: the width and the left and right margins they share.
    static let width = 760.0, left = 70.0, right = 150.0

    var svg: String {
        let draw = HTMLReportRenderer(), f = draw.f
        let looks = effect.looks
        let plotW = Self.width - Self.left - Self.right
        let rates = (top: 34.0, height: 150.0), differences = (top: 230.0, height: 130.0)
        let height = differences.top + differences.height + 60
        var svg = draw.svgOpen(width: Self.width, height: height, className: "chart chart-holdout",
                               label: "\(effect.campaign): cumulative conversion rate of treated and held-out devices by UTC day, "
                                   + "and their difference with its anytime-valid 95% band")
        svg += "<line class=\"treated\" x1=\"\(f(Self.left))\" y1=\"10\" x2=\"\(f(Self.left + 24))\" y2=\"10\"/>"
        svg += draw.text(x: Self.left + 30, y: 14, anchor: "start", "treated")
        svg += "<line class=\"held-out\" x1=\"\(f(Self.left + 100))\" y1=\"10\" x2=\"\(f(Self.left + 124))\" y2=\"10\"/>"
        svg += draw.text(x: Self.left + 130, y: 14, anchor: "start", "held out")
        svg += "<rect class=\"band\" x=\"\(f(Self.left + 210))\" y=\"4\" width=\"24\" height=\"12\"/>"
        svg += draw.text(x: Self.left + 240, y: 14, anchor: "start", "anytime-valid 95% interval of the difference") + "\n"
        guard !looks.isEmpty else { return svg + draw.text(x: Self.left, y: rates.top + 20, anchor: "start", "no day with assignments") + "</svg>\n" }
        let step = plotW / Double(looks.count)
        func x(_ i: Int) -> Double { Self.left + (Double(i) + 0.5) * step }

        // Above: each arm's cumulative rate.
        let maxRate = draw.niceMax(looks.flatMap { [$0.treatedRate, $0.heldOutRate] }.compactMap { $0 })
        func yRate(_ r: Double) -> Double { rates.top + rates.height - min(r, maxRate) / maxRate * rates.height }
        svg += yTicks([0, maxRate / 2, maxRate], y: yRate, label: { Fmt.percent($0, digits: 1) })
        for (name, className, arm, rate) in [("treated", "treated", \HoldoutEffect.Look.treated, \HoldoutEffect.Look.treatedRate),
                                             ("held out", "held-out", \HoldoutEffect.Look.heldOut, \HoldoutEffect.Look.heldOutRate)] {
            svg += series(looks.indices.compactMap { i in
                looks[i][keyPath: rate].map { r in
                    (x(i), yRate(r), "\(looks[i].day): \(name) \(Fmt.percent(r, digits: 2)), \(Fmt.count(looks[i][keyPath: arm].converted)) of "
                        + "\(Fmt.count(looks[i][keyPath: arm].assigned)) converted")
                }
            }, className: className)
        }
        if let last = looks.last, let t = last.treatedRate, let h = last.heldOutRate {
            // The latest rates at the right end, kept apart when the lines end close together.
            let (yt, yh) = (yRate(t), yRate(h))
            let apart = abs(yt - yh) < 14 ? (yt <= yh ? (-7.0, 7.0) : (7.0, -7.0)) : (0.0, 0.0)
            svg += draw.text(x: Self.left + plotW + 8, y: yt + 4 + apart.0, anchor: "start", "treated \(Fmt.percent(t, digits: 2))")
            svg += draw.text(x: Self.left + plotW + 8, y: yh + 4 + apart.1, anchor: "start", "held out \(Fmt.percent(h, digits: 2))") + "\n"
        }

        // Below: the difference and its band, or why they are withheld.
        svg += draw.text(x: Self.left, y: differences.top - 14, anchor: "start", "treated minus held out", className: "muted")
        if let withheld = effect.withheld {
            let lines = ["Difference and anytime-valid band withheld:"] + TableReportRenderer().wrap(withheld, 95).prefix(4)
            for (k, line) in lines.enumerated() {
                svg += draw.text(x: Self.left, y: differences.top + 20 + Double(k) * 18, anchor: "start", line, className: "muted")
            }
        } else {
            svg += differencePanel(looks, x: x, top: differences.top, height: differences.height)
        }
        let every = max(1, looks.count / 8)
        for i in looks.indices where i % every == 0 {
            svg += draw.text(x: x(i), y: differences.top + differences.height + 16, anchor: "middle", String(looks[i].day.suffix(5)), className: "tick")
        }
        svg += draw.text(x: Self.left, y: height - 22, anchor: "start",
                         "each day: the devices assigned up to it, and those of them converted within the window up to it", className: "muted")
        svg += draw.text(x: Self.left, y: height - 6, anchor: "start",
                         "below: treated minus held out; shaded: its anytime-valid 95% interval, valid at every daily look", className: "muted")
        return svg + "</svg>\n"
    }

    /// The difference in percentage points, its band (clipped to the axis, which spans 0, every
    /// point and the latest band, and at most as much again beyond them), and the day decided.
    func differencePanel(_ looks: [HoldoutEffect.Look], x: (Int) -> Double, top: Double, height: Double) -> String {
        let draw = HTMLReportRenderer(), f = draw.f
        let differences = looks.compactMap(\.difference), bands = looks.compactMap(\.anytimeValid)
        let latest = bands.last.map { [$0.lower, $0.upper] } ?? []
        var low = (differences + latest + [0]).min()!, high = (differences + latest + [0]).max()!
        let span = max(high - low, 0.001)
        low = min(low, max(low - span, bands.map(\.lower).min() ?? low))
        high = max(high, min(high + span, bands.map(\.upper).max() ?? high))
        let pad = (high - low) * 0.05
        (low, high) = (low - pad, high + pad)
        let clipped = bands.contains { $0.lower < low || $0.upper > high }
        func y(_ d: Double) -> Double { top + height - (min(max(d, low), high) - low) / (high - low) * height }
        var svg = yTicks([low + pad, 0, high - pad], y: y, label: { Fmt.points($0 * 100) })
        svg += "<line class=\"zero\" x1=\"\(f(Self.left))\" y1=\"\(f(y(0)))\" x2=\"\(f(Self.width - Self.right))\" y2=\"\(f(y(0)))\"/>\n"
        let banded = looks.indices.compactMap { i in looks[i].anytimeValid.map { (x: x(i), band: $0) } }
        if banded.count > 1 {
            let upper = banded.map { "\(f($0.x)),\(f(y($0.band.upper)))" }, lower = banded.reversed().map { "\(f($0.x)),\(f(y($0.band.lower)))" }
            svg += "<polygon class=\"band\" points=\"\((upper + lower).joined(separator: " "))\"/>\n"
            svg += "<polyline class=\"band-edge\" points=\"\(upper.joined(separator: " "))\"/><polyline class=\"band-edge\" points=\"\(lower.joined(separator: " "))\"/>\n"
        } else if let only = banded.first {
            svg += "<path class=\"band-edge\" d=\"M\(f(only.x)) \(f(y(only.band.lower)))V\(f(y(only.band.upper)))\"/>\n"
        }
        svg += series(looks.indices.compactMap { i in
            looks[i].difference.map { d in
                (x(i), y(d), "\(looks[i].day): difference \(Fmt.points(d * 100)), anytime-valid \(Fmt.interval(looks[i].anytimeValid, signed: true))")
            }
        }, className: "difference")
        if let day = effect.anytimeValid?.decidedOn, let i = looks.firstIndex(where: { $0.day == day }) {
            svg += "<line class=\"decided\" x1=\"\(f(x(i)))\" y1=\"\(f(top))\" x2=\"\(f(x(i)))\" y2=\"\(f(top + height))\"><title>decided on \(HTML.escape(day))</title></line>\n"
            svg += draw.text(x: x(i) + 4, y: top + 10, anchor: "start", "decided \(day)", className: "decided-label")
        }
        if let d = differences.last {
            svg += draw.text(x: Self.width - Self.right + 8, y: y(d) + 4, anchor: "start", "difference \(Fmt.points(d * 100))")
        }
        if clipped { svg += draw.text(x: Self.width - Self.right + 8, y: top + height - 2, anchor: "start", "(band clipped)", className: "muted") }
        return svg + "\n"
    }

    /// Horizontal grid lines at `values` with their labels on the left.
    func yTicks(_ values: [Double], y: (Double) -> Double, label: (Double) -> String) -> String {
        let draw = HTMLReportRenderer(), f = draw.f
        return values.map { v in
            "<line class=\"grid\" x1=\"\(f(Self.left))\" y1=\"\(f(y(v)))\" x2=\"\(f(Self.width - Self.right))\" y2=\"\(f(y(v)))\"/>"
                + draw.text(x: Self.left - 6, y: y(v) + 4, anchor: "end", label(v), className: "tick")
        }.joined() + "\n"
    }

    /// A line through the points (when there are two or more) and a dot at each, its title the
    /// point's figures.
    func series(_ points: [(x: Double, y: Double, title: String)], className: String) -> String {
        let f = HTMLReportRenderer().f
        var svg = points.count > 1 ? "<polyline class=\"\(className)\" points=\"\(points.map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " "))\"/>\n" : ""
        for p in points {
            svg += "<circle class=\"\(className)-dot\" cx=\"\(f(p.x))\" cy=\"\(f(p.y))\" r=\"2.5\"><title>\(HTML.escape(p.title))</title></circle>\n"
        }
        return svg
    }
}
