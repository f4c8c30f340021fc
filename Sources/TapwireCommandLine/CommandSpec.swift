import Foundation

/// A subcommand: its name, a one-line summary, its usage text and what it runs.
package struct CommandSpec: Sendable {
    package var name: String
    package var summary: String
    package var usage: @Sendable () -> String
    package var run: @Sendable (inout Arguments) throws -> Int32

    package init(_ name: String, _ summary: String, _ usage: @escaping @Sendable () -> String,
                 _ run: @escaping @Sendable (inout Arguments) throws -> Int32) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.run = run
    }
}
