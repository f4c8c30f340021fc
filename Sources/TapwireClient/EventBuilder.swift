import Foundation

/// Turns plain values into events. Pure: the id and time are arguments, so every rule is tested.
public struct EventBuilder: Sendable {
    public var keys: UserInfoKeys

    public init(keys: UserInfoKeys = UserInfoKeys()) { self.keys = keys }

    /// `registeredCategories` is the set from `getNotificationCategories` when it is known; the
    /// event then says whether iOS could show the category's buttons.
    public func delivered(_ content: NotificationContentValues, notificationId: String?, id: TelemetryEventID,
                          at time: Date, registeredCategories: Set<String>?) -> TelemetryEvent {
        var event = base(content, type: .delivered, id: id, at: time, registeredCategories: registeredCategories)
        event.notificationId = notificationId
        return event
    }

    public func response(_ response: NotificationResponseValues, id: TelemetryEventID, at time: Date,
                         registeredCategories: Set<String>?) -> TelemetryEvent {
        var event = base(response.content, type: .response, id: id, at: time, registeredCategories: registeredCategories)
        event.notificationId = response.notificationId
        event.actionIdentifier = response.actionIdentifier
        event.userTextLength = response.userTextLength.map { max(0, $0) }
        event.deliveredAtMicros = response.deliveryDate.map { Timestamp($0).microseconds }
        return event
    }

    private func base(_ content: NotificationContentValues, type: TelemetryEventType, id: TelemetryEventID, at time: Date,
                      registeredCategories: Set<String>?) -> TelemetryEvent {
        let kinds = Set(content.attachments.map { AttachmentKind(typeIdentifier: $0.typeIdentifier, fileExtension: $0.fileExtension) })
        let category = content.categoryIdentifier
        func value(_ key: String?) -> String? {
            guard let key, let v = content.userInfo[key], !v.isEmpty else { return nil }
            return v
        }
        return TelemetryEvent(
            eventId: id, type: type, timestampMicros: Timestamp(time).microseconds, category: category,
            hasMedia: !content.attachments.isEmpty, mediaTypes: kinds.sorted(),
            mediaRequested: keys.mediaRequest.map { content.userInfo[$0] != nil },
            // Exact, case-sensitive match, as iOS looks categories up. No category: nothing to register.
            categoryRegistered: category.isEmpty ? nil : registeredCategories.map { $0.contains(category) },
            campaign: value(keys.campaign), variant: value(keys.variant))
    }
}
