import TapwireCore

/// A family's part of one app's findings, with the details only it has (a mismatch window, every
/// regression series and its status), rendered its own way inside every findings output.
public protocol FindingsSection: Sendable {
    /// The family it comes from, which renders its findings.
    var family: any FindingFamily { get }
    /// Its findings, in the family's order.
    var findings: [Finding] { get }
    /// Its heading in the engagement report's text and Markdown (`Category mismatches`).
    var title: String { get }
    /// The member it adds to the findings JSON after `findings` (`mismatches`, `regressions`).
    var jsonMember: (name: String, value: JSONValue) { get }
    /// Its terminal table, with the lines that head and sum it up.
    var table: String { get }
    /// Whether `table` names the section itself (else the engagement report's text puts `title` above it).
    var tableHasHeading: Bool { get }
    /// Its HTML fragment (a `<section>`).
    var htmlSection: String { get }
    /// The section with only the findings at or above `severity` (what else it shows stays).
    func filtered(minimumSeverity severity: FindingSeverity) -> any FindingsSection
}
