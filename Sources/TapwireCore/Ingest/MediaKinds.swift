/// The attachment kinds present on a notification, as a bit set (stored as a smallint).
public struct MediaKinds: OptionSet, Sendable, Hashable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    public static let image = MediaKinds(rawValue: 1)
    public static let audio = MediaKinds(rawValue: 2)
    public static let video = MediaKinds(rawValue: 4)
    public static let other = MediaKinds(rawValue: 8)

    public static let names: [(String, MediaKinds)] = [("image", .image), ("audio", .audio), ("video", .video), ("other", .other)]

    public init?(name: String) {
        guard let match = MediaKinds.names.first(where: { $0.0 == name }) else { return nil }
        self = match.1
    }

    public var nameList: [String] { MediaKinds.names.filter { contains($0.1) }.map(\.0) }
}
