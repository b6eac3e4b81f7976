import Foundation
import Testing
import VoiceRelay
import VoiceRelayClient
import VoiceWire

@Suite struct RelayCommandTests {
    private func secretFile(in directory: URL, contents: String = "0123456789abcdef0123456789abcdef\n") throws -> URL {
        try CommandRunner.secretFile(contents, in: directory)
    }

    /// A TTL past any use is refused instead of overflowing the expiry, and the help says when the
    /// relay checks a token (a player who joined stays past its expiry; rejoining needs a new one).
    @Test func theTokensLifetimeIsBoundedAndExplained() throws {
        let result = try CommandRunner.run([
            "token", "--secret-file", "s", "--match", "m", "--participant", "p", "--ttl", "9223372036854775807",
        ])
        #expect(result.status == 64)
        #expect(
            result.standardError.contains("'--ttl <seconds>': it must be 1…315360000 seconds"),
            "\(result.standardError)")
        let help = try CommandRunner.run(["help", "token"]).standardOutput
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("a player who joined stays past the expiry, but rejoining after it needs a new token"))
    }

    @Test func aLogLevelThatIsNoneIsRefusedNamingTheLevels() throws {
        let result = try CommandRunner.run(["relay", "--port", "7700", "--secret-file", "s", "--log-level", "loud"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("--log-level"))
        #expect(result.standardError.contains("- notice"), "\(result.standardError)")
    }

    @Test func tokenIsSignedWithTheSecretFileForTheMatchAndParticipant() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretURL = try secretFile(in: directory)
        let result = try CommandRunner.run([
            "token", "--secret-file", secretURL.path, "--match", "arena-7", "--participant", "alice", "--ttl", "60",
        ])
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let token = try RelayToken(parsing: result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(token.match == "arena-7")
        #expect(token.participant == "alice")
        let now = UInt64(Date().timeIntervalSince1970)
        #expect(token.expiry > now && token.expiry <= now + 61)
        // The trailing newline is not part of the secret.
        let secret = try RelaySecret(bytes: Array("0123456789abcdef0123456789abcdef".utf8))
        try token.verify(secret: secret, now: now, match: "arena-7")
        let other = try RelaySecret(bytes: Array("another secret of enough bytes".utf8))
        #expect(throws: RelayTokenError.self) { try token.verify(secret: other, now: now) }
    }

    @Test func aTokenCanNameTheRelayItIsFor() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretURL = try secretFile(in: directory)
        let result = try CommandRunner.run([
            "token", "--secret-file", secretURL.path, "--match", "m", "--participant", "a", "--audience", "eu-1",
        ])
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let token = try RelayToken(parsing: result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(token.audience == "eu-1")
        let empty = try CommandRunner.run([
            "relay", "--port", "7700", "--secret-file", secretURL.path, "--audience", "",
        ])
        #expect(empty.status == 64)
        #expect(empty.standardError.contains("--audience must be 1…256 bytes"), "\(empty.standardError)")
    }

    @Test func aSecretFileOthersCanReadIsWarnedAbout() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretURL = try secretFile(in: directory)
        let arguments = ["token", "--secret-file", secretURL.path, "--match", "m", "--participant", "a"]
        let ownerOnly = try CommandRunner.run(arguments)
        #expect(ownerOnly.status == 0)
        #expect(!ownerOnly.standardError.contains("warning"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secretURL.path)
        let shared = try CommandRunner.run(arguments)
        #expect(shared.status == 0, "a warning, not a refusal")
        #expect(shared.standardError.contains("can be read by other users (mode 644)"))
        #expect(shared.standardError.contains("chmod 600 \(secretURL.path)"))
    }

    @Test func anEmptyMatchOrParticipantIsAUsageError() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretURL = try secretFile(in: directory)
        for (option, match, participant) in [("--match", "", "a"), ("--participant", "m", "")] {
            let result = try CommandRunner.run([
                "token", "--secret-file", secretURL.path, "--match", match, "--participant", participant,
            ])
            #expect(result.status == 64)
            #expect(result.standardError.contains("\(option) is empty"))
            #expect(!result.standardError.contains("paste the whole token"))
        }
    }

    @Test func missingOrShortSecretFileIsOneLineSayingHowToMakeOne() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try CommandRunner.run([
            "token", "--secret-file", directory.appendingPathComponent("none").path, "--match", "m", "--participant",
            "a",
        ])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("does not exist"))
        #expect(missing.standardError.contains("/dev/urandom"))
        #expect(missing.standardOutput.isEmpty)

        let short = try secretFile(in: directory, contents: "tiny\n")
        let relay = try CommandRunner.run(["relay", "--port", "7", "--secret-file", short.path, "--duration", "1"])
        #expect(relay.status != 0)
        #expect(relay.standardError.contains("at least 16"))
        #expect(relay.standardError.split(separator: "\n").count == 1)
    }

    @Test func relayRunsForTheDurationAndReportsWhatItDid() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretURL = try secretFile(in: directory)
        let port = TestPort.relayReport.port
        let result = try CommandRunner.run([
            "relay", "--host", "127.0.0.1", "--port", "\(port)", "--secret-file", secretURL.path, "--duration", "1",
            "--report-every", "0",
        ])
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("relay listening on UDP and TCP 127.0.0.1:\(port)"))
        #expect(result.standardOutput.contains("relay stopping: 0 matches, 0 participants"))
    }

    @Test func portInUseIsRefusedWithAClearError() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretURL = try secretFile(in: directory)
        let port = TestPort.relayInUse.port
        let first = try BackgroundCommand.relay(port: port, secretFile: secretURL, seconds: 30, directory: directory)
        defer { first.stop() }
        // Wait for the first relay's "listening" line before starting the second.
        #expect(first.waitForOutput("listening", seconds: 15))

        let second = try CommandRunner.run([
            "relay", "--host", "127.0.0.1", "--port", "\(port)", "--secret-file", secretURL.path, "--duration", "1",
        ])
        #expect(second.status != 0)
        #expect(second.standardError.contains("Address already in use"))
        #expect(second.standardError.contains("pick another port"))
    }

    /// A metrics port in use is said in the system's words (before: NIO's `bind(descriptor:ptr:bytes:)`).
    @Test func aMetricsPortInUseIsRefusedInWords() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretURL = try secretFile(in: directory)
        // The first relay's TCP port is the second's metrics port.
        let port = TestPort.relayMetricsInUse.port
        let first = try BackgroundCommand.relay(port: port, secretFile: secretURL, seconds: 30, directory: directory)
        defer { first.stop() }
        #expect(first.waitForOutput("listening", seconds: 15))
        let second = try CommandRunner.run([
            "relay", "--host", "127.0.0.1", "--port", "\(TestPort.relayBesideMetrics.port)", "--secret-file",
            secretURL.path, "--prometheus-port",
            "\(port)", "--duration", "1",
        ])
        #expect(second.status != 0)
        #expect(second.standardError.contains("Prometheus endpoint"), "\(second.standardError)")
        #expect(second.standardError.contains("Address already in use"), "\(second.standardError)")
        #expect(!second.standardError.contains("bind(descriptor"), "\(second.standardError)")
    }

    /// `--log-level debug` adds the relay's own reasons, not the service group's workings (before,
    /// ServiceLifecycle's start and shutdown lines with every service's description).
    @Test func debugLoggingIsTheRelaysOwn() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretURL = try secretFile(in: directory)
        let result = try CommandRunner.run([
            "relay", "--host", "127.0.0.1", "--port", "\(TestPort.relayDebugLog.port)", "--secret-file",
            secretURL.path, "--log-level", "debug", "--duration", "1",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("relay listening"), "\(result.standardError)")
        #expect(!result.standardError.contains("ServiceLifecycle"), "\(result.standardError)")
    }

    @Test func aHostThatIsNotThisMachinesIsNamedAsSuch() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretURL = try secretFile(in: directory)
        // 192.0.2.1 is reserved for documentation: no machine has it.
        let result = try CommandRunner.run([
            "relay", "--host", "192.0.2.1", "--port", "\(TestPort.relayForeignHost.port)", "--secret-file",
            secretURL.path,
            "--duration", "1",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("192.0.2.1 is not an address of this machine"))
        #expect(!result.standardError.contains("[IPv4]"), "the address as the user wrote it, not NIO's form")
        #expect(!result.standardError.contains("pick another port"))
    }
}
