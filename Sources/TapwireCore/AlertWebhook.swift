/// The identity of an announced finding: the webhook sends one message per key, ever.
public struct AlertKey: Sendable, Hashable, CustomStringConvertible {
    public var appId: Int64
    public var appVersion: String
    public var kind: MismatchKind
    public var category: String

    public init(appId: Int64, appVersion: String, kind: MismatchKind, category: String) {
        self.appId = appId
        self.appVersion = appVersion
        self.kind = kind
        self.category = category
    }

    /// A stable id receivers can dedupe on (sent as X-Tapwire-Alert-Id).
    public var description: String {
        SHA256.hex(Array("\(appId)\u{0}\(appVersion)\u{0}\(kind.rawValue)\u{0}\(category)".utf8))
    }
}

/// What one HTTP attempt at the webhook came to.
public enum WebhookOutcome: Sendable, Equatable {
    /// Any 2xx.
    case delivered(status: Int)
    /// No answer (refused, reset, timed out) or an answer worth retrying: 408, 429, 5xx.
    /// `retryAfterSeconds` is the receiver's Retry-After, if it sent one.
    case transientFailure(status: Int?, retryAfterSeconds: Double?, reason: String)
    /// Any other status: the receiver understood and refused (a bad URL, a revoked hook).
    case rejected(status: Int, reason: String)

    public static func classify(status: Int, retryAfterSeconds: Double? = nil) -> WebhookOutcome {
        switch status {
        case 200..<300: return .delivered(status: status)
        case 408, 425, 429, 500..<600:
            return .transientFailure(status: status, retryAfterSeconds: retryAfterSeconds, reason: "HTTP \(status)")
        default: return .rejected(status: status, reason: "HTTP \(status)")
        }
    }
}

/// What the driver does next with one queued message.
public enum WebhookDecision: Sendable, Equatable {
    case markSent
    case retry(afterSeconds: Double)
    /// Stop: kept in the outbox as `failed` with its last error, for a person to look at.
    case giveUp
}

/// The retry rules of the webhook, as a pure function of the attempt count and the outcome.
/// Transient failures are retried forever with capped exponential backoff and full jitter (a
/// receiver that is down delays messages, never loses them); a refusal is retried a few times,
/// since a webhook that was just being reconfigured may come back, then given up.
public struct WebhookRetryPolicy: Sendable, Equatable {
    public var baseSeconds: Double
    public var maxSeconds: Double
    public var maxAttemptsWhenRejected: Int

    public init(baseSeconds: Double = 1, maxSeconds: Double = 300, maxAttemptsWhenRejected: Int = 5) {
        self.baseSeconds = baseSeconds
        self.maxSeconds = maxSeconds
        self.maxAttemptsWhenRejected = maxAttemptsWhenRejected
    }

    /// `attempts` counts the attempt that produced `outcome` (1 after the first try).
    public func decide<G: RandomNumberGenerator>(attempts: Int, outcome: WebhookOutcome, using generator: inout G) -> WebhookDecision {
        switch outcome {
        case .delivered:
            return .markSent
        case .rejected:
            if attempts >= maxAttemptsWhenRejected { return .giveUp }
            return .retry(afterSeconds: delay(attempts: attempts, using: &generator))
        case .transientFailure(_, let retryAfter, _):
            let backoff = delay(attempts: attempts, using: &generator)
            // Honour Retry-After, within the cap, when it asks for longer than our backoff.
            if let retryAfter, retryAfter.isFinite, retryAfter > backoff { return .retry(afterSeconds: min(retryAfter, maxSeconds)) }
            return .retry(afterSeconds: backoff)
        }
    }

    /// Exponential with full jitter in [ceiling/2, ceiling], as `Backoff` does.
    func delay<G: RandomNumberGenerator>(attempts: Int, using generator: inout G) -> Double {
        var backoff = Backoff(baseSeconds: baseSeconds, maxSeconds: maxSeconds)
        for _ in 1..<max(1, attempts) { _ = backoff.nextDelay(using: &generator) }
        return backoff.nextDelay(using: &generator)
    }
}

/// The Slack-compatible message for a finding: `text` for any receiver (Slack, Mattermost,
/// Rocket.Chat, Discord's /slack endpoint), `blocks` for Slack's layout.
public enum AlertMessage {
    public static func payload(app: String, version: String, finding f: MismatchFinding) -> JSONValue {
        let versionLabel = version.isEmpty ? "(no app version)" : version
        var headline = "*\(f.severity.rawValue.uppercased())* \(escape(f.kind.rawValue)) in *\(escape(app))* \(escape(versionLabel)): category `\(escape(f.category))`"
        if let action = f.action { headline += ", action `\(escape(action))`" }
        var lines = [headline, escape(f.message)]
        var facts = "\(f.count) affected"
        if !f.platforms.isEmpty { facts += " on \(escape(f.platforms.joined(separator: ", ")))" }
        if let first = f.firstSeen { facts += ", first seen \(first.iso8601(fractionDigits: 0))" }
        lines.append(facts)
        if let suggestion = f.suggestion { lines.append("Suggested: `\(escape(suggestion))`") }
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
