import Foundation

/// Which user-info keys carry campaign, variant and a media request. Push backends differ, so
/// these are configuration, not constants.
public struct UserInfoKeys: Sendable, Equatable {
    public var campaign: String?
    public var variant: String?
    /// A key whose presence means the payload asked for media (the Service Extension downloads it).
    public var mediaRequest: String?

    public init(campaign: String? = "campaign", variant: String? = "variant", mediaRequest: String? = "media-url") {
        self.campaign = campaign
        self.variant = variant
        self.mediaRequest = mediaRequest
    }
}
