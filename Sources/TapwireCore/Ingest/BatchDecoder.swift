/// Turns the JSON of `POST /v1/batch` into validated events. Pure: no I/O, no clock (the
/// receive time is an argument), so every rule here is unit-tested directly.
public struct BatchDecoder: Sendable {
    public var limits: IngestLimits

    public init(limits: IngestLimits = IngestLimits()) { self.limits = limits }

    public func decode(_ body: [UInt8], receivedAt: Timestamp) throws(BatchError) -> DecodedBatch {
        let root: JSONValue
        do {
            root = try JSONParser().parse(body)
        } catch {
            switch error.kind {
            case .invalidUTF8: throw BatchError(.invalidUTF8, "the body is not valid UTF-8 (\(error))")
            case .tooDeep: throw BatchError(.tooDeep, "the JSON is nested too deeply (\(error))")
            case .malformed: throw BatchError(.malformedJSON, "the body is not valid JSON (\(error))")
            }
        }
        return try decode(root, receivedAt: receivedAt)
    }

    public func decode(_ root: JSONValue, receivedAt: Timestamp) throws(BatchError) -> DecodedBatch {
        guard let object = root.objectValue else {
            throw BatchError(.invalidBatch, "the body must be a JSON object with an \"events\" array")
        }
        if let key = object.duplicateKey {
            throw BatchError(.invalidBatch, "the key \"\(FieldRules.truncatedForEcho(key))\" appears twice at the top level")
        }
        guard let eventsValue = object["events"] else {
            throw BatchError(.invalidBatch, "the body has no \"events\" array")
        }
        guard let elements = eventsValue.arrayValue else {
            throw BatchError(.invalidBatch, "\"events\" must be an array, got \(eventsValue.typeName)")
        }
        guard elements.count <= limits.maxEventsPerBatch else {
            throw BatchError(.tooManyEvents, "a batch holds at most \(limits.maxEventsPerBatch) events, this one has \(elements.count); split it")
        }
        var sentAt: Timestamp?
        if let value = object["sentAt"], !value.isNull {
            guard let text = value.stringValue, let parsed = Timestamp(iso8601: text) else {
                throw BatchError(.invalidBatch, "\"sentAt\" must be an ISO 8601 timestamp such as 2026-12-01T10:00:05.120Z")
            }
            sentAt = parsed
        }
        let context = try decodeContext(object["context"])
        let skew = ClockSkew(sentAt: sentAt, receivedAt: receivedAt, maxFutureMicroseconds: limits.maxFutureMicroseconds)

        var batch = DecodedBatch(sentAt: sentAt, receivedAt: receivedAt, context: context, events: [], indices: [],
                                 rejections: [], clampedCount: 0)
        batch.events.reserveCapacity(elements.count)
        batch.indices.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            switch decodeEvent(element, index: index, skew: skew, contextDeviceId: context.deviceId) {
            case .success(let event):
                if event.timeClamped { batch.clampedCount += 1 }
                batch.events.append(event)
                batch.indices.append(index)
            case .failure(let rejection):
                batch.rejections.append(rejection)
            }
        }
        return batch
    }

    func decodeContext(_ value: JSONValue?) throws(BatchError) -> DeviceContext {
        guard let value, !value.isNull else { return DeviceContext() }
        guard let object = value.objectValue else {
            throw BatchError(.invalidBatch, "\"context\" must be an object, got \(value.typeName)")
        }
        if let key = object.duplicateKey {
            throw BatchError(.invalidBatch, "the key \"\(FieldRules.truncatedForEcho(key))\" appears twice in \"context\"")
        }
        func field(_ name: String, max: Int) throws(BatchError) -> String? {
            guard let v = object[name], !v.isNull else { return nil }
            guard let s = v.stringValue else {
                throw BatchError(.invalidBatch, "context.\(name) must be a string, got \(v.typeName)")
            }
            if let problem = FieldRules.problem(with: s, maxBytes: max) {
                throw BatchError(.invalidBatch, "context.\(name) \(problem)")
            }
            return s
        }
        return DeviceContext(appVersion: try field("appVersion", max: limits.maxVersionBytes) ?? "",
                             build: try field("build", max: limits.maxVersionBytes),
                             platform: try field("platform", max: limits.maxPlatformBytes) ?? "",
                             osVersion: try field("osVersion", max: limits.maxVersionBytes),
                             sdk: try field("sdk", max: limits.maxTagBytes),
                             deviceId: try field("deviceId", max: limits.maxTagBytes))
    }

    func decodeEvent(_ value: JSONValue, index: Int, skew: ClockSkew, contextDeviceId: String? = nil) -> Result<Event, EventRejection> {
        guard let object = value.objectValue else {
            return .failure(EventRejection(index: index, eventId: nil, code: .notAnObject,
                                           reason: "an event must be a JSON object, got \(value.typeName)"))
        }
        let rawId = object["eventId"]?.stringValue
        func reject(_ code: EventRejection.Code, _ reason: String) -> Result<Event, EventRejection> {
            .failure(EventRejection(index: index, eventId: rawId.map { FieldRules.truncatedForEcho($0) }, code: code, reason: reason))
        }
        if object.byteCount > limits.maxEventBytes {
            return reject(.tooLarge, "the event is \(object.byteCount) bytes; at most \(limits.maxEventBytes) are allowed")
        }
        if let key = object.duplicateKey {
            return reject(.duplicateKey, "the key \"\(FieldRules.truncatedForEcho(key))\" appears twice")
        }

        let reader = FieldReader(object: object, limits: limits)
        do throws(FieldProblem) {
            guard let idText = try reader.string(.eventId, max: 36, required: true) else { throw reader.missing(.eventId) }
            guard let eventId = EventID(idText) else {
                throw FieldProblem(.invalidField, "eventId must be a UUID such as 01938a2e-7b1c-7d3e-9f00-123456789abc")
            }
            guard let typeText = try reader.string(.type, max: 16, required: true) else { throw reader.missing(.type) }
            guard let type = EventType(rawValue: typeText) else {
                throw FieldProblem(.unknownType, "type must be delivered, response, sent, conversion or assignment, got \"\(FieldRules.truncatedForEcho(typeText))\"")
            }
            guard let deviceTime = try reader.timestamp(.timestamp) else { throw reader.missing(.timestamp) }
            let (eventTime, clamped) = skew.correct(deviceTime)
            if skew.receivedAt.microseconds &- eventTime.microseconds > limits.maxEventAgeMicroseconds {
                throw FieldProblem(.tooOld, "timestamp is more than \(limits.maxEventAgeMicroseconds / 86_400_000_000) days in the past after clock-skew correction")
            }
            let notificationId = try reader.string(.notificationId, max: limits.maxIdentifierBytes)
            let category = try reader.string(.category, max: limits.maxIdentifierBytes) ?? ""
            let action = try reader.string(.actionIdentifier, max: limits.maxIdentifierBytes)
            var textLength: Int32?
            if let length = try reader.integer(.userTextLength) {
                guard length >= 0, length <= limits.maxUserTextLength else {
                    throw FieldProblem(.invalidField, "userTextLength must be an integer from 0 to \(limits.maxUserTextLength)")
                }
                textLength = Int32(length)
            }
            switch type {
            case .response:
                guard let action, !action.isEmpty else {
                    throw FieldProblem(.missingField, "actionIdentifier is required on a response")
                }
            case .delivered, .sent, .conversion, .assignment:
                if action != nil { throw FieldProblem(.invalidField, "actionIdentifier is only valid on a response") }
                if textLength != nil { throw FieldProblem(.invalidField, "userTextLength is only valid on a response") }
            }
            let conversion = try reader.conversion(type: type)
            let campaign = try reader.string(.campaign, max: limits.maxIdentifierBytes)
            let deviceId = try reader.string(.deviceId, max: limits.maxTagBytes)
            let assignment = try reader.assignment(type: type, campaign: campaign, deviceId: deviceId ?? contextDeviceId)
            var media: MediaKinds = []
            if let list = try reader.stringArray(.mediaTypes, maxCount: limits.maxMediaTypesPerEvent, maxBytes: limits.maxMediaTypeBytes) {
                for name in list {
                    guard let kind = MediaKinds(name: name) else {
                        throw FieldProblem(.invalidField, "mediaTypes may hold image, audio, video and other, got \"\(FieldRules.truncatedForEcho(name))\"")
                    }
                    media.insert(kind)
                }
            }
            let hasMediaField = try reader.bool(.hasMedia)
            if hasMediaField == false, !media.isEmpty {
                throw FieldProblem(.invalidField, "hasMedia is false but mediaTypes lists attachments")
            }
            let deliveredAt = try reader.timestamp(.deliveredAt).map { skew.correct($0).time }
            // A sentAt in year 9999 with a deliveredAt in year 0 corrects to before any date
            // PostgreSQL stores: the COPY would fail the whole group, so reject the event here.
            if let deliveredAt, case let (age, overflow) = skew.receivedAt.microseconds.subtractingReportingOverflow(deliveredAt.microseconds),
               overflow || age > limits.maxEventAgeMicroseconds {
                throw FieldProblem(.invalidField, "deliveredAt is more than \(limits.maxEventAgeMicroseconds / 86_400_000_000) days in the past after clock-skew correction")
            }
            let event = Event(eventId: eventId, type: type, deviceTime: deviceTime, eventTime: eventTime,
                              timeClamped: clamped, notificationId: notificationId, category: category,
                              actionIdentifier: action, userTextLength: textLength,
                              hasMedia: hasMediaField ?? !media.isEmpty, mediaTypes: media,
                              mediaRequested: try reader.bool(.mediaRequested),
                              categoryRegistered: try reader.bool(.categoryRegistered),
                              campaign: campaign,
                              variant: try reader.string(.variant, max: limits.maxIdentifierBytes),
                              deliveredAt: deliveredAt, conversion: conversion, assignment: assignment,
                              deviceId: deviceId)
            return .success(event)
        } catch {
            return reject(error.code, error.reason)
        }
    }
}

