/// One of a sender's keys, wrapped with the pairwise key of the participant it is for.
package struct WrappedSenderKey: Sendable, Hashable {
    package var channel: ChannelNumber
    package var epoch: UInt8
    package var bytes: [UInt8]

    package init(channel: ChannelNumber, epoch: UInt8, bytes: [UInt8]) {
        self.channel = channel
        self.epoch = epoch
        self.bytes = bytes
    }
}
