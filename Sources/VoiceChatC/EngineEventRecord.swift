import CVoiceChatABI
import Foundation
import VoiceCore
import VoiceEngine
import VoiceRelayClient

/// One event as the library keeps it until the game takes it: Swift values, made into a C
/// `vc_event` only when handed over.
struct EngineEventRecord: Sendable {
    var type: vc_event_type
    /// The match's handle number; 0 for calls and the engine.
    var match: UInt = 0
    var call = ""
    var player: ParticipantID = ""
    var channel = ""
    var text = ""
    var value: Int32 = 0
    var data: [UInt8] = []

    /// Hands `body` the event as C sees it, its strings and bytes valid during the call.
    func withCEvent(_ body: (UnsafePointer<vc_event>) -> Void) {
        call.withCString { call in
            player.rawValue.withCString { player in
                channel.withCString { channel in
                    text.withCString { text in
                        data.withUnsafeBufferPointer { data in
                            var event = vc_event()
                            fill(&event, call: call, player: player, channel: channel, text: text, data: data)
                            withUnsafePointer(to: &event) { body($0) }
                        }
                    }
                }
            }
        }
    }

    /// Fills a caller's event with pointers into `storage`, which keeps them until it is replaced.
    func fill(_ event: UnsafeMutablePointer<vc_event>, keeping storage: inout PolledEventStorage) {
        storage.replace(with: self)
        fill(
            &event.pointee, call: storage.call, player: storage.player, channel: storage.channel, text: storage.text,
            data: UnsafeBufferPointer(start: storage.data, count: data.count))
    }

    private func fill(
        _ event: inout vc_event, call: UnsafePointer<CChar>, player: UnsafePointer<CChar>,
        channel: UnsafePointer<CChar>, text: UnsafePointer<CChar>, data: UnsafeBufferPointer<UInt8>
    ) {
        event.struct_size = UInt32(MemoryLayout<vc_event>.size)
        event.type = type
        event.match = match == 0 ? nil : OpaquePointer(bitPattern: match)
        event.call = call
        event.player = player
        event.channel = channel
        event.text = text
        event.value = value
        event.data = data.baseAddress
        event.data_length = data.count
    }
}

/// The strings and bytes of the last event polled, kept for the game until its next poll.
struct PolledEventStorage: ~Copyable {
    private(set) var call: UnsafeMutablePointer<CChar> = strdup("")
    private(set) var player: UnsafeMutablePointer<CChar> = strdup("")
    private(set) var channel: UnsafeMutablePointer<CChar> = strdup("")
    private(set) var text: UnsafeMutablePointer<CChar> = strdup("")
    private(set) var data: UnsafeMutablePointer<UInt8>? = nil

    mutating func replace(with record: EngineEventRecord) {
        release()
        call = strdup(record.call)
        player = strdup(record.player.rawValue)
        channel = strdup(record.channel)
        text = strdup(record.text)
        if !record.data.isEmpty {
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: record.data.count)
            copy.initialize(from: record.data, count: record.data.count)
            data = copy
        }
    }

    private mutating func release() {
        free(call)
        free(player)
        free(channel)
        free(text)
        data?.deallocate()
        data = nil
    }

    deinit {
        free(call)
        free(player)
        free(channel)
        free(text)
        data?.deallocate()
    }
}

extension EngineEventRecord {
    init(_ event: VoiceChatEvent) {
        switch event {
        case .invitation(let call, let from):
            self.init(type: VC_EVENT_CALL_INVITATION, call: call, player: from)
        case .started(let call, let with, let path):
            self.init(type: VC_EVENT_CALL_STARTED, call: call, player: with, text: path.rawValue)
        case .didNotStart(let call, let with, let reason):
            self.init(type: VC_EVENT_CALL_DID_NOT_START, call: call, player: with, text: reason.description)
        case .stopped(let call, let with, let reason):
            self.init(type: VC_EVENT_CALL_STOPPED, call: call, player: with, text: reason.description)
        case .pathChanged(let call, let with, let path):
            self.init(type: VC_EVENT_PATH_CHANGED, call: call, player: with, text: path?.rawValue ?? "")
        case .signallingRejected(let from, let error):
            self.init(type: VC_EVENT_SIGNALLING_REJECTED, player: from, text: error.description)
        }
    }

    init(_ event: MatchEvent, match: UInt) {
        switch event {
        case .playerState(let channel, let player, let state):
            self.init(type: VC_EVENT_PLAYER_STATE, match: match, player: player, channel: channel)
            value = Int32(state.cValue.rawValue)
        case .playerConnection(let player, let connected):
            self.init(type: VC_EVENT_PLAYER_CONNECTION, match: match, player: player, value: connected ? 1 : 0)
        case .pathChanged(let player, let path):
            self.init(type: VC_EVENT_PATH_CHANGED, match: match, player: player, text: path?.rawValue ?? "")
        case .data(let bytes, let from, let mode):
            self.init(
                type: VC_EVENT_GAME_DATA, match: match, player: from, value: mode == .reliable ? 1 : 0, data: bytes)
        case .signallingRejected(let from, let error):
            self.init(type: VC_EVENT_SIGNALLING_REJECTED, match: match, player: from, text: error.description)
        case .relayFailed(let path, let failure):
            self.init(
                type: VC_EVENT_RELAY_FAILED, match: match, text: "over \(path == .relayTCP ? "TCP" : "UDP"): \(failure)"
            )
        case .serverMuted(let muted):
            self.init(type: VC_EVENT_SERVER_MUTED, match: match, value: muted ? 1 : 0)
        case .moved(let channel):
            self.init(type: VC_EVENT_MOVED, match: match, channel: channel ?? "")
        }
    }

    /// What the relay's signalling link reports that the game needs to hear; nil for the rest
    /// (the roster and signals reach the match itself).
    init?(_ event: RelaySignallingEvent, match: UInt) {
        switch event {
        case .joined: self.init(type: VC_EVENT_RELAY_JOINED, match: match)
        case .rejoined: self.init(type: VC_EVENT_RELAY_JOINED, match: match, value: 1)
        case .lost: self.init(type: VC_EVENT_RELAY_LOST, match: match)
        case .refused(let reason): self.init(type: VC_EVENT_RELAY_REFUSED, match: match, text: "\(reason)")
        case .kicked(let reason): self.init(type: VC_EVENT_RELAY_REFUSED, match: match, text: "\(reason)", value: 1)
        case .memberJoined, .memberLeft, .signal: return nil
        }
    }
}

extension PlayerState {
    var cValue: vc_player_state {
        switch self {
        case .connecting: VC_PLAYER_CONNECTING
        case .connected: VC_PLAYER_CONNECTED
        case .disconnected: VC_PLAYER_DISCONNECTED
        case .speaking: VC_PLAYER_SPEAKING
        case .silent: VC_PLAYER_SILENT
        }
    }
}
