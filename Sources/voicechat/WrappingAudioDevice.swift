import VoiceCore

/// A device in front of another that hands it everything but what it changes (the demo's gate, the recording speaker,
/// `echo-test`'s level meters): a conformer writes only that.
protocol WrappingAudioInput: AudioInput {
    var wrapped: any AudioInput { get }
}

extension WrappingAudioInput {
    var name: String { wrapped.name }
    var format: AudioFormat { wrapped.format }
    var pacing: DevicePacing { wrapped.pacing }
    var isExhausted: Bool { wrapped.isExhausted }
    var statistics: AudioDeviceStatistics { wrapped.statistics }
    var periodCadence: PeriodCadence? { wrapped.periodCadence }
    func start() throws(AudioDeviceError) { try wrapped.start() }
    func stop() { wrapped.stop() }
}

/// The speaker's side of `WrappingAudioInput`.
protocol WrappingAudioOutput: AudioOutput {
    var wrapped: any AudioOutput { get }
}

extension WrappingAudioOutput {
    var name: String { wrapped.name }
    var format: AudioFormat { wrapped.format }
    var pacing: DevicePacing { wrapped.pacing }
    var availableToWrite: Int { wrapped.availableToWrite }
    var statistics: AudioDeviceStatistics { wrapped.statistics }
    var periodCadence: PeriodCadence? { wrapped.periodCadence }
    func start() throws(AudioDeviceError) { try wrapped.start() }
    func stop() { wrapped.stop() }
}
