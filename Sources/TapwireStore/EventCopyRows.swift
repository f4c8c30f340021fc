import TapwireCore

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
            encoder.beginRow(fields: 29)
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
            encoder.optionalText(event.deviceId ?? context.deviceId)
            encoder.optionalText(event.conversion?.name)
            encoder.optionalFloat64(event.conversion?.value)
            encoder.optionalText(event.conversion?.currency)
            encoder.optionalBool(event.assignment.map { $0.arm == .heldOut })
            encoder.optionalFloat64(event.assignment?.holdoutShare)
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

extension EventCopyRows {
    /// A device's earliest and latest event, and earliest and latest conversion, in a commit's
    /// rows: what attribution_pending queues of it (`encodeAttributionPending`).
    struct Span {
        var first: Timestamp
        var last: Timestamp
        var firstConversion: Timestamp?
        var lastConversion: Timestamp?

        init(_ time: Timestamp, conversion: Bool) {
            first = time
            last = time
            firstConversion = conversion ? time : nil
            lastConversion = conversion ? time : nil
        }

        mutating func add(_ time: Timestamp, conversion: Bool) {
            first = min(first, time)
            last = max(last, time)
            if conversion {
                firstConversion = min(firstConversion ?? time, time)
                lastConversion = max(lastConversion ?? time, time)
            }
        }

        mutating func merge(_ other: Span) {
            add(other.first, conversion: false)
            add(other.last, conversion: false)
            if let time = other.firstConversion { add(time, conversion: true) }
            if let time = other.lastConversion { add(time, conversion: true) }
        }
    }

    /// Per app: the devices in the order first seen (the encoding stays deterministic), their
    /// spans, and the times of conversions without an install id.
    typealias AttributionSpans = (order: [String], spans: [String: Span], anonymous: [Timestamp])

    /// A row per app of the stored rows' install ids and times (delivered, response and
    /// conversion events that carry one, and conversions without one, with a NULL id) and which
    /// are conversions, for sql/queries/copy_attribution_pending.sql: the fold recomputes the
    /// credits those events can change (docs/outcomes.md).
    ///
    /// The fold reads of a device's queued entries only their span: the earliest and latest
    /// time, and the earliest and latest conversion's (tapwire_attribute_pending's
    /// tapwire_attribution_span). So a device is queued with those at most four entries (the
    /// earliest and latest of its events as non-conversions, the earliest and latest of its
    /// conversions as conversions), not one per event: the same spans, a few entries a device
    /// where a batch's 500 events were 500 (docs/outcomes.md, "What a fold costs"). A
    /// conversion without an install id is found again by its time, so each keeps its own entry.
    static func encodeAttributionPending(_ batches: [StagedBatch], plan: EventWriter.StagingPlan, rows seqs: [Int]) -> [UInt8] {
        /// A device's span from one source (the batch context's install id, or events' own ids),
        /// and the position in `seqs` where that source first named it.
        struct Piece {
            var at: Int
            var appId: Int64
            var device: String
            var span: Span
        }
        struct OwnDevice: Hashable {
            var appId: Int64
            var device: String
        }
        var apps: [Int64: AttributionSpans] = [:]
        // The events that carry their batch's install id (nearly all) are spanned per batch, by
        // its index: a dictionary lookup of the install id per event was most of this function
        // at the real shape (docs/benchmarks.md, "The collector's instructions per event (branch
        // ingest8)"). Events with an id of their own are spanned by (app, id).
        var byBatch = [Piece?](repeating: nil, count: batches.count)
        var own: [Piece] = []
        var ownIndex: [OwnDevice: Int] = [:]
        for (at, seq) in seqs.enumerated() {
            let (b, i) = plan.locations[seq]
            let batch = batches[b]
            let event = batch.events[i]
            let conversion = event.type == .conversion
            guard event.deviceId != nil || batch.context.deviceId != nil else {
                if conversion { apps[batch.appId, default: ([], [:], [])].anonymous.append(event.eventTime) }
                continue
            }
            guard event.type != .sent && event.type != .assignment else { continue }
            let time = event.eventTime
            if let device = event.deviceId {
                let key = OwnDevice(appId: batch.appId, device: device)
                if let index = ownIndex[key] {
                    own[index].span.add(time, conversion: conversion)
                } else {
                    ownIndex[key] = own.count
                    own.append(Piece(at: at, appId: batch.appId, device: device, span: Span(time, conversion: conversion)))
                }
            } else if byBatch[b] != nil {
                byBatch[b]!.span.add(time, conversion: conversion)
            } else {
                byBatch[b] = Piece(at: at, appId: batch.appId, device: batch.context.deviceId!, span: Span(time, conversion: conversion))
            }
        }
        // The pieces in the order their sources were first seen: each device is then listed where
        // it was first seen, as when every event was looked up.
        for piece in (byBatch.compactMap { $0 } + own).sorted(by: { $0.at < $1.at }) {
            if var span = apps[piece.appId]?.spans[piece.device] {
                span.merge(piece.span)
                apps[piece.appId]!.spans[piece.device] = span
            } else {
                apps[piece.appId, default: ([], [:], [])].order.append(piece.device)
                apps[piece.appId]!.spans[piece.device] = piece.span
            }
        }
        return attributionRows(apps)
    }

