import TapwireCore

/// Reads the rows of sql/queries/rollups_rebuild_events.sql, piece by piece as COPY sends them,
/// into `RollupDeltas`: the rebuild's and the report's edge minutes' side of the one definition
/// of every aggregate. The rebuild keys the rows by the texts' ids (`TextId`), the report's edge
/// minutes by the texts (`String`), which it merges into the rollups' rows.
struct EventRowReader<Text: RollupText> {
    private var decoder = CopyBinaryDecoder()
    private var deltas = RollupTally<Text>()
    /// Per text id of the deltas, the event type it names, once it has been read as one.
    private var types: [EventType?] = []
    private(set) var eventsRead = 0

    /// `shapes`: room for this many event shapes (`RollupDeltas.reserveShapes`).
    init(shapes: Int = 0) {
        if shapes > 0 { deltas.reserveShapes(shapes) }
    }

    /// The distinct event shapes read so far: the next day's `shapes`.
    var shapeCount: Int { deltas.shapeCount }

    /// The texts the ids of `finish`'s rows name (empty for Strings).
    var texts: TextIds { deltas.texts }

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
    private static func add(_ row: CopyBinaryDecoder.Row, to deltas: inout RollupTally<Text>, types: inout [EventType?]) throws(DatabaseError) {
        func required<T>(_ value: T?, _ index: Int) throws(DatabaseError) -> T {
            guard let value else { throw DatabaseError(.unexpectedResult, "a rebuild event row with column \(index + 1) NULL") }
            return value
        }
        func requiredText(_ index: Int) throws(DatabaseError) -> Int32 { try required(row.textId(index, in: &deltas), index) }
        let typeId = Int(try requiredText(2))
        if typeId >= types.count { types.append(contentsOf: repeatElement(nil, count: typeId + 1 - types.count)) }
        if types[typeId] == nil { types[typeId] = EventType(rawValue: deltas.texts.strings[typeId]) }
        guard let type = types[typeId] else { throw DatabaseError(.unexpectedResult, "a rebuild event of an unknown type") }
        let time = try required(row.timestamp(1), 1)
        // Only what the rollups read: the id and the device's own time play no part.
        let event = RollupTally<Text>.EventFields(
            appId: try required(row.int64(0), 0), type: type, eventTime: time, category: try requiredText(3),
            action: row.textId(4, in: &deltas) ?? -1, userTextLength: try row.int32(5),
            hasMedia: try required(row.bool(6), 6), mediaRequested: try row.bool(7),
            categoryRegistered: try row.bool(8), campaign: row.textIdOrEmpty(9, in: &deltas),
            variant: row.textIdOrEmpty(10, in: &deltas),
            deliveredAt: try row.timestamp(11), appVersion: try requiredText(12),
            platform: try requiredText(13), osVersion: row.textId(14, in: &deltas) ?? -1)
        deltas.add(event)
    }

    /// Every table's rows of the events read, once the COPY has ended (`RollupDeltas.derive`).
    mutating func finish(blocksOfDays: Bool) throws(DatabaseError) -> RollupTables<Text> {
        guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
        deltas.finishFinest()
        return deltas.derive(blocksOfDays: blocksOfDays)
    }

    /// The finest rows only (quarter hours, by every dimension), once the COPY has ended.
    mutating func finishFinest() throws(DatabaseError) -> RollupTally<Text> {
        guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
        deltas.finishFinest()
        return deltas
    }
}
