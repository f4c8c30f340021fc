import TapwireCore

/// Reads the rows of sql/queries/rollups_rebuild_events.sql, piece by piece as COPY sends them,
/// into `RollupDeltas`: the rebuild's and the report's edge minutes' side of the one definition
/// of every aggregate.
struct EventRowReader {
    private var decoder = CopyBinaryDecoder()
    private var deltas = RollupDeltas()
    private(set) var eventsRead = 0

    mutating func consume(_ data: [UInt8]) throws(DatabaseError) {
        decoder.append(data)
        while let fields = try decoder.nextRow() {
            guard fields.count == 15 else { throw DatabaseError(.unexpectedResult, "a rebuild event row of \(fields.count) columns, not 15") }
            func required(_ index: Int) throws(DatabaseError) -> ArraySlice<UInt8> {
                guard let field = fields[index] else { throw DatabaseError(.unexpectedResult, "a rebuild event row with column \(index + 1) NULL") }
                return field
            }
            func optional<T>(_ index: Int, _ decode: (ArraySlice<UInt8>) throws(DatabaseError) -> T) throws(DatabaseError) -> T? {
                guard let field = fields[index] else { return nil }
                return try decode(field)
            }
            guard let type = EventType(rawValue: BinaryValues.text(try required(2))) else {
                throw DatabaseError(.unexpectedResult, "a rebuild event of an unknown type")
            }
            let time = try BinaryValues.timestamp(try required(1))
            // Only what the rollups read: the id and the device's own time play no part.
            let event = Event(eventId: EventID(high: 0, low: 0), type: type, deviceTime: time, eventTime: time,
                              category: BinaryValues.text(try required(3)), actionIdentifier: try optional(4, BinaryValues.text),
                              userTextLength: try optional(5, BinaryValues.int32), hasMedia: try BinaryValues.bool(try required(6)),
                              mediaRequested: try optional(7, BinaryValues.bool), categoryRegistered: try optional(8, BinaryValues.bool),
                              campaign: try optional(9, BinaryValues.text), variant: try optional(10, BinaryValues.text),
                              deliveredAt: try optional(11, BinaryValues.timestamp))
            let context = DeviceContext(appVersion: BinaryValues.text(try required(12)), platform: BinaryValues.text(try required(13)),
                                        osVersion: try optional(14, BinaryValues.text))
            deltas.add(event, appId: try BinaryValues.int64(try required(0)), context: context)
            eventsRead += 1
        }
    }

    /// Every table's rows of the events read, once the COPY has ended (`RollupDeltas.derive`).
    mutating func finish(blocksOfDays: Bool) throws(DatabaseError) -> RollupRows {
        guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
        deltas.finishFinest()
        return deltas.derive(blocksOfDays: blocksOfDays)
    }

    /// The finest rows only (quarter hours, by every dimension), once the COPY has ended.
    mutating func finishFinest() throws(DatabaseError) -> RollupDeltas {
        guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
        deltas.finishFinest()
        return deltas
    }
}
