import Synchronization
import VoiceCodec
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// An audio input that plays a WAV file into the engine, as if it were a microphone.
///
/// The whole file is loaded and converted once, at creation: to 48 kHz (time-aligned, nothing
/// lost at the end, see `AlignedResampler`) and to the requested channel count (averaging
/// stereo down to mono, copying mono to every channel). What `read` delivers afterwards is
/// exactly that converted audio, so a 48 kHz file with as many channels as requested comes out
/// bit-exact.
///
/// - `.onDemand`: no thread. `read` hands out the next frames at once; only the end of the
///   file makes it return fewer than asked for. `start` and `stop` do nothing.
/// - `.realTime`: `start` runs a device thread that, like a sound card, delivers one period
///   into a ring at the end of every period of wall-clock time, and `read` drains the ring.
///   Frames that do not fit because the engine did not read in time are dropped and counted
///   in `statistics.ringStarvedFrames`, as a capture device drops them. After the last
///   frame the thread delivers nothing more and returns: appending silence would make the
///   end of the file indistinguishable from quiet audio in it, and `isExhausted` already tells
///   the engine that the source has ended. `stop` and a later `start` resume where it was.
///
/// Thread contract: `read` is called by one engine thread at a time; `start` and `stop` from
/// any thread but the device thread.
public final class WAVFileInput: AudioInput {
    /// The path the file was opened with.
    public let name: String
    /// What `read` delivers: 48 kHz, `channels` channels, float.
    public let format: AudioFormat
    public let pacing: DevicePacing
    /// Frames the device thread delivers per period in `.realTime` pacing.
    public let periodFrames: Int
    /// The rate and channel count of the file itself, before conversion.
    public let fileFormat: AudioFormat

    private let shared: WAVFileInputState
    private let thread = Mutex<AudioThread?>(nil)

    public init(
        path: String,
        channels: Int = 1,
        pacing: DevicePacing,
        periodFrames: Int = 480
    ) throws(AudioDeviceError) {
        guard (1...8).contains(channels) else {
            throw .invalidArgument(path, "\(channels) channels requested; a file input delivers 1…8")
        }
        guard (1...engineSampleRate).contains(periodFrames) else {
            throw .invalidArgument(path, "a period of \(periodFrames) frames; use 1…\(engineSampleRate) (480 is 10 ms)")
        }
        let audio: WAVAudio
        do {
            audio = try WAVAudio(contentsOfFile: path)
        } catch {
            throw .loading(path, error)
        }
        let samples = try Self.convert(audio, toChannels: channels, path: path)
        self.name = path
        self.format = AudioFormat(sampleRate: engineSampleRate, channels: channels)
        self.fileFormat = audio.format
        self.pacing = pacing
        self.periodFrames = periodFrames
        let ring = pacing == .realTime ? AudioRing(channels: channels, minimumFrames: periodFrames * 16) : nil
        let cadence =
            pacing == .realTime ? PeriodCadence(periodFrames: periodFrames, sampleRate: engineSampleRate) : nil
        self.shared = WAVFileInputState(samples: samples, channels: channels, ring: ring, cadence: cadence)
    }

    deinit {
        stop()
    }

    /// Frames the file holds at 48 kHz: everything `read` delivers, start to end.
    public var frameCount: Int { shared.frameCount }

    /// The POSIX id of the device thread while it runs, so that per-thread measurements
    /// (allocation counts, scheduling) can be attributed to it; nil without a running thread.
    public var deviceThread: pthread_t? {
        let id = shared.deviceThread.load(ordering: .acquiring)
        return id == 0 ? nil : pthread_t(id)
    }

    public func start() throws(AudioDeviceError) {
        guard pacing == .realTime else { return }
        let result: Result<Void, AudioDeviceError> = thread.withLock { current in
            guard current == nil else { return .success(()) }
            let shared = self.shared
            let periodFrames = self.periodFrames
            do throws(AudioThreadError) {
                current = try AudioThread(name: "input \(name)") { thread in
                    shared.deliverPeriods(of: periodFrames, until: thread)
                }
                return .success(())
            } catch {
                return .failure(AudioDeviceError(.ioFailure, device: name, reason: error.description, isFile: true))
            }
        }
        try result.get()
    }

    public func stop() {
        let running = thread.withLock { current -> AudioThread? in
            defer { current = nil }
            return current
        }
        running?.join()
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        if let ring = shared.ring { return ring.read(into: buffer) }
        return shared.readOnDemand(into: buffer)
    }

    public var isExhausted: Bool {
        shared.cursor.load(ordering: .acquiring) >= shared.frameCount && (shared.ring?.availableToRead ?? 0) == 0
    }

    public var statistics: AudioDeviceStatistics { shared.counters.snapshot }

    public var periodCadence: PeriodCadence? { shared.cadence }

