/// One of a sender's keys, wrapped with the pairwise key of the participant it is for.
struct WrappedSenderKey: Sendable, Hashable {
    var channel: UInt16
    var epoch: UInt8
    var bytes: [UInt8]
}

/// What a participant says about one of its voice channels in a match.
struct ChannelAnnouncement: Sendable, Hashable {
    var number: UInt16
    var name: String
    var isStarted: Bool
}
