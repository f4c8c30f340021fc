import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one thing the SDK needs from HTTP. Throwing means the request did not complete, so the
/// retry policy keeps the batch.
public protocol HTTPTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
