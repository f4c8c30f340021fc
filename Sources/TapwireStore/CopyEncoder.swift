import TapwireCore

/// What a commit's events add to the rollups (`RollupDeltas`), in the two layouts the database
/// takes it in: one row per app of rollup_delta_batches (migration 0060), a column per field of a
/// delta, each an array with an element per delta, which a commit appends; and one row per delta
/// of rollup_deltas (migration 0050), which the fold writes its sums to. A row per commit and app
/// instead of one per delta is what makes appending and folding cheap: the database writes, logs
/// and later deletes one tuple, not hundreds. Both layouts come from `values`, so they carry the
/// same fields.
enum RollupDeltaRows {
    /// One field of a delta.
    enum Value {
        case null, int16(Int16), int64(Int64), bool(Bool), timestamp(Timestamp), text(String)
    }

    /// The element types of rollup_delta_batches' 23 array columns, after app_id.
    static let batchColumnTypes: [BinaryArray.ElementType] =
        [.int2, .int2, .timestamptz, .text, .text, .text, .text, .text, .bool, .text, .int2, .int2, .text, .int2]
        + Array(repeating: .int8, count: 7) + [.timestamptz, .timestamptz]

    /// Every delta as its 24 fields, in the column order of rollup_deltas and
    /// sql/queries/copy_rollup_deltas.sql: kind (1 counts, 2 actions, 3 histograms, 4 hourly
    /// usage, 5 daily usage), app_id, grain, bucket, category, app_version, platform, campaign,
    /// variant, has_media, action, metric, bin, type, category_registered, n1…n7, first_seen,
    /// last_seen.
    static func forEachDelta(_ deltas: RollupDeltas, _ body: ([Value]) -> Void) {
        func engagement(_ kind: Int16, _ d: RollupDeltas.Dimensions, hasMedia: Value = .null, action: Value = .null,
                        metric: Value = .null, bin: Value = .null, counters: [Int64]) -> [Value] {
            [.int16(kind), .int64(d.appId), .int16(d.grain), .timestamp(Timestamp(microseconds: d.bucket)), .text(d.category),
             .text(d.appVersion), .text(d.platform), .text(d.campaign), .text(d.variant), hasMedia, action, metric, bin,
             .null, .null] + (0..<7).map { $0 < counters.count ? .int64(counters[$0]) : .null } + [.null, .null]
        }
        for (key, c) in deltas.counts {
            body(engagement(1, key.dimensions, hasMedia: .bool(key.hasMedia),
                            counters: [c.delivered, c.sent, c.mediaRequested, c.opens, c.dismissals, c.actions, c.replies]))
        }
        for (key, n) in deltas.actions {
            body(engagement(2, key.dimensions, action: .text(key.action), counters: [n]))
        }
        for (key, n) in deltas.histograms {
            body(engagement(3, key.dimensions, metric: .int16(Int16(key.metric.rawValue)), bin: .int16(key.bin), counters: [n]))
        }
        for (kind, table) in [(Int16(4), deltas.usageHourly), (5, deltas.usageDaily)] {
            for (key, usage) in table {
                body([.int16(kind), .int64(key.appId), .null, .timestamp(Timestamp(microseconds: key.bucket)), .text(key.category),
                      .text(key.appVersion), .text(key.platform), .null, .null, .null, .text(key.action), .null, .null,
                      .text(key.type.rawValue), .int16(key.categoryRegistered), .int64(usage.count)]
                     + Array(repeating: .null, count: 6) + [.timestamp(usage.firstSeen), .timestamp(usage.lastSeen)])
            }
        }
    }

