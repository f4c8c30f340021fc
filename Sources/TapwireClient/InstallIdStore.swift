import Foundation

/// The file holding the generated install id (`install-id`: the UUID as text), in a directory
/// the app may share with its extensions so all of them send one id.
struct InstallIdStore: Sendable {
    let file: URL
    let durability: QueueDurability

    init(directory: URL, durability: QueueDurability) {
        file = directory.appendingPathComponent(Self.fileName)
        self.durability = durability
    }

    static let fileName = "install-id"

    /// The kept id, made now if there is none (or the file is damaged). Another process making
    /// one at the same moment wins or loses as a whole: both end up with the same id.
    func loadOrCreate() throws(QueueError) -> String {
        if let kept = read() { return kept }
        try FileManager.default.createDirectoryIfMissing(file.deletingLastPathComponent())
        let fresh = Self.generate()
        if try DurableFile.create(file, with: Array(fresh.utf8), durability: durability) { return fresh }
        if let kept = read() { return kept }
        // There, but damaged: replaced.
        try write(fresh)
        return fresh
    }

    /// Keeps `id` in place of the kept one.
    func write(_ id: String) throws(QueueError) {
        try FileManager.default.createDirectoryIfMissing(file.deletingLastPathComponent())
        try DurableFile.replace(file, with: Array(id.utf8), durability: durability)
    }

    func remove() throws(QueueError) { try DurableFile.remove(file, durability: durability) }

    func read() -> String? {
        guard let bytes = DurableFile.read(file), let text = String(bytes: bytes, encoding: .utf8),
              let uuid = UUID(uuidString: text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return uuid.uuidString.lowercased()
    }

    /// A random (version 4) UUID, lower case: 122 random bits, nothing derived from the device or the person.
    static func generate() -> String { UUID().uuidString.lowercased() }
}

extension FileManager {
    func createDirectoryIfMissing(_ url: URL) throws(QueueError) {
        do {
            try createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw QueueError(.io, "cannot create the directory \(url.path): \(error)")
        }
    }
}
