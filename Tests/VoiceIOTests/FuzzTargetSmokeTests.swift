import Foundation
import Testing
import VoiceCore
import VoiceDevices
import VoiceFuzzTargets
import VoiceIO
import VoiceSimulation
import VoiceWire

/// The fuzzer's entry points, run briefly in the suite: each takes a valid input of its kind
/// (so it reaches its parser), then that input mutated and random bytes, and must return every time.
/// `bench/run fuzz` runs them for millions of coverage-guided inputs.
@Suite struct FuzzTargetSmokeTests {
    /// A valid input for every target that has one to make without a secret.
    static func seed(for target: FuzzTarget) throws -> [UInt8]? {
        switch target {
        case .relayMessage:
            return try RelayMessage.join(RelayJoin(token: "t", participant: "alice", channels: [1, 2], muted: [7]))
                .serialized()
        case .relayToken:
            let token = try RelayToken.sign(match: "m", participant: "alice", expiry: 10, secret: RelaySecret.random())
            return Array(token.text.utf8)
        case .relayPeerMessage:
            let member = RelayPeerMember(
                mediaID: 9, participant: "bob", channels: [1], muted: [7], hearingRanges: [1: 40],
                position: VoicePosition(x: 1, y: 2, z: 3))
            let message = RelayPeerMessage(
                node: "relay-a", address: "10.0.0.1:7700", match: "m", stamp: 1, body: .members([member]))
            return Array(try message.sealed(with: FuzzTarget.relayPeerKey).dropLast(RelayPeerKey.tagBytes))
        case .signallingFrame:
            // The kind and payload, without the length field.
            return Array(
                SignallingFrame.hello(participant: "alice").encoded().dropFirst(SignallingFrame.headerBytes - 1))
        case .controlRequest:
            return Array(#"{"id":1,"command":"talk","down":true}"#.utf8)
        case .wavHeader:
            return WAVAudio(format: .engineMono, samples: [0, 0.5, -0.5, 0]).encoded()
        case .sealedEnvelopeHeader, .sealedEnvelopeOpen, .voicePacket, .receiverReport, .connectivityProbe,
            .signallingMessage:
            return nil
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyTargetReachesItsParserAndSurvivesJunk(_ target: FuzzTarget) throws {
        var generator = SeededRandom(seed: UInt64(target.rawValue.utf8.count))
        let seed = try Self.seed(for: target)
        if let seed {
            #expect(seed.withUnsafeBytes { target.run($0) }, "\(target.rawValue)'s seed does not parse")
        }
        var accepted = 0
        for round in 0..<5_000 {
            var bytes: [UInt8]
            if let seed, round % 2 == 0 {
                bytes = seed
                for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
                if Bool.random(using: &generator) {
                    bytes.removeLast(Int.random(in: 0...bytes.count, using: &generator))
                }
            } else {
                bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
            if bytes.withUnsafeBytes({ target.run($0) }) { accepted += 1 }
        }
        // Random bytes almost never make a valid input of any kind.
        #expect(accepted < 5_000, "\(target.rawValue) accepted everything")
    }
}
