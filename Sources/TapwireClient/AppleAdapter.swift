// The Apple adapter: converts UserNotifications types into the core's plain values and nothing
// more; every decision (what is sent, ids, queueing, retries) lives in the tested core.
//
// It cannot be compiled on the Linux machines this project builds on, so it is kept small enough
// to check by reading. Each line maps one Apple property onto one plain-value field.
#if canImport(UserNotifications)
import Foundation
import UserNotifications

extension TapwireClient {
    /// For `userNotificationCenter(_:didReceive:…)`. Synchronous: the event is on disk when this
    /// returns, so call iOS's completion handler after it. For a text reply only the length of
    /// `userText` is recorded, never the text. Errors go to `configuration.onError`.
    @discardableResult
    public func record(_ response: UNNotificationResponse, center: UNUserNotificationCenter = .current()) -> TelemetryEventID? {
        let request = response.notification.request
        let values = NotificationResponseValues(
            actionIdentifier: response.actionIdentifier,
            notificationId: request.identifier,
            deliveryDate: response.notification.date,
            content: Self.values(request.content),
            userTextLength: (response as? UNTextInputNotificationResponse).map { NotificationResponseValues.textLength(of: $0.userText) })
        do {
            return try recordResponse(values, registeredCategories: Self.registeredIdentifiers(center))
        } catch {
            configuration.onError?(error)
            return nil
        }
    }

    /// For a Notification Service Extension (pass the final content, after attachments were
    /// added, then call the content handler) and for `willPresent`. Synchronous, like `record`.
    @discardableResult
    public func recordDelivery(_ content: UNNotificationContent, notificationId: String? = nil,
                               center: UNUserNotificationCenter = .current()) -> TelemetryEventID? {
        do {
            return try recordDelivery(Self.values(content), notificationId: notificationId,
                                      registeredCategories: Self.registeredIdentifiers(center))
        } catch {
            configuration.onError?(error)
            return nil
        }
    }

    /// The categories registered on this device, from `getNotificationCategories`, waiting at
    /// most half a second (its callback runs on a background queue, so this cannot deadlock);
    /// nil when it did not answer in time, and the event then leaves `categoryRegistered` out.
    static func registeredIdentifiers(_ center: UNUserNotificationCenter) -> Set<String>? {
        let answer = Locked<Set<String>?>(nil)
        let done = DispatchSemaphore(value: 0)
        center.getNotificationCategories { categories in
            let identifiers = Set(categories.map(\.identifier))
            answer.withLock { $0 = identifiers }
            done.signal()
        }
        guard done.wait(timeout: .now() + 0.5) == .success else { return nil }
        return answer.withLock { $0 }
    }

    /// Posts the registered categories when they changed since the last successful sync. Call it
    /// after `setNotificationCategories(_:)`.
    public func syncCategories(from center: UNUserNotificationCenter = .current(),
                               completion: (@Sendable (ManifestSyncResult) -> Void)? = nil) {
        let appVersion = configuration.device.appVersion
        center.getNotificationCategories { categories in
            let manifest = CategoryManifest(appVersion: appVersion, categories: categories.map(Self.registered))
            Task {
                let result = await self.syncManifest(manifest)
                completion?(result)
            }
        }
    }

    static func values(_ content: UNNotificationContent) -> NotificationContentValues {
        var userInfo: [String: String] = [:]
        for (key, value) in content.userInfo {
            guard let key = key as? String else { continue }
            if let text = value as? String {
                userInfo[key] = text
            } else if let number = value as? NSNumber {
                userInfo[key] = number.stringValue
            }
        }
        return NotificationContentValues(
            categoryIdentifier: content.categoryIdentifier,
            attachments: content.attachments.map { AttachmentValues(typeIdentifier: $0.type, fileExtension: $0.url.pathExtension) },
            userInfo: userInfo)
    }

    static func registered(_ category: UNNotificationCategory) -> RegisteredCategory {
        var options: [String] = []
        if category.options.contains(.customDismissAction) { options.append("customDismissAction") }
        #if os(iOS)
        if category.options.contains(.allowInCarPlay) { options.append("allowInCarPlay") }
        #endif
        #if os(iOS) || os(macOS)
        if category.options.contains(.hiddenPreviewsShowTitle) { options.append("hiddenPreviewsShowTitle") }
        if category.options.contains(.hiddenPreviewsShowSubtitle) { options.append("hiddenPreviewsShowSubtitle") }
        if !category.hiddenPreviewsBodyPlaceholder.isEmpty { options.append("hiddenPreviewsBodyPlaceholder") }
        #endif
        return RegisteredCategory(identifier: category.identifier, options: options, actions: category.actions.map { action in
            var actionOptions: [String] = []
            if action.options.contains(.foreground) { actionOptions.append("foreground") }
            if action.options.contains(.destructive) { actionOptions.append("destructive") }
            if action.options.contains(.authenticationRequired) { actionOptions.append("authenticationRequired") }
            return RegisteredAction(identifier: action.identifier, title: action.title, options: actionOptions,
                                    textInput: action is UNTextInputNotificationAction)
        })
    }
}

extension DeviceInfo {
    /// appVersion and build from the main bundle, the platform and OS version from the system.
    /// No device identifier: pass one yourself only if you choose to.
    public static func current(deviceId: String? = nil) -> DeviceInfo {
        let info = Bundle.main.infoDictionary ?? [:]
        let os = ProcessInfo.processInfo.operatingSystemVersion
        #if os(iOS)
        let platform = "iOS"
        #elseif os(watchOS)
        let platform = "watchOS"
        #elseif os(macOS)
        let platform = "macOS"
        #elseif os(tvOS)
        let platform = "tvOS"
        #else
        let platform = "visionOS"
        #endif
        return DeviceInfo(appVersion: info["CFBundleShortVersionString"] as? String ?? "",
                          build: info["CFBundleVersion"] as? String, platform: platform,
                          osVersion: "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)", deviceId: deviceId)
    }
}
#endif
