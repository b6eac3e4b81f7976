import Foundation

/// The project's root folder: VOICECHAT_ROOT, which bench/run sets, or else the current directory.
let projectRoot = ProcessInfo.processInfo.environment["VOICECHAT_ROOT"] ?? FileManager.default.currentDirectoryPath

/// The Python of the project's venv (scripts/setup.sh makes it), which scores speech and draws plots.
let venvPython = projectRoot + "/.venv/bin/python"
