import Foundation
import TapwireCore

// `tapwire`: the collector and its tools. Each subcommand lives in its own file.

let commands = Commands.all

func printHelp() {
    print("tapwire: notification engagement telemetry\n\nusage: tapwire COMMAND [options]\n")
    let width = (commands.map(\.name.count).max() ?? 8) + 2
    for command in commands { print("  " + command.name.padding(toLength: width, withPad: " ", startingAt: 0) + command.summary) }
    print("\n`tapwire COMMAND --help` shows a command's options.")
}

signal(SIGPIPE, SIG_IGN)
var argv = Array(CommandLine.arguments.dropFirst())
guard let name = argv.first, name != "--help", name != "-h", name != "help" else {
    printHelp()
    exit(argv.isEmpty ? 2 : 0)
}
guard let command = commands.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("tapwire: unknown command \(name); `tapwire --help` lists them\n".utf8))
    exit(2)
}
argv.removeFirst()
if argv.contains("--help") || argv.contains("-h") {
    print(command.usage())
    exit(0)
}
var arguments = Arguments(argv, command: name)
do {
    exit(try command.run(&arguments))
} catch {
    FileHandle.standardError.write(Data("tapwire: \(error)\n".utf8))
    exit(2)
}
