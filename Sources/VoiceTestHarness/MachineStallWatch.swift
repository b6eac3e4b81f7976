import Foundation
import Synchronization
import VoiceCore

/// Watches whether this machine kept real time while a real-time test ran.
///
/// A virtual machine whose host takes its CPUs away (steal time) stops every process at once: the
/// paced devices of both call ends fall behind, then catch up with silence and dropped audio, and
/// what a listener heard no longer follows the speech it was sent, whatever the engine did. Such a
/// run says nothing about the engine's sound. The watch tells it apart from a loaded machine,
/// which only delays threads by a scheduler slice: a thread sleeps on absolute 5 ms deadlines and
/// adds up how late it woke whenever that is more than a loaded scheduler makes it, and the
/// kernel's steal count says how much of the CPUs' time the host took.
public final class MachineStallWatch: Sendable {
    /// A wake-up this late is a stall: 14 busy loops on this 2-core machine delay it by under 20 ms.
    public static let stallThresholdNanoseconds: MediaTime = 30_000_000
    private static let periodNanoseconds: MediaTime = 5_000_000

    private struct Tally {
        var stalledNanoseconds: MediaTime = 0
        var longestNanoseconds: MediaTime = 0
        var episodes = 0
        var running = true
    }

    private let tally = Mutex(Tally())
    private let startNanoseconds: MediaTime
    private let startTicks: CPUTicks?

    /// Starts watching on a thread of its own.
    public init() {
        startNanoseconds = MediaTime.monotonicNow()
        startTicks = CPUTicks.read()
        // The thread ends at its next wake-up after `finish`.
        Thread { [self] in
            var deadline = startNanoseconds
            while tally.withLock({ $0.running }) {
                deadline += Self.periodNanoseconds
                MediaTime.sleep(until: deadline)
                let woke = MediaTime.monotonicNow()
                let late = woke - deadline
                if late > Self.stallThresholdNanoseconds {
                    tally.withLock {
                        $0.stalledNanoseconds += late
                        $0.longestNanoseconds = max($0.longestNanoseconds, late)
                        $0.episodes += 1
                    }
                }
                // After any late wake-up the next deadline counts from now, so one stall is counted once.
                if late > Self.periodNanoseconds { deadline = woke }
            }
        }.start()
    }

    /// Stops watching and says what the machine did since the watch started.
    public func finish() -> MachineStallReport {
        let tally = self.tally.withLock { tally in
            tally.running = false
            return tally
        }
        let elapsed = MediaTime.monotonicNow() - startNanoseconds
        var stealShare = 0.0
        if let before = startTicks, let after = CPUTicks.read(), after.total > before.total {
            stealShare = Double(after.steal - before.steal) / Double(after.total - before.total)
        }
        return MachineStallReport(
            elapsedSeconds: Double(elapsed) / 1e9, stalledSeconds: Double(tally.stalledNanoseconds) / 1e9,
            longestStallSeconds: Double(tally.longestNanoseconds) / 1e9, stalls: tally.episodes,
            stealShare: stealShare)
    }
}

/// What a `MachineStallWatch` saw.
public struct MachineStallReport: Sendable, CustomStringConvertible {
    public var elapsedSeconds: Double
    public var stalledSeconds: Double
    public var longestStallSeconds: Double
    public var stalls: Int
    /// The share of all CPUs' time the host took (steal), from 0 to 1.
    public var stealShare: Double

    /// Whether real-time work on this machine could keep its pace: stalls took under 2 % of the
    /// time, none lasted 150 ms (longer than a call's jitter buffer holds on loopback, so every
    /// such stall is heard as a gap), and the host took under 10 % of the CPUs.
    public var keptRealTime: Bool {
        stalledSeconds <= 0.02 * elapsedSeconds && longestStallSeconds < 0.15 && stealShare < 0.10
    }

    public var description: String {
        String(
            format: "over %.1f s the machine stalled %d times for %.0f ms in all (longest %.0f ms); steal %.1f %%",
            elapsedSeconds, stalls, stalledSeconds * 1000, longestStallSeconds * 1000, stealShare * 100)
    }
}

/// The kernel's CPU time counters summed over all CPUs (the first line of /proc/stat), in ticks.
struct CPUTicks {
    var total: Int64
    var steal: Int64

    static func read() -> CPUTicks? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
        let fields = line.split(separator: " ").dropFirst().prefix(8).compactMap { Int64($0) }
        guard fields.count == 8 else { return nil }
        return CPUTicks(total: fields.reduce(0, +), steal: fields[7])
    }
}
