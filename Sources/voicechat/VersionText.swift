import VoiceCodec
import VoiceDevices
import VoiceWire

/// What `voicechat --version` prints: the release, the commit it was built from, and the C
/// libraries it runs with as they report themselves (speexdsp has no call that reports its
/// version), which is what a bug report needs.
enum VersionText {
    static let release = "0.1.0"

    static var description: String {
        "voicechat \(release) (commit \(BuildCommit.description))\n"
            + "\(CodecLibraries.opusVersion), alsa-lib \(DeviceLibraries.alsaVersion), "
            + "libsodium \(CryptoLibraries.sodiumVersion)"
    }
}
