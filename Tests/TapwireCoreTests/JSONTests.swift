import Testing
@testable import TapwireCore

@Suite struct JSONParserTests {
    @Test func parsesNestedDocumentKeepingOrder() throws {
        let value = try JSONParser().parse(#"{"b": [1, -2.5e3, true, null], "a": {"x": "y"}}"#)
        let object = try #require(value.objectValue)
        #expect(object.members.map(\.key) == ["b", "a"])
        #expect(value["b"]?.arrayValue?.count == 4)
        #expect(value["b"]?.arrayValue?[1].numberValue?.double == -2500)
        #expect(value["b"]?.arrayValue?[0].numberValue?.integer == 1)
        #expect(value["a"]?["x"]?.stringValue == "y")
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONParser().parse(#""tab\there \"q\" \\ \u00e9 \ud83d\ude00 \/""#)
        #expect(value.stringValue == "tab\there \"q\" \\ é 😀 /")
    }

    @Test(arguments: ["{", "[1,]", "{\"a\" 1}", "tru", "01", "1.", "-", "NaN", "Infinity", "\"abc", "{} x", "[1 2]", "\"\\x\""])
    func rejectsMalformed(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser().parse(text) }
    }

    @Test func rejectsInvalidUTF8WithItsOwnKind() {
        let bytes: [UInt8] = Array("{\"a\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        do {
            _ = try JSONParser().parse(bytes)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .invalidUTF8)
        }
    }

    @Test func rejectsOverlongAndSurrogateUTF8() {
        #expect(!UTF8Validation.isValid([0xC0, 0xAF]))
        #expect(!UTF8Validation.isValid([0xED, 0xA0, 0x80]))
        #expect(!UTF8Validation.isValid([0xF4, 0x90, 0x80, 0x80]))
        #expect(UTF8Validation.isValid(Array("héllo 😀".utf8)))
    }

    @Test func limitsDepth() {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        do {
            _ = try JSONParser(maxDepth: 32).parse(deep)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .tooDeep)
        }
        #expect((try? JSONParser(maxDepth: 64).parse(deep)) != nil)
    }

    @Test func remembersDuplicateKeys() throws {
        let value = try JSONParser().parse(#"{"a": 1, "b": 2, "a": 3}"#)
        #expect(value.objectValue?.duplicateKey == "a")
    }

    @Test func hugeNumbersParseAsNonIntegers() throws {
        let value = try JSONParser().parse("[1e400, 99999999999999999999]")
        #expect(value.arrayValue?[0].numberValue?.double == .infinity)
        #expect(value.arrayValue?[1].numberValue?.integer == nil)
    }

    @Test func keepsRawControlCharactersForLaterValidation() throws {
        let bytes: [UInt8] = [0x22, 0x61, 0x00, 0x62, 0x22]
        #expect(try JSONParser().parse(bytes).stringValue == "a\u{0}b")
    }

    @Test func writerRoundTripsEveryControlCharacter() throws {
        let original = String((0..<0x20).map { Character(Unicode.Scalar($0)!) }) + "\"\\é"
        let text = JSONValue.string(original).serialized()
        #expect(try JSONParser().parse(text).stringValue == original)
    }
}
