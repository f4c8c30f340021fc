import TapwireCore

/// A plain-text table: columns padded to their widest cell, identifiers longer than 40
/// characters cut with "…" so a flood of junk categories cannot wreck the layout.
enum TextTable {
    static func render(header: [String], rows: [[String]]) -> String {
        func cut(_ s: String) -> String { s.count > 40 ? String(s.prefix(39)) + "…" : s }
        let all = [header] + rows.map { $0.map { cut(TextSafety.printable($0)) } }
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var out = ""
        for row in all {
            let line = row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
            out += line + "\n"
        }
        return out
    }
}
