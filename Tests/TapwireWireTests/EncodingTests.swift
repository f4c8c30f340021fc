import Foundation
import Testing
@testable import TapwireWire

@Suite struct SHA256Tests {
    // FIPS 180-4 / NIST example vectors.
    @Test func knownVectors() {
        #expect(SHA256.hex(Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

@Suite struct JSONWriterTests {
    @Test func writerFormatsNumbers() {
        #expect(JSONValue.int(42).serialized() == "42")
        #expect(JSONValue.double(0.25).serialized() == "0.25")
        #expect(JSONValue.double(3).serialized() == "3")
        #expect(JSONValue.double(.nan).serialized() == "null")
        let pretty = JSONValue.object([("a", 1), ("b", [true])]).serialized(pretty: true)
        #expect(pretty == "{\n  \"a\": 1,\n  \"b\": [\n    true\n  ]\n}")
    }

    @Test func jsonEscapesAndKeepsOrder() {
        let value = JSONValue.object([("b", .string("q\"\\\n\t\u{1}é")), ("a", .array([.int(-3), .bool(true), .null]))])
        #expect(value.serialized() == #"{"b":"q\"\\\n\t\u0001é","a":[-3,true,null]}"#)
        let parsed = try? JSONSerialization.jsonObject(with: Data(value.serializedBytes())) as? [String: Any]
        #expect(parsed?["b"] as? String == "q\"\\\n\t\u{1}é")
    }
}

/// The manifest's canonical form and hash: what the SDK posts and the collector stores and
/// deduplicates by, computed by the one function both use.
@Suite struct CanonicalManifestTests {
    static let manifest = Manifest(appVersion: "3.2.1", categories: [
        ManifestCategory(identifier: "social_post", actions: [ManifestAction(identifier: "like")]),
        ManifestCategory(identifier: "message", title: "Messages", options: ["customDismissAction", "allowInCarPlay"], actions: [
            ManifestAction(identifier: "reply", title: "Reply", options: ["foreground"], textInput: true),
            ManifestAction(identifier: "delete", title: "Delete", options: ["destructive"]),
        ]),
    ])

    @Test func canonicalJSONSortsCategoriesAndOptionsButKeepsActionOrder() {
        #expect(Self.manifest.canonicalJSON.serialized() == #"{"appVersion":"3.2.1","categories":[{"identifier":"message","title":"Messages","options":["allowInCarPlay","customDismissAction"],"actions":[{"identifier":"reply","title":"Reply","options":["foreground"],"textInput":true},{"identifier":"delete","title":"Delete","options":["destructive"],"textInput":false}]},{"identifier":"social_post","title":null,"options":[],"actions":[{"identifier":"like","title":null,"options":[],"textInput":false}]}]}"#)
        #expect(Self.manifest.contentHash == SHA256.hex(Self.manifest.canonicalJSON.serializedBytes()))
        #expect(Self.manifest.contentHash.count == 64)
    }

    @Test func hashIgnoresCategoryOrderAndDuplicateOptionsButNotActionOrderOrCase() {
        var reordered = Self.manifest
        reordered.categories.reverse()
        reordered.categories[0].options = ["allowInCarPlay", "customDismissAction", "allowInCarPlay"]  // "message" now first
        #expect(reordered.contentHash == Self.manifest.contentHash)
        var actions = Self.manifest
        actions.categories[1].actions.reverse()
        #expect(actions.contentHash != Self.manifest.contentHash)
        var cased = Self.manifest
        cased.categories[1].identifier = "Message"
        #expect(cased.contentHash != Self.manifest.contentHash)
        var version = Self.manifest
        version.appVersion = "3.2.2"
        #expect(version.contentHash != Self.manifest.contentHash)
    }
}
