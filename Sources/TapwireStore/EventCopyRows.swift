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
    /// A row per app of the stored rows' install ids and times (delivered, response and
    /// conversion events that carry one, and conversions without one, with a NULL id) and which
    /// are conversions, for sql/queries/copy_attribution_pending.sql: the fold recomputes the
    /// credits those events can change (docs/outcomes.md).
    static func encodeAttributionPending(_ batches: [StagedBatch], plan: EventWriter.StagingPlan, rows seqs: [Int]) -> [UInt8] {
        encodePending(batches, plan: plan, rows: seqs, flaggingConversions: true) { type, hasDevice in
            type != .sent && type != .assignment && (hasDevice || type == .conversion)
        }
    }

    /// The same for sql/queries/copy_holdout_pending.sql (no conversion flags): assignments and
    /// conversions with an install id, whose devices' holdout rows the fold recomputes
    /// (docs/holdouts.md).
    static func encodeHoldoutPending(_ batches: [StagedBatch], plan: EventWriter.StagingPlan, rows seqs: [Int]) -> [UInt8] {
        encodePending(batches, plan: plan, rows: seqs, flaggingConversions: false) { type, hasDevice in
            hasDevice && (type == .assignment || type == .conversion)
        }
    }

    /// A row per app (app_id, device_ids, event_times and, when flagging, which are conversions)
    /// of the stored rows `including` keeps: a fold's queue.
    private static func encodePending(_ batches: [StagedBatch], plan: EventWriter.StagingPlan, rows seqs: [Int],
                                      flaggingConversions: Bool, including: (EventType, Bool) -> Bool) -> [UInt8] {
        var apps: [Int64: (devices: BinaryArray, times: BinaryArray, conversions: BinaryArray)] = [:]
        for seq in seqs {
            let (b, i) = plan.locations[seq]
            let batch = batches[b]
            let event = batch.events[i]
            let device = event.deviceId ?? batch.context.deviceId
            guard including(event.type, device != nil) else { continue }
            apps[batch.appId, default: (BinaryArray(.text), BinaryArray(.timestamptz), BinaryArray(.bool))].devices.optionalText(device)
            apps[batch.appId]!.times.timestamp(event.eventTime)
            if flaggingConversions { apps[batch.appId]!.conversions.bool(event.type == .conversion) }
        }
        guard !apps.isEmpty else { return [] }
        var encoder = CopyBinaryEncoder(reservingCapacity: 64 + apps.values.reduce(0) {
            $0 + $1.devices.bytes.count + $1.times.bytes.count + $1.conversions.bytes.count + 72
        })
        for appId in apps.keys.sorted() {
            encoder.beginRow(fields: flaggingConversions ? 4 : 3)
            encoder.int64(appId)
            encoder.array(apps[appId]!.devices)
            encoder.array(apps[appId]!.times)
            if flaggingConversions { encoder.array(apps[appId]!.conversions) }
        }
        return encoder.finish()
    }
}
