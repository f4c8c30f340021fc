import Foundation
import TapwireCore

/// Grafana's substitution for its PostgreSQL data source, done the way Grafana does it, so a
/// panel's SQL can be run here: template variables first (the frontend's interpolation for SQL
/// data sources: a single value raw, multi-value and include-all values quoted and joined with
/// commas, a custom "all" value raw), then `$__interval`, then the macros, as the backend's macro
/// engine expands them (`$__timeFilter(c)` → `c BETWEEN 'from' AND 'to'` in RFC 3339 UTC,
/// `$__timeGroup(c, '1h')` → `floor(extract(epoch from c)/3600)*3600`, `…Alias` adds
/// `AS "time"`). Unknown macros are errors, as in Grafana.
enum GrafanaQuery {
    enum Value {
        case single(String)
        case multi([String])
        /// The "All" option: the custom all value if the variable has one, else every option.
        case all(allValue: String?, options: [String])
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    static func render(_ value: Value) -> String {
        switch value {
        case let .single(text): return text
        case let .multi(values): return values.map(quote).joined(separator: ",")
        case let .all(allValue, options): return allValue ?? options.map(quote).joined(separator: ",")
        }
    }

    static func replace(_ pattern: String, in text: String, _ transform: ([String]) throws -> String) throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        let ns = text as NSString
        var out = ""
        var last = 0
        for match in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            out += ns.substring(with: NSRange(location: last, length: match.range.location - last))
            let groups = (0..<match.numberOfRanges).map { i -> String in
                let r = match.range(at: i)
                return r.location == NSNotFound ? "" : ns.substring(with: r)
            }
            out += try transform(groups + [String(match.range.location + match.range.length)])
            last = match.range.location + match.range.length
        }
        return out + ns.substring(from: last)
    }

    static func interpolateVariables(_ sql: String, _ variables: [String: Value]) throws -> String {
        var text = sql
        for (name, value) in variables.sorted(by: { $0.key.count > $1.key.count }) {
            let rendered = render(value)
            text = try replace("\\$\\{\(name)(?::[a-z]+)?\\}|\\$\(name)(?![A-Za-z0-9_])", in: text) { _ in rendered }
        }
        return text
    }

    /// RFC 3339 with nanoseconds as Go prints it: the fraction without trailing zeros.
    static func rfc3339(_ time: Timestamp) -> String {
        var text = time.iso8601(fractionDigits: 6)
        guard let dot = text.lastIndex(of: "."), text.hasSuffix("Z") else { return text }
        var fraction = String(text[text.index(after: dot)..<text.index(before: text.endIndex)])
        while fraction.hasSuffix("0") { fraction.removeLast() }
        text = String(text[..<dot]) + (fraction.isEmpty ? "" : "." + fraction) + "Z"
        return text
    }

    /// Grafana interval strings: 30s, 5m, 1h, 1d, 1w (and ms).
    static func seconds(_ interval: String) throws -> Double {
        let text = interval.trimmingCharacters(in: CharacterSet(charactersIn: "' "))
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800), ("y", 31_536_000)]
        for (unit, factor) in units where text.hasSuffix(unit) {
            if let number = Double(text.dropLast(unit.count)) { return number * factor }
        }
        throw Failure(description: "error parsing interval \(interval)")
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }

    static func expandMacros(_ sql: String, from: Timestamp, to: Timestamp) throws -> String {
        try replace("\\$([_a-zA-Z0-9]+)\\(([^\\)]*)\\)", in: sql) { groups in
            var name = groups[1]
            let args = groups[2].split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            // Grafana: `$__timeGroup(…),` (a comma right after) is the pre-5.3 aliasing form.
            if name == "__timeGroup", let end = Int(groups[3]), end < sql.utf16.count,
               (sql as NSString).substring(with: NSRange(location: end, length: 1)) == "," {
                name = "__timeGroupAlias"
            }
            return try evaluate(name, args, from: from, to: to)
        }
    }

    static func evaluate(_ name: String, _ args: [String], from: Timestamp, to: Timestamp) throws -> String {
        func column() throws -> String {
            guard let first = args.first, !first.isEmpty else { throw Failure(description: "missing time column argument for macro \(name)") }
            return first
        }
        switch name {
        case "__time": return "\(try column()) AS \"time\""
        case "__timeEpoch": return "extract(epoch from \(try column())) as \"time\""
        case "__timeFilter": return "\(try column()) BETWEEN '\(rfc3339(from))' AND '\(rfc3339(to))'"
        case "__timeFrom": return "'\(rfc3339(from))'"
        case "__timeTo": return "'\(rfc3339(to))'"
        case "__timeGroup", "__timeGroupAlias":
            guard args.count >= 2 else { throw Failure(description: "macro \(name) needs time column and interval and optional fill value") }
            let s = number(try seconds(args[1]))
            let group = "floor(extract(epoch from \(args[0]))/\(s))*\(s)"
            return name == "__timeGroup" ? group : group + " AS \"time\""
        case "__unixEpochFilter":
            let c = try column()
            return "\(c) >= \(from.microseconds / 1_000_000) AND \(c) <= \(to.microseconds / 1_000_000)"
        case "__unixEpochFrom": return String(from.microseconds / 1_000_000)
        case "__unixEpochTo": return String(to.microseconds / 1_000_000)
        default: throw Failure(description: "unknown macro \"\(name)\"")
        }
    }

    /// A panel's SQL as Grafana sends it to PostgreSQL.
    static func interpolate(_ sql: String, variables: [String: Value], from: Timestamp, to: Timestamp,
                            interval: String = "1h") throws -> String {
        var text = try interpolateVariables(sql, variables)
        let ms = number(try seconds(interval) * 1000)
        text = text.replacingOccurrences(of: "$__interval_ms", with: ms).replacingOccurrences(of: "${__interval_ms}", with: ms)
        text = text.replacingOccurrences(of: "$__interval", with: interval).replacingOccurrences(of: "${__interval}", with: interval)
        return try expandMacros(text, from: from, to: to)
    }
}
