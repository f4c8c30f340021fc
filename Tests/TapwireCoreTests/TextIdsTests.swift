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

    /// A key's text from its UTF-8 bytes (`RollupText.text(utf8:numberingIn:)`, what the fold's
    /// reader makes of each text field): the String of those bytes, or their id, numbered in the
    /// tally's texts once, told apart by bytes; '' is the empty text either way.
    @Test func aKeysTextFromItsBytes() {
        let samples = ["caf\u{E9}", "cafe\u{301}", "", "com.example.campaign.7", "caf\u{E9}"]
        var strings = RollupTally<String>()
        var ids = RollupTally<TextId>()
        var made: [TextId] = []
        for sample in samples {
            let bytes = Array(sample.utf8)
            #expect(Array(strings.text(bytes.span.bytes).utf8) == bytes)
            made.append(ids.text(bytes.span.bytes))
        }
        // The Strings' tally numbers nothing; the ids' numbers each distinct byte string once.
        #expect(strings.texts.count == 1)
        #expect(ids.texts.count == 4)
        #expect(made[0] == made[4])
        #expect(made[0] != made[1])
        #expect(made[2] == TextId.empty)
        for (sample, id) in zip(samples, made) { #expect(Array(ids.texts.utf8(id.id)) == Array(sample.utf8)) }
        var texts = TextIds()
        let a = Array("a".utf8), tab = Array("tab\there".utf8)
        #expect(TextId.text(utf8: a.span.bytes, numberingIn: &texts) == TextId(texts.id("a")))
        #expect(String.text(utf8: tab.span.bytes, numberingIn: &texts) == "tab\there")
        #expect(texts.count == 2)
    }
}