    /// A commit's deltas, as rows of rollup_delta_batches (one per app, in app order).
    static func encodeBatch(_ deltas: RollupDeltas) -> [UInt8] {
        var apps: [Int64: [BinaryArray]] = [:]
        /// Every field but app_id (values[1]) onto the app's columns.
        func append(_ values: [Value], to columns: inout [BinaryArray]) {
            for (index, value) in values.enumerated() where index != 1 {
                columns[index < 1 ? index : index - 1].value(value)
            }
        }
        forEachDelta(deltas) { values in
            guard case .int64(let appId) = values[1] else { preconditionFailure("a delta's second field is its app_id") }
            // Appended in place, one lookup per delta (not read out, changed and stored back,
            // which would copy every column's bytes once per delta).
            append(values, to: &apps[appId, default: batchColumnTypes.map { BinaryArray($0) }])
        }
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + apps.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.bytes.count + 24 } })
        for appId in apps.keys.sorted() {
            encoder.beginRow(fields: 1 + batchColumnTypes.count)
            encoder.int64(appId)
            for column in apps[appId]! { encoder.array(column) }
        }
        return encoder.finish()
    }

    /// Reads back rows of rollup_delta_batches (as `encodeBatch` wrote them, in the column
    /// order of sql/queries/take_rollup_delta_batches.sql), piece by piece as COPY sends them,
    /// and merges every delta into `sums`: the finest rows of many commits, summed per key.
    struct BatchReader {
        private var decoder = CopyBinaryDecoder()
        private(set) var sums = RollupDeltas()
        /// How many deltas were read.
        private(set) var deltasRead = 0

        mutating func consume(_ data: [UInt8]) throws(DatabaseError) {
            decoder.append(data)
            while let row = try decoder.nextRow() { try merge(row) }
        }

        /// The merged deltas with their coarser grains derived, once the COPY has ended.
        mutating func finish() throws(DatabaseError) -> RollupDeltas {
            guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
            var all = sums
            all.deriveCoarserGrains()
            return all
        }

        private mutating func merge(_ fields: [ArraySlice<UInt8>?]) throws(DatabaseError) {
            guard fields.count == 24 else { throw DatabaseError(.unexpectedResult, "a rollup_delta_batches row of \(fields.count) columns, not 24") }
            guard let appField = fields[0] else { throw DatabaseError(.unexpectedResult, "a rollup_delta_batches row without app_id") }
            let appId = try BinaryValues.int64(appField)
            let kind = try BinaryValues.array(fields[1], of: .int2, BinaryValues.int16)
            let grain = try BinaryValues.array(fields[2], of: .int2, BinaryValues.int16)
            let bucket = try BinaryValues.array(fields[3], of: .timestamptz, BinaryValues.timestamp)
            let category = try BinaryValues.array(fields[4], of: .text, BinaryValues.text)
            let appVersion = try BinaryValues.array(fields[5], of: .text, BinaryValues.text)
            let platform = try BinaryValues.array(fields[6], of: .text, BinaryValues.text)
            let campaign = try BinaryValues.array(fields[7], of: .text, BinaryValues.text)
            let variant = try BinaryValues.array(fields[8], of: .text, BinaryValues.text)
            let hasMedia = try BinaryValues.array(fields[9], of: .bool, BinaryValues.bool)
            let action = try BinaryValues.array(fields[10], of: .text, BinaryValues.text)
            let metric = try BinaryValues.array(fields[11], of: .int2, BinaryValues.int16)
            let bin = try BinaryValues.array(fields[12], of: .int2, BinaryValues.int16)
            let type = try BinaryValues.array(fields[13], of: .text, BinaryValues.text)
            let categoryRegistered = try BinaryValues.array(fields[14], of: .int2, BinaryValues.int16)
            var n: [[Int64?]] = []
            for column in 15..<22 { n.append(try BinaryValues.array(fields[column], of: .int8, BinaryValues.int64)) }
            let firstSeen = try BinaryValues.array(fields[22], of: .timestamptz, BinaryValues.timestamp)
            let lastSeen = try BinaryValues.array(fields[23], of: .timestamptz, BinaryValues.timestamp)
            let lengths: [Int] = [grain.count, bucket.count, category.count, appVersion.count, platform.count, campaign.count,
                                  variant.count, hasMedia.count, action.count, metric.count, bin.count, type.count,
                                  categoryRegistered.count, firstSeen.count, lastSeen.count] + n.map(\.count)
            guard lengths.allSatisfy({ $0 == kind.count }) else {
                throw DatabaseError(.unexpectedResult, "a rollup_delta_batches row whose arrays differ in length")
            }
            func required<T>(_ value: T?, _ column: String) throws(DatabaseError) -> T {
                guard let value else { throw DatabaseError(.unexpectedResult, "a rollup delta without \(column)") }
                return value
            }
            for i in kind.indices {
                // A commit stores the finest rows only (grain 5, hourly usage; grain 0 from a
                // collector of the version before migration 0100): anything else would be
                // counted again when the fold derives the coarser grains.
                guard kind[i] == 4 || grain[i] == RollupDeltas.Grain.quarter || grain[i] == RollupDeltas.Grain.everyDimension else {
                    throw DatabaseError(.unexpectedResult, "a rollup delta of grain \(grain[i].map(String.init) ?? "NULL") in a batch, which holds grains 5 and 0 only")
                }
                let bucketMicroseconds = try required(bucket[i], "bucket").microseconds
                let count = try required(n[0][i], "n1")
                func dimensions() throws(DatabaseError) -> RollupDeltas.Dimensions {
                    RollupDeltas.Dimensions(appId: appId, grain: try required(grain[i], "grain"), bucket: bucketMicroseconds,
                                            category: try required(category[i], "category"),
                                            appVersion: try required(appVersion[i], "app_version"),
                                            platform: try required(platform[i], "platform"),
                                            campaign: try required(campaign[i], "campaign"), variant: try required(variant[i], "variant"))
                }
                switch kind[i] {
                case 1:
                    var c = RollupDeltas.Counts()
                    c.delivered = count
                    c.sent = try required(n[1][i], "n2")
                    c.mediaRequested = try required(n[2][i], "n3")
                    c.opens = try required(n[3][i], "n4")
                    c.dismissals = try required(n[4][i], "n5")
                    c.actions = try required(n[5][i], "n6")
                    c.replies = try required(n[6][i], "n7")
                    sums.merge(RollupDeltas.CountsKey(dimensions: try dimensions(), hasMedia: try required(hasMedia[i], "has_media")), c)
                case 2:
                    sums.merge(RollupDeltas.ActionKey(dimensions: try dimensions(), action: try required(action[i], "action")), count)
                case 3:
                    guard let metric = HistogramMetric(rawValue: Int(try required(metric[i], "metric"))) else {
                        throw DatabaseError(.unexpectedResult, "a histogram delta of an unknown metric")
                    }
                    sums.merge(RollupDeltas.HistogramKey(dimensions: try dimensions(), metric: metric, bin: try required(bin[i], "bin")), count)
                case 4:
                    guard let eventType = EventType(rawValue: try required(type[i], "type")) else {
                        throw DatabaseError(.unexpectedResult, "a usage delta of an unknown event type")
                    }
                    let key = RollupDeltas.UsageKey(appId: appId, bucket: bucketMicroseconds, appVersion: try required(appVersion[i], "app_version"),
                                                    platform: try required(platform[i], "platform"), type: eventType,
                                                    category: try required(category[i], "category"), action: try required(action[i], "action"),
                                                    categoryRegistered: try required(categoryRegistered[i], "category_registered"))
                    let usage = RollupDeltas.Usage(count: count, firstSeen: try required(firstSeen[i], "first_seen"),
                                                   lastSeen: try required(lastSeen[i], "last_seen"))
                    sums.mergeHourlyUsage(key, usage)
                default:
                    throw DatabaseError(.unexpectedResult, "a rollup delta of unknown kind \(kind[i].map(String.init) ?? "NULL")")
                }
                deltasRead += 1
            }
        }
    }

    /// Deltas as one row each, in the layout of rollup_deltas (migration 0050), which
    /// tapwire_fold_rollup_deltas() upserts: what the fold writes once it has summed the batches.
    static func encodeRows(_ deltas: RollupDeltas) -> [UInt8] {
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + deltas.rowCount * 200)
        forEachDelta(deltas) { values in
            encoder.beginRow(fields: values.count)
            for value in values { encoder.value(value) }
        }
        return encoder.finish()
    }
}
