import Foundation

/// The ALSA configuration every ALSA test in this process shares.
///
/// alsa-lib keeps one global configuration per process, read from `ALSA_CONFIG_PATH`. It
/// re-reads when that variable changes (checked on each open in alsa-lib 1.2.8), but
/// switching it while another test opens a device would race, so every PCM the tests need
/// is defined once, in one file, before the first device is opened. Each test owns the
/// PCMs and raw files named after it, so tests never share a file.
enum ALSATestEnvironment {
    /// A folder for this process's raw files and configuration, removed at exit.
    static let directory: URL = FileManager.default.temporaryDirectory
        .appendingPathComponent("voicechat-alsa-tests-\(getpid())", isDirectory: true)

    /// The JACK server the pacing test starts; unique per process so that parallel runs on
    /// one machine never share it.
    static let jackServerName = "vctest\(getpid())"
    static let jackSpeakerClient = "vcspk\(getpid())"
    static let jackMicrophoneClient = "vcmic\(getpid())"

    /// Writes the configuration and points alsa-lib at it. Every ALSA test reads this first.
    static let configured: Void = {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = """
            </usr/share/alsa/alsa.conf>
            pcm.vc_mic_s16 { type file slave.pcm "null" file "/dev/null" infile "\(path("mic-s16.raw"))" format "raw" }
            pcm.vc_mic_16k { type file slave.pcm "null" file "/dev/null" infile "\(path("mic-16k.raw"))" format "raw" }
            pcm.vc_spk_int16_1 { type file slave.pcm "null" file "\(path("vc_spk_int16_1.raw"))" format "raw" }
            pcm.vc_spk_float32_1 { type file slave.pcm "null" file "\(path("vc_spk_float32_1.raw"))" format "raw" }
            pcm.vc_spk_int16_2 { type file slave.pcm "null" file "\(path("vc_spk_int16_2.raw"))" format "raw" }
            pcm.vc_spk_16k { type file slave.pcm "null" file "\(path("spk-16k.raw"))" format "raw" }
            pcm.vc_jackspk { type jack name "\(jackSpeakerClient)" playback_ports { 0 system:playback_1 } }
            pcm.vc_jackmic { type jack name "\(jackMicrophoneClient)" capture_ports { 0 "\(jackSpeakerClient):out_000" } }
            pcm.vc_jspk { type plug slave.pcm "vc_jackspk" }
            pcm.vc_jmic { type plug slave.pcm "vc_jackmic" }

            """
        let file = directory.appendingPathComponent("asound.conf")
        try? configuration.write(to: file, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", file.path, 1)
        atexit {
            try? FileManager.default.removeItem(at: ALSATestEnvironment.directory)
        }
    }()

    static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    static func writeRaw<Sample>(_ samples: [Sample], to name: String) throws {
        try samples.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: path(name)))
    }

    static func readRaw<Sample>(_ name: String, as type: Sample.Type) throws -> [Sample] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path(name)))
        let count = data.count / MemoryLayout<Sample>.stride
        return data.withUnsafeBytes { bytes in
            (0..<count).map { bytes.loadUnaligned(fromByteOffset: $0 * MemoryLayout<Sample>.stride, as: type) }
        }
    }

    static func remove(_ name: String) {
        try? FileManager.default.removeItem(atPath: path(name))
    }
}
