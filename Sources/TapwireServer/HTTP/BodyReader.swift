import Foundation
import Synchronization
import TapwireCore
import TapwireZlib

// Request bodies: reading one under its route's limits, and the bound on what every connection
// together may hold decoded. No sockets here: the driver (HTTPServer.swift) hands over chunks.

/// Reads a body under a route's limits: counts wire bytes, inflates gzip/deflate as it comes.
final class BodyReader {
    enum Encoding { case identity, gzip, deflate }

    let policy: BodyPolicy
    let encoding: Encoding
    private var inflater: Inflater?
    private var plain: [UInt8] = []
    private(set) var wireBytes = 0
    private let budget: BodyBudget?
    /// What this body holds of `budget`.
    private(set) var reserved = 0

    init(policy: BodyPolicy, encoding: Encoding, budget: BodyBudget? = nil) {
        self.policy = policy
        self.encoding = encoding
        self.budget = budget
        switch encoding {
        case .identity: inflater = nil
        case .gzip: inflater = Inflater(format: .gzip, limit: policy.maxDecodedBytes)
        case .deflate: inflater = Inflater(format: .deflate, limit: policy.maxDecodedBytes)
        }
    }

    /// Content-Encoding → encoding; nil for anything we do not decode (→ 415).
    static func encoding(for header: String?) -> Encoding? {
        guard let header = header?.trimmingCharacters(in: [" "]).lowercased(), !header.isEmpty else { return .identity }
        switch header {
        case "identity": return .identity
        case "gzip", "x-gzip": return .gzip
        case "deflate": return .deflate
        default: return nil
        }
    }

    /// The body's encoding, once its head shows it may be read under `policy`: a Content-Length
    /// over the limit gets 413 and an encoding we do not decode 415, before any of it is read.
    static func encoding(of head: RequestHead, under policy: BodyPolicy) throws(APIError) -> Encoding {
        if let length = head.contentLength, length > policy.maxWireBytes {
            throw APIError(.payloadTooLarge,
                           "Content-Length \(length) is over the limit of \(policy.maxWireBytes) bytes; send smaller batches")
        }
        guard let encoding = encoding(for: head.header("content-encoding")) else {
            throw APIError(.unsupportedEncoding,
                "Content-Encoding \(FieldRules.truncatedForEcho(head.header("content-encoding") ?? "")) is not supported; use gzip, deflate or identity")
        }
        return encoding
    }

    func feed(_ chunk: [UInt8]) throws(APIError) {
        wireBytes += chunk.count
        if wireBytes > policy.maxWireBytes {
            throw APIError(.payloadTooLarge, "the body is larger than \(policy.maxWireBytes) bytes")
        }
        guard let inflater else {
            if plain.count + chunk.count > policy.maxDecodedBytes {
                throw APIError(.payloadTooLarge, "the body is larger than \(policy.maxDecodedBytes) bytes")
            }
            plain.append(contentsOf: chunk)
            try hold(plain.count)
            return
        }
        do {
            try inflater.feed(chunk)
        } catch {
            throw Self.apiError(error)
        }
        try hold(inflater.output.count)
    }

    /// Grows this body's share of the server-wide budget to `decoded` bytes, or refuses.
    private func hold(_ decoded: Int) throws(APIError) {
        guard let budget, decoded > reserved else { return }
        guard budget.reserve(decoded - reserved) else {
            throw APIError(.overloaded, "the collector is holding too many request bodies at once; nothing was stored, retry shortly",
                           retryAfterSeconds: 1)
        }
        reserved = decoded
    }

    /// Gives the budget back (the body was dropped before it was handled).
    func releaseBudget() {
        budget?.release(reserved)
        reserved = 0
    }

    func finish() throws(APIError) -> [UInt8] {
        guard let inflater else { return plain }
        do {
            try inflater.finish()
        } catch {
            throw Self.apiError(error)
        }
        return inflater.output
    }

    static func apiError(_ error: InflateError) -> APIError {
        switch error {
        case .tooLarge(let limit):
            return APIError(.decompressedTooLarge, "the body decompresses to more than \(limit) bytes")
        case .corrupt(let why):
            return APIError(.invalidCompression, "the compressed body is corrupt: \(why)")
        case .truncated:
            return APIError(.invalidCompression, "the compressed body is truncated")
        }
    }
}
