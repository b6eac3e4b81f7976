import Foundation

/// Where this project's own files are at run time (the fixtures, the scorer), for commands that
/// need them without being told: `$VOICECHAT_ROOT`, else the current directory or one of the
/// executable's ancestors (it is built under `.build/` inside the project).
enum ProjectFiles {
    static let root: URL? = {
        var candidates: [URL] = []
        if let root = ProcessInfo.processInfo.environment["VOICECHAT_ROOT"] {
            candidates.append(URL(fileURLWithPath: root))
        }
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            candidates.append(directory)
            directory = directory.deletingLastPathComponent()
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Fixtures").path) }
    }()

    /// Where `root` looks, in order, for a sentence that tells a user what was searched.
    static let searchedPlaces = "$VOICECHAT_ROOT/Fixtures, ./Fixtures and a Fixtures folder above the voicechat binary"

    /// How to run the project's setup script from wherever the user is.
    static var setupCommand: String {
        root.map { $0.appendingPathComponent("scripts/setup.sh").path } ?? "scripts/setup.sh in the project's folder"
    }

    static func fixture(_ name: String) -> URL? {
        guard let url = root?.appendingPathComponent("Fixtures").appendingPathComponent(name),
            FileManager.default.fileExists(atPath: url.path)
        else { return nil }
        return url
    }

    /// The speech-quality scorer and the Python that runs it (set up by scripts/setup.sh).
    static var scorer: (python: URL, script: URL)? {
        guard let root else { return nil }
        let python = root.appendingPathComponent(".venv/bin/python")
        let script = root.appendingPathComponent("bench/scoring/score.py")
        guard FileManager.default.isExecutableFile(atPath: python.path),
            FileManager.default.fileExists(atPath: script.path)
        else { return nil }
        return (python, script)
    }
}
