import Foundation
import PackagePlugin

/// Turns every `sql/**/*.sql` file into Swift string constants, so `sql/` stays the single source
/// of the schema and the queries while the binary still works outside the checkout.
@main
struct EmbedSQL: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let sqlDirectory = context.package.directoryURL.appending(path: "sql")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSQL.swift")
        var inputs: [URL] = []
        if let walker = FileManager.default.enumerator(at: sqlDirectory, includingPropertiesForKeys: nil) {
            for case let url as URL in walker where url.pathExtension == "sql" {
                inputs.append(url)
            }
        }
        inputs.sort { $0.path < $1.path }
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) SQL files",
                executable: try context.tool(named: "TapwireSQLEmbedder").url,
                arguments: [sqlDirectory.path, output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
