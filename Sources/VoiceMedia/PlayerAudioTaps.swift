import VoiceCore
import VoiceWire

/// Each tapped player's voice as the mix hears it (their streams in every channel, each at its
/// channel's and their own volume, before placement and the limiter), a frame of it per mixed
/// frame, silence while they say nothing, so that what an app reads lines up in time: a bot that
/// records each player to a file of their own, a moderation tool, a transcriber.
///
/// One thread at a time (the mixer's). Adding a tap allocates its frame; mixing neither allocates
/// nor locks: each frame goes into the tap's ring, which the app reads from one thread of its own.
final class PlayerAudioTaps {
    private struct Tap {
        let sender: MediaID
        let ring: AudioRing
        let frame: UnsafeMutableBufferPointer<Float>
    }

    let frameSamples: Int
    private var taps: [Tap] = []

    init(frameSamples: Int) {
        self.frameSamples = frameSamples
    }

    deinit {
        for tap in taps { tap.frame.deallocate() }
    }

    var isEmpty: Bool { taps.isEmpty }

    /// Taps `sender` into `ring` (mono), replacing a tap it had.
    func add(sender: MediaID, ring: AudioRing) {
        remove(sender: sender)
        let frame = UnsafeMutableBufferPointer<Float>.allocate(capacity: frameSamples)
        frame.initialize(repeating: 0)
        taps.append(Tap(sender: sender, ring: ring, frame: frame))
    }

    func remove(sender: MediaID) {
        guard let index = taps.firstIndex(where: { $0.sender == sender }) else { return }
        taps[index].frame.deallocate()
        taps.remove(at: index)
    }

    /// Starts a mixed frame: every tap's frame is silence until its player's streams are added.
    func beginFrame() {
        for tap in taps { tap.frame.update(repeating: 0) }
    }

    /// Adds one of `sender`'s streams, at `gain`.
    func add(_ frame: UnsafeMutableBufferPointer<Float>, sender: MediaID, gain: Float) {
        for tap in taps where tap.sender == sender {
            for sample in 0..<frameSamples { tap.frame[sample] += frame[sample] * gain }
        }
    }

    /// Ends the mixed frame: each tap's frame goes into its ring (what does not fit is dropped).
    func endFrame() {
        for tap in taps { _ = tap.ring.write(UnsafeBufferPointer(tap.frame)) }
    }
}
