import VoiceCodec
import VoiceCore

/// A receive stream's decoding: the Opus decoder (and the second one for redundant copies when
/// configured), the frame it decodes into, concealment, and what the decoder's state still
/// matches of the sender's.
///
/// One thread at a time, as its stream; never allocates after `init`.
final class StreamDecoder {
    /// The frame decoded last (sized for the longest Opus packet, so decode never fails for room).
    let frame: UnsafeMutableBufferPointer<Float>
    private let frameSamples: Int
    private var decoder: OpusDecoder
    /// Only with `.separateDecoder`: most streams never need a second decoder's state.
    private var redundancyDecoder: OpusDecoder?
    /// Set when the decoder has not heard this stream for a while (nothing played, or playout
    /// started over): it has nothing sensible to continue, so it conceals silence and is reset
    /// before it next decodes.
    var isStale = false
    /// The frame concealed last, with the playout moved past it, while the decoder has done
    /// nothing since: its packet, if it comes late, is decoded (not played) so that the next
    /// frame decodes from the state the sender's encoder had, not from the concealment's.
    var concealedFrameTimestamp: Int64?

    init(configuration: JitterBufferConfiguration) throws(CodecError) {
        frameSamples = configuration.frameDuration.engineFrames
        decoder = try OpusDecoder(sampleRate: engineSampleRate, channels: 1)
        redundancyDecoder =
            configuration.redundancyDecoding == .separateDecoder
            ? try OpusDecoder(sampleRate: engineSampleRate, channels: 1) : nil
        frame = .allocate(capacity: decoder.maximumFrameSamples)
        frame.initialize(repeating: 0)
    }

    deinit {
        frame.deallocate()
    }

    /// Decodes one frame into `frame`, padding a short one with silence; false if it did not decode.
    func decode(_ payload: UnsafeBufferPointer<UInt8>, with choice: JitterBufferConfiguration.RedundancyDecoding)
        -> Bool
    {
        if choice == .mainDecoder { concealedFrameTimestamp = nil }
        resetIfStale()
        do {
            let decoded =
                switch choice {
                case .mainDecoder: try decoder.decode(payload, into: frame)
                case .separateDecoder: try redundancyDecoder?.decode(payload, into: frame) ?? 0
                }
            for index in min(decoded, frameSamples)..<frameSamples { frame[index] = 0 }
            return true
        } catch {
            return false
        }
    }

    /// Rebuilds the frame before `next` from the low-bitrate copy Opus's in-band FEC put in it.
    func decodeFEC(from next: UnsafeBufferPointer<UInt8>) -> Bool {
        concealedFrameTimestamp = nil
        resetIfStale()
        do {
            _ = try decoder.decodeFEC(from: next, frames: frameSamples, into: frame)
            return true
        } catch {
            return false
        }
    }

    /// Conceals one frame into `frame` (nothing, when not `render`ed); false when what plays is
    /// silence instead.
    func conceal(render: Bool) -> Bool {
        concealedFrameTimestamp = nil
        guard render else {
            isStale = true
            return true
        }
        if isStale { return false }
        do {
            _ = try decoder.conceal(frames: frameSamples, into: frame)
            return true
        } catch {
            return false
        }
    }

    /// Decodes, where nobody hears it, the packet of the frame just concealed, if it is the one
    /// at `timestamp`: the frames after it then continue from the sender's state, and the
    /// concealment's error ends with its frame instead of fading out over the next ones. Into
    /// `frame`: the frame played last was taken from it, and the next tick writes it anew.
    /// Returns whether it decoded one.
    func decodeLate(_ payload: UnsafeBufferPointer<UInt8>, timestamp: Int64) -> Bool {
        guard timestamp == concealedFrameTimestamp, !isStale else { return false }
        concealedFrameTimestamp = nil
        return (try? decoder.decode(payload, into: frame)) != nil
    }

    /// Zeroes the frame: what plays is silence.
    func silence() {
        UnsafeMutableBufferPointer(rebasing: frame[0..<frameSamples]).update(repeating: 0)
    }

    /// Whether the frame is under `threshold` dBFS.
    func isQuiet(below threshold: Float) -> Bool {
        LevelMeter.rmsDBFS(of: UnsafeBufferPointer(rebasing: frame[0..<frameSamples])) < threshold
    }

    private func resetIfStale() {
        if isStale {
            decoder.reset()
            isStale = false
        }
    }
}
