import Foundation

/// Reading the collector's JSON answers (README.md, "HTTP API"; docs/openapi.json): acknowledgements,
/// errors, manifest results.
enum CollectorAnswer {
    private struct Ack: Decodable {
        var accepted: Int
        var duplicates: Int?
        var rejected: [Rejected]?
    }
    private struct Rejected: Decodable {
        var index: Int
        var eventId: String?
        var code: String?
        var reason: String?
    }
    private struct ErrorBody: Decodable {
        struct Detail: Decodable {
            var code: String?
            var message: String?
        }
        var error: Detail
    }
    private struct ManifestAnswer: Decodable {
        var manifestId: JSONScalar?
        var contentHash: String?
        var created: Bool?
    }

    /// A manifest id may be a number or a string; both are kept as text.
    struct JSONScalar: Decodable {
        var text: String
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let i = try? c.decode(Int64.self) { text = String(i) } else { text = try c.decode(String.self) }
        }
    }

    static func outcome(of response: TransportResponse, now: Date = Date()) -> SendOutcome {
        if response.status == 200 {
            guard let ack = try? JSONDecoder().decode(Ack.self, from: Data(response.body)) else {
                return .unreadable(status: 200)
            }
            return .acknowledged(BatchAcknowledgement(
                accepted: ack.accepted, duplicates: ack.duplicates ?? 0,
                rejected: (ack.rejected ?? []).map {
                    BatchRejection(index: $0.index, eventId: $0.eventId, code: $0.code ?? "rejected", reason: $0.reason ?? "")
                }))
        }
        return .status(response.status, retryAfter: response.retryAfter(now: now), errorCode: errorCode(response))
    }

    static func errorCode(_ response: TransportResponse) -> String? {
        (try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)))?.error.code
    }

    static func errorMessage(_ response: TransportResponse) -> String? {
        (try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)))?.error.message
    }

    static func manifest(_ response: TransportResponse) -> (manifestId: String?, contentHash: String?, created: Bool?)? {
        guard let answer = try? JSONDecoder().decode(ManifestAnswer.self, from: Data(response.body)) else { return nil }
        return (answer.manifestId?.text, answer.contentHash, answer.created)
    }
}
