import VoiceWire

/// Whether a join's token admits its participant.
enum Admission {
    case admitted(RelayToken)
    case refused(RelayRefusal)
}
