import Foundation
@_exported import TapwireWire

// The wire format (ids, timestamps, JSON, the manifest's canonical form and hash) is TapwireWire,
// the module the collector reads it with; re-exported, so an app needs only `import TapwireClient`.
// The SDK's names for its types:

/// An event's id: a UUIDv7 made when the event is recorded.
public typealias TelemetryEventID = EventID
/// The full set of categories an app version registered, as posted to `/v1/categories`.
public typealias CategoryManifest = Manifest
/// A registered `UNNotificationCategory`.
public typealias RegisteredCategory = ManifestCategory
/// An action as registered in a `UNNotificationCategory`.
public typealias RegisteredAction = ManifestAction

extension Manifest {
    /// The set of registered identifiers, for `categoryRegistered`: by their bytes, as iOS finds a
    /// notification's category among them (NSString compares literally; docs/SDK.md).
    public var identifiers: Set<Bytewise<String>> { Set(categories.map { Bytewise($0.identifier) }) }
}

extension Timestamp {
    /// A `Date`, rounded to the nearest microsecond.
    public init(_ date: Date) { self.init(seconds: date.timeIntervalSince1970) }
}
