/// Where the events of a session that signalling names go: the service's for a call, the match's
/// for a match.
enum SessionEvents {
    case call(EventSink<VoiceChatEvent>)
    case match(EventSink<MatchEvent>)
}