    /// The rows of sql/queries/copy_attribution_pending.sql for the spans: one per app and
    /// attribution part its devices fall in (`AttributionPart`, migration 0328), at most four
    /// entries a device (`encodeAttributionPending`), one per anonymous conversion (in part 0).
    static func attributionRows(_ apps: [Int64: AttributionSpans]) -> [UInt8] {
        guard !apps.isEmpty else { return [] }
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + apps.values.reduce(0) {
            $0 + 80 * AttributionPart.count + ($1.order.count * 4 + $1.anonymous.count) * 64
        })
        for appId in apps.keys.sorted() {
            let app = apps[appId]!
            var parts = [(devices: BinaryArray, times: BinaryArray, conversions: BinaryArray)](
                repeating: (BinaryArray(.text), BinaryArray(.timestamptz), BinaryArray(.bool)), count: AttributionPart.count)
            var part = 0
            func entry(_ device: String?, _ time: Timestamp, _ conversion: Bool) {
                parts[part].devices.optionalText(device)
                parts[part].times.timestamp(time)
                parts[part].conversions.bool(conversion)
            }
            for device in app.order {
                part = AttributionPart.of(device)
                let span = app.spans[device]!
                // The span's ends the conversions already give need no entry of their own.
                if let firstConversion = span.firstConversion, let lastConversion = span.lastConversion {
                    if span.first < firstConversion { entry(device, span.first, false) }
                    entry(device, firstConversion, true)
                    if lastConversion != firstConversion { entry(device, lastConversion, true) }
                    if span.last > lastConversion { entry(device, span.last, false) }
                } else {
                    entry(device, span.first, false)
                    if span.last != span.first { entry(device, span.last, false) }
                }
            }
            part = AttributionPart.of(nil)
            for time in app.anonymous { entry(nil, time, true) }
            for (index, rows) in parts.enumerated() where rows.devices.count > 0 {
                encoder.beginRow(fields: 5)
                encoder.int64(appId)
                encoder.int16(Int16(index))
                encoder.array(rows.devices)
                encoder.array(rows.times)
                encoder.array(rows.conversions)
            }
        }
        return encoder.finish()
    }

    /// The rows of sql/queries/copy_holdout_pending.sql: one per app, the assignments and
    /// conversions with an install id, whose devices' holdout rows the fold recomputes
    /// (docs/holdouts.md), each flagged whether it is an assignment, so the fold reads the events
    /// of a device with conversions alone only when it has a stored row (migration 0323).
    static func encodeHoldoutPending(_ batches: [StagedBatch], plan: EventWriter.StagingPlan, rows seqs: [Int]) -> [UInt8] {
        var apps: [Int64: (devices: BinaryArray, times: BinaryArray, assignments: BinaryArray)] = [:]
        for seq in seqs {
            let (b, i) = plan.locations[seq]
            let batch = batches[b]
            let event = batch.events[i]
            guard event.type == .assignment || event.type == .conversion,
                  let device = event.deviceId ?? batch.context.deviceId else { continue }
            apps[batch.appId, default: (BinaryArray(.text), BinaryArray(.timestamptz), BinaryArray(.bool))].devices.optionalText(device)
            apps[batch.appId]!.times.timestamp(event.eventTime)
            apps[batch.appId]!.assignments.bool(event.type == .assignment)
        }
        guard !apps.isEmpty else { return [] }
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + apps.values.reduce(0) {
            $0 + $1.devices.bytes.count + $1.times.bytes.count + $1.assignments.bytes.count + 72
        })
        for appId in apps.keys.sorted() {
            encoder.beginRow(fields: 4)
            encoder.int64(appId)
            encoder.array(apps[appId]!.devices)
            encoder.array(apps[appId]!.times)
            encoder.array(apps[appId]!.assignments)
        }
        return encoder.finish()
    }
}
