import CDirectOpus
import VoiceCodec
import VoiceCore

/// One frame length's worth of codec benchmark cases: the fixture cut into frames, packets to
/// decode, and the same loop run through VoiceCodec and through direct libopus calls.
///
/// Buffers are allocated once here so that neither side's timed loop allocates or copies.
struct CodecCaseRunner {
    enum Case {
        case encode(complexity: Int, fec: Bool)
        case decode
        /// Every other packet lost: µs per concealed frame.
        case conceal
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let bitrate = VoiceDefaults.bitrate
    /// A loss hint that makes libopus emit in-band FEC at 32 kbit/s.
    static let fecLossPercent = 10
    static let packetStride = OpusEncoder.maximumPacketBytes

    let duration: FrameDuration
    let frameSize: Int
    let frameCount: Int
    let pcm: UnsafeMutableBufferPointer<Float>
    let output: UnsafeMutableBufferPointer<Float>
    let scratchPackets: UnsafeMutableBufferPointer<UInt8>
    let scratchLengths: UnsafeMutableBufferPointer<Int32>
    /// What the decode cases decode: the fixture encoded at the shipped complexity with FEC.
    let packets: UnsafeMutableBufferPointer<UInt8>
    let lengths: UnsafeMutableBufferPointer<Int32>

    init(samples: [Float], duration: FrameDuration) throws {
        self.duration = duration
        frameSize = duration.engineFrames
        frameCount = samples.count / frameSize
        pcm = .allocate(capacity: frameCount * frameSize)
        _ = pcm.initialize(from: samples.prefix(frameCount * frameSize))
        output = .allocate(capacity: frameCount * frameSize)
        output.initialize(repeating: 0)
        scratchPackets = .allocate(capacity: frameCount * Self.packetStride)
        scratchPackets.initialize(repeating: 0)
        scratchLengths = .allocate(capacity: frameCount)
        scratchLengths.initialize(repeating: 0)
        packets = .allocate(capacity: frameCount * Self.packetStride)
        packets.initialize(repeating: 0)
        lengths = .allocate(capacity: frameCount)
        lengths.initialize(repeating: 0)
        var encoder = try OpusEncoder(configuration(complexity: VoiceDefaults.complexity, fec: true))
        for index in 0..<frameCount {
            lengths[index] = Int32(try encoder.encode(frame(index), into: packetSlot(packets, index)))
        }
    }

    func deallocate() {
        for buffer in [pcm, output] { buffer.deallocate() }
        for buffer in [scratchPackets, packets] { buffer.deallocate() }
        for buffer in [scratchLengths, lengths] { buffer.deallocate() }
    }

    private func configuration(complexity: Int, fec: Bool) -> OpusEncoder.Configuration {
        OpusEncoder.Configuration(
            frameDuration: duration, bitrate: Self.bitrate, complexity: complexity, inbandFEC: fec,
            packetLossPercent: fec ? Self.fecLossPercent : 0)
    }

    @inline(__always)
    private func frame(_ index: Int) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(rebasing: pcm[index * frameSize..<(index + 1) * frameSize])
    }

    @inline(__always)
    private func outputFrame(_ index: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(rebasing: output[index * frameSize..<(index + 1) * frameSize])
    }

    @inline(__always)
    private func packetSlot(_ buffer: UnsafeMutableBufferPointer<UInt8>, _ index: Int) -> UnsafeMutableBufferPointer<
        UInt8
    > {
        UnsafeMutableBufferPointer(rebasing: buffer[index * Self.packetStride..<(index + 1) * Self.packetStride])
    }

    @inline(__always)
    private func packet(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(
            rebasing: packets[index * Self.packetStride..<index * Self.packetStride + Int(lengths[index])])
    }

    /// One repetition through VoiceCodec: a fresh coder (not timed), then the timed loop.
    func swiftMicrosecondsPerFrame(_ benchCase: Case) throws -> Double {
        switch benchCase {
        case .encode(let complexity, let fec):
            var encoder = try OpusEncoder(configuration(complexity: complexity, fec: fec))
            let start = monotonicNanoseconds()
            for index in 0..<frameCount {
                scratchLengths[index] = Int32(try encoder.encode(frame(index), into: packetSlot(scratchPackets, index)))
            }
            return perFrame(monotonicNanoseconds() - start, frames: frameCount)
        case .decode:
            var decoder = try OpusDecoder()
            let start = monotonicNanoseconds()
            for index in 0..<frameCount {
                _ = try decoder.decode(packet(index), into: outputFrame(index))
            }
            return perFrame(monotonicNanoseconds() - start, frames: frameCount)
        case .conceal:
            var decoder = try OpusDecoder()
            var concealing: UInt64 = 0
            for index in 0..<frameCount {
                if index % 2 == 0 {
                    _ = try decoder.decode(packet(index), into: outputFrame(index))
                } else {
                    let start = monotonicNanoseconds()
                    _ = try decoder.conceal(frames: frameSize, into: outputFrame(index))
                    concealing += monotonicNanoseconds() - start
                }
            }
            return perFrame(concealing, frames: frameCount / 2)
        }
    }

    /// The same repetition through direct libopus calls.
    func directMicrosecondsPerFrame(_ benchCase: Case) throws -> Double {
        var status: Int32 = OPUS_OK
        let nanoseconds: Int64
        let frames: Int
        switch benchCase {
        case .encode(let complexity, let fec):
            guard
                let encoder = direct_opus_encoder_create(
                    1, Int32(Self.bitrate), Int32(complexity), fec ? 1 : 0, Int32(fec ? Self.fecLossPercent : 0),
                    &status)
            else { throw Failure(description: "direct_opus_encoder_create failed with status \(status)") }
            defer { direct_opus_encoder_destroy(encoder) }
            nanoseconds = direct_opus_encode_frames(
                encoder, pcm.baseAddress!, 1, Int32(frameSize), Int32(frameCount), scratchPackets.baseAddress!,
                Int32(Self.packetStride), scratchLengths.baseAddress!)
            frames = frameCount
        case .decode, .conceal:
            guard let decoder = direct_opus_decoder_create(1, &status) else {
                throw Failure(description: "direct_opus_decoder_create failed with status \(status)")
            }
            defer { direct_opus_decoder_destroy(decoder) }
            let run = benchCase.isDecode ? direct_opus_decode_frames : direct_opus_conceal_alternate_frames
            nanoseconds = run(
                decoder, packets.baseAddress!, Int32(Self.packetStride), lengths.baseAddress!, Int32(frameCount),
                output.baseAddress!, 1, Int32(frameSize))
            frames = benchCase.isDecode ? frameCount : frameCount / 2
        }
        guard nanoseconds >= 0 else {
            throw Failure(description: "direct libopus call failed with status \(nanoseconds)")
        }
        return perFrame(UInt64(nanoseconds), frames: frames)
    }

    private func perFrame(_ nanoseconds: UInt64, frames: Int) -> Double {
        Double(nanoseconds) / 1_000 / Double(frames)
    }
}

extension CodecCaseRunner.Case {
    var isDecode: Bool {
        if case .decode = self { return true }
        return false
    }
}
