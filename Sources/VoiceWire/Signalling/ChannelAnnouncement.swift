/// What a participant says about one of its voice channels in a match.
package struct ChannelAnnouncement: Sendable, Hashable {
    package var number: ChannelNumber
    package var name: String
    package var isStarted: Bool

    package init(number: ChannelNumber, name: String, isStarted: Bool) {
        self.number = number
        self.name = name
        self.isStarted = isStarted
    }
}
