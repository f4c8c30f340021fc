import Testing
import TapwireCore

/// The day's texts as ids (`TextIds`): one id per distinct UTF-8 byte string, as PostgreSQL's
/// deterministic collations tell texts apart, kept as the table grows.
@Suite struct TextIdsTests {
    @Test func textsAreToldApartByTheirBytes() {
        var texts = TextIds()
        let composed = texts.id("caf\u{E9}")
        let decomposed = texts.id("cafe\u{301}")
        // Equal as Swift Strings (canonically equivalent), not as bytes: two ids, as two rows in SQL.
        #expect("caf\u{E9}" == "cafe\u{301}")
        #expect(composed != decomposed)
        #expect(Array(texts.strings[Int(composed)].utf8) == Array("caf\u{E9}".utf8))
        #expect(Array(texts.strings[Int(decomposed)].utf8) == Array("cafe\u{301}".utf8))
        #expect(texts.id("caf\u{E9}") == composed)
        let empty = texts.id("")
        #expect(texts.id("") == empty)
        #expect(empty != composed)
        #expect(texts.count == 3)
    }

    @Test func idsSurviveTheTableGrowing() {
        var texts = TextIds()
        // '' is numbered 0 from the start (`TextId.empty`).
        #expect(texts.count == 1)
        #expect(texts.id("") == 0)
        #expect(texts.utf8(0).isEmpty)
        // Texts of every length around the hash's eight-byte words, and ones that share a prefix.
        let all = (0..<5000).map { "com.example.action.\($0)" } + (1..<40).map { String(repeating: "x", count: $0) }
        let ids = all.map { texts.id($0) }
        #expect(Set(ids).count == all.count)
        #expect(ids == Array(1...Int32(all.count)))
        for (text, id) in zip(all, ids) {
            #expect(texts.id(text) == id)
            #expect(texts.strings[Int(id)] == text)
            #expect(Array(texts.utf8(id)) == Array(text.utf8))
        }
        #expect(texts.count == all.count + 1)
    }
}
