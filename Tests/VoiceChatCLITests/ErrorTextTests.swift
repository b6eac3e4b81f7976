import Foundation
import Testing
import VoiceCore

@testable import voicechat

/// What a newcomer's mistakes are told: a file is called a file and a folder a folder, a host name
/// that does not resolve is said in words, an IPv6 address keeps its brackets, and a relay address
/// with no port is a usage error (exit 64) like any other malformed option.
@Suite struct ErrorTextTests {
    @Test func aFolderOrADeviceGivenAsInputIsNamedForWhatItIs() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = try CommandRunner.run(
            ["loopback", "--input", directory.path, "--output", directory.appendingPathComponent("o.wav").path])
        #expect(folder.status != 0)
        // Before: "audio device '…': cannot read '…': Error Domain=NSPOSIXErrorDomain Code=21".
        #expect(
            folder.standardError.contains(
                "file '\(directory.path)': cannot read '\(directory.path)': it is a directory"),
            "\(folder.standardError)")
        #expect(!folder.standardError.contains("NSPOSIXErrorDomain"), "\(folder.standardError)")
        let device = try CommandRunner.run(
            ["loopback", "--input", "/dev/null", "--output", directory.appendingPathComponent("o.wav").path])
        #expect(device.status != 0)
        // Before: "Permission denied", to root.
        #expect(device.standardError.contains("it is not a regular file"), "\(device.standardError)")
    }

    @Test func aRelayThatDoesNotResolveIsSaidInWords() throws {
        let result = try CommandRunner.run([
            "join", "--relay", "nosuch.invalid:7700", "--match", "m", "--name", "a", "--token", "t", "--channel", "all",
            "--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null", "--duration", "2",
        ])
        #expect(result.status != 0)
        #expect(!result.standardError.contains("SocketAddressError"), "\(result.standardError)")
    }

    @Test func addressesWithoutAPortAreUsageErrors() {
        for arguments in [
            ["join", "--relay", "127.0.0.1", "--match", "m", "--name", "a", "--token", "t", "--channel", "all"],
            ["call", "127.0.0.1"], ["echo-test", "127.0.0.1"],
        ] {
            do {
                _ = try VoiceChat.parseAsRoot(arguments)
                Issue.record("\(arguments) was accepted")
            } catch {
                #expect(VoiceChat.exitCode(for: error).rawValue == 64, "\(arguments): \(VoiceChat.message(for: error))")
            }
        }
    }

    @Test func anIPv6AddressKeepsItsBrackets() {
        #expect(endpointText(host: "::1", port: 7399) == "[::1]:7399")
        #expect(endpointText(host: "127.0.0.1", port: 7399) == "127.0.0.1:7399")
    }
}
