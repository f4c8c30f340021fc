import Foundation
import PackagePlugin

/// Turns `sql/**/*.sql` files into Swift constants (`SQL` values named by their file, so an error
/// names the statement that failed), so `sql/` stays the single source of the schema and the
/// queries while the binaries still work outside the checkout. Each target embeds only its own
/// folders: the product's schema and queries go into TapwireStore, the benchmarks' and the soak's
/// SQL only into those tools (the soak's faults also into the tests), and the SQL recomputation
/// of the rollups only into the oracle the tests and the soak check against.
@main
struct EmbedSQL: BuildToolPlugin {
    /// The folders of `sql/` a target embeds, and the name of the enum they become.
    static let embedded: [String: (folders: [String], enumName: String)] = [
        "TapwireStore": (["migrations", "citus", "queries"], "EmbeddedSQL"),
        "TapwireRollupOracle": (["fresh", "oracle"], "OracleSQL"),
        "tapwire-bench": (["bench"], "BenchSQL"),
        "tapwire-soak": (["soak"], "SoakSQL"),
        "TapwireTestSupport": (["soak"], "SoakSQL"),
    ]

    struct UnknownTarget: Error, CustomStringConvertible {
        var name: String
        var description: String { "EmbedSQL: no sql/ folders are listed for target \(name) in Plugins/EmbedSQL/plugin.swift" }
    }

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let (folders, enumName) = Self.embedded[target.name] else { throw UnknownTarget(name: target.name) }
        let sqlDirectory = context.package.directoryURL.appending(path: "sql")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSQL.swift")
        var inputs: [URL] = []
        var directories: [URL] = []
        for folder in folders {
            let directory = sqlDirectory.appending(path: folder)
            directories.append(directory)
            if let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) {
                for case let url as URL in walker {
                    if url.pathExtension == "sql" { inputs.append(url) } else if url.hasDirectoryPath { directories.append(url) }
                }
            }
        }
        inputs.sort { $0.path < $1.path }
        // Editing a .sql file re-runs the tool. Adding one does not re-plan the package by itself
        // (sql/ is not a target's source directory): `make build`/`make test` touch Package.swift
        // when a .sql file is in no generated file; with bare `swift build`, touch it.
        return [
            .buildCommand(
                displayName: "Embedding SQL files (\(folders.joined(separator: ", "))) for \(target.name)",
                executable: try context.tool(named: "TapwireSQLEmbedder").url,
                arguments: [sqlDirectory.path, output.path, enumName] + folders,
                inputFiles: inputs + directories,
                outputFiles: [output]
            )
        ]
    }
}
