import VoiceCore
import VoiceTransport

/// A match's relay as the engine core sees it.
struct SessionRelay {
    let link: any RelayConnection
    /// Relay transports joined now: the relay routes every peer's selector may use.
    var joined: Set<RealTimePathKind> = []

    init(link: any RelayConnection) { self.link = link }

    /// No direct candidates: the relay (then app-carried) carries everything.
    var isPrimary: Bool { link.options.isPrimary }
}
