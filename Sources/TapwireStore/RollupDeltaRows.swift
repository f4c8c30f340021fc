import TapwireCore

/// The rollups' rows in the two layouts the database takes them in. A commit's finest rows
/// (`RollupDeltas`) go to rollup_delta_batches (migration 0060), one row per app, a column per
/// field of a delta, each an array with an element per delta: a row per commit and app instead of
/// one per delta is what makes appending and folding cheap (the database writes, logs and later
/// deletes one tuple, not hundreds). What the fold derives from them (`RollupRows`) goes to
/// rollup_fold_rows (the layout of rollup_deltas, migrations 0050, 0150; unlogged since 0320), a
/// row per key, which tapwire_fold_rollups() upserts.
enum RollupDeltaRows {
    /// One field of a delta.
    enum Value {
        case null, int16(Int16), int64(Int64), bool(Bool), timestamp(Timestamp), text(String)
        /// A text as its UTF-8 bytes, as `TextIds` stores them: the rebuild's rows, keyed by ids.
        case utf8(ArraySlice<UInt8>)
        case int64Array([Int64]), int16Array([Int16])
    }

    /// The element types of rollup_delta_batches' 24 array columns, after app_id.
    static let batchColumnTypes: [BinaryArray.ElementType] =
        [.int2, .int2, .timestamptz, .text, .text, .text, .text, .text, .bool, .text, .int2, .int2, .text, .int2]
        + Array(repeating: .int8, count: 7) + [.timestamptz, .timestamptz, .text]

    /// Every finest row as its 25 fields, in the column order of sql/queries/copy_rollup_delta_batch.sql:
    /// kind (1 counts, 2 actions, 3 histograms, 4 hourly usage), app_id, grain, bucket, category,
    /// app_version, platform, campaign, variant, has_media, action, metric, bin, type,
    /// category_registered, n1…n7, first_seen, last_seen, os.
    /// `text` makes a key's text a field: the text itself, or the bytes of its id.
    static func forEachDelta<Text>(_ deltas: RollupTally<Text>, text: (Text) -> Value, _ body: ([Value]) -> Void) {
        func engagement(_ kind: Int16, _ d: RollupTally<Text>.Dimensions, hasMedia: Value = .null, action: Value = .null,
                        metric: Value = .null, bin: Value = .null, counters: [Int64]) -> [Value] {
            [.int16(kind), .int64(d.appId), .int16(d.grain), .timestamp(Timestamp(microseconds: d.bucket)), text(d.category),
             text(d.appVersion), text(d.platform), text(d.campaign), text(d.variant), hasMedia, action, metric, bin,
             .null, .null] + (0..<7).map { $0 < counters.count ? .int64(counters[$0]) : .null } + [.null, .null, text(d.os ?? .empty)]
        }
        for (key, c) in deltas.counts {
            body(engagement(1, key.dimensions, hasMedia: .bool(key.hasMedia),
                            counters: [c.delivered, c.sent, c.mediaRequested, c.opens, c.dismissals, c.actions, c.replies]))
        }
        for (key, n) in deltas.actions {
            body(engagement(2, key.dimensions, action: text(key.action), counters: [n]))
        }
        for (key, n) in deltas.histograms {
            body(engagement(3, key.dimensions, metric: .int16(Int16(key.metric.rawValue)), bin: .int16(key.bin), counters: [n]))
        }
        for (key, usage) in deltas.usageHourly {
            body(usageRow(4, key, usage, text: text) + [.text("")])
        }
    }

    /// A usage row's first 24 fields (the columns of rollup_deltas before dimension and value).
    private static func usageRow<Text>(_ kind: Int16, _ key: RollupTally<Text>.UsageKey, _ usage: RollupUsage, text: (Text) -> Value) -> [Value] {
        [.int16(kind), .int64(key.appId), .null, .timestamp(Timestamp(microseconds: key.bucket)), text(key.category),
         text(key.appVersion), text(key.platform), .null, .null, .null, text(key.action), .null, .null,
         .text(key.type.rawValue), .int16(key.categoryRegistered), .int64(usage.count)]
            + Array(repeating: .null, count: 6) + [.timestamp(usage.firstSeen), .timestamp(usage.lastSeen)]
    }

