import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import TapwireCore
import TapwireStore

/// The webhook's HTTP side: one POST of an outbox message to TAPWIRE_ALERT_WEBHOOK_URL, and what
/// the receiver's status means for the retry policy (`WebhookRetryPolicy`, in Core, decides).
public struct FindingWebhook: Sendable {
    public let url: URL
    public let requestTimeoutSeconds: Double

    public init(url text: String, requestTimeoutSeconds: Double) throws(APIError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw APIError(.badRequest, "TAPWIRE_ALERT_WEBHOOK_URL must be an http or https URL")
        }
        self.url = url
        self.requestTimeoutSeconds = requestTimeoutSeconds
    }

    /// The status table: any 2xx is delivered; 408, 425, 429 and 5xx are worth retrying (with the
    /// receiver's Retry-After, if any); any other status is a refusal.
    public static func classify(status: Int, retryAfterSeconds: Double? = nil) -> WebhookOutcome {
        switch status {
        case 200..<300: return .delivered(status: status)
        case 408, 425, 429, 500..<600:
            return .transientFailure(status: status, retryAfterSeconds: retryAfterSeconds, reason: "HTTP \(status)")
        default: return .rejected(status: status, reason: "HTTP \(status)")
        }
    }

    /// One POST, synchronously on the caller's thread (the monitor's, never an HTTP or database
    /// thread of ingestion). `X-Tapwire-Alert-Id` is the key's stable id, for receivers to dedupe.
    func post(_ message: FindingOutbox.LeasedMessage) -> WebhookOutcome {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: requestTimeoutSeconds)
        request.httpMethod = "POST"
        request.httpBody = Data(message.payload.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(message.key.description, forHTTPHeaderField: "X-Tapwire-Alert-Id")
        request.setValue("tapwire", forHTTPHeaderField: "User-Agent")
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<WebhookOutcome?>(nil)
        let task = URLSession.shared.dataTask(with: request) { _, response, error in
            let outcome: WebhookOutcome
            if let http = response as? HTTPURLResponse {
                let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap { Double($0) }
                outcome = Self.classify(status: http.statusCode, retryAfterSeconds: retryAfter)
            } else {
                outcome = .transientFailure(status: nil, retryAfterSeconds: nil, reason: error.map { "\(type(of: $0)) \(($0 as NSError).code)" } ?? "no response")
            }
            box.withLock { $0 = outcome }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + requestTimeoutSeconds + 2) == .timedOut {
            task.cancel()
            return .transientFailure(status: nil, retryAfterSeconds: nil, reason: "timed out")
        }
        return box.withLock { $0 } ?? .transientFailure(status: nil, retryAfterSeconds: nil, reason: "no response")
    }
}
