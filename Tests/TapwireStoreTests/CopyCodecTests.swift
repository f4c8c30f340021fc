import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// The binary COPY codec without a database: what a commit writes to rollup_delta_batches reads
/// back, through the fold's streaming reader, as the same deltas, whatever pieces the data
/// arrives in; damaged data is an error, never a silently short sum.
@Suite struct CopyCodecTests {
    static func deltas(seed: UInt64, events: Int) -> RollupDeltas {
        var rng = SeededGenerator(seed: seed)
        let now = Timestamp.now
        var deltas = RollupDeltas()
        for _ in 0..<events {
            let appId = Int64.random(in: 1...3, using: &rng)
            let context = DeviceContext(appVersion: ["1.0", "1.1", ""].randomElement(using: &rng)!,
                                        platform: ["iOS", "watchOS"].randomElement(using: &rng)!)
            deltas.add(RollupDeltaMergeTests.randomEvent(&rng, around: now), appId: appId, context: context)
        }
        deltas.finishFinest() // what a commit stores
        return deltas
    }

    /// Splits `data` into pieces of random sizes (1 byte to a few KB).
    static func pieces(_ data: [UInt8], seed: UInt64) -> [[UInt8]] {
        var rng = SeededGenerator(seed: seed)
        var result: [[UInt8]] = []
        var start = 0
        while start < data.count {
            let end = min(data.count, start + Int.random(in: 1...4096, using: &rng))
            result.append(Array(data[start..<end]))
            start = end
        }
        return result
    }

    @Test func aBatchReadsBackAsTheSameDeltasInAnyPieces() throws {
        let original = Self.deltas(seed: 5, events: 3000)
        #expect(original.rowCount > 500)
        let expected = original.derive()
        let data = RollupDeltaRows.encodeBatch(original)
        for seed in 1...4 as ClosedRange<UInt64> {
            var reader = RollupDeltaRows.BatchReader()
            for piece in Self.pieces(data, seed: seed) { try reader.consume(piece) }
            #expect(try reader.finish() == expected)
            #expect(reader.deltasRead == original.rowCount)
        }
    }

    /// A batch holding a row of a coarser grain (as the version before migration 0100's fold
    /// derived) would be counted twice once the fold derives every table's rows: the reader
    /// refuses it.
    @Test func aBatchWithCoarserRowsIsRefused() throws {
        var coarser = Self.deltas(seed: 8, events: 100)
        let key = try #require(coarser.counts.keys.first)
        var dimensions = key.dimensions
        dimensions.grain = 6
        coarser.merge(RollupDeltas.CountsKey(dimensions: dimensions, hasMedia: key.hasMedia), coarser.counts[key]!)
        var reader = RollupDeltaRows.BatchReader()
        #expect(throws: DatabaseError.self) { try reader.consume(RollupDeltaRows.encodeBatch(coarser)) }
    }

    /// Several commits' batches in one COPY sum per key, as merging the events at once would.
    @Test func batchesOfSeveralCommitsSumPerKey() throws {
        var all = RollupDeltas()
        var reader = RollupDeltaRows.BatchReader()
        var rng = SeededGenerator(seed: 9)
        let now = Timestamp.now
        var stream = CopyBinaryEncoder()
        var commits: [[UInt8]] = []
        for _ in 0..<5 {
            var commit = RollupDeltas()
            for _ in 0..<400 {
                let event = RollupDeltaMergeTests.randomEvent(&rng, around: now)
                let context = DeviceContext(appVersion: "2.0", platform: "iOS")
                commit.add(event, appId: 7, context: context)
                all.add(event, appId: 7, context: context)
            }
            commit.finishFinest()
            commits.append(RollupDeltaRows.encodeBatch(commit))
        }
        all.finishFinest()
        // One COPY stream holding every commit's row: each commit's rows without its header and trailer.
        for commit in commits { stream.bytes.append(contentsOf: commit[19..<(commit.count - 2)]) }
        try reader.consume(stream.finish())
        #expect(try reader.finish() == all.derive())
    }

    @Test func damagedDataIsAnError() throws {
        let data = RollupDeltaRows.encodeBatch(Self.deltas(seed: 6, events: 200))
        // Cut short: no trailer.
        var short = RollupDeltaRows.BatchReader()
        try short.consume(Array(data.dropLast(2)))
        #expect(throws: DatabaseError.self) { try short.finish() }
        // Not binary COPY data.
        var text = RollupDeltaRows.BatchReader()
        #expect(throws: DatabaseError.self) { try text.consume(Array("1\tchat\n".utf8) + [UInt8](repeating: 0, count: 40)) }
        // An array of another element type where int2 is expected (kind): flip the first
        // array's element type OID (int2 = 21) to int4 (23).
        var wrongType = data
        let kindField = 19 + 2 + 4 + 8 // header, field count, app_id's length and value
        let oidOffset = kindField + 4 + 8 // the field's length, then ndim and the has-nulls flag
        #expect(Array(wrongType[oidOffset..<oidOffset + 4]) == [0, 0, 0, 21])
        wrongType[oidOffset + 3] = 23
        var typed = RollupDeltaRows.BatchReader()
        #expect(throws: DatabaseError.self) { try typed.consume(wrongType) }
    }

