import CVoiceALSA
import Synchronization
import VoiceCodec
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// The playback side's real-time work: wait until the device can take a period, take it
/// from the ring (silence for whatever the engine has not supplied), convert it from 48 kHz
/// floats and write it.
///
/// Everything the loop touches is allocated in `init`. Thread contract (the reason for
/// `@unchecked Sendable`): the PCM, the buffers, the staging state and the resampler are
/// used by the device thread while it runs and by the owning device only while no device
/// thread runs; thread creation and `pthread_join` order the two. The ring is
/// single-producer (the engine) / single-consumer (this loop); the flags and counters are
/// atomics.
final class ALSAPlaybackLoop: @unchecked Sendable {
    let pcm: ALSAPCM
    let granted: ALSAGrantedParameters
    let ring: AudioRing
    let counters = DeviceCounters()
    /// Marked each time the running device took a period from the ring: the engine mixes each
    /// frame just before it is taken.
    let cadence: PeriodCadence
    /// Set by `stop()`: play what the ring holds, without padding, then end.
    let drainRequested = Atomic<Bool>(false)
    /// Set by the loop when it has played everything out after a drain request.
    let drained = Atomic<Bool>(false)

    private let channels: Int
    private let deviceSamples: DeviceSampleBuffer
    /// Device-rate floats waiting to be written; a period plus one resampled chunk.
    private let staged: UnsafeMutableBufferPointer<Float>
    private var stagedFrames = 0
    /// Frames written since the PCM was last prepared: a stream has started once they reach its
    /// start threshold (a full buffer), whether or not the plugin reports RUNNING.
    private var writtenSincePrepare = 0
    /// 48 kHz frames taken from the ring per resampler call; empty without resampling.
    private let engineChunk: UnsafeMutableBufferPointer<Float>
    private let engineChunkFrames: Int
    private var resampler: Resampler?
    private var pacer: DeviceRatePacer

    private static let waitTimeoutMilliseconds: Int32 = 20

    init(_ configuration: ALSADeviceConfiguration) throws(AudioDeviceError) {
        try configuration.validate()
        let pcm = try ALSAPCM(name: configuration.name, stream: .playback)
        granted = try pcm.configure(configuration)
        self.pcm = pcm
        channels = configuration.channels
        ring = AudioRing(channels: channels, minimumFrames: configuration.ringFrames)
        cadence = PeriodCadence(periodFrames: granted.periodFrames, sampleRate: granted.sampleRate)
        pacer = DeviceRatePacer(
            sampleRate: granted.sampleRate, bufferFrames: granted.bufferFrames, periodFrames: granted.periodFrames)
        deviceSamples = DeviceSampleBuffer(
            format: configuration.sampleFormat, channels: channels, frames: granted.periodFrames)
        if granted.sampleRate == engineSampleRate {
            resampler = nil
            engineChunkFrames = 0
            engineChunk = .allocate(capacity: 0)
            staged = .allocate(capacity: granted.periodFrames * channels)
        } else {
            let resampler: Resampler
            do {
                resampler = try Resampler(
                    channels: channels, inputRate: engineSampleRate, outputRate: granted.sampleRate)
            } catch {
                throw AudioDeviceError(
                    .unsupportedConfiguration, device: configuration.name,
                    reason: "cannot convert 48 kHz to the granted \(granted.sampleRate) Hz: \(error)")
            }
            // Enough 48 kHz input for about one device period per call.
            engineChunkFrames = engineFrames(ofDeviceFrames: granted.periodFrames, sampleRate: granted.sampleRate)
            engineChunk = .allocate(capacity: engineChunkFrames * channels)
            let stagedFrames = granted.periodFrames + resampler.outputCapacity(forInputFrames: engineChunkFrames)
            staged = .allocate(capacity: stagedFrames * channels)
            self.resampler = consume resampler
        }
        engineChunk.initialize(repeating: 0)
        staged.initialize(repeating: 0)
    }

    deinit {
        staged.deallocate()
        engineChunk.deallocate()
    }

    /// Readies the PCM and the staging state for a new run; called by the owner before it
    /// starts the thread.
    func prepare() throws(AudioDeviceError) {
        let status = snd_pcm_prepare(pcm.handle)
        guard status == 0 else {
            throw AudioDeviceError.alsaCall(status, device: pcm.name, operation: "snd_pcm_prepare")
        }
        stagedFrames = 0
        writtenSincePrepare = 0
        resampler?.reset()
        cadence.restart()
        pacer.restart()
        drainRequested.store(false, ordering: .relaxed)
        drained.store(false, ordering: .relaxed)
        counters.failureStatus.store(0, ordering: .releasing)
    }

