import Foundation

/// Turns plain values into events. Pure: the id and time are arguments, so every rule is tested.
public struct EventBuilder: Sendable {
    public var keys: UserInfoKeys

    public init(keys: UserInfoKeys = UserInfoKeys()) { self.keys = keys }

    /// `registeredCategories` is the set from `getNotificationCategories` when it is known; the
    /// event then says whether iOS could show the category's buttons.
    public func delivered(_ content: NotificationContentValues, notificationId: String?, id: TelemetryEventID,
                          at time: Date, registeredCategories: Set<Bytewise<String>>?) -> TelemetryEvent {
        var event = base(content, type: .delivered, id: id, at: time, registeredCategories: registeredCategories)
        event.notificationId = notificationId
        return event
    }

    public func response(_ response: NotificationResponseValues, id: TelemetryEventID, at time: Date,
                         registeredCategories: Set<Bytewise<String>>?) -> TelemetryEvent {
        var event = base(response.content, type: .response, id: id, at: time, registeredCategories: registeredCategories)
        event.notificationId = response.notificationId
        event.actionIdentifier = response.actionIdentifier
        event.userTextLength = response.userTextLength.map { max(0, $0) }
        event.deliveredAtMicros = response.deliveryDate.map { Timestamp($0).microseconds }
        return event
    }

    /// A conversion, checked by the collector's rules (`ConversionRules`) so a bad call fails here.
    /// `notificationId`: the notification the app names, else the remembered tap's within the
    /// direct window (the client decides which; this only checks it).
    public func conversion(name: String, value: Double?, currency: String?, notificationId: String?,
                           id: TelemetryEventID, at time: Date) throws(TapwireClientError) -> TelemetryEvent {
        try Self.checkConversion(name: name, value: value, currency: currency)
        if let notificationId, let problem = Self.identifierProblem(notificationId, maxBytes: Self.maxIdentifierBytes) {
            throw TapwireClientError(.invalidNotificationId, "notificationId \(problem)")
        }
        return TelemetryEvent(eventId: id, type: .conversion, timestampMicros: Timestamp(time).microseconds,
                              notificationId: notificationId, category: "", name: name, value: value, currency: currency)
    }

    /// The checks of `conversion`, each failure with its own code and the fix in the message.
    public static func checkConversion(name: String, value: Double?, currency: String?) throws(TapwireClientError) {
        if name.isEmpty { throw TapwireClientError(.invalidConversionName, "the conversion name is empty; name what was converted (purchase, signup, …)") }
        if let problem = identifierProblem(name, maxBytes: ConversionRules.maxNameBytes) {
            throw TapwireClientError(.invalidConversionName, "the conversion name \(problem)")
        }
        if let value {
            guard ConversionRules.isValue(value) else {
                throw TapwireClientError(.invalidConversionValue, "value must be a finite number from 0 to \(Int64(ConversionRules.maxValue)), got \(value); record a refund as a conversion of its own name")
            }
            guard let currency else {
                throw TapwireClientError(.invalidConversionValue, "a value needs its currency: an ISO 4217 code such as EUR")
            }
            guard ConversionRules.isCurrencyCode(currency) else {
                throw TapwireClientError(.invalidCurrency, "currency must be an ISO 4217 code of three capital letters such as EUR, got \"\(currency.prefix(16))\"")
            }
        } else if currency != nil {
            throw TapwireClientError(.invalidCurrency, "a currency is only valid with a value; pass the value too, or neither")
        }
    }

    /// The collector's limits on a notification id and on the install id, in UTF-8 bytes.
    static let maxIdentifierBytes = 256
    static let maxDeviceIdBytes = 128

    /// What the collector refuses in an identifier: a NUL character, or more than `maxBytes` bytes.
    static func identifierProblem(_ text: String, maxBytes: Int) -> String? {
        if text.utf8.contains(0) { return "contains a NUL character (U+0000), which cannot be stored" }
        if text.utf8.count > maxBytes { return "is \(text.utf8.count) UTF-8 bytes; at most \(maxBytes) are allowed" }
        return nil
    }

    private func base(_ content: NotificationContentValues, type: TelemetryEventType, id: TelemetryEventID, at time: Date,
                      registeredCategories: Set<Bytewise<String>>?) -> TelemetryEvent {
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
            categoryRegistered: category.isEmpty ? nil : registeredCategories.map { $0.contains(Bytewise(category)) },
            campaign: value(keys.campaign), variant: value(keys.variant))
    }
}
