import Foundation
import Testing
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceFuzzTargets
import VoiceIO
import VoiceMedia
import VoiceSimulation
import VoiceTestSupport
import VoiceTransport
import VoiceWire

/// The fuzzer's seed corpus, taken from real traffic: a call between two engines (the datagrams
/// and app signalling they exchanged), a path selector's probes (sealed on the wire), the send pipeline on the speech fixture (voice packets,
/// with loss so that copies ride along) and the listener's reports, every relay message, tokens,
/// control lines and the fixtures' WAV files. Every target must get seeds its parser accepts.
///
/// `VOICECHAT_FUZZ_SEEDS=fuzz/seeds swift test --filter FuzzSeedCorpusTests` writes them as
/// `DIRECTORY/TARGET/HASH`, where `bench/run fuzz` starts from them.
@Suite struct FuzzSeedCorpusTests {
    /// At most this many seeds per target, the first found of each kind and size.
    static let seedsPerTarget = 24

    @Test func realTrafficSeedsEveryTarget() throws {
        var corpus = SeedCorpus()
        try corpus.addCall()
        try corpus.addProbes()
        try corpus.addVoiceStream()
        try corpus.addRelayMessages()
        try corpus.addControlLines()
        try corpus.addWAVFiles()

        for target in FuzzTarget.allCases {
            let seeds = corpus.seeds[target, default: []]
            #expect(!seeds.isEmpty, "no seed for \(target.rawValue)")
            // Sealed under keys the fuzz target does not hold: they get as far as authentication.
            let parser = target == .sealedEnvelopeOpen ? FuzzTarget.sealedEnvelopeHeader : target
            for seed in seeds {
                #expect(seed.withUnsafeBytes { parser.run($0) }, "a \(target.rawValue) seed does not parse")
            }
        }
        #expect(corpus.seeds[.voicePacket, default: []].contains { $0.count > 120 }, "no voice packet carries copies")
        #expect(corpus.seeds[.wavHeader, default: []].count == 5, "a fixture's header does not parse")

        if let directory = ProcessInfo.processInfo.environment["VOICECHAT_FUZZ_SEEDS"] {
            try corpus.write(to: directory)
        }
    }
}

/// Seeds by target. Of a stream's many messages, one is kept per kind (first two bytes, length
/// to 16 bytes); inputs listed one by one are each kept.
private struct SeedCorpus {
    var seeds: [FuzzTarget: [[UInt8]]] = [:]
    private var kinds: Set<String> = []

    /// Keeps `bytes` for every target in `targets` that accepts them, if its kind is new or
    /// `always`.
    mutating func offer(_ bytes: [UInt8], to targets: [FuzzTarget], always: Bool = false) {
        for target in targets where bytes.withUnsafeBytes({ target.run($0) }) {
            add(bytes, as: target, always: always)
            if target == .sealedEnvelopeHeader { add(bytes, as: .sealedEnvelopeOpen, always: always) }
        }
    }

    private mutating func add(_ bytes: [UInt8], as target: FuzzTarget, always: Bool) {
        let kind = "\(target.rawValue) \(bytes.prefix(2)) \(bytes.count / 16)"
        guard seeds[target, default: []].count < FuzzSeedCorpusTests.seedsPerTarget,
            kinds.insert(kind).inserted || always, !seeds[target, default: []].contains(bytes)
        else { return }
        seeds[target, default: []].append(bytes)
    }

    /// Alice calls bob and hangs up after two seconds; then a three-player match runs for two.
    mutating func addCall() throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        world.run(seconds: 2, [setup.alice, setup.bob])
        try setup.aliceService.stopVoiceChat(with: "bob")
        world.run(seconds: 0.2, [setup.alice, setup.bob])
        let players = try world.threePlayerMatch()
        world.run(seconds: 2, players)