    /// Every table row as its 32 fields, in the column order of rollup_deltas and
    /// sql/queries/copy_rollup_fold_rows.sql (the kinds are those of tapwire_fold_rollups(),
    /// migration 0150): kind, app_id, grain, bucket, category, app_version, platform, campaign,
    /// variant, has_media, action, metric, bin, type, category_registered, n1…n7, first_seen,
    /// last_seen, dimension, value, first_slot, a1…a4, bins. A row per key of its table, ready to
    /// upsert: the arrays (a day's running sums or hours, a histogram's bins) are made here, not
    /// in SQL, and a day's arrays travel trimmed (`trimmedRunning`, `trimmedHours`).
    /// `text` makes a key's text a field: the text itself, or the bytes of its id.
    static func forEachRow<Text>(_ rows: RollupTables<Text>, text: (Text) -> Value, _ body: ([Value]) -> Void) {
        func row(_ kind: Int16, _ appId: Int64, grain: Int16? = nil, bucket: Int64, category: Text, appVersion: Text = .empty,
                 platform: Text = .empty, campaign: Value = .null, hasMedia: Value = .null, action: Value = .null,
                 metric: Value = .null, counters: [Int64] = [0], dimension: Value = .null, value: Value = .null,
                 slots: (lead: Int16, bodies: [[Int64]])? = nil, arrays: [[Int64]] = [], bins: Value = .null) -> [Value] {
            let arrays = slots?.bodies ?? arrays
            // One array of 32, appended to in place: concatenating the row's parts made five
            // arrays a row (docs/benchmarks.md, "The day's rows from day keys").
            var values: [Value] = []
            values.reserveCapacity(32)
            values.append(.int16(kind))
            values.append(.int64(appId))
            values.append(grain.map { .int16($0) } ?? .null)
            values.append(.timestamp(Timestamp(microseconds: bucket)))
            values.append(text(category))
            values.append(text(appVersion))
            values.append(text(platform))
            values.append(campaign)
            values.append(.null)
            values.append(hasMedia)
            values.append(action)
            values.append(metric)
            values.append(.null)
            values.append(.null)
            values.append(.null)
            for index in 0..<7 { values.append(index < counters.count ? .int64(counters[index]) : .null) }
            values.append(.null)
            values.append(.null)
            values.append(dimension)
            values.append(value)
            values.append(slots.map { .int16($0.lead) } ?? .null)
            for index in 0..<4 { values.append(index < arrays.count ? .int64Array(arrays[index]) : .null) }
            values.append(bins)
            return values
        }
        for (k, c) in rows.totals {
            body(row(11, k.appId, grain: k.grain, bucket: k.bucket, category: k.category, hasMedia: .bool(k.hasMedia),
                     counters: [c.delivered, c.sent, c.mediaRequested, c.opens, c.dismissals, c.actions, c.replies]))
        }
        for (k, n) in rows.totalActions {
            body(row(12, k.appId, grain: k.grain, bucket: k.bucket, category: k.category, action: text(k.action), counters: [n]))
        }
        for (k, b) in rows.histogramBins {
            body(row(13, k.appId, grain: k.grain, bucket: k.bucket, category: k.category, metric: .int16(Int16(k.metric.rawValue)),
                     arrays: [b.counts], bins: .int16Array(b.bins)))
        }
        for (k, r) in rows.trendDays {
            body(row(14, k.appId, bucket: k.day, category: k.category, slots: trimmedRunning([r.first, r.second])))
        }
        for (k, p) in rows.dismissBase {
            body(row(15, k.appId, grain: k.grain, bucket: k.bucket, category: k.category, appVersion: k.appVersion, counters: [p.first, p.second]))
        }
        for (k, r) in rows.dismissQuarterDays {
            body(row(20, k.appId, bucket: k.day, category: k.category, appVersion: k.appVersion,
                     slots: trimmedRunning([r.first, r.second])))
        }
        for (k, c) in rows.strataDays {
            body(row(16, k.appId, bucket: k.day, category: k.category, platform: k.platform, campaign: text(k.campaign),
                     counters: [c.rich.first, c.rich.second, c.text.first, c.text.second]))
        }
        for (k, c) in rows.marginals {
            body(row(17, k.appId, bucket: k.day, category: k.category, hasMedia: .bool(k.hasMedia),
                     counters: [c.delivered, c.sent, c.opens, c.actions], dimension: .text(k.dimension.rawValue), value: text(k.value)))
        }
        for (k, h) in rows.releaseDays {
            body(row(18, k.appId, bucket: k.day, category: k.category, appVersion: k.appVersion, platform: k.platform,
                     slots: trimmedHours([h.delivered, h.opens, h.dismissals, h.replies])))
        }
        for (k, hours) in rows.releaseActionDays {
            let r = k.release
            body(row(19, r.appId, bucket: r.day, category: r.category, appVersion: r.appVersion, platform: r.platform,
                     action: text(k.action), slots: trimmedHours([hours])))
        }
        for (kind, table) in [(Int16(4), rows.usageHourly), (5, rows.usageDaily)] {
            for (key, usage) in table { body(usageRow(kind, key, usage, text: text) + Array(repeating: .null, count: 8)) }
        }
    }

