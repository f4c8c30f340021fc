/// Minimal argument reading in the spirit of swift-argument-parser (which cannot be fetched
/// here): `--name value`, `--name=value`, flags, positionals; unknown options are errors.
package struct Arguments {
    private var items: [String]
    package let command: String
    /// The executable, for error messages: `tapwire`, `tapwire-bench`.
    package let program: String

    package init(_ items: [String], command: String, program: String = "tapwire") {
        self.items = items
        self.command = command
        self.program = program
    }

    package var isEmpty: Bool { items.isEmpty }

    package mutating func option(_ name: String) throws(CLIError) -> String? {
        var found: String?
        var index = 0
        while index < items.count {
            let item = items[index]
            if item == "--\(name)" {
                guard index + 1 < items.count else { throw CLIError("--\(name) needs a value") }
                found = items[index + 1]
                items.removeSubrange(index...(index + 1))
                continue
            }
            if item.hasPrefix("--\(name)=") {
                found = String(item.dropFirst(name.count + 3))
                items.remove(at: index)
                continue
            }
            index += 1
        }
        return found
    }

    package mutating func flag(_ name: String) -> Bool {
        let before = items.count
        items.removeAll { $0 == "--\(name)" }
        return items.count != before
    }

    package mutating func positional() -> String? {
        guard let index = items.firstIndex(where: { !$0.hasPrefix("--") || $0 == "--" }) else { return nil }
        return items.remove(at: index)
    }

    /// Call after reading everything: anything left over is a mistake worth saying.
    package func finish() throws(CLIError) {
        if let extra = items.first {
            throw CLIError(extra.hasPrefix("--")
                ? "unknown option \(extra) for `\(program) \(command)`; see `\(program) \(command) --help`"
                : "unexpected argument \(extra) for `\(program) \(command)`")
        }
    }

    package mutating func int(_ name: String) throws(CLIError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text) else { throw CLIError("--\(name) must be a whole number, got \(text)") }
        return value
    }

    package mutating func double(_ name: String) throws(CLIError) -> Double? {
        guard let text = try option(name) else { return nil }
        guard let value = Double(text) else { throw CLIError("--\(name) must be a number, got \(text)") }
        return value
    }
}
