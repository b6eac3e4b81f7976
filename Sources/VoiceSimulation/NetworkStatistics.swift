/// What a `SimulatedNetwork` did with the datagrams sent over it.
public struct NetworkStatistics: Sendable, Hashable, Codable {
    /// Datagrams handed to `send`.
    public var sent = 0
    /// Datagrams dropped by the loss model.
    public var dropped = 0
    /// Extra copies scheduled by the duplication model.
    public var duplicated = 0
    /// Datagrams (copies included) handed to a `deliver` body.
    public var delivered = 0
    /// Deliveries of a datagram sent before one delivered earlier.
    public var reordered = 0
    /// Datagrams (or copies) dropped because every pool slot was in flight.
    public var poolOverflow = 0
    /// Datagrams dropped because they exceed the network's maximum datagram size.
    public var oversize = 0

    public init() {}

    /// Datagrams scheduled and not yet delivered.
    public var inFlight: Int { sent - dropped + duplicated - poolOverflow - oversize - delivered }
}
