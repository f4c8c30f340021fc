// A stand-in for Apple's UserNotifications framework, for type-checking TapwireClient's Apple
// adapter on Linux (check.sh). An interface description only: the bodies never run.
//
// Written from Apple's public SDK headers (UserNotifications.framework/Headers/*.h), the
// iOS 13 / macOS 10.15 generation (they spell the macros __API_AVAILABLE / __API_UNAVAILABLE), with
// UNNotificationCategory.h from the later SDK that marks allowAnnouncement deprecated (API_…). Types, nullability and Swift names follow the headers' import
// rules (NSString * -> String, NSSet<T *> * -> Set<T>, NSDictionary * -> [AnyHashable: Any],
// `URL` -> `url`, `currentNotificationCenter` -> `current()`).
//
// Each declaration carries a `//@ <header>: <availability>` line quoting the header's macros.
// check.sh turns every line naming a platform in API_UNAVAILABLE(...) into
// `@available(*, unavailable)` in that platform's view. visionOS: these headers predate it, and
// clang infers a declaration's visionOS availability from its iOS annotation (swiftlang/llvm-project
// "Infer visionOS availability from iOS availability"), so visionOS is unavailable only where iOS is.
// A member without macros of its own has its class's availability (Swift applies the class's
// `unavailable` to every member, so those lines only name the header).
//
// Every API_AVAILABLE version below (iOS 10-13, macOS 10.14, watchOS 3-6) is older than the
// package's deployment targets (iOS 16, macOS 15, watchOS 9, tvOS 16, visionOS 1), so only
// unavailability is enforced.
//
// Not mirrored: what the adapter does not touch (triggers, sounds, settings, the delegate
// protocol, UNMutableNotificationContent's setters).
import Foundation

// MARK: UNNotificationAttachment.h

//@ UNNotificationAttachment.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
open class UNNotificationAttachment: NSObject {
    //@ UNNotificationAttachment.h: as its class (NSString *identifier)
    open var identifier: String { fatalError("stand-in") }
    //@ UNNotificationAttachment.h: as its class (NSURL *URL)
    open var url: URL { fatalError("stand-in") }
    //@ UNNotificationAttachment.h: as its class (NSString *type, the UTI)
    open var type: String { fatalError("stand-in") }
}

// MARK: UNNotificationContent.h

//@ UNNotificationContent.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0), tvos(10.0))
open class UNNotificationContent: NSObject {
    //@ UNNotificationContent.h: API_UNAVAILABLE(tvos) (NSArray<UNNotificationAttachment *> *attachments)
    open var attachments: [UNNotificationAttachment] { fatalError("stand-in") }
    //@ UNNotificationContent.h: as its class (nullable NSNumber *badge)
    open var badge: NSNumber? { fatalError("stand-in") }
    //@ UNNotificationContent.h: API_UNAVAILABLE(tvos) (NSString *body)
    open var body: String { fatalError("stand-in") }
    //@ UNNotificationContent.h: API_UNAVAILABLE(tvos) (NSString *categoryIdentifier)
    open var categoryIdentifier: String { fatalError("stand-in") }
    //@ UNNotificationContent.h: API_UNAVAILABLE(macos, tvos) (NSString *launchImageName)
    open var launchImageName: String { fatalError("stand-in") }
    //@ UNNotificationContent.h: API_UNAVAILABLE(tvos) (NSString *subtitle)
    open var subtitle: String { fatalError("stand-in") }
    //@ UNNotificationContent.h: API_UNAVAILABLE(tvos) (NSString *threadIdentifier)
    open var threadIdentifier: String { fatalError("stand-in") }
    //@ UNNotificationContent.h: API_UNAVAILABLE(tvos) (NSString *title)
    open var title: String { fatalError("stand-in") }
    //@ UNNotificationContent.h: API_UNAVAILABLE(tvos) (NSDictionary *userInfo)
    open var userInfo: [AnyHashable: Any] { fatalError("stand-in") }
    //@ UNNotificationContent.h: API_AVAILABLE(ios(13_0)) (nullable NSString *targetContentIdentifier; the header's spelling)
    open var targetContentIdentifier: String? { fatalError("stand-in") }
}

// MARK: UNNotificationRequest.h

//@ UNNotificationRequest.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0), tvos(10.0))
open class UNNotificationRequest: NSObject {
    //@ UNNotificationRequest.h: as its class (NSString *identifier)
    open var identifier: String { fatalError("stand-in") }
    //@ UNNotificationRequest.h: as its class (UNNotificationContent *content)
    open var content: UNNotificationContent { fatalError("stand-in") }
}

// MARK: UNNotification.h

//@ UNNotification.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0), tvos(10.0))
open class UNNotification: NSObject {
    //@ UNNotification.h: as its class (NSDate *date)
    open var date: Date { fatalError("stand-in") }
    //@ UNNotification.h: as its class (UNNotificationRequest *request)
    open var request: UNNotificationRequest { fatalError("stand-in") }
}

// MARK: UNNotificationResponse.h

//@ UNNotificationResponse.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
public let UNNotificationDefaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
//@ UNNotificationResponse.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
public let UNNotificationDismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"

//@ UNNotificationResponse.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
open class UNNotificationResponse: NSObject {
    //@ UNNotificationResponse.h: as its class (UNNotification *notification)
    open var notification: UNNotification { fatalError("stand-in") }
    //@ UNNotificationResponse.h: as its class (NSString *actionIdentifier)
    open var actionIdentifier: String { fatalError("stand-in") }
}

//@ UNNotificationResponse.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
open class UNTextInputNotificationResponse: UNNotificationResponse {
    //@ UNNotificationResponse.h: as its class (NSString *userText)
    open var userText: String { fatalError("stand-in") }
}

