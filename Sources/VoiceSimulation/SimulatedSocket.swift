import VoiceCore
import VoiceEngine

/// One participant's UDP socket in a `SimulatedWorld`: what its engine sends crosses the world's
/// network, and what arrives goes to `engine`.
public final class SimulatedSocket: DatagramNetwork, @unchecked Sendable {
    public let address: PeerAddress
    private let world: SimulatedWorld
    /// Set once, before the world delivers anything; read by the driving thread.
    public weak var engine: VoiceEngine?

    public init(address: PeerAddress, world: SimulatedWorld) {
        self.address = address
        self.world = world
        world.attach(self)
    }

    public var localCandidates: [PeerAddress] { [address] }

    public func send(_ datagram: UnsafeRawBufferPointer, to address: PeerAddress) {
        world.send(datagram, from: self.address, to: address)
    }
}
