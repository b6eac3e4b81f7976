import VoiceCore
import VoiceWire

extension VoiceEngine {
    /// Two seconds of a player's voice: room for an app that reads it a few times a second.
    public static let playerAudioRingFrames = 96_000

    /// From the next frame on, a frame of `player`'s voice as the mix hears it (48 kHz mono,
    /// silence while they say nothing) goes into the ring returned, which one thread of the app
    /// reads (`AudioRing.read`); what the app does not read in time is dropped. A second call for
    /// the same player replaces the ring.
    public func tapPlayerAudio(_ player: ParticipantID) -> AudioRing {
        let ring = AudioRing(channels: 1, minimumFrames: Self.playerAudioRingFrames)
        let sender = player.mediaID
        withCore { core in core.mixer.tap(player: sender, into: ring) }
        return ring
    }

    /// Stops putting `player`'s voice in a ring.
    public func untapPlayerAudio(_ player: ParticipantID) {
        let sender = player.mediaID
        withCore { core in core.mixer.tap(player: sender, into: nil) }
    }
}
