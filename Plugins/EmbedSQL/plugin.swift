import Foundation
import PackagePlugin

/// Turns every `sql/**/*.sql` file into Swift constants (`SQL` values named by their file, so an
/// error names the statement that failed), so `sql/` stays the single source of the schema and the
/// queries while the binary still works outside the checkout.
@main
struct EmbedSQL: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let sqlDirectory = context.package.directoryURL.appending(path: "sql")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSQL.swift")
        var inputs: [URL] = []
        var directories: [URL] = [sqlDirectory]
        if let walker = FileManager.default.enumerator(at: sqlDirectory, includingPropertiesForKeys: nil) {
            for case let url as URL in walker {
                if url.pathExtension == "sql" { inputs.append(url) } else if url.hasDirectoryPath { directories.append(url) }
            }
        }
        inputs.sort { $0.path < $1.path }
        // Editing a .sql file re-runs the tool. Adding one does not re-plan the package by itself
        // (sql/ is not a target's source directory): `make build`/`make test` touch Package.swift
        // when a .sql file is newer than the generated code; with bare `swift build`, touch it.
        return [
            .buildCommand(
                displayName: "Embedding SQL files",
                executable: try context.tool(named: "TapwireSQLEmbedder").url,
                arguments: [sqlDirectory.path, output.path],
                inputFiles: inputs + directories,
                outputFiles: [output]
            )
        ]
    }
}
