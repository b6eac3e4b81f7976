import ArgumentParser
import Foundation

/// Runs a program to completion and returns its standard output; fails with its stderr. The
/// environment is the harness's own, but for what `environment` changes (nil removes a variable).
func runToCompletion(_ program: String, _ arguments: [String], environment changes: [String: String?] = [:]) throws
    -> String
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    if !changes.isEmpty {
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in changes { environment[name] = value }
        process.environment = environment
    }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ValidationError(
            "\(program) \(arguments.joined(separator: " ")) failed: \(String(decoding: errorData, as: UTF8.self))")
    }
    return String(decoding: data, as: UTF8.self)
}
