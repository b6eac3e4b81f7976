import Foundation
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Shows input and output levels while audio runs. On a terminal it redraws one line in place
/// about 20 times a second; otherwise (a pipe, a log) it prints one line per second of audio.
final class MeterDisplay {
    private let interactive: Bool
    private var lastDrawNanoseconds: MediaTime = 0
    private var lastPrintedSecond = -1
    private var drewLine = false

    /// The meter bar spans this range of dBFS.
    private static let floorDBFS: Float = -60
    private static let barWidth = 24

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func update(audioSeconds: Double, input: LevelMeter, output: LevelMeter) {
        let line = "\(Self.clock(audioSeconds))  in \(Self.bar(input))  out \(Self.bar(output))"
        if interactive {
            let now = MediaTime.monotonicNow()
            guard now - lastDrawNanoseconds >= 50_000_000 else { return }
            lastDrawNanoseconds = now
            // \r returns to the start of the line; ESC[K clears what a longer line left behind.
            print("\r\(line)\u{1B}[K", terminator: "")
            // Flush every stream: the line has no newline to flush it.
            fflush(nil)
            drewLine = true
        } else {
            let second = Int(audioSeconds)
            guard second > lastPrintedSecond else { return }
            lastPrintedSecond = second
            print(line)
        }
    }

    /// Ends the live line so that what follows starts on a fresh line.
    func finish() {
        if drewLine { print("") }
    }

    private static func bar(_ meter: LevelMeter) -> String {
        let rms = meter.rmsDBFS
        let filled = Int(((max(rms, floorDBFS) - floorDBFS) / -floorDBFS * Float(barWidth)).rounded())
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
        return "[\(bar)] \(decibels(rms)) rms \(decibels(meter.peakDBFS)) pk"
    }

    private static func decibels(_ value: Float) -> String {
        value <= LevelMeter.floorDBFS ? "  -inf" : String(format: "%6.1f", value)
    }

    private static func clock(_ seconds: Double) -> String {
        String(format: "%2d:%04.1f", Int(seconds) / 60, seconds.truncatingRemainder(dividingBy: 60))
    }

}
