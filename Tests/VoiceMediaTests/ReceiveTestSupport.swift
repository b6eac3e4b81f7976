import Testing
import VoiceCodec
import VoiceCore
import VoiceDevices
import VoiceMedia
import VoiceWire

#if canImport(Glibc)
    import Glibc
#endif

/// Fixture audio from the repository's Fixtures/ folder, found relative to this file.
enum ReceiveFixture {
    static func load(_ name: String, filePath: String = #filePath) throws -> WAVAudio {
        var components = filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // this file, VoiceMediaTests, Tests
        return try WAVAudio(contentsOfFile: components.joined(separator: "/") + "/Fixtures/" + name)
    }

    /// The male speech fixture encoded once per configuration (tests run in parallel, each
    /// encodes its own copy: encoding is cheap next to the simulated minutes).
    static func speech() throws -> [Float] { try load("speech-male.wav").samples }
}

/// One frame as the sender produced it: the primary Opus frame, and a low-bitrate copy of the
/// same audio from a second encoder for piggybacking on later packets.
struct EncodedFrame {
    var primary: [UInt8]
    var lowBitrate: [UInt8]
}

/// Encodes `samples` frame by frame with a main encoder and a low-bitrate redundancy encoder.
func encodeFrames(
    _ samples: [Float], frameDuration: FrameDuration = .ms20, inbandFEC: Bool = true, dtx: Bool = false
) throws -> [EncodedFrame] {
    var main = try OpusEncoder(
        .init(frameDuration: frameDuration, bitrate: 32_000, dtx: dtx, inbandFEC: inbandFEC, packetLossPercent: 10))
    var low = try OpusEncoder(
        .init(frameDuration: frameDuration, bitrate: 12_000, inbandFEC: false, packetLossPercent: 0))
    let length = frameDuration.engineFrames
    var frames: [EncodedFrame] = []
    var start = 0
    while start + length <= samples.count {
        let pcm = Array(samples[start..<start + length])
        frames.append(EncodedFrame(primary: try main.encode(pcm), lowBitrate: try low.encode(pcm)))
        start += length
    }
    return frames
}

/// A packet as it goes on the wire, with when it arrives at the listener.
struct TimedPacket {
    var bytes: [UInt8]
    var arrival: MediaTime
}

/// Writes one voice packet with `VoicePacketWriter`; `redundant` lists earlier frames' copies,
/// most recent first, with their offsets in samples.
func writePacket(
    sender: MediaID = 7, channel: ChannelNumber = 3, sequence: UInt16, timestamp: UInt32,
    flags: VoicePacketFlags = [.speaking], primary: [UInt8], redundant: [(offset: UInt16, payload: [UInt8])] = []
) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: VoicePacketWriter.maximumPacketBytes)
    let count = try primary.withUnsafeBytes { primary in
        try buffer.withUnsafeMutableBytes { output in
            func with(_ index: Int, _ body: ((offset: UInt16, payload: UnsafeRawBufferPointer)?) throws -> Int) throws
                -> Int
            {
                guard index < redundant.count else { return try body(nil) }
                return try redundant[index].payload.withUnsafeBytes { try body((redundant[index].offset, $0)) }
            }
            return try with(0) { first in
                try with(1) { second in
                    try VoicePacketWriter.write(
                        flags: flags, channel: channel, sender: sender, sequence: sequence, timestamp: timestamp,
                        primary: primary, redundant0: first, redundant1: first == nil ? nil : second, into: output)
                }
            }
        }
    }
    return Array(buffer[0..<count])
}

/// Drives a receive stream in virtual time: before each pull every packet due is inserted, then
/// one frame is pulled at the tick. Returns what was played.
struct ReceiveHarness {
    var stream: VoiceReceiveStream
    var frameDuration: FrameDuration
    /// Called after every pull with the tick index.
    var observe: ((Int, VoiceReceiveStream) -> Void)?
    /// Ticks at which the listener's speaker took nothing (a device that missed cycles): packets
    /// still arrive, no frame is pulled, and that stretch of the output stays silent.
    var missedTicks: Range<Int> = 0..<0

    init(
        configuration: JitterBufferConfiguration = JitterBufferConfiguration(), sender: MediaID = 7,
        channel: ChannelNumber = 3
    )
        throws
    {
        stream = try VoiceReceiveStream(sender: sender, channel: channel, configuration: configuration)
        frameDuration = configuration.frameDuration
    }