// MARK: UNNotificationAction.h

//@ UNNotificationAction.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
public struct UNNotificationActionOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    //@ UNNotificationAction.h: as its type (UNNotificationActionOptionAuthenticationRequired = 1 << 0)
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    //@ UNNotificationAction.h: as its type (UNNotificationActionOptionDestructive = 1 << 1)
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    //@ UNNotificationAction.h: as its type (UNNotificationActionOptionForeground = 1 << 2)
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}

//@ UNNotificationAction.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
open class UNNotificationAction: NSObject {
    //@ UNNotificationAction.h: as its class (NSString *identifier)
    open var identifier: String { fatalError("stand-in") }
    //@ UNNotificationAction.h: as its class (NSString *title)
    open var title: String { fatalError("stand-in") }
    //@ UNNotificationAction.h: as its class (UNNotificationActionOptions options)
    open var options: UNNotificationActionOptions { fatalError("stand-in") }
}

//@ UNNotificationAction.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
open class UNTextInputNotificationAction: UNNotificationAction {
    //@ UNNotificationAction.h: as its class (NSString *textInputButtonTitle)
    open var textInputButtonTitle: String { fatalError("stand-in") }
    //@ UNNotificationAction.h: as its class (NSString *textInputPlaceholder)
    open var textInputPlaceholder: String { fatalError("stand-in") }
}

// MARK: UNNotificationCategory.h

//@ UNNotificationCategory.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
public struct UNNotificationCategoryOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    //@ UNNotificationCategory.h: as its type (UNNotificationCategoryOptionCustomDismissAction = 1 << 0)
    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
    //@ UNNotificationCategory.h: API_UNAVAILABLE(macos) (UNNotificationCategoryOptionAllowInCarPlay = 1 << 1)
    public static let allowInCarPlay = UNNotificationCategoryOptions(rawValue: 1 << 1)
    //@ UNNotificationCategory.h: API_AVAILABLE(macos(10.14), ios(11.0)) API_UNAVAILABLE(watchos, tvos) (UNNotificationCategoryOptionHiddenPreviewsShowTitle = 1 << 2)
    public static let hiddenPreviewsShowTitle = UNNotificationCategoryOptions(rawValue: 1 << 2)
    //@ UNNotificationCategory.h: API_AVAILABLE(macos(10.14), ios(11.0)) API_UNAVAILABLE(watchos, tvos) (UNNotificationCategoryOptionHiddenPreviewsShowSubtitle = 1 << 3)
    public static let hiddenPreviewsShowSubtitle = UNNotificationCategoryOptions(rawValue: 1 << 3)
    //@ UNNotificationCategory.h: API_DEPRECATED("Announcement option is ignored", ios(13.0, 15.0), watchos(6.0, 7.0)) API_UNAVAILABLE(macos, tvos) (UNNotificationCategoryOptionAllowAnnouncement = 1 << 4)
    public static let allowAnnouncement = UNNotificationCategoryOptions(rawValue: 1 << 4)
}

//@ UNNotificationCategory.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0)) API_UNAVAILABLE(tvos)
open class UNNotificationCategory: NSObject {
    //@ UNNotificationCategory.h: as its class (NSString *identifier)
    open var identifier: String { fatalError("stand-in") }
    //@ UNNotificationCategory.h: as its class (NSArray<UNNotificationAction *> *actions)
    open var actions: [UNNotificationAction] { fatalError("stand-in") }
    //@ UNNotificationCategory.h: as its class (NSArray<NSString *> *intentIdentifiers)
    open var intentIdentifiers: [String] { fatalError("stand-in") }
    //@ UNNotificationCategory.h: as its class (UNNotificationCategoryOptions options)
    open var options: UNNotificationCategoryOptions { fatalError("stand-in") }
    //@ UNNotificationCategory.h: API_AVAILABLE(ios(11.0)) API_UNAVAILABLE(watchos, tvos) (NSString *hiddenPreviewsBodyPlaceholder)
    open var hiddenPreviewsBodyPlaceholder: String { fatalError("stand-in") }
    //@ UNNotificationCategory.h: API_AVAILABLE(ios(12.0)) API_UNAVAILABLE(watchos, tvos) (NSString *categorySummaryFormat)
    open var categorySummaryFormat: String { fatalError("stand-in") }
}

// MARK: UNUserNotificationCenter.h

//@ UNUserNotificationCenter.h: API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0), tvos(10.0))
open class UNUserNotificationCenter: NSObject {
    //@ UNUserNotificationCenter.h: as its class (+ (UNUserNotificationCenter *)currentNotificationCenter)
    open class func current() -> UNUserNotificationCenter { fatalError("stand-in") }
    //@ UNUserNotificationCenter.h: as its class (BOOL supportsContentExtensions)
    open var supportsContentExtensions: Bool { fatalError("stand-in") }
    //@ UNUserNotificationCenter.h: API_UNAVAILABLE(tvos) (- setNotificationCategories:(NSSet<UNNotificationCategory *> *))
    open func setNotificationCategories(_ categories: Set<UNNotificationCategory>) { fatalError("stand-in") }
    // The block is declared @Sendable here, the stricter reading: the system calls it on a queue
    // of its own, and a @Sendable closure is accepted by a non-Sendable block parameter as well.
    //@ UNUserNotificationCenter.h: API_UNAVAILABLE(tvos) (- getNotificationCategoriesWithCompletionHandler:(void(^)(NSSet<UNNotificationCategory *> *categories)))
    open func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) { fatalError("stand-in") }
}
