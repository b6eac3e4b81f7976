import Foundation
import VoiceCore
import VoiceEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The pipeline benchmark's real-engine part: one listener's `VoiceEngine` hearing eight remote
/// speakers' engines in a match, at the shipped settings, sealing on, over an in-process
/// transport in virtual time. What the listener's engine costs (its ticks and the datagrams
/// handed to it) is timed and its allocations counted apart from the speakers'; its courier
/// runs on its own thread, as with the engine's own thread.
struct EngineMatchRun {
    struct Result {
        /// Seconds of audio per second of CPU the listener's engine took on its thread.
        var listenerSpeed: Double
        /// Seconds of audio per second all nine engines and the transport took.
        var matchSpeed: Double
        /// Allocations per frame on the listener's engine in steady state (after the warm-up).
        var listenerAllocationsPerFrame: Double
        var matchAllocationsPerFrame: Double
        /// Speakers the listener heard with packets, after the warm-up.
        var speakersHeard: Int
        /// Seconds of audio per second of CPU the work run alongside took, when there was some.
        var alongsideSpeed: Double?
    }

    let speech: [Float]
    let speakers: Int
    let warmupSeconds: Double
    let seconds: Double

    /// Frames measured after the warm-up.
    var frames: Int { Int(seconds * 1_000 / VoiceDefaults.frameDuration.milliseconds) }
    var warmupFrames: Int { Int(warmupSeconds * 1_000 / VoiceDefaults.frameDuration.milliseconds) }
    /// Frames between two speakers' starting points in the speech.
    static let offsetFrames = 83

    /// Runs the match; `alongside` runs once per measured frame (given the frame's number), in the
    /// same loop as the engines, and is timed apart.
    func run(countingAllocations: Bool, alongside: ListenerCodecWork? = nil) throws -> Result {
        let world = try InProcessMatch(players: speakers + 1, configuration: EngineConfiguration())
        let listener = world.players[0].engine
        // As an app whose own audio thread ticks the engine runs it: the courier's thread sends and
        // delivers events, so what is timed and counted here is the engine's thread's share.
        try listener.startDelivering()
        let frame = VoiceDefaults.frameDuration
        let samples = frame.engineFrames
        let silence = [Float](repeating: 0, count: samples)
        var output = [Float](repeating: 0, count: samples)
        var listenerNanoseconds: UInt64 = 0
        var listenerAllocations = 0
        var alongsideNanoseconds: UInt64 = 0
        // Each speaker reads the speech from its own offset, so that the mix is of distinct talkers.
        let offsets = (0..<world.players.count).map { $0 * Self.offsetFrames * samples }
        func step(_ index: Int, measuring: Bool) throws {
            world.clock.advance(by: frame.nanoseconds)
            if measuring, let alongside {
                let start = threadCPUNanoseconds()
                try alongside.run(frame: index)
                alongsideNanoseconds += threadCPUNanoseconds() - start
            }
            world.deliver { engine, handOver in
                guard measuring, engine === listener else { return handOver() }
                let (start, allocated) = (threadCPUNanoseconds(), AllocationCounter.counted)
                handOver()
                listenerNanoseconds += threadCPUNanoseconds() - start
                listenerAllocations += AllocationCounter.counted - allocated
            }
            for (number, player) in world.players.enumerated() {
                let offset = (offsets[number] + index * samples) % (speech.count - samples)
                let tick = { (captured: UnsafeBufferPointer<Float>) in
                    output.withUnsafeMutableBufferPointer {
                        player.engine.tick(at: world.clock.now, captured: captured, output: $0)
                    }
                }
                if number == 0 {
                    let (start, allocated) = (threadCPUNanoseconds(), AllocationCounter.counted)
                    silence.withUnsafeBufferPointer(tick)
                    if measuring {
                        listenerNanoseconds += threadCPUNanoseconds() - start
                        listenerAllocations += AllocationCounter.counted - allocated
                    }
                } else {
                    speech[offset..<(offset + samples)].withUnsafeBufferPointer(tick)
                }
            }
        }
        for index in 0..<warmupFrames { try step(index, measuring: false) }
        let speakersHeard =
            listener.statistics().filter { ($0.streams.values.first?.receive.packetsReceived ?? 0) > 0 }.count
        if countingAllocations { AllocationCounter.start(threads: [pthread_self()]) }
        let start = monotonicNanoseconds()
        for index in warmupFrames..<(warmupFrames + frames) { try step(index, measuring: true) }
        let wall = Double(monotonicNanoseconds() - start) / 1e9
        let allocations = countingAllocations ? AllocationCounter.stop() : 0
        for player in world.players { player.engine.shutDown() }
        return Result(
            listenerSpeed: seconds / (Double(listenerNanoseconds) / 1e9), matchSpeed: seconds / wall,
            listenerAllocationsPerFrame: Double(listenerAllocations) / Double(frames),
            matchAllocationsPerFrame: Double(allocations) / Double(frames), speakersHeard: speakersHeard,
            alongsideSpeed: alongside.map { _ in seconds / (Double(alongsideNanoseconds) / 1e9) })
    }
}