    /// A day's running sums (97 each, equal lengths) as sent: from the first element where one
    /// is not 0 to the last before every one stays at its day's total, at least one element.
    /// tapwire_running_slots (migration 0150) puts the zeros and the totals back.
    static func trimmedRunning(_ arrays: [[Int64]]) -> (lead: Int16, bodies: [[Int64]]) {
        let last = arrays[0].count - 1
        var lead = 0
        while lead < last, arrays.allSatisfy({ $0[lead] == 0 }) { lead += 1 }
        var end = last
        while end > lead, arrays.allSatisfy({ $0[end - 1] == $0[last] }) { end -= 1 }
        return (Int16(lead), arrays.map { Array($0[lead...end]) })
    }

    /// A day's hour counts (24 each) as sent: from the first hour where one is not 0 to the last
    /// such hour, at least one element. tapwire_hour_slots (migration 0150) puts the zeros back.
    static func trimmedHours(_ arrays: [[Int64]]) -> (lead: Int16, bodies: [[Int64]]) {
        let last = arrays[0].count - 1
        var lead = 0
        while lead < last, arrays.allSatisfy({ $0[lead] == 0 }) { lead += 1 }
        var end = last
        while end > lead, arrays.allSatisfy({ $0[end] == 0 }) { end -= 1 }
        return (Int16(lead), arrays.map { Array($0[lead...end]) })
    }

    /// A commit's deltas, as rows of rollup_delta_batches (one per app, in app order).
    static func encodeBatch(_ deltas: RollupDeltas) -> [UInt8] {
        encodeBatch(deltas, text: Value.text)
    }

    /// The same of deltas keyed by the ids of their `texts`: each text's bytes copied from
    /// there, no String made (a commit's rows, docs/benchmarks.md, "The fold keyed by text ids").
    static func encodeBatch(_ deltas: RollupTally<TextId>) -> [UInt8] {
        let texts = deltas.texts
        return encodeBatch(deltas) { .utf8(texts.utf8($0.id)) }
    }

