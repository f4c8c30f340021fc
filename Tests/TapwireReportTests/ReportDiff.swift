import TapwireReport

/// Where two reports differ, field by field, for a test's failure message.
enum ReportDiff {
    static func describe(_ a: EngagementReport, _ b: EngagementReport) -> String {
        var lines: [String] = []
        if a.days != b.days { lines.append("days \(a.days) vs \(b.days)") }
        func compare(_ x: CategoryEngagement, _ y: CategoryEngagement, _ where_: String) {
            guard x != y else { return }
            let mirrorX = Mirror(reflecting: x), mirrorY = Mirror(reflecting: y)
            for (cx, cy) in zip(mirrorX.children, mirrorY.children) where "\(cx.value)" != "\(cy.value)" {
                lines.append("\(where_) \(x.displayName).\(cx.label ?? "?"): \(cx.value) vs \(cy.value)")
            }
        }
        for (x, y) in zip(a.categories, b.categories) { compare(x, y, "") }
        if a.categories.count != b.categories.count { lines.append("categories \(a.categories.count) vs \(b.categories.count)") }
        compare(a.overall, b.overall, "")
        for (g, h) in zip(a.groups, b.groups) {
            if g.value != h.value { lines.append("group \(g.value) vs \(h.value)") }
            for (x, y) in zip(g.categories, h.categories) { compare(x, y, "[\(g.value)]") }
            compare(g.overall, h.overall, "[\(g.value)]")
        }
        if a.groups.count != b.groups.count { lines.append("groups \(a.groups.count) vs \(b.groups.count)") }
        return lines.joined(separator: "\n")
    }
}
