import Synchronization
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// An audio output that records what the engine plays into a WAV file, as if the file were a
/// speaker.
///
/// The file is created at once (so an unwritable path fails here, not later) and written as a
/// stream: memory does not grow with the length of the recording. At every `stop` the header
/// is patched with the final size, so the file is a valid WAV whenever the device is stopped;
/// writing after a later `start` continues the same file. Files at rates other than 48 kHz
/// are resampled on the way out, time-aligned and with nothing lost at the end.
///
/// - `.onDemand`: no thread; `write` converts and writes everything it is given at once.
/// - `.onDemand` with `writesInBackground`: no device thread either, but `write` only copies into
///   a preallocated ring holding two seconds, and an ordinary-priority writer thread converts and
///   writes to disk in chunks, so that `write` may be called from a real-time thread. What does
///   not fit in the ring (a disk stalled for longer) is lost and counts as an xrun. `stop` waits
///   for the writer to write everything written before it.
/// - `.realTime`: a device thread consumes one period from the ring at the end of every period
///   of wall-clock time, like a sound card: when the engine is late the missing frames are
///   recorded as silence and counted in `statistics.ringStarvedFrames`. That thread never
///   touches the disk, which may block for any length of time: it hands each period to a
///   second, ordinary-priority writer thread through another preallocated ring holding two
///   seconds, and the writer converts and writes to disk in chunks. Only if the disk stalls
///   for longer than that are periods lost; each loss counts as an xrun. `stop` lets the
///   device thread play what is still queued, then waits for the writer to write all of it.
///
/// Thread contract: `write` is called by one engine thread at a time; `start` and `stop` from
/// any thread but the device's own.
public final class WAVFileOutput: AudioOutput {
    /// The path the file was created at.
    public let name: String
    /// What `write` takes: 48 kHz, `channels` channels, float.
    public let format: AudioFormat
    public let pacing: DevicePacing
    public let periodFrames: Int
    /// The rate and channel count of the file.
    public let fileFormat: AudioFormat
    /// How samples are stored in the file.
    public let sampleFormat: SampleFormat

    private let shared: WAVFileOutputState
    /// The writer thread while started, and the device thread with `.realTime` pacing.
    private let threads = Mutex<(device: AudioThread?, writer: AudioThread)?>(nil)

    public init(
        path: String,
        channels: Int = 1,
        sampleRate: Int = 48_000,
        sampleFormat: SampleFormat = .int16,
        pacing: DevicePacing,
        periodFrames: Int = 480,
        writesInBackground: Bool = false
    ) throws(AudioDeviceError) {
        guard (1...2).contains(channels) else {
            throw .invalidArgument(path, "\(channels) channels requested; WAV files here are mono or stereo")
        }
        guard (1_000...384_000).contains(sampleRate) else {
            throw .invalidArgument(path, "a file rate of \(sampleRate) Hz; use 1000…384000 Hz")
        }
        guard (1...engineSampleRate).contains(periodFrames) else {
            throw .invalidArgument(path, "a period of \(periodFrames) frames; use 1…\(engineSampleRate) (480 is 10 ms)")
        }
        let fileFormat = AudioFormat(sampleRate: sampleRate, channels: channels)
        let writer = try WAVStreamWriter(path: path, format: fileFormat, sampleFormat: sampleFormat)
        self.name = path
        self.format = AudioFormat(sampleRate: engineSampleRate, channels: channels)
        self.fileFormat = fileFormat
        self.sampleFormat = sampleFormat
        self.pacing = pacing
        self.periodFrames = periodFrames
        let mode: WAVFileOutputState.Mode =
            pacing == .realTime ? .realTime : writesInBackground ? .backgroundWriter : .inline
        self.shared = WAVFileOutputState(writer: writer, channels: channels, periodFrames: periodFrames, mode: mode)
    }

    deinit {
        stop()
    }

    /// The POSIX id of the real-time device thread while it runs (not the disk writer's), so
    /// that per-thread measurements can be attributed to it; nil without a running thread.
    public var deviceThread: pthread_t? {
        let id = shared.deviceThread.load(ordering: .acquiring)
        return id == 0 ? nil : pthread_t(id)
    }

    /// The first failure writing to disk (a full disk, say), if any. Audio after it is dropped.
    public var writeError: AudioDeviceError? {
        shared.writer.withLock { $0.failure }
    }

    public func start() throws(AudioDeviceError) {
        guard shared.diskRing != nil else { return }
        let result: Result<Void, AudioDeviceError> = threads.withLock { current in
            guard current == nil else { return .success(()) }
            let shared = self.shared
            do throws(AudioThreadError) {
                let device =
                    shared.engineRing == nil
                    ? nil : try AudioThread(name: "output \(name)") { _ in shared.playPeriods() }
                let writer: AudioThread
                do throws(AudioThreadError) {
                    writer = try AudioThread(name: "writer \(name)", scheduling: .normal) { _ in shared.writeToDisk() }
                } catch {
                    if let device {
                        shared.draining.store(true, ordering: .releasing)
                        device.join()
                        shared.draining.store(false, ordering: .releasing)
                    }
                    throw error
                }
                current = (device, writer)
                return .success(())
            } catch {
                return .failure(AudioDeviceError(.ioFailure, device: name, reason: error.description, isFile: true))
            }
        }
        try result.get()
    }