    private static func encodeBatch<Text>(_ deltas: RollupTally<Text>, text: (Text) -> Value) -> [UInt8] {
        var apps: [Int64: [BinaryArray]] = [:]
        /// Every field but app_id (values[1]) onto the app's columns.
        func append(_ values: [Value], to columns: inout [BinaryArray]) {
            for (index, value) in values.enumerated() where index != 1 {
                columns[index < 1 ? index : index - 1].value(value)
            }
        }
        forEachDelta(deltas, text: text) { values in
            guard case .int64(let appId) = values[1] else { preconditionFailure("a delta's second field is its app_id") }
            // Appended in place, one lookup per delta (not read out, changed and stored back,
            // which would copy every column's bytes once per delta).
            append(values, to: &apps[appId, default: batchColumnTypes.map { BinaryArray($0) }])
        }
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + apps.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.bytes.count + 24 } })
        for appId in apps.keys.sorted() {
            encoder.beginRow(fields: 3 + batchColumnTypes.count)
            encoder.int64(appId)
            for column in apps[appId]! { encoder.array(column) }
            // attribution_queued: this commit queues its attribution (migration 0161).
            encoder.bool(true)
            // holdouts_queued: and its holdouts (migration 0201).
            encoder.bool(true)
        }
        return encoder.finish()
    }

    /// The reader of commits' rows whose keys hold Strings: a report's pending quarter hours.
    typealias BatchReader = DeltaBatchReader<String>

    /// Reads back rows of rollup_delta_batches (as `encodeBatch` wrote them, in the column
    /// order of sql/queries/take_rollup_delta_batches.sql), piece by piece as COPY sends them,
    /// and merges every delta into `sums`: the finest rows of many commits, summed per key. The
    /// fold keys them by the texts' ids (`TextId`, each text's bytes numbered once in `texts`),
    /// so that summing, deriving and encoding hash a word per text, not its bytes
    /// (docs/benchmarks.md, "The fold keyed by text ids"); a report's reader by Strings.
    struct DeltaBatchReader<Text: RollupText> {
        private var decoder = CopyBinaryDecoder()
        private(set) var sums = RollupTally<Text>()
        /// How many deltas were read.
        private(set) var deltasRead = 0

        /// The texts the ids of `sums` and `finish`'s rows name (empty for Strings).
        var texts: TextIds { sums.texts }

        mutating func consume(_ data: [UInt8]) throws(DatabaseError) {
            decoder.append(data)
            while let row = try decoder.nextRow() { try merge(row) }
        }

        /// Every table's rows from the merged deltas, once the COPY has ended.
        func finish() throws(DatabaseError) -> RollupTables<Text> {
            try finishFinest().derive()
        }

        /// The merged finest rows, once the COPY has ended (what a report adds of a quarter hour).
        func finishFinest() throws(DatabaseError) -> RollupTally<Text> {
            guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
            return sums
        }

        /// A text[] column's elements as the keys' texts.
        private mutating func textColumn(_ field: ArraySlice<UInt8>?) throws(DatabaseError) -> [Text?] {
            try BinaryValues.array(field, of: .text) { sums.text($0.span.bytes) }
        }

        private mutating func merge(_ fields: [ArraySlice<UInt8>?]) throws(DatabaseError) {
            // 26 as the fold takes them (the 26th, attribution_queued, says only that the commit
            // queued its attribution); a commit's own rows (encodeBatch) end with both its queued
            // flags (migrations 0161 and 0201), which say nothing of the deltas.
            guard fields.count == 26 || fields.count == 27 else {
                throw DatabaseError(.unexpectedResult, "a rollup_delta_batches row of \(fields.count) columns, not 26")
            }
            guard let appField = fields[0] else { throw DatabaseError(.unexpectedResult, "a rollup_delta_batches row without app_id") }
            let appId = try BinaryValues.int64(appField)
            let kind = try BinaryValues.array(fields[1], of: .int2, BinaryValues.int16)
            let grain = try BinaryValues.array(fields[2], of: .int2, BinaryValues.int16)
            let bucket = try BinaryValues.array(fields[3], of: .timestamptz, BinaryValues.timestamp)
            let category = try textColumn(fields[4])
            let appVersion = try textColumn(fields[5])
            let platform = try textColumn(fields[6])
            let campaign = try textColumn(fields[7])
            let variant = try textColumn(fields[8])
            let hasMedia = try BinaryValues.array(fields[9], of: .bool, BinaryValues.bool)
            let action = try textColumn(fields[10])
            let metric = try BinaryValues.array(fields[11], of: .int2, BinaryValues.int16)
            let bin = try BinaryValues.array(fields[12], of: .int2, BinaryValues.int16)
            let type = try BinaryValues.array(fields[13], of: .text, BinaryValues.text)
            let categoryRegistered = try BinaryValues.array(fields[14], of: .int2, BinaryValues.int16)
            var n: [[Int64?]] = []
            for column in 15..<22 { n.append(try BinaryValues.array(fields[column], of: .int8, BinaryValues.int64)) }
            let firstSeen = try BinaryValues.array(fields[22], of: .timestamptz, BinaryValues.timestamp)
            let lastSeen = try BinaryValues.array(fields[23], of: .timestamptz, BinaryValues.timestamp)
            // Empty from a collector of the version before migration 0150: no OS, ''.
            let os = try textColumn(fields[24])
            let lengths: [Int] = [grain.count, bucket.count, category.count, appVersion.count, platform.count, campaign.count,
                                  variant.count, hasMedia.count, action.count, metric.count, bin.count, type.count,
                                  categoryRegistered.count, firstSeen.count, lastSeen.count] + n.map(\.count)
            guard lengths.allSatisfy({ $0 == kind.count }), os.isEmpty || os.count == kind.count else {
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
                func dimensions() throws(DatabaseError) -> RollupTally<Text>.Dimensions {
                    RollupTally<Text>.Dimensions(appId: appId, grain: try required(grain[i], "grain"), bucket: bucketMicroseconds,
                                                 category: try required(category[i], "category"),
                                                 appVersion: try required(appVersion[i], "app_version"),
                                                 platform: try required(platform[i], "platform"),
                                                 campaign: try required(campaign[i], "campaign"), variant: try required(variant[i], "variant"),
                                                 os: os.isEmpty ? nil : try required(os[i], "os"))
                }
                switch kind[i] {
                case 1:
                    var c = RollupCounts()
                    c.delivered = count
                    c.sent = try required(n[1][i], "n2")
                    c.mediaRequested = try required(n[2][i], "n3")
                    c.opens = try required(n[3][i], "n4")
                    c.dismissals = try required(n[4][i], "n5")
                    c.actions = try required(n[5][i], "n6")
                    c.replies = try required(n[6][i], "n7")
                    sums.merge(RollupTally<Text>.CountsKey(dimensions: try dimensions(), hasMedia: try required(hasMedia[i], "has_media")), c)
                case 2:
                    sums.merge(RollupTally<Text>.ActionKey(dimensions: try dimensions(), action: try required(action[i], "action")), count)
                case 3:
                    guard let metric = HistogramMetric(rawValue: Int(try required(metric[i], "metric"))) else {
                        throw DatabaseError(.unexpectedResult, "a histogram delta of an unknown metric")
                    }
                    sums.merge(RollupTally<Text>.HistogramKey(dimensions: try dimensions(), metric: metric, bin: try required(bin[i], "bin")), count)
                case 4:
                    guard let eventType = EventType(rawValue: try required(type[i], "type")) else {
                        throw DatabaseError(.unexpectedResult, "a usage delta of an unknown event type")
                    }
                    let key = RollupTally<Text>.UsageKey(appId: appId, bucket: bucketMicroseconds, appVersion: try required(appVersion[i], "app_version"),
                                                         platform: try required(platform[i], "platform"), type: eventType,
                                                         category: try required(category[i], "category"), action: try required(action[i], "action"),
                                                         categoryRegistered: try required(categoryRegistered[i], "category_registered"))
                    let usage = RollupUsage(count: count, firstSeen: try required(firstSeen[i], "first_seen"),
                                            lastSeen: try required(lastSeen[i], "last_seen"))
                    sums.mergeHourlyUsage(key, usage)
                default:
                    throw DatabaseError(.unexpectedResult, "a rollup delta of unknown kind \(kind[i].map(String.init) ?? "NULL")")
                }
                deltasRead += 1
            }
        }
    }

    /// Derived rows as one row each, in the layout of rollup_deltas, which tapwire_fold_rollups()
    /// upserts: what the fold writes once it has summed the batches.
    /// The table rows as a binary COPY into rollup_fold_rows (or the rebuild's staging table), and
    /// how many there are.
    static func encodeRows(_ rows: RollupRows) -> (data: [UInt8], rows: Int) {
        encodeRows(rows, text: Value.text)
    }

    /// The rebuild's rows, keyed by ids of `texts`: each text's bytes copied from where `texts`
    /// holds them, no String made (docs/benchmarks.md, "The derived rows keyed by text ids").
    static func encodeRows(_ rows: RollupTables<TextId>, texts: TextIds) -> (data: [UInt8], rows: Int) {
        encodeRows(rows) { .utf8(texts.utf8($0.id)) }
    }

    private static func encodeRows<Text>(_ rows: RollupTables<Text>, text: (Text) -> Value) -> (data: [UInt8], rows: Int) {
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + rows.rowCount * 200)
        var count = 0
        forEachRow(rows, text: text) { values in
            encoder.beginRow(fields: values.count)
            for value in values { encoder.value(value) }
            count += 1
        }
        return (encoder.finish(), count)
    }
}