    /// The file's samples at 48 kHz with `channels` channels.
    private static func convert(_ audio: WAVAudio, toChannels channels: Int, path: String) throws(AudioDeviceError)
        -> [Float]
    {
        let fileChannels = audio.format.channels
        var samples = audio.samples
        if fileChannels != channels {
            var mono = samples
            if fileChannels > 1 {
                mono = [Float](repeating: 0, count: audio.frameCount)
                samples.withUnsafeBufferPointer { source in
                    mono.withUnsafeMutableBufferPointer { destination in
                        _ = SampleConversion.downmix(source, channels: fileChannels, to: destination)
                    }
                }
            }
            samples = mono
            if channels > 1 {
                samples = [Float](repeating: 0, count: audio.frameCount * channels)
                mono.withUnsafeBufferPointer { source in
                    samples.withUnsafeMutableBufferPointer { destination in
                        _ = SampleConversion.upmix(source, channels: channels, to: destination)
                    }
                }
            }
        }
        guard audio.format.sampleRate != engineSampleRate else { return samples }

        var resampler: AlignedResampler
        do {
            resampler = try AlignedResampler(
                channels: channels, inputRate: audio.format.sampleRate, outputRate: engineSampleRate)
        } catch {
            throw AudioDeviceError(
                .unsupportedConfiguration, device: path, reason: error.description,
                suggestion: "convert the file to 48 kHz, e.g. `sox in.wav -r 48000 out.wav`", isFile: true)
        }
        var converted: [Float] = []
        converted.reserveCapacity(
            (audio.frameCount * engineSampleRate / audio.format.sampleRate + 1) * channels)
        samples.withUnsafeBufferPointer { source in
            resampler.process(source) { converted.append(contentsOf: $0) }
        }
        resampler.finish { converted.append(contentsOf: $0) }
        return converted
    }
}

/// What the engine side and the device thread of a `WAVFileInput` share. The thread captures
/// this rather than the device, so that dropping the device stops the thread.
private final class WAVFileInputState: @unchecked Sendable {
    // @unchecked: `samples` is written once, in init, and only read afterwards; everything
    // mutable is atomic or an SPSC ring used by one producer and one consumer.
    let samples: UnsafeMutableBufferPointer<Float>
    let channels: Int
    let frameCount: Int
    let ring: AudioRing?
    /// Marked after every period the device thread delivers (real time only).
    let cadence: PeriodCadence?
    /// The next frame of `samples` to hand out; stored only by the side that hands frames out
    /// (`read` on demand, the device thread in real time).
    let cursor = Atomic<Int>(0)
    let counters = DeviceCounters()
    let deviceThread = Atomic<UInt>(0)

    init(samples: [Float], channels: Int, ring: AudioRing?, cadence: PeriodCadence?) {
        self.samples = .allocate(capacity: samples.count)
        _ = self.samples.initialize(from: samples)
        self.channels = channels
        self.frameCount = samples.count / channels
        self.ring = ring
        self.cadence = cadence
    }

    deinit {
        samples.deallocate()
    }

    func readOnDemand(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        let start = cursor.load(ordering: .relaxed)
        let frames = min(buffer.count / channels, frameCount - start)
        guard frames > 0, let target = buffer.baseAddress, let source = samples.baseAddress else { return 0 }
        target.update(from: source + start * channels, count: frames * channels)
        cursor.store(start + frames, ordering: .releasing)
        counters.deviceFrames.add(frames, ordering: .relaxed)
        return frames
    }

    /// The device loop: one period into the ring at the end of every period, until the file
    /// ends or `thread` is asked to stop. Allocates nothing and takes no lock.
    func deliverPeriods(of periodFrames: Int, until thread: AudioThread) {
        guard let ring, let source = samples.baseAddress else { return }
        deviceThread.store(UInt(pthread_self()), ordering: .releasing)
        defer { deviceThread.store(0, ordering: .releasing) }
        var clock = PeriodClock(periodFrames: periodFrames, sampleRate: engineSampleRate)
        clock.start()
        cadence?.restart()
        while !thread.shouldStop {
            let start = cursor.load(ordering: .relaxed)
            let frames = min(periodFrames, frameCount - start)
            guard frames > 0 else { return }
            clock.waitForNextPeriod()
            let period = UnsafeBufferPointer(start: source + start * channels, count: frames * channels)
            let written = ring.write(period)
            if written < frames {
                counters.ringStarvedFrames.add(frames - written, ordering: .relaxed)
            }
            counters.deviceFrames.add(frames, ordering: .relaxed)
            cursor.store(start + frames, ordering: .releasing)
            cadence?.markPeriod(at: MediaTime.monotonicNow())
        }
    }
}

extension WAVFileInput {
    /// The whole file at 48 kHz with `channels` channels, converted as the device converts it:
    /// for simulations and tools that want the recording rather than a device.
    public static func recording(path: String, channels: Int = 1) throws(AudioDeviceError) -> [Float] {
        let file = try WAVFileInput(path: path, channels: channels, pacing: .onDemand)
        var samples = [Float](repeating: 0, count: file.frameCount * channels)
        let frames = samples.withUnsafeMutableBufferPointer { file.read(into: $0) }
        samples.removeLast(samples.count - frames * channels)
        return samples
    }
}
