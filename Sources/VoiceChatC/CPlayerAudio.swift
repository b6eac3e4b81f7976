import CVoiceChatABI
import VoiceCore
import VoiceEngine

@_cdecl("vc_engine_open_player_audio")
public func cEngineOpenPlayerAudio(_ engine: OpaquePointer?, _ player: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let name = try participantID(player, "player")
        let ring = handle.engine.tapPlayerAudio(name)
        handle.playerAudio.withLock { $0[name] = ring }
    }
}

@_cdecl("vc_engine_read_player_audio")
public func cEngineReadPlayerAudio(
    _ engine: OpaquePointer?, _ player: UnsafePointer<CChar>?, _ samples: UnsafeMutablePointer<Float>?,
    _ capacity: Int, _ frames: UnsafeMutablePointer<Int>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let name = try participantID(player, "player")
        guard let samples else { throw .invalidArgument("samples is NULL; pass room for capacity frames") }
        guard capacity > 0, capacity <= 1 << 24 else {
            throw .invalidArgument("capacity is \(capacity); give 1…16777216 frames")
        }
        guard let frames else { throw .invalidArgument("frames is NULL; pass where to put how many were read") }
        guard let ring = handle.playerAudio.withLock({ $0[name] }) else {
            throw CallFailure(
                VC_ERROR_NOT_FOUND, "\"\(name)\"'s voice is not kept apart: open it with vc_engine_open_player_audio")
        }
        frames.pointee = ring.read(into: UnsafeMutableBufferPointer(start: samples, count: capacity))
    }
}

@_cdecl("vc_engine_close_player_audio")
public func cEngineClosePlayerAudio(_ engine: OpaquePointer?, _ player: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let name = try participantID(player, "player")
        guard handle.playerAudio.withLock({ $0.removeValue(forKey: name) }) != nil else {
            throw CallFailure(VC_ERROR_NOT_FOUND, "\"\(name)\"'s voice was not open")
        }
        handle.engine.untapPlayerAudio(name)
    }
}