    @Test func emptyArraysAndNullElementsRoundTrip() throws {
        var column = BinaryArray(.text)
        column.text("a")
        column.null()
        column.text("tab\there")
        var encoder = CopyBinaryEncoder()
        encoder.beginRow(fields: 2)
        encoder.array(column)
        encoder.array(BinaryArray(.int8))
        var decoder = CopyBinaryDecoder()
        decoder.append(encoder.finish())
        let row = try #require(try decoder.nextRow())
        #expect(try BinaryValues.array(row[0], of: .text, BinaryValues.text) == ["a", nil, "tab\there"])
        #expect(try BinaryValues.array(row[1], of: .int8, BinaryValues.int64) == [])
        #expect(try decoder.nextRow() == nil)
        #expect(decoder.finished)
    }

    /// The release rollups' bigint arrays read as Swift integers (the regression check's path):
    /// the values round-trip, and a NULL element, another element type or a cut array is an error.
    @Test func bigintArraysReadAsIntegers() throws {
        func field(_ fill: (inout BinaryArray) -> Void, type: BinaryArray.ElementType = .int8) throws -> ArraySlice<UInt8> {
            var column = BinaryArray(type)
            fill(&column)
            var encoder = CopyBinaryEncoder()
            encoder.beginRow(fields: 1)
            encoder.array(column)
            var decoder = CopyBinaryDecoder()
            decoder.append(encoder.finish())
            let row = try #require(try decoder.nextRow())
            return try #require(row[0])
        }
        let values: [Int64] = [0, 1, -1, Int64.max, Int64.min, 24, 1 << 40]
        let good = try field { column in for v in values { column.int64(v) } }
        #expect(try BinaryValues.integerElements(good) == values.map { Int($0) })
        #expect(try BinaryValues.integerElements(try field { _ in }) == [])
        #expect(throws: DatabaseError.self) { try BinaryValues.integerElements(try field { $0.int64(1); $0.null() }) }
        #expect(throws: DatabaseError.self) { try BinaryValues.integerElements(try field({ $0.timestamp(Timestamp(microseconds: 1)) }, type: .timestamptz)) }
        #expect(throws: DatabaseError.self) { try BinaryValues.integerElements(good.dropLast(3)) }
        #expect(throws: DatabaseError.self) { try BinaryValues.integerElements(nil) }
    }

    /// The rebuild's reader (`EventRowReader`: the columns of sql/queries/rollups_rebuild_events.sql,
    /// texts numbered from their bytes) tallies a COPY of events, in any pieces, into the finest
    /// rows `RollupDeltas.add` makes of the same events: NULLs, '' and absent campaigns, OS
    /// versions with and without a dot or a combining mark, texts equal only as Swift Strings.
    @Test func aRebuildsEventRowsTallyAsTheEventsAddedOneByOne() throws {
        var rng = SeededGenerator(seed: 11)
        let now = Timestamp(microseconds: 1_790_000_000_000_000)
        let contexts = [DeviceContext(appVersion: "1.0", platform: "iOS", osVersion: "18.1"),
                        DeviceContext(appVersion: "1.1", platform: "iOS", osVersion: nil),
                        DeviceContext(appVersion: "", platform: "watchOS", osVersion: ""),
                        DeviceContext(appVersion: "caf\u{E9}", platform: "iOS", osVersion: "17"),
                        DeviceContext(appVersion: "cafe\u{301}", platform: "iOS", osVersion: "18.\u{301}2"),
                        DeviceContext(appVersion: "2.0", platform: "macOS", osVersion: ".9")]
        var expected = RollupDeltas()
        var encoder = CopyBinaryEncoder()
        for n in 0..<4000 {
            var event = RollupDeltaMergeTests.randomEvent(&rng, around: now)
            if n % 7 == 0 { event.campaign = "" }
            if n % 11 == 0 { event.category = ["caf\u{E9}", "cafe\u{301}", ""][n % 3] }
            let appId = Int64(1 + n % 2)
            let context = contexts[n % contexts.count]
            expected.add(event, appId: appId, context: context)
            encoder.beginRow(fields: 15)
            encoder.int64(appId)
            encoder.timestamp(event.eventTime)
            encoder.text(event.type.rawValue)
            encoder.text(event.category)
            encoder.optionalText(event.actionIdentifier)
            encoder.optionalInt32(event.userTextLength)
            encoder.bool(event.hasMedia)
            encoder.optionalBool(event.mediaRequested)
            encoder.optionalBool(event.categoryRegistered)
            encoder.optionalText(event.campaign)
            encoder.optionalText(event.variant)
            encoder.optionalTimestamp(event.deliveredAt)
            encoder.text(context.appVersion)
            encoder.text(context.platform)
            encoder.optionalText(context.osVersion)
        }
        expected.finishFinest()
        let data = encoder.finish()
        for seed in [UInt64(1), 2] {
            var reader = EventRowReader<String>(shapes: seed == 1 ? 0 : 10)
            for piece in Self.pieces(data, seed: seed) { try reader.consume(piece) }
            #expect(reader.eventsRead == 4000)
            let read = try reader.finishFinest()
            #expect(read.counts == expected.counts)
            #expect(read.actions == expected.actions)
            #expect(read.histograms == expected.histograms)
            #expect(read.usageHourly == expected.usageHourly)
            #expect(read == expected)
        }
        // The rebuild's form: the same rows keyed by the texts' ids, derived and sent as COPY
        // rows whose texts are the ids' bytes, equal row for row to the Strings' (the texts
        // canonically equivalent but not byte-equal stay apart, '' is the empty text's id).
        for blocksOfDays in [false, true] {
            var reader = EventRowReader<TextId>()
            for piece in Self.pieces(data, seed: 3) { try reader.consume(piece) }
            let rows = try reader.finish(blocksOfDays: blocksOfDays)
            let byIds = try Self.decodedRows(RollupDeltaRows.encodeRows(rows, texts: reader.texts).data)
            let byStrings = try Self.decodedRows(RollupDeltaRows.encodeRows(expected.derive(blocksOfDays: blocksOfDays)).data)
            #expect(byIds.count == byStrings.count)
            #expect(byIds == byStrings)
        }
    }

