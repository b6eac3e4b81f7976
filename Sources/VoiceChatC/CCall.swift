import CVoiceChatABI
import VoiceEngine

@_cdecl("vc_call_start")
public func cCallStart(
    _ engine: OpaquePointer?, _ participant: UnsafePointer<CChar>?, _ callID: UnsafeMutablePointer<CChar>?,
    _ capacity: Int, _ needed: UnsafeMutablePointer<Int>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let other = try participantID(participant, "participant")
        // Room for the ID is checked first, so that no call is placed whose ID the caller cannot learn.
        let idBytes = 33
        needed?.pointee = idBytes
        guard callID != nil else { throw .invalidArgument("call_id is NULL; pass room for \(idBytes) bytes") }
        guard capacity >= idBytes else {
            throw CallFailure(VC_ERROR_BUFFER_TOO_SMALL, "call_id holds \(capacity) bytes; a call ID takes \(idBytes)")
        }
        let id = try engineCall { () throws(VoiceChatError) in try handle.service.startVoiceChat(with: other) }
        try write(id, into: callID, capacity: capacity, needed: needed)
    }
}

@_cdecl("vc_call_accept")
public func cCallAccept(_ engine: OpaquePointer?, _ callID: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let id = try text(callID, "call_id", maximumBytes: 64)
        try engineCall { () throws(VoiceChatError) in try handle.service.accept(id) }
    }
}

@_cdecl("vc_call_deny")
public func cCallDeny(_ engine: OpaquePointer?, _ callID: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let id = try text(callID, "call_id", maximumBytes: 64)
        try engineCall { () throws(VoiceChatError) in try handle.service.deny(id) }
    }
}

@_cdecl("vc_call_stop")
public func cCallStop(_ engine: OpaquePointer?, _ participant: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let other = try participantID(participant, "participant")
        try engineCall { () throws(VoiceChatError) in try handle.service.stopVoiceChat(with: other) }
    }
}

@_cdecl("vc_engine_receive_call_signalling")
public func cEngineReceiveCallSignalling(
    _ engine: OpaquePointer?, _ from: UnsafePointer<CChar>?, _ data: UnsafePointer<UInt8>?, _ length: Int
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let sender = try participantID(from, "from")
        let bytes = try received(data, length, maximum: 1 << 20)
        handle.service.received(bytes, from: sender)
    }
}
