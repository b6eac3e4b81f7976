import Foundation
import PackagePlugin

/// Writes the commit the sources were built from into the `voicechat` command (`--version`), as
/// `BuildCommit.description`: `git describe` of the package's checkout, or "unknown" outside one.
/// A prebuild command, so every build looks again.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildCommit.swift")
        let package = context.package.directoryURL.path
        // `git` may be missing, and the sources may not be a checkout: either gives "unknown", never a failed build.
        let script = """
            commit=$(git -C '\(package)' describe --always --dirty --abbrev=12 --exclude '*' 2>/dev/null || echo unknown)
            text="/// The commit these sources were built from (generated; see Plugins/BuildCommit).
            enum BuildCommit { static let description = \\"$commit\\" }"
            [ "$(cat '\(output.path)' 2>/dev/null)" = "$text" ] || printf '%s\\n' "$text" > '\(output.path)'
            """
        return [
            .prebuildCommand(
                displayName: "Recording the build's commit",
                executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script],
                outputFilesDirectory: context.pluginWorkDirectoryURL)
        ]
    }
}
