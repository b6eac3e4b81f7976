import ArgumentParser
import Foundation
import VoiceCore
import VoiceDevices

/// Where audio comes from and goes to: ALSA devices by name, or WAV files instead. Shared by
/// every command that records or plays.
struct AudioEndpointOptions: ParsableArguments {
    @Option(help: ArgumentHelp("ALSA device to capture from (e.g. default, hw:0, plughw:1,0).", valueName: "device"))
    var capture: String?

    @Option(help: ArgumentHelp("ALSA device to play to.", valueName: "device"))
    var playback: String?

    @Option(
        help: ArgumentHelp(
            "WAV file to use instead of a capture device (16-bit or float, any rate).", valueName: "file.wav"))
    var input: String?

    @Option(
        help: ArgumentHelp(
            "WAV file to write instead of playing (48 kHz 16-bit, mono unless --speaker-channels 2).",
            valueName: "file.wav"))
    var output: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Device sample rate in Hz, \(NumericArgument.deviceRate); other rates than 48000 are resampled "
                + "(default: 48000).", valueName: "Hz"),
        transform: NumericArgument.deviceRate.int)
    var deviceRate = 48_000

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Device channels: 1 (mono) or 2 (stereo) (default: 1).", valueName: "1|2"),
        transform: NumericArgument.channels.int)
    var deviceChannels = 1

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "What the speaker plays: 1 (mono) or 2 (stereo, with positional channels panned to where the "
                + "players stand), on --playback or in --output (default: 1).", valueName: "1|2"),
        transform: NumericArgument.channels.int)
    var speakerChannels = 1

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Device period in frames, \(NumericArgument.periodFrames) (480 = 10 ms at 48 kHz) "
                + "(default: \(VoiceDefaults.devicePeriodFrames)).", valueName: "frames"),
        transform: NumericArgument.periodFrames.int)
    var periodFrames = VoiceDefaults.devicePeriodFrames

    func validate() throws {
        if capture != nil, input != nil {
            throw ValidationError(
                "--capture and --input exclude each other: capture from a device or read a file, not both.")
        }
        if playback != nil, output != nil {
            throw ValidationError(
                "--playback and --output exclude each other: play to a device or write a file, not both.")
        }
        if let input, let output, Self.isSameFile(input, output) {
            throw ValidationError(
                "--output \(output) is the --input file: writing it would destroy the audio being read; "
                    + "name another file.")
        }
    }

    /// Whether two paths name one file: the same path once resolved, or the same inode (a link).
    private static func isSameFile(_ first: String, _ second: String) -> Bool {
        func resolved(_ path: String) -> URL {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        }
        if resolved(first) == resolved(second) { return true }
        let manager = FileManager.default
        guard let one = try? manager.attributesOfItem(atPath: first),
            let other = try? manager.attributesOfItem(atPath: second),
            let inode = one[.systemFileNumber] as? Int, let device = one[.systemNumber] as? Int
        else { return false }
        return inode == other[.systemFileNumber] as? Int && device == other[.systemNumber] as? Int
    }

    /// Whether any side is a real device, which then sets the pace for the files.
    var usesDevices: Bool { input == nil || output == nil }

    private func deviceConfiguration(name: String) -> ALSADeviceConfiguration {
        var configuration = ALSADeviceConfiguration(name: name)
        configuration.sampleRate = deviceRate
        configuration.channels = deviceChannels
        configuration.periodFrames = periodFrames
        configuration.bufferFrames = periodFrames * 4
        return configuration
    }

    /// Opens the source. Files are paced in real time when a device is on the other side, so
    /// that the device's clock is the only clock; between two files they run as fast as possible.
    func openInput() throws(AudioDeviceError) -> any AudioInput {
        if let input {
            return try WAVFileInput(
                path: input, channels: 1, pacing: usesDevices ? .realTime : .onDemand,
                periodFrames: periodFrames)
        }
        return try ALSACaptureDevice(deviceConfiguration(name: capture ?? "default"))
    }

    func openOutput() throws(AudioDeviceError) -> any AudioOutput {
        if let output {
            return try WAVFileOutput(
                path: output, channels: speakerChannels, pacing: usesDevices ? .realTime : .onDemand,
                periodFrames: periodFrames)
        }
        var configuration = deviceConfiguration(name: playback ?? "default")
        if speakerChannels == 2 { configuration.channels = 2 }
        return try ALSAPlaybackDevice(configuration)
    }
}

extension NumericArgument {
    /// The sample rates a device may be asked for, Hz.
    static let deviceRate = NumericArgument(
        Double(ALSADeviceConfiguration.sampleRates.lowerBound)...Double(ALSADeviceConfiguration.sampleRates.upperBound),
        unit: "Hz")
    /// Mono or stereo.
    static let channels = NumericArgument(1...2)
    /// A device period, frames.
    static let periodFrames = NumericArgument(
        1...Double(ALSADeviceConfiguration.maximumPeriodFrames), unit: "frames")
}
