import TapwireCore

/// Builds PostgreSQL's binary COPY format ("PGCOPY\n\377\r\n\0", then tuples of
/// length-prefixed fields). Binary means no escaping at all: a tab, a backslash or a `\.` line
/// in a category travels as its bytes, and the server does no text parsing.
struct CopyBinaryEncoder {
    private(set) var bytes: [UInt8]
    private static let postgresEpochOffset: Int64 = 946_684_800_000_000 // µs from 1970 to 2000

    init(reservingCapacity capacity: Int = 1 << 16) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]) // PGCOPY\n\377\r\n\0
        append32(0) // flags
        append32(0) // header extension length
    }

    mutating func finish() -> [UInt8] {
        append16(0xFFFF) // trailer: field count -1
        return bytes
    }

    mutating func beginRow(fields: Int) { append16(UInt16(fields)) }

    mutating func null() { append32(0xFFFF_FFFF) }

    mutating func int16(_ value: Int16) {
        append32(2)
        append16(UInt16(bitPattern: value))
    }

    mutating func int32(_ value: Int32) {
        append32(4)
        append32(UInt32(bitPattern: value))
    }

    mutating func int64(_ value: Int64) {
        append32(8)
        append64(UInt64(bitPattern: value))
    }

    mutating func bool(_ value: Bool) {
        append32(1)
        bytes.append(value ? 1 : 0)
    }

    mutating func timestamp(_ value: Timestamp) {
        append32(8)
        append64(UInt64(bitPattern: value.microseconds &- Self.postgresEpochOffset))
    }

    mutating func uuid(_ value: EventID) {
        append32(16)
        append64(value.high)
        append64(value.low)
    }

    /// text, varchar and enum labels all travel as their UTF-8 bytes.
    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            append32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optionalText(_ value: String?) { if let value { text(value) } else { null() } }
    mutating func optionalBool(_ value: Bool?) { if let value { bool(value) } else { null() } }
    mutating func optionalTimestamp(_ value: Timestamp?) { if let value { timestamp(value) } else { null() } }
    mutating func optionalInt32(_ value: Int32?) { if let value { int32(value) } else { null() } }

    private mutating func append16(_ v: UInt16) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func append32(_ v: UInt32) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func append64(_ v: UInt64) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

/// The events of one request, ready to be staged: the app they belong to (from the key, never
/// from the body) and the device context they share.
public struct StagedBatch: Sendable {
    public var appId: Int64
    public var receivedAt: Timestamp
    public var context: DeviceContext
    public var events: [Event]

    public init(appId: Int64, receivedAt: Timestamp, context: DeviceContext, events: [Event]) {
        self.appId = appId
        self.receivedAt = receivedAt
        self.context = context
        self.events = events
    }
}

package enum EventCopyRows {
    /// Encodes rows in the column order of `sql/queries/copy_events.sql` (straight into events).
    /// `order`: the rows to encode (their seq: position across the batches), in that order
    /// (nil: every row, in order).
    package static func encode(_ batches: [StagedBatch], order: [Int]? = nil) -> [UInt8] {
        var locations: [(batch: Int, index: Int)] = []
        locations.reserveCapacity(batches.reduce(0) { $0 + $1.events.count })
        for (b, batch) in batches.enumerated() {
            for i in batch.events.indices { locations.append((b, i)) }
        }
        let seqs = order ?? Array(locations.indices)
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + seqs.count * 260)
        for seq in seqs {
            let (b, i) = locations[seq]
            let batch = batches[b]
            let event = batch.events[i]
            let context = batch.context
            encoder.beginRow(fields: 24)
            encoder.int64(batch.appId)
            encoder.timestamp(event.eventTime)
            encoder.uuid(event.eventId)
            encoder.text(event.type.rawValue)
            encoder.timestamp(event.deviceTime)
            encoder.timestamp(batch.receivedAt)
            encoder.bool(event.timeClamped)
            encoder.optionalText(event.notificationId)
            encoder.text(event.category)
            encoder.optionalText(event.actionIdentifier)
            encoder.optionalInt32(event.userTextLength)
            encoder.bool(event.hasMedia)
            encoder.int16(event.mediaTypes.rawValue)
            encoder.optionalBool(event.mediaRequested)
            encoder.optionalBool(event.categoryRegistered)
            encoder.optionalText(event.campaign)
            encoder.optionalText(event.variant)
            encoder.optionalTimestamp(event.deliveredAt)
            encoder.text(context.appVersion)
            encoder.optionalText(context.build)
            encoder.text(context.platform)
            encoder.optionalText(context.osVersion)
            encoder.optionalText(context.sdk)
            encoder.optionalText(context.deviceId)
        }
        return encoder.finish()
    }
}

