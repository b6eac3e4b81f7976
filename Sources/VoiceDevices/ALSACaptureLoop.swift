import CVoiceALSA
import VoiceCodec
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// The capture side's real-time work: wait for a period, read it, convert it to 48 kHz
/// floats and push it into the ring the engine drains.
///
/// Everything the loop touches is allocated in `init`. Thread contract (the reason for
/// `@unchecked Sendable`): the PCM, the buffers and the resampler are used by the device
/// thread while it runs and by the owning device only while no device thread runs; thread
/// creation and `pthread_join` order the two. The ring is single-producer (this loop) /
/// single-consumer (the engine); the counters are atomics.
final class ALSACaptureLoop: @unchecked Sendable {
    let pcm: ALSAPCM
    let granted: ALSAGrantedParameters
    let ring: AudioRing
    let counters = DeviceCounters()
    /// Marked after every period pushed into the ring: the engine sends it at once.
    let cadence: PeriodCadence

    private let channels: Int
    private let deviceSamples: DeviceSampleBuffer
    /// One period at the device rate, as floats.
    private let deviceFloats: UnsafeMutableBufferPointer<Float>
    /// One period resampled to 48 kHz; empty when the device runs at 48 kHz.
    private let engineFloats: UnsafeMutableBufferPointer<Float>
    private var resampler: Resampler?
    private var pacer: DeviceRatePacer

    /// How long one wait for the device may last, so that the loop sees a stop request
    /// promptly even when the device delivers nothing.
    private static let waitTimeoutMilliseconds: Int32 = 20

    init(_ configuration: ALSADeviceConfiguration) throws(AudioDeviceError) {
        try configuration.validate()
        let pcm = try ALSAPCM(name: configuration.name, stream: .capture)
        granted = try pcm.configure(configuration)
        self.pcm = pcm
        channels = configuration.channels
        ring = AudioRing(channels: channels, minimumFrames: configuration.ringFrames)
        cadence = PeriodCadence(periodFrames: granted.periodFrames, sampleRate: granted.sampleRate)
        pacer = DeviceRatePacer(
            sampleRate: granted.sampleRate, bufferFrames: granted.bufferFrames, periodFrames: granted.periodFrames)
        deviceSamples = DeviceSampleBuffer(
            format: configuration.sampleFormat, channels: channels, frames: granted.periodFrames)
        deviceFloats = .allocate(capacity: granted.periodFrames * channels)
        deviceFloats.initialize(repeating: 0)
        if granted.sampleRate == engineSampleRate {
            resampler = nil
            engineFloats = .allocate(capacity: 0)
        } else {
            let resampler: Resampler
            do {
                resampler = try Resampler(
                    channels: channels, inputRate: granted.sampleRate, outputRate: engineSampleRate)
            } catch {
                deviceFloats.deallocate()
                throw AudioDeviceError(
                    .unsupportedConfiguration, device: configuration.name,
                    reason: "cannot convert the granted \(granted.sampleRate) Hz to 48 kHz: \(error)")
            }
            engineFloats = .allocate(
                capacity: resampler.outputCapacity(forInputFrames: granted.periodFrames) * channels)
            engineFloats.initialize(repeating: 0)
            self.resampler = consume resampler
        }
    }

    deinit {
        deviceFloats.deallocate()
        engineFloats.deallocate()
    }

    /// Readies the PCM for a new run; called by the owner before it starts the thread.
    func prepare() throws(AudioDeviceError) {
        let status = snd_pcm_prepare(pcm.handle)
        guard status == 0 else {
            throw AudioDeviceError.alsaCall(status, device: pcm.name, operation: "snd_pcm_prepare")
        }
        resampler?.reset()
        cadence.restart()
        pacer.restart()
        counters.failureStatus.store(0, ordering: .releasing)
    }

    /// The device thread's body. Returns when `thread.shouldStop` or on an error the device
    /// cannot recover from (recorded in `counters.failureStatus`).
    func run(on thread: AudioThread) {
        let handle = pcm.handle
        let periodFrames = snd_pcm_uframes_t(granted.periodFrames)
        while !thread.shouldStop {
            if pcm.isPrepared {
                let status = snd_pcm_start(handle)
                if status < 0 {
                    guard pcm.recover(from: status, counters: counters, cadence: cadence) else {
                        fail(status)
                        break
                    }
                    pacer.restart()
                }
            }
            let ready = snd_pcm_wait(handle, Self.waitTimeoutMilliseconds)
            if ready < 0 {
                if pcm.recover(from: ready, counters: counters, cadence: cadence) {
                    pacer.restart()
                    continue
                }
                fail(ready)
                break
            }
            if ready == 0 { continue }
            let frames = snd_pcm_readi(handle, deviceSamples.raw, periodFrames)
            if frames < 0 {
                let status = Int32(frames)
                if pcm.recover(from: status, counters: counters, cadence: cadence) {
                    pacer.restart()
                    continue
                }
                fail(status)
                break
            }
            guard frames > 0 else { continue }
            counters.deviceFrames.add(frames, ordering: .relaxed)
            if pacer.pace(afterMoving: frames) { counters.pacedPeriods.add(1, ordering: .relaxed) }
            deliver(frames: frames)
            cadence.markPeriod(at: MediaTime.monotonicNow())
        }
        snd_pcm_drop(handle)
    }

    /// Converts `frames` device frames and pushes them into the ring.
    ///
    /// When the ring is full the newest frames are dropped, not the oldest: only the
    /// engine, the ring's single consumer, may move its read position, so the producer
    /// cannot discard old audio without breaking the ring's contract. The engine sees the
    /// loss in `ringStarvedFrames` and catches up by discarding what it no longer wants.
    private func deliver(frames: Int) {
        deviceSamples.convert(frames: frames, to: deviceFloats.baseAddress!)
        let input = UnsafeBufferPointer(start: deviceFloats.baseAddress, count: frames * channels)
        guard resampler != nil else {
            push(input)
            return
        }
        resampler!.process(input, through: engineFloats) { push($0) }
    }

    private func push(_ samples: UnsafeBufferPointer<Float>) {
        let offered = samples.count / channels
        guard offered > 0 else { return }
        let written = ring.write(samples)
        if written < offered {
            counters.ringStarvedFrames.add(offered - written, ordering: .relaxed)
        }
    }

    private func fail(_ status: Int32) {
        counters.failureStatus.store(status, ordering: .releasing)
    }
}
