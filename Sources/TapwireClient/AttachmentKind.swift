import Foundation

/// The kind of a notification attachment, as the collector counts media.
public enum AttachmentKind: String, Sendable, CaseIterable, Hashable, Comparable {
    case image, audio, video, other

    public static func < (a: AttachmentKind, b: AttachmentKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Classifies an attachment by its uniform type identifier (`UNNotificationAttachment.type`),
    /// falling back to the file extension; Apple's supported formats are listed in docs/domain.md,
    /// "Attachments and rich notifications".
    public init(typeIdentifier: String?, fileExtension: String?) {
        let uti = (typeIdentifier ?? "").lowercased()
        switch uti {
        case "public.jpeg", "public.png", "com.compuserve.gif", "public.heic", "public.image", "public.tiff":
            self = .image; return
        case "public.aiff-audio", "public.aifc-audio", "com.microsoft.waveform-audio", "public.mp3",
             "public.mpeg-4-audio", "public.audio", "com.apple.m4a-audio":
            self = .audio; return
        case "public.mpeg", "public.mpeg-2-video", "public.mpeg-4", "public.avi", "public.movie",
             "public.video", "com.apple.quicktime-movie", "com.apple.m4v-video":
            self = .video; return
        default: break
        }
        switch (fileExtension ?? "").lowercased() {
        case "jpg", "jpeg", "png", "gif", "heic": self = .image
        case "aif", "aiff", "aifc", "wav", "mp3", "m4a": self = .audio
        case "mpg", "mpeg", "mp2", "mp4", "m4v", "avi", "mov": self = .video
        default: self = .other
        }
    }
}