extension EventCopyRows {
    /// The ids of the plan's rows, in its (key) order: `(app_id, event_id, received_at)` for
    /// sql/queries/copy_event_ids.sql, with `seq` first for sql/queries/copy_staged_ids.sql.
    static func encodeIds(_ batches: [StagedBatch], plan: EventWriter.StagingPlan, withSeq: Bool) -> [UInt8] {
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + plan.order.count * 52)
        for seq in plan.order {
            let (b, i) = plan.locations[seq]
            encoder.beginRow(fields: withSeq ? 4 : 3)
            if withSeq { encoder.int32(Int32(seq)) }
            encoder.int64(batches[b].appId)
            encoder.uuid(batches[b].events[i].eventId)
            encoder.timestamp(batches[b].receivedAt)
        }
        return encoder.finish()
    }
}

/// The rows of `RollupDeltas`, in the layout of rollup_deltas (migration 0050).
enum RollupDeltaRows {
    static func encode(_ deltas: RollupDeltas) -> [UInt8] {
        let rows = deltas.counts.count + deltas.actions.count + deltas.histograms.count + deltas.usageHourly.count + deltas.usageDaily.count
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + rows * 200)
        func dimensions(_ kind: Int16, _ d: RollupDeltas.Dimensions) {
            encoder.beginRow(fields: 24)
            encoder.int16(kind)
            encoder.int64(d.appId)
            encoder.int16(d.grain)
            encoder.timestamp(Timestamp(microseconds: d.bucket))
            encoder.text(d.category)
            encoder.text(d.appVersion)
            encoder.text(d.platform)
            encoder.text(d.campaign)
            encoder.text(d.variant)
        }
        func nulls(_ n: Int) { for _ in 0..<n { encoder.null() } }
        for (key, c) in deltas.counts {
            dimensions(1, key.dimensions)
            encoder.bool(key.hasMedia)
            nulls(4) // action, metric, bin, type
            encoder.null() // category_registered
            for n in [c.delivered, c.sent, c.mediaRequested, c.opens, c.dismissals, c.actions, c.replies] { encoder.int64(n) }
            nulls(2)
        }
        for (key, n) in deltas.actions {
            dimensions(2, key.dimensions)
            encoder.null()
            encoder.text(key.action)
            nulls(4)
            encoder.int64(n)
            nulls(8)
        }
        for (key, n) in deltas.histograms {
            dimensions(3, key.dimensions)
            nulls(2)
            encoder.int16(Int16(key.metric.rawValue))
            encoder.int16(key.bin)
            nulls(2)
            encoder.int64(n)
            nulls(8)
        }
        for (kind, table) in [(Int16(4), deltas.usageHourly), (5, deltas.usageDaily)] {
            for (key, usage) in table {
                encoder.beginRow(fields: 24)
                encoder.int16(kind)
                encoder.int64(key.appId)
                encoder.null() // grain
                encoder.timestamp(Timestamp(microseconds: key.bucket))
                encoder.text(key.category)
                encoder.text(key.appVersion)
                encoder.text(key.platform)
                nulls(3) // campaign, variant, has_media
                encoder.text(key.action)
                nulls(2) // metric, bin
                encoder.text(key.type.rawValue)
                encoder.int16(key.categoryRegistered)
                encoder.int64(usage.count)
                nulls(6)
                encoder.timestamp(usage.firstSeen)
                encoder.timestamp(usage.lastSeen)
            }
        }
        return encoder.finish()
    }
}

/// Loading events with a plain COPY, no dedup and no rollups: a fast way to seed large volumes
/// for the report benchmarks and the tests.
public enum BulkLoad {
    /// COPYs the events into `events` in one transaction and returns the row count.
    @discardableResult
    public static func copyEvents(_ batches: [StagedBatch], on connection: PostgresConnection,
                                  partitions: PartitionDays = PartitionDays()) throws(DatabaseError) -> Int {
        let writer = EventWriter(connection: connection, partitions: partitions)
        try writer.ensurePartitions(for: batches)
        return try connection.transaction { () throws(DatabaseError) -> Int in
            try connection.copyIn(EmbeddedSQL.copyEvents, data: EventCopyRows.encode(batches))
        }
    }
}
