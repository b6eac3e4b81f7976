import VoiceWire

/// What a relay of a cluster knows of where its matches live (see `RelayPlacement`): the matches
/// it is home to, the joins that wait for the cluster's answer, and, while it drains, where each
/// of its matches is moving. Part of `RelayState`, on its event loop.
struct RelayPlacementLedger {
    /// A join held until the cluster says where its match lives.
    enum WaitingJoin {
        case media(RelayJoin)
        case signalling(token: String, participant: String)

        var participant: String {
            switch self {
            case .media(let join): join.participant
            case .signalling(_, let participant): participant
            }
        }
    }

    /// Whether the relay is one of a cluster; a relay on its own holds every match it is asked for.
    var isClustered = false
    /// Set once the relay drains: it takes no new matches and moves those it holds.
    var isDraining = false
    /// Matches the cluster placed here.
    var home: Set<String> = []
    /// Joins waiting for the cluster's answer, by match, then by where each came from (a client
    /// repeats its join until answered: the latest of each source is kept).
    var waiting: [String: [RelaySource: WaitingJoin]] = [:]
    /// Matches moving away, and their new home's address.
    var moving: [String: String] = [:]
    /// Moving matches whose members are being let go, all at once.
    var lettingGo: Set<String> = []
    /// Matches whose new home was asked for and not yet given.
    var movesAsked: Set<String> = []
}
