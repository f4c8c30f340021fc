import TapwireCore
import TapwireReport

/// The findings in `/metrics`, one path for every rule family:
///
/// - `tapwire_findings_active{app, kind, severity, category, action}`: a gauge, 1 per finding the
///   collector's last scan saw (its family's scan: mismatches every `scanSeconds`, the release
///   check every hour). A series that starts above zero needs no `increase()` to be seen, so an
///   alert on it fires on its first sample. Capped at `maxSeries` series: past the cap, new
///   categories and actions count under "other", so a flood of junk categories stays bounded.
/// - `tapwire_findings_checks_total{family}`: the scans this collector completed, per family
///   (findings published, new ones queued), so a dashboard or a test can see that a check ran.
/// - `tapwire_mismatch_alerts_total{outcome}` and `tapwire_mismatch_alerts_pending`: the
///   webhook's deliveries and its outbox, for every family (the names are kept from when only
///   mismatches were announced, so existing rules and dashboards keep working).
public enum FindingMetrics {
    public static let active = "tapwire_findings_active"
    public static let checks = "tapwire_findings_checks_total"
    public static let webhook = "tapwire_mismatch_alerts_total"
    public static let outboxPending = "tapwire_mismatch_alerts_pending"
    public static let maxSeries = 1000

    public static func declare(in registry: MetricsRegistry) {
        registry.declare(active, help: "Findings the last scan saw, by app, kind, severity, category and action (capped: extra categories and actions fold into \"other\").",
                         kind: .gauge, labels: ["app", "kind", "severity", "category", "action"], foldableLabels: ["category", "action"],
                         maxSeries: maxSeries)
        registry.declare(checks, help: "Scans of a rule family this collector completed (every app's findings published and new ones queued).",
                         kind: .counter, labels: ["family"])
        registry.declare(webhook, help: "Findings webhook deliveries (every family), by outcome (sent, retry, failed).", kind: .counter,
                         labels: ["outcome"], exposesCreated: true)
        registry.declare(outboxPending, help: "Findings webhook messages this collector last saw waiting in the outbox.", kind: .gauge)
    }

    /// Sets the active findings of one app and family to `findings`, a series each (findings of
    /// one key on several versions count once per version). The family's own kinds only: the
    /// other families' series of the app stay as their own scans left them.
    public static func setActive(_ findings: [Finding], app: String, family: any FindingFamily, in registry: MetricsRegistry) {
        let familyKinds = Set(family.kinds.map(\.rawValue))
        var values: [[String]: Double] = [:]
        for f in findings where familyKinds.contains(f.kind.rawValue) {
            values[[app, f.kind.rawValue, f.severity.rawValue, f.subject.category, f.subject.action ?? ""], default: 0] +=
                Double(max(1, f.subject.appVersions.count))
        }
        // Sorted, so which series get a place before the cap does not depend on hashing.
        registry.replace(active, where: { $0[0] == app && familyKinds.contains($0[1]) },
                         with: values.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { ($0, values[$0]!) })
    }
}
