import Foundation
import Testing
import VoiceCore
import VoiceTransport

@testable import voicechat

/// `--advertise`: the addresses a session offers for direct UDP instead of its interfaces'.
@Suite struct AdvertiseOptionTests {
    @Test func theAdvertisedAddressesAreWhatTheEngineOffers() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("advertise-\(getpid()).wav").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let options = try ListenCommand.parse([
            "--advertise", "127.0.0.1:9000", "--advertise", "[::1]:9001", "--input",
            CommandRunner.fixture("speech-male.wav"), "--output", output,
        ]).call
        let local = try await CallEngine.open(options: options, participant: "bob", udpPort: 0)
        #expect(
            local.network.localCandidates == [
                try PeerAddress(host: "127.0.0.1", port: 9000), try PeerAddress(host: "::1", port: 9001),
            ])
        await local.shutDown()

        let plain = try await CallEngine.open(
            options: try ListenCommand.parse(["--input", CommandRunner.fixture("speech-male.wav"), "--output", output])
                .call,
            participant: "bob", udpPort: 0)
        #expect(plain.network.localCandidates.allSatisfy { $0.port == plain.network.localCandidates.first?.port })
        #expect(!plain.network.localCandidates.contains(try PeerAddress(host: "127.0.0.1", port: 9000)))
        await plain.shutDown()
    }

    @Test func aBadAddressIsRefusedAtStartUpNamingTheOption() {
        for (text, says) in [
            ("bob.local:7300", "numeric IPv4 or IPv6"), ("127.0.0.1", "the port is missing"),
            ("127.0.0.1:70000", "not a number from 1 to 65535"),
        ] {
            do {
                _ = try ListenCommand.parse(["--advertise", text])
                Issue.record("--advertise \(text) was accepted")
            } catch {
                let message = ListenCommand.message(for: error)
                #expect(message.contains("--advertise"), "\(message)")
                #expect(message.contains(says), "\(message)")
            }
        }
    }
}
