import Foundation

/// The identifiers of the categories registered on this device, as the client last read them.
///
/// Why kept: `categoryRegistered` must be known the moment an event is recorded, and asking the
/// system then means waiting for an answer that, inside a UserNotifications completion handler,
/// cannot come in time. So the client reads the set at launch and on `syncCategories`, keeps it
/// here, and persists it next to its queue for the next cold start.
///
/// Pure: the client hands it the persisted bytes and each fresh reading, and writes back what it
/// returns. A set persisted by another app version is not trusted (an update may register other
/// categories), so after an update the set is unknown until the first refresh.
public struct RegisteredCategoryCache: Sendable, Equatable {
    /// The version this process runs as (`DeviceInfo.appVersion`).
    public let appVersion: String
    /// nil until known: no reading yet for this app version. Events then leave `categoryRegistered` out.
    /// By their bytes, so a payload's category in another normal form is not found (`Bytewise`).
    public private(set) var identifiers: Set<Bytewise<String>>?

    /// Cold start from the file the previous process of this app version wrote (nil: no file). A
    /// damaged file or one from another version gives an unknown set, never an error.
    public init(appVersion: String, persisted: [UInt8]?) {
        self.appVersion = appVersion
        guard let persisted, let stored = try? JSONDecoder().decode(Persisted.self, from: Data(persisted)),
              stored.appVersion == appVersion else { return }
        identifiers = Set(stored.identifiers.map { Bytewise($0) })
    }

    /// A fresh reading from the system. Returns the bytes to persist when the set changed, nil when
    /// there is nothing to write.
    public mutating func refresh(_ manifest: CategoryManifest) -> [UInt8]? {
        let fresh = manifest.identifiers
        guard fresh != identifiers else { return nil }
        identifiers = fresh
        return persisted
    }

    /// The file's content: `{"appVersion":…,"identifiers":[…]}`, identifiers sorted, so the same
    /// set always writes the same bytes. nil while the set is unknown.
    public var persisted: [UInt8]? {
        guard let identifiers else { return nil }
        return JSONValue.object([
            ("appVersion", .string(appVersion)),
            ("identifiers", .array(identifiers.map(\.wrappedValue).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { .string($0) })),
        ]).serializedBytes()
    }

    /// The name of the file in the queue directory. The app and its Notification Service Extension
    /// have a queue directory each, so each keeps its own.
    public static let fileName = "categories-registered.json"

    private struct Persisted: Decodable {
        var appVersion: String
        var identifiers: [String]
    }
}
