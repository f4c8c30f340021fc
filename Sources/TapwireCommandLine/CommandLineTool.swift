import CStdio
import Foundation

/// An executable made of subcommands (`tapwire`, `tapwire-bench`): help, dispatch, and errors
/// printed as "<program>: <message>" with exit code 2.
package struct CommandLineTool: Sendable {
    package var program: String
    package var title: String
    package var commands: [CommandSpec]
    /// Whether standard output is flushed at every line even when it is a file or a pipe, so that a
    /// long run (a benchmark of many minutes) shows its progress as it goes, not only when it ends.
    package var lineBufferedOutput: Bool

    package init(program: String, title: String, commands: [CommandSpec], lineBufferedOutput: Bool = false) {
        self.program = program
        self.title = title
        self.commands = commands
        self.lineBufferedOutput = lineBufferedOutput
    }

    package func printHelp() {
        print("\(title)\n\nusage: \(program) COMMAND [options]\n")
        let width = (commands.map(\.name.count).max() ?? 8) + 2
        for command in commands { print("  " + command.name.padding(toLength: width, withPad: " ", startingAt: 0) + command.summary) }
        print("\n`\(program) COMMAND --help` shows a command's options.")
    }

    /// Runs the subcommand the arguments name and exits with its status.
    package func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        signal(SIGPIPE, SIG_IGN)
        if lineBufferedOutput { _ = tapwire_line_buffer_stdout() }
        var argv = arguments
        guard let name = argv.first, name != "--help", name != "-h", name != "help" else {
            printHelp()
            exit(argv.isEmpty ? 2 : 0)
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            FileHandle.standardError.write(Data("\(program): unknown command \(name); `\(program) --help` lists them\n".utf8))
            exit(2)
        }
        argv.removeFirst()
        if argv.contains("--help") || argv.contains("-h") {
            print(command.usage())
            exit(0)
        }
        var parsed = Arguments(argv, command: name, program: program)
        do {
            exit(try command.run(&parsed))
        } catch {
            FileHandle.standardError.write(Data("\(program): \(error)\n".utf8))
            exit(2)
        }
    }
}
