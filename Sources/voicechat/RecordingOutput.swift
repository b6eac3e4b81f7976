import VoiceCore
import VoiceDevices

/// A speaker that also records: everything the speaker takes is written to a WAV file as well.
///
/// The recorder is an on-demand file output written on the thread that writes to the speaker (the
/// engine thread, which runs at real-time priority), so it must write in the background: `write`
/// only copies into its ring and its own thread waits for the disk.
///
/// Thread contract: that of the wrapped output; `write` from one thread at a time.
final class RecordingOutput: AudioOutput {
    private let speaker: any AudioOutput
    private let recorder: WAVFileOutput

    init(playing speaker: any AudioOutput, recording recorder: WAVFileOutput) {
        self.speaker = speaker
        self.recorder = recorder
    }

    var name: String { "\(speaker.name) + \(recorder.name)" }
    var format: AudioFormat { speaker.format }
    var pacing: DevicePacing { speaker.pacing }

    func start() throws(AudioDeviceError) {
        try recorder.start()
        try speaker.start()
    }

    func stop() {
        speaker.stop()
        recorder.stop()
    }

    func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        let frames = speaker.write(samples)
        if frames > 0 {
            _ = recorder.write(UnsafeBufferPointer(rebasing: samples[0..<frames * format.channels]))
        }
        return frames
    }

    var availableToWrite: Int { speaker.availableToWrite }
    var statistics: AudioDeviceStatistics { speaker.statistics }
    var periodCadence: PeriodCadence? { speaker.periodCadence }
}
