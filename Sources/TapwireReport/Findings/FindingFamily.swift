import TapwireCore
import TapwireStore

/// One rule family of findings, whole: the kinds it reports, what it reads (as of an instant) and
/// when the collectors run it, and how its evidence renders. `FindingFamilies.all` lists every
/// family; the renderers, the findings monitor, the outbox, /metrics and the API iterate that
/// list and name no family (docs/architecture.md, "Findings": how to add one).
public protocol FindingFamily: Sendable {
    /// Its stable name: the `family` label of `tapwire_findings_checks_total`, and logs.
    var name: String { get }
    /// Every kind it reports, in the order every output lists them.
    var kinds: [FindingKind] { get }
    /// When the collectors' findings monitor runs it.
    var cadence: FindingCadence { get }

    // MARK: What it reads

    /// Its section of one app's findings on demand (`tapwire alerts`, `GET /v1/findings`, the
    /// engagement report's findings): as of `query.asOf`, over `query.since` if it reads a window.
    func section(appId: Int64, appName: String, query: FindingsQuery, on connection: PostgresConnection) throws(DatabaseError) -> any FindingsSection

    /// The apps a monitor scan at `instant` looks at: those with data the family reads.
    func appsToScan(at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [(appId: Int64, name: String)]

    /// One app's findings at a monitor scan, each per app version (what the outbox announces and
    /// /metrics shows). It may store what it computed for readers (the regression family's look).
    func scan(appId: Int64, at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [Finding]

    // MARK: How its evidence renders

    /// A finding of its kinds in the family's documented JSON shape.
    func json(_ finding: Finding) -> JSONValue
    /// The CSV columns it fills beyond the common ones (kind, severity, category, action,
    /// appVersions, baselineVersion … since, message), in order.
    var csvColumns: [String] { get }
    /// A finding's values for `csvColumns`, by column; an absent one is empty.
    func csvValues(_ finding: Finding) -> [String: String]
    /// The lines of the webhook's message that follow its sentence, for the findings of one key
    /// (the first leads; the others are other actions of the same category).
    func messageFacts(_ findings: [Finding]) -> [String]
    /// CSS its HTML sections need, on a findings page and inside the engagement report.
    var css: String { get }
}
