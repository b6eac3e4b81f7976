import ArgumentParser
import Foundation
import Synchronization
import VoiceCore
import VoiceDevices

/// `bench/run ring`: does the audio-thread side of the device layer stay allocation-free, and
/// what does the SPSC ring cost compared with copying the same bytes?
struct RingBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ring",
        abstract:
            "Allocations per period on audio threads (ring loop, WAV file devices, ALSA devices) and ring throughput.",
        discussion: """
            The ring loop runs an AudioThread that writes 10 ms periods into an AudioRing as fast as \
            the engine side drains them (not paced, so thousands of periods take a moment); the naive \
            loop does the same with a fresh array per period, to prove that the counter sees \
            allocations. The WAV file devices run paced in real time. Throughput moves frames \
            between two threads through the ring and compares with memcpy of the same bytes.
            """
    )

    @Option(help: "Periods of 480 frames in the ring loop and the naive loop.")
    var periods = 5_000

    @Option(help: "Seconds to run the real-time WAV file input and output.")
    var deviceSeconds = 3.0

    @Option(help: "Frames moved per throughput repetition.")
    var throughputFrames = 20_000_000

    @Option(help: "Throughput repetitions; the median is reported.")
    var repetitions = 5

    func validate() throws {
        guard periods > 0, deviceSeconds > 0, throughputFrames > 0, repetitions > 0 else {
            throw ValidationError("--periods, --device-seconds, --throughput-frames and --repetitions must be positive")
        }
    }

    func run() throws {
        var report = BenchmarkReport(bench: "ring")
        let counting = AllocationCounter.isActive()
        report.require(
            counting, "allocation counting is inactive: run through bench/run, which preloads the interposer")

        let ringAllocations = try periodLoop(naive: false)
        let naiveAllocations = try periodLoop(naive: true)
        report.add(
            "ring loop allocations per period", Double(ringAllocations) / Double(periods), unit: "allocs/period",
            baseline: Double(naiveAllocations) / Double(periods), target: .atMost(0))
        report.add(
            "naive loop allocations per period", Double(naiveAllocations) / Double(periods), unit: "allocs/period")
        report.require(naiveAllocations > 0, "the counter saw no allocation in the naive loop: it is not counting")

        let devices = try deviceLoop()
        report.add(
            "WAV devices allocations per period", devices.allocationsPerPeriod, unit: "allocs/period",
            target: .atMost(0))
        report.add("WAV devices periods played", Double(devices.periods), unit: "periods")
        report.add("WAV output starved frames", Double(devices.starvedFrames), unit: "frames")
        report.require(devices.periods > 0, "the WAV devices played no period")

        let alsa = try alsaLoop()
        report.add(
            "ALSA devices allocations per period", alsa.allocationsPerPeriod, unit: "allocs/period", target: .atMost(0))
        report.add("ALSA devices periods moved", Double(alsa.periods), unit: "periods")
        report.require(alsa.periods > 0, "the ALSA devices moved no period")

        let ringRate = median((0..<repetitions).map { _ in ringThroughput() })
        let copyRate = median((0..<repetitions).map { _ in copyThroughput() })
        report.add("ring throughput, 2 threads", ringRate / 1e6, unit: "Mframes/s", baseline: copyRate / 1e6)
        report.add("memcpy in+out throughput, 1 thread", copyRate / 1e6, unit: "Mframes/s")

        if !report.finish() { throw ExitCode.failure }
    }

    /// Runs `periods` periods on an AudioThread, writing each into a ring the engine side drains,
    /// and returns the allocations the audio thread made while looping. `naive` makes each
    /// period a fresh array kept in a growing history, as an allocating hot path would.
    private func periodLoop(naive: Bool) throws -> Int {
        let periodFrames = 480
        let periods = self.periods
        let ring = AudioRing(channels: 1, minimumFrames: periodFrames * 16)
        let handshake = LoopHandshake()
        let thread = try AudioThread(name: naive ? "naive loop" : "ring loop") { thread in
            // Setup, before counting starts: the loop itself must not allocate.
            let period = UnsafeMutableBufferPointer<Float>.allocate(capacity: periodFrames)
            defer { period.deallocate() }
            var history: [[Float]] = []
            handshake.publishThread()
            while !handshake.go.load(ordering: .acquiring) { LoopHandshake.pause() }
            for index in 0..<periods {
                if naive {
                    var fresh = [Float](repeating: 0, count: periodFrames)
                    for frame in 0..<periodFrames { fresh[frame] = Float(index + frame) }
                    history.append(fresh)
                    fresh.withUnsafeBufferPointer { writeWhole($0, to: ring, unless: thread) }
                } else {
                    for frame in 0..<periodFrames { period[frame] = Float(index + frame) }
                    writeWhole(UnsafeBufferPointer(period), to: ring, unless: thread)
                }
            }
            handshake.done.store(history.count, ordering: .releasing)
        }
        let id = handshake.waitForThread()
        AllocationCounter.start(threads: [id])
        handshake.go.store(true, ordering: .releasing)
        let sink = UnsafeMutableBufferPointer<Float>.allocate(capacity: periodFrames * 4)
        defer { sink.deallocate() }
        var received = 0
        while received < periods * periodFrames {
            let frames = ring.read(into: sink)
            received += frames
            if frames == 0 { LoopHandshake.pause() }
        }
        while handshake.done.load(ordering: .acquiring) < 0 { LoopHandshake.pause() }
        let allocations = AllocationCounter.stop()
        thread.join()
        return allocations
    }

    /// Runs a real-time WAV input and output for `deviceSeconds`, with this thread as the engine
    /// moving every period from one to the other, and counts allocations on both device threads.
    private func deviceLoop() throws -> (allocationsPerPeriod: Double, periods: Int, starvedFrames: Int) {
        let fixtures = ProcessInfo.processInfo.environment["VOICECHAT_FIXTURES"] ?? "Fixtures"
        let directory = NSTemporaryDirectory() + "ring-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let input = try WAVFileInput(path: fixtures + "/speech-male.wav", pacing: .realTime)
        let output = try WAVFileOutput(path: directory + "/out.wav", sampleRate: 16_000, pacing: .realTime)
        try input.start()
        try output.start()
        var threads: [pthread_t] = []
        while threads.count < 2 {
            threads = [input.deviceThread, output.deviceThread].compactMap { $0 }
            LoopHandshake.pause()
        }
        let before = input.statistics.deviceFrames + output.statistics.deviceFrames
        AllocationCounter.start(threads: threads)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_800)
        defer { buffer.deallocate() }
        let end = monotonicNanoseconds() + UInt64(deviceSeconds * 1e9)
        while monotonicNanoseconds() < end {
            let frames = input.read(into: buffer)
            if frames > 0 { _ = output.write(UnsafeBufferPointer(rebasing: buffer[0..<frames])) }
            usleep(2_000)
        }
        let allocations = AllocationCounter.stop()
        let after = input.statistics.deviceFrames + output.statistics.deviceFrames
        input.stop()
        output.stop()
        let periods = (after - before) / 480
        return (Double(allocations) / Double(max(periods, 1)), periods, output.statistics.ringStarvedFrames)
    }

    /// Runs ALSA capture and playback on the `null` PCM, which every alsa-lib configuration
    /// defines, for `deviceSeconds`, with this thread moving captured frames to playback, and
    /// counts allocations on both device threads. `null` is not paced, so the loops run as fast
    /// as alsa-lib lets them: many periods, each through the same code a sound card drives.
    private func alsaLoop() throws -> (allocationsPerPeriod: Double, periods: Int) {
        let configuration = ALSADeviceConfiguration(name: "null", periodFrames: 480, bufferFrames: 1_920)
        let capture = try ALSACaptureDevice(configuration)
        let playback = try ALSAPlaybackDevice(configuration)
        try capture.start()
        try playback.start()
        var threads: [pthread_t] = []
        while threads.count < 2 {
            threads = [capture.deviceThread, playback.deviceThread].compactMap { $0 }
            LoopHandshake.pause()
        }
        // Let both loops reach their steady state (the playback start threshold) first.
        usleep(100_000)
        let before = capture.statistics.deviceFrames + playback.statistics.deviceFrames
        AllocationCounter.start(threads: threads)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_800)
        defer { buffer.deallocate() }
        let end = monotonicNanoseconds() + UInt64(deviceSeconds * 1e9)
        while monotonicNanoseconds() < end {
            let frames = capture.read(into: buffer)
            if frames > 0 { _ = playback.write(UnsafeBufferPointer(rebasing: buffer[0..<frames])) }
            usleep(1_000)
        }
        let allocations = AllocationCounter.stop()
        let after = capture.statistics.deviceFrames + playback.statistics.deviceFrames
        capture.stop()
        playback.stop()
        let periods = (after - before) / 480
        return (Double(allocations) / Double(max(periods, 1)), periods)
    }

    /// Frames per second through a ring from a producer thread to this thread, 480 at a time.
    private func ringThroughput() -> Double {
        let total = throughputFrames
        let ring = AudioRing(channels: 1, minimumFrames: 8_192)
        let started = Atomic<Bool>(false)
        let producer = Thread {
            let period = UnsafeMutableBufferPointer<Float>.allocate(capacity: 480)
            period.initialize(repeating: 0.5)
            defer { period.deallocate() }
            while !started.load(ordering: .acquiring) {}
            var sent = 0
            while sent < total {
                let frames = ring.write(UnsafeBufferPointer(rebasing: period[0..<min(480, total - sent)]))
                if frames == 0 { sched_yield() }
                sent += frames
            }
        }
        let sink = UnsafeMutableBufferPointer<Float>.allocate(capacity: 480)
        defer { sink.deallocate() }
        producer.start()
        let start = monotonicNanoseconds()
        started.store(true, ordering: .releasing)
        var received = 0
        while received < total {
            let frames = ring.read(into: sink)
            if frames == 0 { sched_yield() }
            received += frames
        }
        return Double(total) / (Double(monotonicNanoseconds() - start) / 1e9)
    }

    /// Frames per second on one thread for the copies the ring makes, without the second
    /// thread: 480 frames memcpy'd into storage of the ring's size and out again, with a
    /// release store after each (as the ring publishes its positions), which also keeps the
    /// compiler from discarding copies nobody reads.
    private func copyThroughput() -> Double {
        let total = throughputFrames
        let period = UnsafeMutableBufferPointer<Float>.allocate(capacity: 480)
        let storage = UnsafeMutableBufferPointer<Float>.allocate(capacity: 8_192)
        let destination = UnsafeMutableBufferPointer<Float>.allocate(capacity: 480)
        period.initialize(repeating: 0.5)
        storage.initialize(repeating: 0)
        destination.initialize(repeating: 0)
        defer {
            period.deallocate()
            storage.deallocate()
            destination.deallocate()
        }
        let published = Atomic<Int>(0)
        let start = monotonicNanoseconds()
        var copied = 0
        while copied < total {
            let frames = min(480, total - copied)
            let position = copied & 8_191
            let firstPart = min(frames, 8_192 - position)
            let bytes = MemoryLayout<Float>.size
            memcpy(storage.baseAddress! + position, period.baseAddress!, firstPart * bytes)
            memcpy(storage.baseAddress!, period.baseAddress! + firstPart, (frames - firstPart) * bytes)
            published.store(copied + frames, ordering: .releasing)
            memcpy(destination.baseAddress!, storage.baseAddress! + position, firstPart * bytes)
            memcpy(destination.baseAddress! + firstPart, storage.baseAddress!, (frames - firstPart) * bytes)
            copied += frames
            published.store(copied, ordering: .releasing)
        }
        let elapsed = Double(monotonicNanoseconds() - start) / 1e9
        if destination[0] != 0.5 || published.load(ordering: .relaxed) != total { print("unexpected copy result") }
        return Double(total) / elapsed
    }
}

