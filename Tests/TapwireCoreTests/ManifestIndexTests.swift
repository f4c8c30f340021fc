import Testing
@testable import TapwireCore

/// What each event is checked against: its version's categories by identifier (made once per
/// index, not per event), the union for the unknown version, nil for a version without a manifest.
@Suite struct ManifestIndexTests {
    @Test func eachVersionsCategoriesTheUnionAndNone() throws {
        let chat = ManifestCategory(identifier: "chat", actions: [ManifestAction(identifier: "reply", textInput: true)])
        let chatAgain = ManifestCategory(identifier: "chat", actions: [ManifestAction(identifier: "like")])
        let promo = ManifestCategory(identifier: "promo", options: ["customDismissAction"])
        let index = ManifestIndex(["1.0": Manifest(appVersion: "1.0", categories: [chat, chatAgain]),
                                   "2.0": Manifest(appVersion: "2.0", categories: [promo, chatAgain])])
        // A repeated identifier: the first one counts.
        #expect(index.reference(for: "1.0") == ["chat": chat])
        #expect(index.reference(for: "2.0") == ["promo": promo, "chat": chatAgain])
        #expect(index.reference(for: "3.0") == nil)
        // The unknown version: every version's categories merged, actions united.
        let union = try #require(index.reference(for: ""))
        #expect(Set(union.keys) == ["chat", "promo"])
        #expect(union["chat"]?.actions.map(\.identifier) == ["reply", "like"])
        #expect(ManifestIndex([:]).reference(for: "") == nil)
        // What the detector makes of it, per event.
        let detector = MismatchDetector()
        #expect(detector.classify(appVersion: "1.0", type: .response, category: "chat", action: "like", registration: .registered,
                                  manifests: index).map(\.kind) == [.unregisteredAction])
        #expect(detector.classify(appVersion: "2.0", type: .response, category: "chat", action: "like", registration: .registered,
                                  manifests: index).isEmpty)
        #expect(detector.classify(appVersion: "3.0", type: .delivered, category: "chat", action: nil, registration: .registered,
                                  manifests: index).map(\.kind) == [.noManifest])
    }
}
