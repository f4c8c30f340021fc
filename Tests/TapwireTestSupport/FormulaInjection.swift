import TapwireCore

/// Spreadsheet formula injection, checked on a CSV as a spreadsheet would read it.
public enum FormulaInjection {
    /// Names a device can send that a spreadsheet would run as a formula if written as they are.
    public static let names = ["=HYPERLINK(\"x\")", "+1", "-1+1", "@SUM(A1)", "\tx", "\rx"]

    /// The cells of an RFC 4180 document: a reader for the tests, written apart from the product's writer.
    public static func cells(_ csv: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], cell = "", quoted = false, wasQuoted = false
        var scalars = csv.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? { if let p = pending { pending = nil; return p }; return scalars.next() }
        while let c = next() {
            if quoted {
                if c == "\"" {
                    if let n = scalars.next() {
                        if n == "\"" { cell.unicodeScalars.append(c) } else { quoted = false; pending = n }
                    } else { quoted = false }
                } else { cell.unicodeScalars.append(c) }
            } else if c == "\"" && cell.isEmpty && !wasQuoted {
                quoted = true; wasQuoted = true
            } else if c == "," {
                row.append(cell); cell = ""; wasQuoted = false
            } else if c == "\r", let n = scalars.next() {
                if n == "\n" { row.append(cell); rows.append(row); row = []; cell = ""; wasQuoted = false } else { cell.unicodeScalars.append(c); pending = n }
            } else {
                cell.unicodeScalars.append(c)
            }
        }
        if !cell.isEmpty || !row.isEmpty { row.append(cell); rows.append(row) }
        return rows
    }

    /// Cells a spreadsheet would run: those starting with = + - @ TAB or CR, unless a plain negative number.
    public static func liveCells(_ csv: String) -> [String] {
        cells(csv).joined().filter { cell in
            guard let first = cell.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return false }
            let plainNumber = first == "-" && Double(cell) != nil && cell.allSatisfy { "0123456789.-eE+".contains($0) }
            return !plainNumber
        }
    }

    /// The hostile names found written as text (behind a leading quote mark).
    public static func neutralised(_ csv: String) -> Set<String> {
        Set(cells(csv).joined().compactMap { $0.hasPrefix("'") ? String($0.dropFirst()) : nil }).intersection(names)
    }
}

extension FormulaInjection {
    /// Posts, with the app's write key, a manifest for version 1.0 (category `message`, action
    /// `reply`) and traffic in which every hostile name is a category, a campaign and a response
    /// action on `message`: each name reaches the report and the mismatch list.
    public static func postTraffic(_ client: HTTPTestClient, key: String) throws {
        let manifest = #"{"appVersion":"1.0","categories":[{"identifier":"message","options":[],"actions":[{"identifier":"reply","textInput":true}]}]}"#
        let posted = try client.post("/v1/categories", key: key, json: Array(manifest.utf8))
        guard posted.status == 200 else { throw TrafficRefused(response: posted.text) }
        var events: [JSONValue] = []
        for name in names {
            for rich in [true, false] {
                for _ in 0..<3 {
                    events.append(TestBatch.event("delivered", category: name, [("hasMedia", .bool(rich)), ("campaign", .string(name))]))
                }
            }
            events.append(TestBatch.event("response", category: "message", [("actionIdentifier", .string(name)), ("campaign", .string(name))]))
        }
        let batch = try client.post("/v1/batch", key: key, json: TestBatch.body(events))
        guard batch.status == 200, batch.json?["accepted"]?.numberValue?.integer == Int64(events.count) else {
            throw TrafficRefused(response: batch.text)
        }
    }

    /// Starts a collector, posts the hostile traffic for a new app and GETs `path` with its read key.
    public static func exportAfterTraffic(_ path: String) throws -> TestResponse {
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        let app = try collector.database.createApp()
        try postTraffic(collector.client(), key: app.writeKey.text)
        return try collector.client().get(path, key: app.readKey.text)
    }

    public struct TrafficRefused: Error, CustomStringConvertible {
        public var response: String
        public var description: String { "the collector refused the hostile traffic: \(response.prefix(500))" }
    }
}
