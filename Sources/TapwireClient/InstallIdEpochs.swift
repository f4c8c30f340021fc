import Foundation

/// Which install id each queued event is sent with.
///
/// The batch context carries one `deviceId`, chosen when the batch is sent; the install id can
/// change before then (`resetInstallId()`, an opt-out, another override). An event is always sent
/// with the id it was recorded under, so what came before a reset stays under the id the user
/// may ask to forget, and nothing recorded without an id (opted out) is ever sent with one. Each
/// change closes an epoch at the newest queued event; a batch never crosses an epoch's end.
///
/// Pure: the client gives it the queue's newest event id and positions, and persists `persisted`
/// (`install-id-epochs.json` in the queue directory) whenever a call says it changed.
struct InstallIdEpochs: Sendable, Equatable {
    /// An id that events up to and including `through` (in queue order) were recorded under.
    struct Epoch: Sendable, Equatable {
        var deviceId: String?
        var through: TelemetryEventID
    }

    /// Sent with the events recorded now; nil: no install id (opted out).
    private(set) var current: String?
    /// Oldest first.
    private(set) var earlier: [Epoch] = []

    init(current: String?) { self.current = current }

    /// Makes `id` the current one; the events queued so far (`newestQueued` the last of them)
    /// keep the id they were recorded under. True when anything changed.
    mutating func switchTo(_ id: String?, newestQueued: TelemetryEventID?) -> Bool {
        guard id != current else { return false }
        // An epoch with no events of its own (two switches with nothing recorded between) ends
        // where the previous one did: nothing is sent under it.
        if let newestQueued, earlier.last?.through != newestQueued {
            earlier.append(Epoch(deviceId: current, through: newestQueued))
        }
        current = id
        return true
    }

    /// The id of the batch that starts at the queue's oldest event, and how many events it may
    /// hold at most (nil: no limit). `position` says where a queued event is (0: the oldest), nil
    /// when it left the queue; epochs whose events all left are forgotten (`changed`).
    mutating func batchScope(position: (TelemetryEventID) -> Int?) -> (deviceId: String?, maxEvents: Int?, changed: Bool) {
        var changed = false
        while let first = earlier.first {
            // Events leave the queue oldest first: once an epoch's last event has gone, all its events have.
            if let p = position(first.through) { return (first.deviceId, p + 1, changed) }
            earlier.removeFirst()
            changed = true
        }
        return (current, nil, changed)
    }

    /// `{"current":"…","earlier":[{"deviceId":"…","through":"<event id>"}]}`, absent ids left out.
    var persisted: [UInt8] {
        var members: [(String, JSONValue)] = []
        if let current { members.append(("current", .string(current))) }
        members.append(("earlier", .array(earlier.map { epoch in
            var fields: [(String, JSONValue)] = []
            if let id = epoch.deviceId { fields.append(("deviceId", .string(id))) }
            fields.append(("through", .string(epoch.through.description)))
            return .object(fields)
        })))
        return JSONValue.object(members).serializedBytes()
    }

    /// Reads what `persisted` wrote; nil for bytes that are not that (damaged, or another format).
    init?(persisted bytes: [UInt8]) {
        guard let stored = try? JSONDecoder().decode(Persisted.self, from: Data(bytes)) else { return nil }
        var epochs: [Epoch] = []
        for item in stored.earlier {
            guard let through = TelemetryEventID(item.through) else { return nil }
            epochs.append(Epoch(deviceId: item.deviceId, through: through))
        }
        current = stored.current
        earlier = epochs
    }

    private struct Persisted: Decodable {
        struct Item: Decodable {
            var deviceId: String?
            var through: String
        }
        var current: String?
        var earlier: [Item]
    }

    static let fileName = "install-id-epochs.json"
}
