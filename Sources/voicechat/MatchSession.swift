import Foundation
import Synchronization
import VoiceControl
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceRelay
import VoiceRelayClient
import VoiceWire

/// What `join` does once its engine is open: reach the relay, join the match, start the channels,
/// run until the end, report, clean up.
enum MatchSession {
    static func run(
        local: CallEngine, relay: CallAddress, options: RelayOptions, match matchID: String, channels: [String],
        active: String, call: CallOptions, observation: ObservationOptions, until deadline: MediaTime?
    ) async -> Result<Void, CommandFailure> {
        let participant = local.engine.participant
        let pending = EventInbox<MatchNews>()
        let client: RelayMatchClient
        do {
            client = try await RelayMatchClient.connect(
                host: relay.host, port: relay.port, otherRelays: options.otherRelays, token: options.token,
                participant: participant
            ) { event in pending.append(.relay(event)) }
        } catch {
            await local.shutDown()
            return .failure(CommandFailure("cannot reach the relay at \(relay): \(error)"))
        }
        let result: Result<Void, CommandFailure>
        var observers: SessionObservers?
        var match: Match?
        do throws(CommandFailure) {
            let joined: Match
            let voiceChannels: [VoiceChannel]
            do {
                (joined, voiceChannels) = try join(
                    matchID, engine: local.engine, client: client, relay: options, channels: channels, active: active
                ) { event in pending.append(.match(event)) }
                match = joined
            } catch {
                throw CommandFailure("cannot join match \(matchID): \(error)")
            }
            let control = MatchControl(match: joined, channels: voiceChannels)
            if call.ptt { try? control.setPushToTalk(true) }
            observers = try await SessionObservers.start(observation, control: control)
            try local.start()
            printStatus(
                "joining match \(matchID) as \(participant) through \(relay); channels "
                    + channels.joined(separator: ", ") + ", talking in \(active)", level: .notice)
            let started = MediaTime.monotonicNow()
            let lastSeen = LastStatistics()
            let ending = try await loop(
                until: deadline, pending: pending, match: joined, relay: relay,
                watch: { lastSeen.update(local.engine.statistics().filter { $0.session == matchID }) })
            lastSeen.update(local.engine.statistics().filter { $0.session == matchID })
            let seconds = Double(MediaTime.monotonicNow() - started) / 1e9
            let statistics = lastSeen.players
            await observers?.stop()
            observers = nil
            printStatus(
                MatchSummary(match: matchID, seconds: seconds, ending: ending, statistics: statistics).report,
                level: .notice)
            if let path = observation.summaryJSON {
                SessionSummaryFile(
                    kind: "match", participant: local.engine.participant.rawValue, match: matchID, seconds: seconds,
                    ending: "\(ending)",
                    participants: statistics.sorted { $0.participant < $1.participant }
                ).write(to: path)
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await observers?.stop()
        match?.disconnect()
        await client.close()
        await local.shutDown()
        return result
    }

    /// Joins `matchID` through `client`, which then hands the match what the relay forwards, and
    /// starts `channels`, `active` with the microphone. If a channel fails, the match is left again.
    static func join(
        _ matchID: String, engine: VoiceEngine, client: RelayMatchClient, relay: RelayOptions, channels: [String],
        active: String, onEvent: (@Sendable (MatchEvent) -> Void)? = nil
    ) throws(VoiceChatError) -> (match: Match, channels: [VoiceChannel]) {
        let match = try Match(
            engine: engine, client: client, matchID: matchID, players: [], relay: relay, onEvent: onEvent)
        client.attach(match)
        do {
            let voiceChannels = try channels.map { name throws(VoiceChatError) in
                let channel = try match.voiceChat(named: name)
                try channel.start()
                return channel
            }
            try voiceChannels.first { $0.name == active }?.setActive(true)
            return (match, voiceChannels)
        } catch {
            match.disconnect()
            throw error
        }
    }

    /// How long the relay may take to admit this player before the session gives up: a relay that
    /// runs answers a join in one round trip, so a silent one is a wrong address or a relay down.
    static let joinTimeoutSeconds = 2.0

    /// Reports what happens until the deadline, Ctrl-C (or q), or a refusal that ends the session.
    private static func loop(
        until deadline: MediaTime?, pending: EventInbox<MatchNews>, match: Match, relay: CallAddress,
        watch: () -> Void
    ) async throws(CommandFailure) -> String {
        var joined = false
        /// The last refusal that only delays the join, said once until another comes.
        var lastTemporaryRefusal: RelayRefusal?
        var inputEnd = InputEnd()
        var nextWatch = MediaTime.monotonicNow()
        let joinDeadline = MediaTime.monotonicNow() + MediaTime.milliseconds(joinTimeoutSeconds * 1000)
        while true {
            for news in pending.take() {
                switch news {
                case .match(let event):
                    if let line = describe(event) { printStatus(line) }
                case .relay(let event):
                    switch event {
                    case .joined(let members):
                        joined = true
                        printStatus(
                            "joined; "
                                + (members.isEmpty
                                    ? "no other player yet" : "players: " + members.joined(separator: ", ")))
                    case .rejoined:
                        // Who came and went meanwhile follows, a line each.
                        printStatus("rejoined the relay")
                    case .memberJoined(let member): printStatus("\(member) joined")
                    case .memberLeft(let member): printStatus("\(member) left")
                    case .lost:
                        printStatus("lost the relay's signalling connection; rejoining", level: .warning)
                    case .refused(let reason) where reason.isTemporary:
                        if lastTemporaryRefusal != reason {
                            lastTemporaryRefusal = reason
                            printStatus("the relay cannot admit this player yet (\(reason)); retrying", level: .warning)
                        }
                    case .refused(let reason):
                        throw CommandFailure(
                            "the relay at \(relay) refused to admit this player: \(reason); ask the game server for a "
                                + "new token (or: voicechat token --secret-file FILE --match \(match.matchID) "
                                + "--participant \(match.engine.participant))")
                    case .kicked(let reason):
                        throw CommandFailure("the relay removed this player from the match: \(reason)")
                    case .signal: break
                    }
                }
            }
            // A session that ends (its duration, Ctrl-C) before the relay admitted it failed too.
            let ending = InterruptSignal.wasReceived || deadline.map { MediaTime.monotonicNow() >= $0 } == true
            // A relay that refused for now did answer: the join goes on being tried.
            if !joined, ending || (lastTemporaryRefusal == nil && MediaTime.monotonicNow() >= joinDeadline) {
                let when = ending ? "before the session ended" : "within \(Int(joinTimeoutSeconds)) s"
                if let lastTemporaryRefusal {
                    throw CommandFailure(
                        "the relay at \(relay) did not admit this player \(when): \(lastTemporaryRefusal)")
                }
                throw CommandFailure(
                    "the relay at \(relay) did not answer \(when); check the address and that `voicechat relay` "
                        + "runs there with TCP and UDP open")
            }
            if MediaTime.monotonicNow() >= nextWatch {
                watch()
                nextWatch += MediaTime.milliseconds(500)
            }
            if InterruptSignal.wasReceived { return InterruptSignal.ending }
            if let deadline, MediaTime.monotonicNow() >= deadline { return "duration reached" }
            if deadline == nil, joined, inputEnd.hasEnded(match.engine.isInputExhausted, at: MediaTime.monotonicNow()) {
                return "the input file ended"
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    static func describe(_ event: MatchEvent) -> String? {
        switch event {
        case .playerConnection(let player, let connected):
            connected ? "\(player) connected" : "\(player) disconnected"
        case .pathChanged(let player, let path):
            "path to \(player): \(path?.rawValue ?? "none (looking for one)")"
        case .relayFailed(let path, let failure):
            "over \(path == .relayTCP ? "TCP" : "UDP"): \(failure)"
        case .signallingRejected(let from, let error):
            "warning: refused signalling from \(from): \(error)"
        case .serverMuted(let muted):
            muted ? "the game server muted you: nobody hears you" : "the game server unmuted you"
        case .moved(let channel):
            "the game server moved you to \(channel.map { "channel \($0)" } ?? "a channel you did not open; nothing is heard")"
        case .playerState, .data:
            nil
        }
    }
}

/// Each player's statistics as last seen while a path to them was up: a player who left before the
/// end is reported as they were, not as the empty entry left behind.
private final class LastStatistics {
    private var byPlayer: [ParticipantID: ParticipantStatistics] = [:]

    func update(_ statistics: [ParticipantStatistics]) {
        for player in statistics where player.path != nil || byPlayer[player.participant] == nil {
            byPlayer[player.participant] = player
        }
    }

    var players: [ParticipantStatistics] { Array(byPlayer.values) }
}

/// What the match and the relay report to a session's loop.
private enum MatchNews: Sendable {
    case match(MatchEvent)
    case relay(RelaySignallingEvent)
}