    /// The device thread's body. Returns when `thread.shouldStop`, after playing out a
    /// drain request, or on an error the device cannot recover from.
    func run(on thread: AudioThread) {
        let handle = pcm.handle
        while !thread.shouldStop {
            let ready = snd_pcm_wait(handle, Self.waitTimeoutMilliseconds)
            if ready < 0 {
                if pcm.recover(from: ready, counters: counters, cadence: cadence) {
                    writtenSincePrepare = 0
                    pacer.restart()
                    continue
                }
                fail(ready)
                break
            }
            let running = pcm.isRunning
            if ready == 0 && running { continue }
            // The stream waits in PREPARED until its start threshold (a full buffer) is
            // written, and `snd_pcm_wait` then reports it ready: keep filling. Only a running
            // device's periods keep its rhythm; the first fill is written all at once.
            let draining = drainRequested.load(ordering: .acquiring)
            let needsPeriod = stagedFrames < granted.periodFrames
            // Silence that fills the buffer before the stream starts is its start-up delay, not
            // something the ring failed to supply: only a running stream's padding is starvation.
            stage(
                padWithSilence: !draining,
                countingStarvation: running || writtenSincePrepare >= granted.bufferFrames)
            if running && needsPeriod { cadence.markPeriod(at: MediaTime.monotonicNow()) }
            if stagedFrames == 0 {
                if draining {
                    playOut(on: thread)
                    drained.store(true, ordering: .releasing)
                    return
                }
                continue
            }
            deviceSamples.fill(frames: stagedFrames, from: staged.baseAddress!)
            let written = snd_pcm_writei(handle, deviceSamples.raw, snd_pcm_uframes_t(stagedFrames))
            if written < 0 {
                // The staged frames stay staged and are offered again after recovery.
                let status = Int32(written)
                if pcm.recover(from: status, counters: counters, cadence: cadence) {
                    writtenSincePrepare = 0
                    pacer.restart()
                    continue
                }
                fail(status)
                break
            }
            counters.deviceFrames.add(written, ordering: .relaxed)
            writtenSincePrepare += written
            unstage(frames: written)
            if pacer.pace(afterMoving: written) { counters.pacedPeriods.add(1, ordering: .relaxed) }
        }
        snd_pcm_drop(handle)
    }

    /// Brings `staged` up to one device period from the ring. Without `padWithSilence` it
    /// stops at what the ring holds (a drain plays the tail and nothing more).
    private func stage(padWithSilence: Bool, countingStarvation: Bool) {
        let periodFrames = granted.periodFrames
        guard stagedFrames < periodFrames else { return }
        guard resampler != nil else {
            let target = UnsafeMutableBufferPointer(
                rebasing: staged[(stagedFrames * channels)..<(periodFrames * channels)])
            let read = ring.read(into: target)
            stagedFrames += read
            if padWithSilence && stagedFrames < periodFrames {
                padSilence(in: staged, from: stagedFrames, to: periodFrames, counted: countingStarvation)
                stagedFrames = periodFrames
            }
            return
        }
        while stagedFrames < periodFrames {
            var read = ring.read(into: engineChunk)
            if read < engineChunkFrames && padWithSilence {
                padSilence(in: engineChunk, from: read, to: engineChunkFrames, counted: countingStarvation)
                read = engineChunkFrames
            }
            guard read > 0 else { return }
            let output = UnsafeMutableBufferPointer(rebasing: staged[(stagedFrames * channels)...])
            let input = UnsafeBufferPointer(start: engineChunk.baseAddress, count: read * channels)
            // The output room holds the result of a whole chunk, so all input is consumed.
            let (_, produced) = resampler!.process(input, into: output)
            stagedFrames += produced
        }
    }

    private func padSilence(in buffer: UnsafeMutableBufferPointer<Float>, from start: Int, to end: Int, counted: Bool) {
        (buffer.baseAddress! + start * channels).update(repeating: 0, count: (end - start) * channels)
        if counted { counters.ringStarvedFrames.add(end - start, ordering: .relaxed) }
    }

    private func unstage(frames: Int) {
        let remaining = stagedFrames - frames
        if remaining > 0 {
            let base = staged.baseAddress!
            base.update(from: base + frames * channels, count: remaining * channels)
        }
        stagedFrames = remaining
    }

    /// After the last frame was written: start the stream if the tail never reached the
    /// start threshold, then wait (bounded, and only while no stop is forced) until the
    /// device has played what it holds.
    private func playOut(on thread: AudioThread) {
        let handle = pcm.handle
        if pcm.isPrepared && snd_pcm_avail_update(handle) < granted.bufferFrames {
            _ = snd_pcm_start(handle)
        }
        let bufferNanoseconds = granted.bufferFrames * 1_000_000_000 / granted.sampleRate
        let deadline = Int(MediaTime.monotonicNow()) + 2 * bufferNanoseconds + 200_000_000
        var pause = timespec(tv_sec: 0, tv_nsec: granted.periodFrames * 1_000_000_000 / granted.sampleRate / 2)
        while !thread.shouldStop && pcm.isRunning && Int(MediaTime.monotonicNow()) < deadline {
            let available = snd_pcm_avail_update(handle)
            if available < 0 || available >= granted.bufferFrames { break }
            nanosleep(&pause, nil)
        }
        // Nothing is pending now, so this returns at once; plugins that buffer (such as
        // `file`) flush on drain.
        if pcm.isRunning || pcm.isPrepared {
            _ = snd_pcm_drain(handle)
        } else {
            _ = snd_pcm_drop(handle)
        }
    }

    private func fail(_ status: Int32) {
        counters.failureStatus.store(status, ordering: .releasing)
    }
}