    func run(_ packets: [TimedPacket], ticks: Int) -> [Float] {
        let ordered = packets.enumerated().sorted { ($0.element.arrival, $0.offset) < ($1.element.arrival, $1.offset) }
            .map(\.element)
        let frame = frameDuration.engineFrames
        var output = [Float](repeating: 0, count: ticks * frame)
        var next = 0
        output.withUnsafeMutableBufferPointer { output in
            for tick in 0..<ticks {
                let now = MediaTime(tick) * frameDuration.nanoseconds
                while next < ordered.count && ordered[next].arrival <= now {
                    ordered[next].bytes.withUnsafeBytes { bytes in
                        if let view = try? VoicePacketView(parsing: bytes) {
                            stream.insert(view, bytes: bytes, arrival: ordered[next].arrival)
                        }
                    }
                    next += 1
                }
                if missedTicks.contains(tick) { continue }
                stream.pullFrame(
                    into: UnsafeMutableBufferPointer(rebasing: output[(tick * frame)..<((tick + 1) * frame)]), at: now)
                observe?(tick, stream)
            }
        }
        return output
    }
}

/// Decodes every primary frame in order with a fresh decoder: what a perfect network gives.
func plainDecode(_ frames: [EncodedFrame]) throws -> [Float] {
    try plainDecode(frames.map(\.primary))
}

/// Decodes `payloads` (Opus packets) in order with a fresh decoder.
func plainDecode(_ payloads: [[UInt8]]) throws -> [Float] {
    var decoder = try OpusDecoder()
    var pcm = [Float](repeating: 0, count: decoder.maximumFrameSamples)
    var output: [Float] = []
    for payload in payloads {
        let count = try payload.withUnsafeBufferPointer { packet in
            try pcm.withUnsafeMutableBufferPointer { try decoder.decode(packet, into: $0) }
        }
        output.append(contentsOf: pcm[0..<count])
    }
    return output
}

/// The whole-frame shift at which `played` reproduces `reference` exactly over `frames` frames, if any.
func exactFrameShift(of reference: [Float], in played: [Float], frameSamples: Int, frames: Int, maximumShift: Int = 20)
    -> Int?
{
    let length = frames * frameSamples
    for shift in 0...maximumShift {
        let start = shift * frameSamples
        guard start + length <= played.count, length <= reference.count else { return nil }
        if played[start..<start + length].elementsEqual(reference[0..<length]) { return shift }
    }
    return nil
}

/// Signal-to-error ratio in dB of `signal` against `reference` over `range`.
func signalToErrorDB(_ reference: [Float], _ signal: [Float], range: Range<Int>) -> Double {
    var power = 0.0
    var error = 0.0
    for index in range {
        let value = Double(reference[index])
        power += value * value
        let difference = value - Double(signal[index])
        error += difference * difference
    }
    return 10 * log10(max(power, 1e-20) / max(error, 1e-20))
}

/// Turns encoded frames into the packets a sender emits. Frames in `unsent` are never sent (the
/// sender is in DTX: no sequence number is used); the first frame sent after such a pause
/// carries `talkSpurtStart`. Each packet carries up to `redundancyDepth` low-bitrate copies of
/// the frames before it, or with `copyOffsets` copies of the frames that many back (increasing).
/// `arrival` gives each frame index's arrival time.
func makePackets(
    _ frames: [EncodedFrame], frameSamples: Int = 960, firstSequence: UInt16 = 100, firstTimestamp: UInt32 = 5_000,
    redundancyDepth: Int = 0, copyOffsets: [Int]? = nil, unsent: Set<Int> = [], quiet: Set<Int> = [],
    sender: MediaID = 7, channel: ChannelNumber = 3, arrival: (Int) -> MediaTime
) throws -> [(frame: Int, packet: TimedPacket)] {
    let offsets = copyOffsets ?? (redundancyDepth > 0 ? Array(1...redundancyDepth) : [])
    var packets: [(frame: Int, packet: TimedPacket)] = []
    var sequence = firstSequence
    var previousSent = true
    for index in frames.indices {
        if unsent.contains(index) {
            previousSent = false
            continue
        }
        var flags: VoicePacketFlags = quiet.contains(index) ? [] : [.speaking]
        if !previousSent || index == 0 { flags.insert(.talkSpurtStart) }
        var redundant: [(offset: UInt16, payload: [UInt8])] = []
        for offset in offsets {
            let earlier = index - offset
            guard earlier >= 0, !unsent.contains(earlier) else { break }
            redundant.append((UInt16(offset * frameSamples), frames[earlier].lowBitrate))
        }
        let timestamp = firstTimestamp &+ UInt32(truncatingIfNeeded: index * frameSamples)
        let bytes = try writePacket(
            sender: sender, channel: channel, sequence: sequence, timestamp: timestamp, flags: flags,
            primary: frames[index].primary, redundant: redundant)
        packets.append((index, TimedPacket(bytes: bytes, arrival: arrival(index))))
        sequence &+= 1
        previousSent = true
    }
    return packets
}
