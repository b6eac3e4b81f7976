import VoiceWire

/// The members of one match. Same thread contract as `RelayMember`.
final class RelayMatch {
    let id: String
    var members: [RelayMember] = []
    /// Its players on other relays of the cluster, when it spans them (`RelayState+Span`).
    var remote: [RelayMember] = []
    /// The names its members gave their channels, for logs and the admin; the first name for a
    /// number stands, and at most `maximumChannelNames` are kept.
    var channelNames: [ChannelNumber: String] = [:]
    static let maximumChannelNames = 64

    /// `channel` as a person knows it: its name, or its number when nobody named it.
    func name(of channel: ChannelNumber) -> String { channelNames[channel] ?? "#\(channel)" }

    init(id: String) { self.id = id }

    /// Names `channel` for logs and the admin, unless it has a name or the match as many as it keeps.
    func nameChannel(_ channel: ChannelNumber, _ name: String) {
        if channelNames[channel] == nil, channelNames.count < Self.maximumChannelNames { channelNames[channel] = name }
    }

    func member(participant: String) -> RelayMember? { members.first { $0.participant == participant } }
    func member(mediaID: MediaID) -> RelayMember? { members.first { $0.mediaID == mediaID } }
    func remoteMember(mediaID: MediaID) -> RelayMember? { remote.first { $0.mediaID == mediaID } }
}
