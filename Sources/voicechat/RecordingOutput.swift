import VoiceCore
import VoiceDevices

/// A speaker that also records: everything the speaker takes is written to a WAV file as well.
///
/// The recorder is an on-demand file output written on the thread that writes to the speaker (the
/// engine thread, which runs at real-time priority), so it must write in the background: `write`
/// only copies into its ring and its own thread waits for the disk.
///
/// Thread contract: that of the wrapped output; `write` from one thread at a time. Everything but
/// its name, start, stop and write is the speaker's (`WrappingAudioOutput`).
final class RecordingOutput: WrappingAudioOutput {
    private let speaker: any AudioOutput
    private let recorder: WAVFileOutput
    var wrapped: any AudioOutput { speaker }

    init(playing speaker: any AudioOutput, recording recorder: WAVFileOutput) {
        self.speaker = speaker
        self.recorder = recorder
    }

    var name: String { "\(speaker.name) + \(recorder.name)" }

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
}
