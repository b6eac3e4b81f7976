import VoiceCodec
import VoiceCore

/// The listener's codec work in `EngineMatchRun`, done by libopus alone: each frame, one encode
/// of silence (the listener's microphone) and one decode of each speaker's packet, every speaker
/// with a decoder of its own and its speech from its own offset, as in the match. The speakers'
/// packets are encoded when this is made, so that a frame's work is only what the listener's
/// engine does with libopus. Run inside the match's loop, it meets the caches the other engines
/// leave behind, as the listener's engine does.
final class ListenerCodecWork {
    private let packets: [[[UInt8]]]
    private let firstFrame: Int
    private var encoder: OpusEncoder
    private var decoders: [OpusDecoderBox]
    private let silence: [Float]
    private var packet: [UInt8]
    private var decoded: [Float]

    private final class OpusDecoderBox {
        var decoder: OpusDecoder
        init() throws { decoder = try OpusDecoder() }
    }

    /// Prepares the frames `frames` (the match's frame numbers) of `speakers` speakers, numbered
    /// from 1 as the match's players are; `offsetFrames` apart in `speech`.
    init(speech: [Float], speakers: Int, offsetFrames: Int, frames: Range<Int>) throws {
        let samples = VoiceDefaults.frameDuration.engineFrames
        var packet = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketBytes)
        var packets: [[[UInt8]]] = []
        for number in 1...speakers {
            var speakerEncoder = try Self.encoder()
            packets.append(
                try frames.map { index in
                    let offset = (number * offsetFrames * samples + index * samples) % (speech.count - samples)
                    let length = try speech[offset..<(offset + samples)].withUnsafeBufferPointer { pcm in
                        try packet.withUnsafeMutableBufferPointer { try speakerEncoder.encode(pcm, into: $0) }
                    }
                    return Array(packet[..<length])
                })
        }
        self.packets = packets
        self.packet = packet
        firstFrame = frames.lowerBound
        encoder = try Self.encoder()
        decoders = try (0..<speakers).map { _ in try OpusDecoderBox() }
        silence = [Float](repeating: 0, count: samples)
        decoded = [Float](repeating: 0, count: engineSampleRate * 120 / 1_000)
    }

    private static func encoder() throws -> OpusEncoder {
        try OpusEncoder(
            OpusEncoder.Configuration(
                frameDuration: VoiceDefaults.frameDuration, bitrate: VoiceDefaults.bitrate,
                complexity: VoiceDefaults.complexity, inbandFEC: false, packetLossPercent: 0))
    }

    /// The work of match frame `index`.
    func run(frame index: Int) throws {
        let frame = index - firstFrame
        try silence.withUnsafeBufferPointer { silence in
            try packet.withUnsafeMutableBufferPointer { packet in
                _ = try encoder.encode(silence, into: packet)
            }
        }
        try decoded.withUnsafeMutableBufferPointer { decoded in
            for (speaker, box) in decoders.enumerated() {
                _ = try packets[speaker][frame].withUnsafeBufferPointer { try box.decoder.decode($0, into: decoded) }
            }
        }
    }
}
