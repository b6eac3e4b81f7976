import VoiceCore

/// A 1:1 call's place in its life cycle.
enum CallPhase: Equatable, CustomStringConvertible {
    /// We invited and wait for the answer until the deadline.
    case inviting(deadline: MediaTime)
    /// We were invited; the app has not answered yet.
    case invited
    /// Accepted; looking for a real-time path until the deadline.
    case connecting(deadline: MediaTime)
    /// Voice flows.
    case active

    var description: String {
        switch self {
        case .inviting: "inviting"
        case .invited: "invited"
        case .connecting: "connecting"
        case .active: "active"
        }
    }
}
