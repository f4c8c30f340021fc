import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireStore

/// The commit's row of attribution_pending per app (`EventCopyRows.encodeAttributionPending`),
/// which spans the events carrying their batch's install id per batch: byte for byte what a
/// lookup of every event's install id gives (the definition, written out plainly here; the
/// spans' encoding into rows, `EventCopyRows.attributionRows`, is shared), with
/// devices shared by batches and apps, events with install ids of their own (some equal to
/// another batch's), conversions, types that queue nothing, anonymous conversions and only some
/// rows stored.
@Suite struct AttributionPendingRowsTests {
    /// Every event looked up by its install id, in the rows' order: the devices in the order
    /// first seen, each with its earliest and latest time and conversion.
    static func reference(_ batches: [StagedBatch], plan: EventWriter.StagingPlan, rows seqs: [Int]) -> [UInt8] {
        var apps: [Int64: EventCopyRows.AttributionSpans] = [:]
        for seq in seqs {
            let (b, i) = plan.locations[seq]
            let event = batches[b].events[i], appId = batches[b].appId
            let conversion = event.type == .conversion
            guard let device = event.deviceId ?? batches[b].context.deviceId else {
                if conversion { apps[appId, default: ([], [:], [])].anonymous.append(event.eventTime) }
                continue
            }
            guard event.type != .sent && event.type != .assignment else { continue }
            var app = apps[appId, default: ([], [:], [])]
            if app.spans[device] == nil { app.order.append(device) }
            app.spans[device, default: EventCopyRows.Span(event.eventTime, conversion: conversion)].add(event.eventTime, conversion: conversion)
            apps[appId] = app
        }
        return EventCopyRows.attributionRows(apps)
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func theRowsAreThoseOfEveryEventLookedUp(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let now = Timestamp(microseconds: 1_790_000_000_000_000)
        let devices = ["D-1", "D-2", "D-3", "caf\u{E9}", "cafe\u{301}", "an install id longer than fifteen bytes"]
        var batches: [StagedBatch] = []
        for _ in 0..<Int.random(in: 1...12, using: &rng) {
            let context = DeviceContext(appVersion: "1.0", platform: "iOS",
                                        deviceId: Int.random(in: 0..<5, using: &rng) == 0 ? nil : devices.randomElement(using: &rng)!)
            let events = (0..<Int.random(in: 0...40, using: &rng)).map { _ -> Event in
                let time = now.adding(microseconds: -Int64.random(in: 0...3_600_000_000, using: &rng))
                let type = [EventType.delivered, .response, .sent, .conversion, .assignment, .delivered].randomElement(using: &rng)!
                return Event(eventId: .v7(at: time, using: &rng), type: type, deviceTime: time, category: "c",
                             actionIdentifier: type == .response ? "open" : nil,
                             conversion: type == .conversion ? Event.Conversion(name: "purchase") : nil,
                             deviceId: Int.random(in: 0..<6, using: &rng) == 0 ? devices.randomElement(using: &rng)! : nil)
            }
            batches.append(StagedBatch(appId: Int64.random(in: 1...3, using: &rng), receivedAt: now, context: context, events: events))
        }
        let plan = EventWriter.StagingPlan(batches)
        for rows in [plan.order, plan.order.filter { _ in Bool.random(using: &rng) }, []] {
            #expect(EventCopyRows.encodeAttributionPending(batches, plan: plan, rows: rows) == Self.reference(batches, plan: plan, rows: rows))
        }
    }
}

/// The writers' integers are big-endian, most significant byte first, as PostgreSQL's binary
/// formats want them.
@Suite struct BinaryValueWriterTests {
    @Test func integersAreWrittenBigEndianWithTheirLengths() {
        var encoder = CopyBinaryEncoder()
        encoder.beginRow(fields: 0x0102)
        encoder.int16(0x0A0B)
        encoder.int32(-2)
        encoder.int64(0x0102_0304_0506_0708)
        encoder.uuid(EventID(high: 0x1122_3344_5566_7788, low: 0x99AA_BBCC_DDEE_FF00))
        let bytes = encoder.finish()
        let header: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(Array(bytes.prefix(header.count)) == header)
        #expect(Array(bytes.dropFirst(header.count)) == [
            0x01, 0x02,
            0, 0, 0, 2, 0x0A, 0x0B,
            0, 0, 0, 4, 0xFF, 0xFF, 0xFF, 0xFE,
            0, 0, 0, 8, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
            0, 0, 0, 16, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00,
            0xFF, 0xFF,
        ])
    }
}
