import Foundation
import TapwireCore
import TapwireStatistics

/// The events one device posts in one batch, with its context.
public struct GeneratedBatch: Sendable, Equatable {
    public var context: DeviceContext
    public var events: [Event]
}