    public func stop() {
        threads.withLock { current in
            if let (device, writer) = current {
                shared.draining.store(true, ordering: .releasing)
                device?.join()
                shared.deviceFinished.store(true, ordering: .releasing)
                writer.join()
                shared.draining.store(false, ordering: .releasing)
                shared.deviceFinished.store(false, ordering: .releasing)
                current = nil
            }
            shared.writer.withLock { $0.finish() }
        }
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        let frames = samples.count / format.channels
        let whole = UnsafeBufferPointer(rebasing: samples[0..<frames * format.channels])
        if let ring = shared.engineRing {
            return ring.write(whole)
        }
        guard frames > 0 else { return 0 }
        if let ring = shared.diskRing {
            let written = ring.write(whole)
            shared.counters.deviceFrames.add(written, ordering: .relaxed)
            if written < frames { shared.counters.xruns.add(1, ordering: .relaxed) }
            return written
        }
        shared.writer.withLock { $0.append(whole) }
        shared.counters.deviceFrames.add(frames, ordering: .relaxed)
        return frames
    }

    public var availableToWrite: Int {
        shared.engineRing?.availableToWrite ?? Int.max
    }

    public var statistics: AudioDeviceStatistics { shared.counters.snapshot }

    public var periodCadence: PeriodCadence? { shared.cadence }
}

/// What the engine side, the device thread and the writer thread of a `WAVFileOutput` share.
/// The threads capture this rather than the device, so that dropping the device stops them.
private final class WAVFileOutputState: @unchecked Sendable {
    // @unchecked: `period` is touched only by the device thread and `chunk` only by the writer
    // thread; everything else is atomic, an SPSC ring with one producer and one consumer, or
    // behind a lock.
    let writer: Mutex<WAVStreamWriter>
    let channels: Int
    let periodFrames: Int
    /// How audio reaches the disk.
    enum Mode {
        /// `write` writes to disk itself.
        case inline
        /// `write` → writer thread.
        case backgroundWriter
        /// `write` → device thread, paced by the clock → writer thread.
        case realTime
    }

    /// Engine → device thread (`.realTime`).
    let engineRing: AudioRing?
    /// Marked each time the device thread takes a period (`.realTime`).
    let cadence: PeriodCadence?
    /// Device thread (or `write`, with a background writer) → writer thread.
    let diskRing: AudioRing?
    let period: UnsafeMutableBufferPointer<Float>
    let chunk: UnsafeMutableBufferPointer<Float>
    let counters = DeviceCounters()
    /// Set by `stop`: the device thread plays what is queued, without padding, then returns.
    let draining = Atomic<Bool>(false)
    /// Set by `stop` once the device thread (if any) has returned: the writer drains its ring a
    /// last time and returns.
    let deviceFinished = Atomic<Bool>(false)
    let deviceThread = Atomic<UInt>(0)

    init(writer: WAVStreamWriter, channels: Int, periodFrames: Int, mode: Mode) {
        self.writer = Mutex(writer)
        self.channels = channels
        self.periodFrames = periodFrames
        engineRing = mode == .realTime ? AudioRing(channels: channels, minimumFrames: periodFrames * 16) : nil
        cadence = mode == .realTime ? PeriodCadence(periodFrames: periodFrames, sampleRate: engineSampleRate) : nil
        period = .allocate(capacity: mode == .realTime ? periodFrames * channels : 0)
        if mode == .inline {
            diskRing = nil
            chunk = .allocate(capacity: 0)
        } else {
            diskRing = AudioRing(channels: channels, minimumFrames: 2 * engineSampleRate)
            chunk = .allocate(capacity: 4_096 * channels)
        }
        period.initialize(repeating: 0)
        chunk.initialize(repeating: 0)
    }

    deinit {
        period.deallocate()
        chunk.deallocate()
    }

    /// The device loop: takes one period from the engine's ring at the end of every period and
    /// hands it to the writer. Allocates nothing, takes no lock and never touches the disk.
    func playPeriods() {
        guard let engineRing, let diskRing else { return }
        deviceThread.store(UInt(pthread_self()), ordering: .releasing)
        defer { deviceThread.store(0, ordering: .releasing) }
        var clock = PeriodClock(periodFrames: periodFrames, sampleRate: engineSampleRate)
        clock.start()
        cadence?.restart()
        // Once draining, what was queued when `stop` was called; a writer that keeps writing
        // meanwhile cannot keep the device playing forever.
        var drainBudget: Int?
        while true {
            clock.waitForNextPeriod()
            // Loaded before the ring is read, so that everything written before `stop` is played.
            if drainBudget == nil, draining.load(ordering: .acquiring) {
                drainBudget = engineRing.availableToRead
            }
            var frames: Int
            if let budget = drainBudget {
                frames = engineRing.read(
                    into: UnsafeMutableBufferPointer(rebasing: period[0..<min(budget, periodFrames) * channels]))
                if frames == 0 { return }
                drainBudget = budget - frames
            } else {
                frames = engineRing.read(into: period)
                cadence?.markPeriod(at: MediaTime.monotonicNow())
                if frames < periodFrames {
                    (period.baseAddress! + frames * channels).update(
                        repeating: 0, count: (periodFrames - frames) * channels)
                    counters.ringStarvedFrames.add(periodFrames - frames, ordering: .relaxed)
                    frames = periodFrames
                }
            }
            counters.deviceFrames.add(frames, ordering: .relaxed)
            if diskRing.write(UnsafeBufferPointer(rebasing: period[0..<frames * channels])) < frames {
                counters.xruns.add(1, ordering: .relaxed)
            }
        }
    }

    /// The writer loop: moves what the device thread played (or `write` queued) to disk, in
    /// chunks, until `stop` (after the device thread, if any, has returned) and everything
    /// queued before it is written.
    func writeToDisk() {
        guard let diskRing else { return }
        while true {
            // Loaded before draining, so that a finished device thread has nothing left behind.
            let isFinished = deviceFinished.load(ordering: .acquiring)
            while case let frames = diskRing.read(into: chunk), frames > 0 {
                writer.withLock { $0.append(UnsafeBufferPointer(rebasing: chunk[0..<frames * channels])) }
            }
            if isFinished { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
    }
}
