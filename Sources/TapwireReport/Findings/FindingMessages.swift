import TapwireCore
import TapwireStore

/// The webhook's messages: a Slack-compatible body per announced finding (`text` for any
/// receiver: Slack, Mattermost, Rocket.Chat, Discord's /slack endpoint; `blocks` for Slack's
/// layout), and the outbox messages of a scan, one per `FindingKey`. The facts under the sentence
/// are the finding's family's (`FindingFamily.messageFacts`).
public enum FindingMessages {
    /// The outbox messages for an app's findings: one per key (per app version). Findings that
    /// share a key (two unregistered actions of one category) become one message naming all.
    public static func outbox(appId: Int64, app: String, findings: [Finding], family: any FindingFamily) -> [FindingOutbox.Message] {
        var grouped: [FindingKey: [Finding]] = [:]
        var order: [FindingKey] = []
        for finding in findings {
            for key in finding.keys(appId: appId) {
                if grouped[key] == nil { order.append(key) }
                grouped[key, default: []].append(finding)
            }
        }
        return order.map { key in
            let group = grouped[key]!
            return FindingOutbox.Message(key: key, severity: group.map(\.severity).max()!,
                                         payload: payload(app: app, version: key.appVersion, findings: group, family: family).serialized(),
                                         firstSeen: group.compactMap(\.since).min())
        }
    }

    /// One message for the findings of one key; the first leads, the others' actions are named.
    public static func payload(app: String, version: String, findings: [Finding], family: any FindingFamily) -> JSONValue {
        let lead = findings[0]
        let versionLabel = version.isEmpty ? "(no app version)" : version
        var headline = "*\(lead.severity.rawValue.uppercased())* \(escape(lead.kind.rawValue)) in *\(escape(app))* \(escape(versionLabel)): category `\(escape(lead.subject.category))`"
        if let action = lead.subject.action { headline += ", action `\(escape(action))`" }
        var message = lead.message
        let others = findings.dropFirst().compactMap(\.subject.action).filter { $0 != lead.subject.action }
        if !others.isEmpty { message += " Also: " + others.map { "\"\($0)\"" }.joined(separator: ", ") + "." }
        var lines = [headline, escape(message)]
        lines += family.messageFacts(findings)
        let text = lines.joined(separator: "\n")
        return .object([
            ("text", .string(text)),
            ("blocks", .array([.object([("type", "section"), ("text", .object([("type", "mrkdwn"), ("text", .string(text))]))])])),
        ])
    }

    /// Slack's control sequences: &, < and > must be escaped, or a device-sent category such as
    /// "<!channel>" would page everyone.
    public static func escape(_ s: String) -> String {
        var out = ""
        for c in TextSafety.printable(s).unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