    /// The fold's form (`DeltaBatchReader<TextId>`, rows keyed by the texts' ids, sent as the
    /// ids' bytes) and a commit's (`encodeBatch` of a `RollupTally<TextId>`): the same rows as
    /// the Strings' (`BatchReader`, `encodeBatch` of `RollupDeltas`), texts canonically
    /// equivalent but not byte-equal kept apart, '' and a missing OS included, in any pieces.
    @Test func theFoldsRowsByIdsAreTheStringsRows() throws {
        var rng = SeededGenerator(seed: 12)
        let now = Timestamp(microseconds: 1_790_000_000_000_000)
        let contexts = [DeviceContext(appVersion: "1.0", platform: "iOS", osVersion: "18.1"),
                        DeviceContext(appVersion: "", platform: "watchOS", osVersion: nil),
                        DeviceContext(appVersion: "caf\u{E9}", platform: "iOS", osVersion: "17"),
                        DeviceContext(appVersion: "cafe\u{301}", platform: "iOS", osVersion: "18.\u{301}2")]
        var stream = CopyBinaryEncoder()
        for commit in 0..<6 {
            var byStrings = RollupDeltas()
            var byIds = RollupTally<TextId>()
            for n in 0..<700 {
                var event = RollupDeltaMergeTests.randomEvent(&rng, around: now)
                if n % 5 == 0 { event.campaign = "campaign-\(n % 40)" }
                if n % 13 == 0 { event.category = ["caf\u{E9}", "cafe\u{301}", ""][n % 3] }
                let appId = Int64(1 + (n + commit) % 3)
                let context = contexts[(n + commit) % contexts.count]
                byStrings.add(event, appId: appId, context: context)
                byIds.add(event, appId: appId, context: context)
            }
            byStrings.finishFinest()
            byIds.finishFinest()
            // A commit's rows by ids read back as the same deltas as its rows by Strings.
            var fromIds = RollupDeltaRows.BatchReader()
            try fromIds.consume(RollupDeltaRows.encodeBatch(byIds))
            #expect(try fromIds.finishFinest() == byStrings)
            let rows = RollupDeltaRows.encodeBatch(byStrings)
            stream.bytes.append(contentsOf: rows[19..<(rows.count - 2)])
        }
        let data = stream.finish()
        var strings = RollupDeltaRows.BatchReader()
        try strings.consume(data)
        let expected = try Self.decodedRows(RollupDeltaRows.encodeRows(try strings.finish()).data)
        #expect(expected.count > 1000)
        for seed in [UInt64(1), 2] {
            var ids = RollupDeltaRows.DeltaBatchReader<TextId>()
            for piece in Self.pieces(data, seed: seed) { try ids.consume(piece) }
            #expect(ids.deltasRead == strings.deltasRead)
            let byIds = try Self.decodedRows(RollupDeltaRows.encodeRows(try ids.finish(), texts: ids.texts).data)
            #expect(byIds.count == expected.count)
            #expect(byIds == expected)
        }
    }

    /// A COPY's rows, each field's bytes (nil for NULL), in one order whatever the rows' order.
    static func decodedRows(_ data: [UInt8]) throws -> [[[UInt8]?]] {
        var decoder = CopyBinaryDecoder()
        decoder.append(data)
        var rows: [[[UInt8]?]] = []
        while let row = try decoder.nextRow() { rows.append(row.map { $0.map(Array.init) }) }
        #expect(decoder.finished)
        return rows.sorted { "\($0)" < "\($1)" }
    }
}
