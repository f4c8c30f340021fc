import TapwireCore

/// Reads the rows of sql/queries/rollups_rebuild_events.sql, piece by piece as COPY sends them,
/// into `RollupDeltas`: the rebuild's and the report's edge minutes' side of the one definition
/// of every aggregate.
struct EventRowReader {
    private var decoder = CopyBinaryDecoder()
    private var deltas = RollupDeltas()
    /// Per text id of the deltas, the event type it names, once it has been read as one.
    private var types: [EventType?] = []
    private(set) var eventsRead = 0

    /// `shapes`: room for this many event shapes (`RollupDeltas.reserveShapes`).
    init(shapes: Int = 0) {
        if shapes > 0 { deltas.reserveShapes(shapes) }
    }

    /// The distinct event shapes read so far: the next day's `shapes`.
    var shapeCount: Int { deltas.shapeCount }

    mutating func consume(_ data: [UInt8]) throws(DatabaseError) {
        decoder.append(data)
        while let count = try decoder.advance() {
            guard count == 15 else { throw DatabaseError(.unexpectedResult, "a rebuild event row of \(count) columns, not 15") }
            try decoder.withRow { (row) throws(DatabaseError) in try Self.add(row, to: &deltas, types: &types) }
            eventsRead += 1
        }
    }

    /// One row's event into the tally, its texts numbered from their bytes (`TextIds`): no
    /// String or `Event` per row (docs/benchmarks.md, "The day's texts as ids").
    private static func add(_ row: CopyBinaryDecoder.Row, to deltas: inout RollupDeltas, types: inout [EventType?]) throws(DatabaseError) {
        func required(_ index: Int) throws(DatabaseError) -> UnsafeRawBufferPointer {
            guard let field = row.field(index) else { throw DatabaseError(.unexpectedResult, "a rebuild event row with column \(index + 1) NULL") }
            return field
        }
        func optional<T>(_ index: Int, _ decode: (UnsafeRawBufferPointer) throws(DatabaseError) -> T) throws(DatabaseError) -> T? {
            guard let field = row.field(index) else { return nil }
            return try decode(field)
        }
        let typeId = Int(deltas.textId(try required(2)))
        if typeId >= types.count { types.append(contentsOf: repeatElement(nil, count: typeId + 1 - types.count)) }
        if types[typeId] == nil { types[typeId] = EventType(rawValue: deltas.texts.strings[typeId]) }
        guard let type = types[typeId] else { throw DatabaseError(.unexpectedResult, "a rebuild event of an unknown type") }
        let time = try BinaryValues.timestamp(try required(1))
        // Only what the rollups read: the id and the device's own time play no part.
        let event = RollupDeltas.EventFields(
            appId: try BinaryValues.int64(try required(0)), type: type, eventTime: time, category: deltas.textId(try required(3)),
            action: row.field(4).map { deltas.textId($0) } ?? -1, userTextLength: try optional(5, BinaryValues.int32),
            hasMedia: try BinaryValues.bool(try required(6)), mediaRequested: try optional(7, BinaryValues.bool),
            categoryRegistered: try optional(8, BinaryValues.bool), campaign: deltas.textId(row.field(9) ?? UnsafeRawBufferPointer(start: nil, count: 0)),
            variant: deltas.textId(row.field(10) ?? UnsafeRawBufferPointer(start: nil, count: 0)),
            deliveredAt: try optional(11, BinaryValues.timestamp), appVersion: deltas.textId(try required(12)),
            platform: deltas.textId(try required(13)), osVersion: row.field(14).map { deltas.textId($0) } ?? -1)
        deltas.add(event)
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
