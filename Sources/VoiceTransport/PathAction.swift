import VoiceWire

/// What a `PathSelector` asks its owner to do. The owner seals probes and replies (envelope content
/// `.probe` / `.probeReply`) and sends them on the route given.
public enum PathAction: Sendable, Hashable {
    case sendProbe(ConnectivityProbe, PathRoute)
    /// Echo a probe the peer sent, on the route it came in on.
    case sendProbeReply(ConnectivityProbe, PathRoute)
    /// Voice now goes on `to`; `nil` means no route works.
    case routeChanged(from: PathRoute?, to: PathRoute?)
    /// No route has answered for `peerTimeout`: the participant is disconnected. Sent once.
    case peerGone
}
