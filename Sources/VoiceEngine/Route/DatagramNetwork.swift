import VoiceCore

/// Where the engine's datagrams go when they leave by a direct path.
public protocol DatagramNetwork: AnyObject, Sendable {
    /// Sends one datagram (copying it: the buffer is reused once this returns); never blocks;
    /// drops (and counts) what cannot be sent.
    func send(_ datagram: UnsafeRawBufferPointer, to address: PeerAddress)
    /// The addresses at which this network receives, to offer to peers as candidates.
    var localCandidates: [PeerAddress] { get }
}
