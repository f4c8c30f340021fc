import Foundation
import TapwireCore
import TapwireStatistics

/// How a benchmark's event ids are made.
public enum EventIDKind: String, CaseIterable, Sendable {
    case random = "random (v4)"
    case v7 = "UUIDv7"

    public func make(_ g: inout SeededGenerator, at time: Timestamp) -> EventID {
        switch self {
        case .v7: return .v7(at: time, using: &g)
        case .random:
            // RFC 9562 version 4: 122 random bits, version 0100, variant 10.
            return EventID(high: (g.next() & ~0xF000) | 0x4000, low: (g.next() & ~(0x3 << 62)) | (0x2 << 62))
        }
    }
}