private struct FieldProblem: Error {
    var code: EventRejection.Code
    var reason: String
    init(_ code: EventRejection.Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// The fields an event may have. An event's members are matched to them once, by name
/// (`FieldReader.init`): a search of the members for each field read was about 9k instructions
/// an event (docs/benchmarks.md, "The collector's instructions per event (branch ingest8)").
private enum Field: Int, CaseIterable {
    case eventId, type, timestamp, notificationId, category, actionIdentifier, userTextLength, campaign, deviceId, mediaTypes,
         hasMedia, deliveredAt, mediaRequested, categoryRegistered, variant, name, value, currency, arm, holdoutShare

    /// The JSON key.
    var name: String { String(describing: self) }

    /// The field named `key`, if any. By the key's length first, then `==` with the few names of
    /// that length: hashing each member's key cost more than the scans it replaced. The same
    /// answer as `==` with every name, which tells Strings apart by canonical equivalence: no ASCII
    /// letter of these names is canonically equivalent to anything but itself (only K, ';' and
    /// '`' are, to U+212A, U+037E and U+1FEF), so a key equal to a name has the name's length.
    init?(key: String) {
        let found: Field?
        switch key.utf8.count {
        case 3: found = key == "arm" ? .arm : nil
        case 4: found = key == "type" ? .type : key == "name" ? .name : nil
        case 5: found = key == "value" ? .value : nil
        case 7: found = key == "eventId" ? .eventId : key == "variant" ? .variant : nil
        case 8:
            found = key == "category" ? .category : key == "campaign" ? .campaign : key == "deviceId" ? .deviceId
                : key == "hasMedia" ? .hasMedia : key == "currency" ? .currency : nil
        case 9: found = key == "timestamp" ? .timestamp : nil
        case 10: found = key == "mediaTypes" ? .mediaTypes : nil
        case 11: found = key == "deliveredAt" ? .deliveredAt : nil
        case 12: found = key == "holdoutShare" ? .holdoutShare : nil
        case 14:
            found = key == "notificationId" ? .notificationId : key == "userTextLength" ? .userTextLength
                : key == "mediaRequested" ? .mediaRequested : nil
        case 16: found = key == "actionIdentifier" ? .actionIdentifier : nil
        case 18: found = key == "categoryRegistered" ? .categoryRegistered : nil
        default: found = nil
        }
        guard let found else { return nil }
        self = found
    }
}

/// Typed access to an event's fields, producing a precise reason for each wrong one.
private struct FieldReader {
    let limits: IngestLimits
    /// Each field's value, by `Field`'s raw value; nil when the event does not have it. The
    /// first member of a name counts, as in `JSONObject`'s subscript (an event with a repeated
    /// key is refused before it is read).
    private let values: [JSONValue?]

    init(object: JSONObject, limits: IngestLimits) {
        self.limits = limits
        var values = [JSONValue?](repeating: nil, count: Field.allCases.count)
        for member in object.members {
            if let field = Field(key: member.key), values[field.rawValue] == nil { values[field.rawValue] = member.value }
        }
        self.values = values
    }

    func missing(_ field: Field) -> FieldProblem { FieldProblem(.missingField, "\(field.name) is required") }

    func value(_ field: Field) -> JSONValue? {
        guard let v = values[field.rawValue], !v.isNull else { return nil }
        return v
    }

    func string(_ field: Field, max: Int, required: Bool = false) throws(FieldProblem) -> String? {
        guard let v = value(field) else { return nil }
        guard let s = v.stringValue else { throw FieldProblem(.invalidField, "\(field.name) must be a string, got \(v.typeName)") }
        if FieldRules.containsNUL(s) {
            throw FieldProblem(.nulCharacter, "\(field.name) contains a NUL character (U+0000), which cannot be stored")
        }
        if s.utf8.count > max { throw FieldProblem(.tooLong, "\(field.name) is \(s.utf8.count) bytes; at most \(max) are allowed") }
        return s
    }

    func bool(_ field: Field) throws(FieldProblem) -> Bool? {
        guard let v = value(field) else { return nil }
        guard let b = v.boolValue else { throw FieldProblem(.invalidField, "\(field.name) must be true or false, got \(v.typeName)") }
        return b
    }

    func integer(_ field: Field) throws(FieldProblem) -> Int64? {
        guard let v = value(field) else { return nil }
        guard let n = v.numberValue else { throw FieldProblem(.invalidField, "\(field.name) must be an integer, got \(v.typeName)") }
        if let i = n.integer { return i }
        if n.double.isFinite, n.double == n.double.rounded(), abs(n.double) < 9e15 { return Int64(n.double) }
        throw FieldProblem(.invalidField, "\(field.name) must be an integer")
    }

    func number(_ field: Field) throws(FieldProblem) -> Double? {
        guard let v = value(field) else { return nil }
        guard let n = v.numberValue else { throw FieldProblem(.invalidField, "\(field.name) must be a number, got \(v.typeName)") }
        guard n.double.isFinite else { throw FieldProblem(.invalidField, "\(field.name) must be a finite number; this one is beyond a Double's range") }
        return n.double
    }

    /// A conversion's fields (docs/outcomes.md): `name` is required, `value` is at least 0 and
    /// comes with an ISO 4217 `currency`; none of them is valid on another type.
    func conversion(type: EventType) throws(FieldProblem) -> Event.Conversion? {
        let name = try string(.name, max: limits.maxIdentifierBytes)
        let amount = try number(.value)
        let currency = try string(.currency, max: 3)
        guard type == .conversion else {
            for (field, present) in [("name", name != nil), ("value", amount != nil), ("currency", currency != nil)] where present {
                throw FieldProblem(.invalidField, "\(field) is only valid on a conversion")
            }
            return nil
        }
        guard let name, !name.isEmpty else { throw FieldProblem(.missingField, "name is required on a conversion (purchase, signup, …)") }
        if let amount {
            guard amount >= 0, amount <= IngestLimits.maxConversionValue else {
                throw FieldProblem(.invalidField, "value must be a number from 0 to \(Int64(IngestLimits.maxConversionValue)); post a refund as a conversion of its own name")
            }
            guard currency != nil else { throw FieldProblem(.missingField, "currency is required with a value: an ISO 4217 code such as EUR") }
        }
        if let currency {
            guard amount != nil else { throw FieldProblem(.invalidField, "currency is only valid with a value") }
            guard ConversionRules.isCurrencyCode(currency) else {
                throw FieldProblem(.invalidField, "currency must be an ISO 4217 code of three capital letters, such as EUR")
            }
        }
        return Event.Conversion(name: name, value: amount, currency: currency)
    }

    /// An assignment's fields (docs/holdouts.md): a campaign, an arm, the intended holdout share
    /// (strictly between 0 and 1) and an install id (the event's or the batch context's); arm and
    /// holdoutShare are not valid on another type.
    func assignment(type: EventType, campaign: String?, deviceId: String?) throws(FieldProblem) -> Event.Assignment? {
        let armText = try string(.arm, max: 16)
        let share = try number(.holdoutShare)
        guard type == .assignment else {
            for (field, present) in [("arm", armText != nil), ("holdoutShare", share != nil)] where present {
                throw FieldProblem(.invalidField, "\(field) is only valid on an assignment")
            }
            return nil
        }
        guard let campaign, !campaign.isEmpty else {
            throw FieldProblem(.missingField, "campaign is required on an assignment: the campaign the device was assigned in")
        }
        guard let armText else { throw FieldProblem(.missingField, "arm is required on an assignment: treated or held_out") }
        guard let arm = HoldoutArm(rawValue: armText) else {
            throw FieldProblem(.invalidField, "arm must be treated or held_out, got \"\(FieldRules.truncatedForEcho(armText))\"")
        }
        guard let share else {
            throw FieldProblem(.missingField, "holdoutShare is required on an assignment: the share of devices meant to be held out, such as 0.1")
        }
        guard share > 0, share < 1 else {
            throw FieldProblem(.invalidField, "holdoutShare must be a number strictly between 0 and 1 (0.1 holds out a tenth), got \(share)")
        }
        guard let deviceId, !deviceId.isEmpty else {
            throw FieldProblem(.missingField, "an assignment needs an install id: deviceId on the event or in the batch context")
        }
        return Event.Assignment(arm: arm, holdoutShare: share)
    }

    func timestamp(_ field: Field) throws(FieldProblem) -> Timestamp? {
        guard let v = value(field) else { return nil }
        guard let s = v.stringValue, let t = Timestamp(iso8601: s) else {
            throw FieldProblem(.invalidField, "\(field.name) must be an ISO 8601 timestamp such as 2026-12-01T10:00:05.120Z")
        }
        return t
    }

    func stringArray(_ field: Field, maxCount: Int, maxBytes: Int) throws(FieldProblem) -> [String]? {
        guard let v = value(field) else { return nil }
        guard let array = v.arrayValue else { throw FieldProblem(.invalidField, "\(field.name) must be an array of strings") }
        guard array.count <= maxCount else { throw FieldProblem(.tooLong, "\(field.name) holds at most \(maxCount) entries") }
        var out: [String] = []
        for element in array {
            guard let s = element.stringValue, s.utf8.count <= maxBytes else {
                throw FieldProblem(.invalidField, "\(field.name) must be an array of short strings")
            }
            out.append(s)
        }
        return out
    }
}
