/// One event of a batch. Absent values are left out of the JSON; `hasMedia` is left out of a
/// `sent` event, whose media the backend cannot know.
public struct WireEvent: Sendable, Equatable {
    public var eventId: EventID
    public var type: WireEventType
    /// Device time of the event; the collector corrects skew with the batch's `sentAt`.
    public var timestamp: Timestamp
    public var notificationId: String?
    /// '' when the notification had no category.
    public var category: String
    public var actionIdentifier: String?
    public var userTextLength: Int64?
    public var hasMedia: Bool
    /// `image`, `audio`, `video`, `other`.
    public var mediaTypes: [String]
    public var mediaRequested: Bool?
    public var categoryRegistered: Bool?
    public var campaign: String?
    public var variant: String?
    public var deliveredAt: Timestamp?
    /// A conversion's name (`purchase`, `signup`): only on `type: conversion`.
    public var name: String?
    /// A conversion's value, at least 0, with its ISO 4217 `currency`.
    public var value: Double?
    public var currency: String?
    /// The install id of this event's device, when it is not the batch context's (a backend
    /// posting for many devices).
    public var deviceId: String?
    /// An assignment's arm, `treated` or `held_out`: only on `type: assignment`.
    public var arm: String?
    /// The share of devices the sender meant to hold out, strictly between 0 and 1.
    public var holdoutShare: Double?

    public init(eventId: EventID, type: WireEventType, timestamp: Timestamp, notificationId: String? = nil, category: String = "",
                actionIdentifier: String? = nil, userTextLength: Int64? = nil, hasMedia: Bool = false, mediaTypes: [String] = [],
                mediaRequested: Bool? = nil, categoryRegistered: Bool? = nil, campaign: String? = nil, variant: String? = nil,
                deliveredAt: Timestamp? = nil, name: String? = nil, value: Double? = nil, currency: String? = nil,
                deviceId: String? = nil, arm: String? = nil, holdoutShare: Double? = nil) {
        self.eventId = eventId
        self.type = type
        self.timestamp = timestamp
        self.notificationId = notificationId
        self.category = category
        self.actionIdentifier = actionIdentifier
        self.userTextLength = userTextLength
        self.hasMedia = hasMedia
        self.mediaTypes = mediaTypes
        self.mediaRequested = mediaRequested
        self.categoryRegistered = categoryRegistered
        self.campaign = campaign
        self.variant = variant
        self.deliveredAt = deliveredAt
        self.name = name
        self.value = value
        self.currency = currency
        self.deviceId = deviceId
        self.arm = arm
        self.holdoutShare = holdoutShare
    }

    /// An assignment: the sender's record that a device was treated (sent the campaign) or held
    /// out (it would have been, and was not).
    public static func assignment(eventId: EventID, timestamp: Timestamp, campaign: String, arm: String,
                                  holdoutShare: Double, deviceId: String? = nil) -> WireEvent {
        WireEvent(eventId: eventId, type: .assignment, timestamp: timestamp, campaign: campaign, deviceId: deviceId,
                  arm: arm, holdoutShare: holdoutShare)
    }

    /// A conversion: what the app counts as an outcome, and the notification whose tap opened
    /// the session when the app knows it.
    public static func conversion(eventId: EventID, timestamp: Timestamp, name: String, value: Double? = nil,
                                  currency: String? = nil, notificationId: String? = nil, deviceId: String? = nil) -> WireEvent {
        WireEvent(eventId: eventId, type: .conversion, timestamp: timestamp, notificationId: notificationId,
                  name: name, value: value, currency: currency, deviceId: deviceId)
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("eventId", .string(eventId.description)),
            ("type", .string(type.rawValue)),
            ("timestamp", .string(timestamp.description)),
        ]
        if let notificationId { members.append(("notificationId", .string(notificationId))) }
        if (type != .conversion && type != .assignment) || !category.isEmpty { members.append(("category", .string(category))) }
        if let actionIdentifier { members.append(("actionIdentifier", .string(actionIdentifier))) }
        if let userTextLength { members.append(("userTextLength", .int(userTextLength))) }
        if type != .sent, type != .conversion, type != .assignment { members.append(("hasMedia", .bool(hasMedia))) }
        if !mediaTypes.isEmpty { members.append(("mediaTypes", .array(mediaTypes.map { .string($0) }))) }
        if let mediaRequested { members.append(("mediaRequested", .bool(mediaRequested))) }
        if let categoryRegistered { members.append(("categoryRegistered", .bool(categoryRegistered))) }
        if let campaign { members.append(("campaign", .string(campaign))) }
        if let variant { members.append(("variant", .string(variant))) }
        if let deliveredAt { members.append(("deliveredAt", .string(deliveredAt.description))) }
        if let name { members.append(("name", .string(name))) }
        if let value { members.append(("value", .number(JSONNumber(double: value, integer: nil)))) }
        if let currency { members.append(("currency", .string(currency))) }
        if let deviceId { members.append(("deviceId", .string(deviceId))) }
        if let arm { members.append(("arm", .string(arm))) }
        if let holdoutShare { members.append(("holdoutShare", .number(JSONNumber(double: holdoutShare, integer: nil)))) }
        return .object(members)
    }
}