/// Writes all of `samples` into `ring`, waiting (not spinning: the thread may be SCHED_FIFO on
/// a small machine) while it is full, unless the thread is asked to stop.
private func writeWhole(_ samples: UnsafeBufferPointer<Float>, to ring: AudioRing, unless thread: AudioThread) {
    var written = 0
    while written < samples.count, !thread.shouldStop {
        let frames = ring.write(UnsafeBufferPointer(rebasing: samples[written...]))
        if frames == 0 { LoopHandshake.pause() }
        written += frames
    }
}

/// How the measuring thread and a loop thread agree on when counting starts and ends.
private final class LoopHandshake: Sendable {
    let thread = Atomic<UInt>(0)
    let go = Atomic<Bool>(false)
    /// The loop's history length once it has finished, -1 before.
    let done = Atomic<Int>(-1)

    func publishThread() { thread.store(UInt(pthread_self()), ordering: .releasing) }

    func waitForThread() -> pthread_t {
        while thread.load(ordering: .acquiring) == 0 { Self.pause() }
        return pthread_t(thread.load(ordering: .acquiring))
    }

    /// Sleeps 50 µs: a wait that yields the core even to lower-priority threads.
    static func pause() {
        var interval = timespec(tv_sec: 0, tv_nsec: 50_000)
        nanosleep(&interval, nil)
    }
}
