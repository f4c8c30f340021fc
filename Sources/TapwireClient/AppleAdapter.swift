// The Apple adapter: converts UserNotifications types into the core's plain values and nothing
// more; every decision (what is sent, ids, queueing, retries, the registered-category set) lives
// in the tested core.
//
// Apple's SDK cannot be used on the Linux machines this project builds on. `make test` type-checks
// this file for iOS, macOS, watchOS, tvOS and visionOS against a UserNotifications stand-in
// written from Apple's headers (Tests/AppleAdapterCheck), so each `#if` below is what the headers'
// availability macros require, no more.
#if canImport(UserNotifications)
import Foundation
import UserNotifications

// tvOS has no responses, categories, user info or attachments (API_UNAVAILABLE(tvos) in
// UNNotificationResponse.h, UNNotificationCategory.h, UNNotificationContent.h and
// UNUserNotificationCenter.h), so there is nothing to record there; DeviceInfo.current stays.
#if !os(tvOS)
extension TapwireClient {
    /// For `userNotificationCenter(_:didReceive:…)`. Synchronous: the event is on disk when this
    /// returns, so call the system's completion handler after it. For a text reply only the length
    /// of `userText` is recorded, never the text. `categoryRegistered` comes from the set the
    /// client keeps (`refreshCategories`, `syncCategories`): no call to the system, no wait.
    /// A tap (any action but dismiss) is remembered on disk, so `recordConversion` within
    /// `configuration.directWindow` names this notification. Errors go to `configuration.onError`.
    @discardableResult
    public func record(_ response: UNNotificationResponse) -> TelemetryEventID? {
        let request = response.notification.request
        let values = NotificationResponseValues(
            actionIdentifier: response.actionIdentifier,
            notificationId: request.identifier,
            deliveryDate: response.notification.date,
            content: Self.values(request.content),
            userTextLength: (response as? UNTextInputNotificationResponse).map { NotificationResponseValues.textLength(of: $0.userText) })
        do {
            return try recordResponse(values)
        } catch {
            configuration.onError?(error)
            return nil
        }
    }

    /// For a Notification Service Extension (pass the final content, after attachments were
    /// added, then call the content handler) and for `willPresent`. Synchronous, like `record`.
    @discardableResult
    public func recordDelivery(_ content: UNNotificationContent, notificationId: String? = nil) -> TelemetryEventID? {
        do {
            return try recordDelivery(Self.values(content), notificationId: notificationId)
        } catch {
            configuration.onError?(error)
            return nil
        }
    }

    /// Reads the registered categories and keeps them for `record…` (persisted next to the queue).
    /// Call it where the client is made: in the Notification Service Extension, and in an app that
    /// does not call `syncCategories()` at launch. `completion` runs once the set is kept.
    public func refreshCategories(from center: UNUserNotificationCenter = .current(),
                                  completion: (@Sendable () -> Void)? = nil) {
        let appVersion = configuration.device.appVersion
        center.getNotificationCategories { categories in
            self.refreshRegisteredCategories(Self.manifest(appVersion: appVersion, categories))
            completion?()
        }
    }

    /// Reads the registered categories, keeps them for `record…`, and posts them when they changed
    /// since the last successful sync. Call it at launch, after `setNotificationCategories(_:)`.
    public func syncCategories(from center: UNUserNotificationCenter = .current(),
                               completion: (@Sendable (ManifestSyncResult) -> Void)? = nil) {
        let appVersion = configuration.device.appVersion
        center.getNotificationCategories { categories in
            let manifest = Self.manifest(appVersion: appVersion, categories)
            Task {
                let result = await self.syncCategories(manifest)
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

    static func manifest(appVersion: String, _ categories: Set<UNNotificationCategory>) -> CategoryManifest {
        CategoryManifest(appVersion: appVersion, categories: categories.map(registered))
    }

    /// Every option is read on every platform whose headers declare it, so one app version posts
    /// one manifest from all its devices.
    static func registered(_ category: UNNotificationCategory) -> RegisteredCategory {
        var options: [String] = []
        if category.options.contains(.customDismissAction) { options.append("customDismissAction") }
        // API_UNAVAILABLE(macos) in UNNotificationCategory.h.
        #if !os(macOS)
        if category.options.contains(.allowInCarPlay) { options.append("allowInCarPlay") }
        #endif
        // API_UNAVAILABLE(watchos, tvos) in UNNotificationCategory.h.
        #if !os(watchOS)
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
#endif

extension DeviceInfo {
    /// appVersion and build from the main bundle, the platform and OS version from the system.
    /// `deviceId` nil (the default): the client sends the install id it generates; pass a
    /// pseudonymous id of your own only if you keep one (never the IDFA or the IDFV).
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