        for datagram in world.captured.withLock({ $0 }) {
            offer(datagram.bytes, to: [.sealedEnvelopeHeader, .connectivityProbe, .voicePacket, .receiverReport])
        }
        for delivery in world.capturedSignalling.withLock({ $0 }) {
            offer(delivery.bytes, to: [.signallingMessage])
            // How `voicechat call` carries the same over its TCP link: the frame's kind and payload.
            let frame: SignallingFrame = delivery.realTime ? .realTime(delivery.bytes) : .signalling(delivery.bytes)
            offer(Array(frame.encoded().dropFirst(SignallingFrame.headerBytes - 1)), to: [.signallingFrame])
        }
        for frame in [SignallingFrame.hello(participant: "alice"), .bye, .refused(reason: "busy")] {
            offer(Array(frame.encoded().dropFirst(SignallingFrame.headerBytes - 1)), to: [.signallingFrame])
        }
    }

    /// A path selector checking a peer's two addresses and the app's channel for six seconds, every
    /// probe answered on the first address.
    mutating func addProbes() throws {
        let peer = [try PeerAddress(parsing: "192.0.2.9:7000"), try PeerAddress(parsing: "198.51.100.4:7000")]
        var selector = PathSelector(localCandidates: [], appCarriedAvailable: true, now: 0)
        selector.addRemoteCandidates(peer, now: 0)
        var actions: [PathAction] = []
        for tick in 0..<300 {
            let now = MediaTime(tick) * FrameDuration.ms20.nanoseconds
            actions.removeAll()
            selector.tick(now: now, into: &actions)
            for case .sendProbe(let probe, let route) in actions {
                offer(probe.bytes, to: [.connectivityProbe])
                if route == .direct(peer[0]) { selector.receivedProbeReply(probe, on: route, now: now) }
            }
        }
    }

    /// The speech fixture through the shipped send pipeline, 10 % of it lost on the way to a
    /// receive stream whose reports go back to the sender, as the engine does.
    mutating func addVoiceStream() throws {
        let speech = try WAVAudio(contentsOfFile: projectRoot + "/Fixtures/speech-male.wav").samples
        let sender = try VoiceSendPipeline(SendConfiguration(sender: 1, channel: 0))
        let receiver = try VoiceReceiveStream(sender: 1, channel: 0, configuration: JitterBufferConfiguration())
        let frameSamples = sender.configuration.frameSamples
        let frameNanoseconds = sender.configuration.frameDuration.nanoseconds
        var packet = [UInt8](repeating: 0, count: VoicePacketWriter.maximumPacketBytes)
        var report = [UInt8](repeating: 0, count: ReceiverReport.encodedBytes)
        var generator = SeededRandom(seed: 20)
        for frame in 0..<(speech.count / frameSamples) {
            let now = MediaTime(frame) * frameNanoseconds
            let length = try speech[(frame * frameSamples)..<((frame + 1) * frameSamples)].withUnsafeBufferPointer {
                samples in
                try packet.withUnsafeMutableBytes { try sender.process(samples, at: now, into: $0) }
            }
            guard length > 0 else { continue }
            let bytes = Array(packet.prefix(length))
            offer(bytes, to: [.voicePacket])
            if Double.random(in: 0..<1, using: &generator) >= 0.1 {
                try bytes.withUnsafeBytes { raw in
                    receiver.insert(try VoicePacketView(parsing: raw), bytes: raw, arrival: now)
                }
            }
            if frame % 25 == 24 {
                let made = receiver.makeReport(reporter: 2)
                sender.apply(made)
                let count = try report.withUnsafeMutableBytes { try made.write(into: $0) }
                offer(Array(report.prefix(count)), to: [.receiverReport])
            }
        }
    }

    /// Every message of the relay's protocol, as its client and server write them, and tokens.
    mutating func addRelayMessages() throws {
        let secret = RelaySecret.random()
        let token = try RelayToken.sign(match: "arena", participant: "alice", expiry: 1_900_000_000, secret: secret)
        offer(Array(token.text.utf8), to: [.relayToken], always: true)
        let long = try RelayToken.sign(
            match: String(repeating: "m", count: 200), participant: "player-7f3a", expiry: 1_900_000_000,
            secret: secret)
        offer(Array(long.text.utf8), to: [.relayToken], always: true)
        let messages: [RelayMessage] = [
            .join(RelayJoin(token: token.text, participant: "alice", channels: [0, 1], muted: [3])),
            .joined(mediaID: 0x1234_5678), .refused(.expired), .refused(.matchFull), .startChannel(1),
            .stopChannel(1), .mute(7), .unmute(7), .keepalive(nonce: 42), .pong(nonce: 42), .leave,
            .kicked(.admin), .kicked(.replaced), .moved(channel: 2), .serverMute(true),
            .signalJoin(token: token.text, participant: "alice"), .signalJoined(members: ["bob", "carol"]),
            .memberJoined("bob"), .memberLeft("bob"), .sendSignal(to: "bob", payload: Array("hello".utf8)),
            .signal(from: "alice", payload: Array("hello".utf8)),
        ]
        for message in messages { offer(try message.serialized(), to: [.relayMessage], always: true) }
        let envelope = [UInt8](repeating: 0xAB, count: SealedEnvelopeHeader.envelopeBytes(plaintextBytes: 40))
        let bodies: [RelayPeerMessage.Body] = [
            .hello, .voice(envelope), .gone([7, 9]),
            .members([
                RelayPeerMember(mediaID: 7, participant: "alice"),
                RelayPeerMember(
                    mediaID: 9, participant: "bob", channels: [1, 2], muted: [7], hearingRanges: [1: 40],
                    position: VoicePosition(x: 1, y: 2, z: 3)),
            ]),
        ]
        for body in bodies {
            let message = RelayPeerMessage(
                node: "relay-a", address: "10.0.0.1:7700", match: "arena", stamp: 1, body: body)
            let sealed = try message.sealed(with: FuzzTarget.relayPeerKey)
            offer(Array(sealed.dropLast(RelayPeerKey.tagBytes)), to: [.relayPeerMessage], always: true)
        }
    }

    /// What the control socket's clients send, one request a line.
    mutating func addControlLines() {
        let lines = [
            #"{"id":1,"command":"mute"}"#, #"{"id":2,"command":"push-to-talk","enabled":true}"#,
            #"{"id":3,"command":"talk","down":true}"#,
            #"{"id":4,"command":"set-volume","volume":0.5,"channel":"team"}"#,
            #"{"id":5,"command":"mute-player","player":"bob","channel":"team"}"#,
            #"{"id":6,"command":"set-player-volume","player":"bob","volume":1.5}"#,
            #"{"id":7,"command":"start-channel","channel":"team"}"#,
            #"{"id":8,"command":"set-max-delay","milliseconds":150}"#,
            #"{"id":9,"command":"set-speech-processing","denoise":true,"agc":false,"vadThresholdDB":-50}"#,
            #"{"id":10,"command":"subscribe","intervalMilliseconds":500}"#, #"{"id":11,"command":"stats"}"#,
        ]
        for line in lines { offer(Array(line.utf8), to: [.controlRequest], always: true) }
    }

    /// The fixtures cut to their header and 4 KB of audio, the sizes in the header made to match:
    /// what the parser reads, at a size the fuzzer can mutate quickly.
    mutating func addWAVFiles() throws {
        for name in ["speech-male.wav", "speech-female.wav", "noise-pink.wav", "tone-1k.wav"] {
            var bytes = Array(
                try [UInt8](Data(contentsOf: URL(fileURLWithPath: projectRoot + "/Fixtures/" + name))).prefix(4_096))
            let data = try #require(
                (12..<(bytes.count - 8)).first { bytes[$0..<($0 + 4)].elementsEqual("data".utf8) },
                "\(name) has no data chunk in its first 4 KB")
            func setSize(_ size: Int, at offset: Int) {
                for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: size >> (8 * index)) }
            }
            setSize(bytes.count - 8, at: 4)
            setSize(bytes.count - data - 8, at: data + 4)
            offer(bytes, to: [.wavHeader], always: true)
        }
        offer(WAVAudio(format: .engineMono, samples: [0, 0.25, -0.25, 0]).encoded(), to: [.wavHeader], always: true)
    }

    func write(to directory: String) throws {
        for (target, list) in seeds {
            let folder = directory + "/" + target.rawValue
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for bytes in list {
                // FNV-1a: the same bytes keep one name from run to run.
                let hash = bytes.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
                try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + String(hash, radix: 16)))
            }
        }
    }
}

private let projectRoot: String = {
    var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)  // this file, VoiceEngineTests, Tests
    return components.joined(separator: "/")
}()
