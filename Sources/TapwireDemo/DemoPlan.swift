import Foundation
import TapwireCore

public struct DemoPlan: Sendable {
    /// Bodies for `POST /v1/categories`, one per app version.
    public var manifests: [[UInt8]]
    /// In posting order; retried batches appear twice.
    public var batches: [DemoBatch]
    public var uniqueEvents: Int
    public var from: Timestamp
    public var to: Timestamp
}
