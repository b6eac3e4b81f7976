import CVoiceChatABI
import VoiceCodec
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceIO
import VoiceMedia

let engines = HandleRegistry<EngineHandle>(kind: 1)
/// The engines whose game owns the audio, for `vc_engine_process` without a lock.
let gameAudioEngines = GameAudioSlots<EngineHandle>()

@_cdecl("vc_engine_options_init")
public func cEngineOptionsInit(_ options: UnsafeMutablePointer<vc_engine_options>?) {
    guard let options else { return }
    options.pointee = vc_engine_options()
    options.pointee.struct_size = UInt32(MemoryLayout<vc_engine_options>.size)
    options.pointee.audio_mode = VC_AUDIO_DEVICES
    options.pointee.sample_rate = UInt32(engineSampleRate)
    options.pointee.channels = 1
    options.pointee.frame_ms = UInt32(VoiceDefaults.frameDuration.milliseconds)
    options.pointee.bitrate = UInt32(VoiceDefaults.bitrate)
    options.pointee.complexity = UInt32(VoiceDefaults.complexity)
    options.pointee.echo_cancellation = VC_ECHO_CANCELLATION_AUTO
}

/// The engine's settings from a C caller's options, each checked.
private func configuration(_ options: vc_engine_options) throws(CallFailure) -> EngineConfiguration {
    guard let frame = FrameDuration(milliseconds: Double(options.frame_ms)), frame != .ms2_5 else {
        throw .invalidArgument("options.frame_ms is \(options.frame_ms); give 5, 10, 20, 40 or 60")
    }
    let bitrates = OpusEncoder.Configuration.allowedBitrates
    guard bitrates.contains(Int(options.bitrate)) else {
        throw .invalidArgument(
            "options.bitrate is \(options.bitrate); give \(bitrates.lowerBound)…\(bitrates.upperBound) bit/s")
    }
    guard options.complexity <= 10 else {
        throw .invalidArgument("options.complexity is \(options.complexity); give 0…10")
    }
    var maximumDelay: Double?
    if options.maximum_delay_ms != 0 {
        let range = DelayBudget.allowedMilliseconds
        guard options.maximum_delay_ms.isFinite, range.contains(options.maximum_delay_ms) else {
            throw .invalidArgument(
                "options.maximum_delay_ms is \(options.maximum_delay_ms); give \(Int(range.lowerBound))…"
                    + "\(Int(range.upperBound)), or 0 for the default")
        }
        maximumDelay = options.maximum_delay_ms
    }
    let echo: EchoCancellationMode
    switch options.echo_cancellation {
    case VC_ECHO_CANCELLATION_AUTO: echo = .automatic
    case VC_ECHO_CANCELLATION_ON: echo = .on
    case VC_ECHO_CANCELLATION_OFF: echo = .off
    default:
        throw .invalidArgument(
            "options.echo_cancellation is \(options.echo_cancellation.rawValue); give a VC_ECHO_CANCELLATION_ value")
    }
    return EngineConfiguration(
        frameDuration: frame, bitrate: Int(options.bitrate), complexity: Int(options.complexity),
        maximumDelayMilliseconds: maximumDelay,
        speechProcessing: SpeechProcessing(
            denoise: options.denoise != 0, automaticGainControl: options.automatic_gain_control != 0),
        echoCancellation: echo)
}

/// The microphone and speaker the options name: ALSA devices as `voicechat` opens them, or the game's own audio.
private func audio(_ options: vc_engine_options, frame: FrameDuration) throws(CallFailure) -> (
    input: any AudioInput, output: any AudioOutput, game: GameAudioDevice?
) {
    do {
        switch options.audio_mode {
        case VC_AUDIO_DEVICES:
            // The configuration's defaults are the voicechat command's: 48 kHz mono, 10 ms periods.
            func device(_ name: UnsafePointer<CChar>?, _ argument: String) throws(CallFailure)
                -> ALSADeviceConfiguration
            {
                ALSADeviceConfiguration(name: name == nil ? "default" : try text(name, argument, maximumBytes: 255))
            }
            let capture = try device(options.capture_device, "options.capture_device")
            let playback = try device(options.playback_device, "options.playback_device")
            return (try ALSACaptureDevice(capture), try ALSAPlaybackDevice(playback), nil)
        case VC_AUDIO_GAME:
            let game = try GameAudioDevice(
                sampleRate: Int(options.sample_rate), channels: Int(options.channels),
                blockFrames: Int(options.block_frames), frameSamples: frame.engineFrames)
            return (game.input, game.output, game)
        default:
            throw CallFailure.invalidArgument(
                "options.audio_mode is \(options.audio_mode.rawValue); give VC_AUDIO_DEVICES or VC_AUDIO_GAME")
        }
    } catch let error as CallFailure {
        throw error
    } catch let error as AudioDeviceError {
        throw CallFailure(
            error.code == .invalidArgument ? VC_ERROR_INVALID_ARGUMENT : VC_ERROR_SYSTEM, error.description)
    } catch {
        throw CallFailure(VC_ERROR_SYSTEM, "\(error)")
    }
}

@_cdecl("vc_engine_create")
public func cEngineCreate(
    _ options: UnsafePointer<vc_engine_options>?, _ engine: UnsafeMutablePointer<OpaquePointer?>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let engine = try handlePlace(engine, "engine")
        let given = try sized(options, "options", filledBy: "fill them with vc_engine_options_init")
        let participant = try participantID(given.participant, "options.participant")
        let configuration = try configuration(given)
        let host = given.udp_host == nil ? "0.0.0.0" : try text(given.udp_host, "options.udp_host", maximumBytes: 255)
        let port = Int(given.udp_port)
        let devices = try audio(given, frame: configuration.frameDuration)
        let network = try waitFor { () async throws(CallFailure) -> UDPNetwork in
            do {
                return try await UDPNetwork.bind(host: host, port: port)
            } catch {
                throw CallFailure(VC_ERROR_SYSTEM, "cannot bind UDP on \(host) port \(port): \(error)")
            }
        }
        let voiceEngine: VoiceEngine
        do throws(VoiceChatError) {
            voiceEngine = try VoiceEngine(
                participant: participant, configuration: configuration, input: devices.input, output: devices.output,
                network: network, relays: RelayLinks())
        } catch {
            try? waitFor { () async throws(CallFailure) in await network.close() }
            throw failure(error)
        }
        network.deliver(to: voiceEngine)
        let doorbell = WakeCounter()
        let callback = given.event_callback.map { EventCallback(function: $0, context: given.event_context) }
        let events = EngineEvents(callback: callback) { doorbell.bump() }
        let handle = EngineHandle(
            engine: voiceEngine, network: network, gameAudio: devices.game, events: events,
            offersRealTimeData: given.offers_real_time_data != 0)
        let number = engines.reserve()
        if devices.game != nil {
            guard gameAudioEngines.add(handle, handle: number) else {
                try? waitFor { () async throws(CallFailure) in await handle.shutDown() }
                throw CallFailure(
                    VC_ERROR_INVALID_STATE,
                    "\(gameAudioSlotCount) engines with game-owned audio exist already; destroy one")
            }
        }
        handle.startEventThread(doorbell: doorbell)
        engines.add(handle, as: number)
        engine.pointee = number
    }
}

@_cdecl("vc_engine_start")
public func cEngineStart(_ engine: OpaquePointer?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        try engineCall { () throws(VoiceChatError) in try handle.engine.start() }
    }
}

@_cdecl("vc_engine_destroy")
public func cEngineDestroy(_ engine: OpaquePointer?) -> vc_result {
    answer { () throws(CallFailure) in
        guard let engine else { throw .invalidArgument("engine is NULL") }
        guard let handle = engines.remove(engine) else {
            throw CallFailure(VC_ERROR_INVALID_HANDLE, "engine is not a live handle: it was destroyed already")
        }
        gameAudioEngines.remove(engine)
        for match in handle.matches.withLock({ Array($0.keys) }) {
            _ = matches.remove(OpaquePointer(bitPattern: match))
        }
        try waitFor { () async throws(CallFailure) in await handle.shutDown() }
    }
}

@_cdecl("vc_engine_udp_port")
public func cEngineUDPPort(_ engine: OpaquePointer?, _ port: UnsafeMutablePointer<UInt16>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        guard let port else { throw .invalidArgument("port is NULL; pass where to put the port") }
        port.pointee = UInt16(clamping: handle.network.endpoint.localPort)
    }
}

/// The most frames `vc_engine_process` takes in one call.
let maximumProcessFrames = 65_536

/// Finds the game-owned audio of `engine` for the audio thread, or says why not (only on failure
/// does this allocate or take the registry's lock).
private func onAudioThread(
    _ engine: OpaquePointer?, frames: Int, _ body: (EngineHandle, GameAudioDevice) -> Void
) -> vc_result {
    guard let engine else {
        LastError.set("engine is NULL")
        return VC_ERROR_INVALID_ARGUMENT
    }
    guard frames > 0, frames <= maximumProcessFrames else {
        LastError.set("frames is \(frames); give 1…\(maximumProcessFrames)")
        return VC_ERROR_INVALID_ARGUMENT
    }
    let found = gameAudioEngines.withDevice(engine) { handle in
        if let game = handle.gameAudio { body(handle, game) }
    }
    guard found else {
        let live = (try? engines.object(engine, "engine")) != nil
        LastError.set(
            live
                ? "engine was made with VC_AUDIO_DEVICES: its audio is its own; make it with VC_AUDIO_GAME to pass audio"
                : "engine is not a live handle: it was destroyed, or never made by this library")
        return live ? VC_ERROR_INVALID_STATE : VC_ERROR_INVALID_HANDLE
    }
    LastError.clear()
    return VC_OK
}

@_cdecl("vc_engine_process")
public func cEngineProcess(
    _ engine: OpaquePointer?, _ captured: UnsafePointer<Float>?, _ output: UnsafeMutablePointer<Float>?,
    _ frames: Int
) -> vc_result {
    guard captured != nil || output != nil else {
        LastError.set("captured and output are both NULL; pass a block of audio or room for one")
        return VC_ERROR_INVALID_ARGUMENT
    }
    return onAudioThread(engine, frames: frames) { _, game in
        game.process(captured: captured, output: output, frames: frames)
    }
}

@_cdecl("vc_engine_add_game_mix")
public func cEngineAddGameMix(_ engine: OpaquePointer?, _ mix: UnsafePointer<Float>?, _ frames: Int) -> vc_result {
    guard let mix else {
        LastError.set("mix is NULL; pass the block the game plays")
        return VC_ERROR_INVALID_ARGUMENT
    }
    return onAudioThread(engine, frames: frames) { handle, game in
        game.convertGameMix(mix, frames: frames) { block in
            handle.engine.addPlaybackReference(block, channels: game.channels)
        }
    }
}

/// Hands a per-frame order to `engine`'s thread without waiting.
func hand(_ order: EngineOrder, to engine: EngineHandle) throws(CallFailure) {
    try engineCall { () throws(VoiceChatError) in try engine.engine.hand(order) }
}

@_cdecl("vc_engine_set_microphone_muted")
public func cEngineSetMicrophoneMuted(_ engine: OpaquePointer?, _ muted: Int32) -> vc_result {
    answer { () throws(CallFailure) in try hand(.microphoneMuted(muted != 0), to: engines.object(engine, "engine")) }
}

@_cdecl("vc_engine_set_push_to_talk")
public func cEngineSetPushToTalk(_ engine: OpaquePointer?, _ on: Int32) -> vc_result {
    answer { () throws(CallFailure) in try hand(.pushToTalk(on != 0), to: engines.object(engine, "engine")) }
}

@_cdecl("vc_engine_set_talk_key")
public func cEngineSetTalkKey(_ engine: OpaquePointer?, _ down: Int32) -> vc_result {
    answer { () throws(CallFailure) in try hand(.talkKeyDown(down != 0), to: engines.object(engine, "engine")) }
}

@_cdecl("vc_engine_set_player_volume")
public func cEngineSetPlayerVolume(_ engine: OpaquePointer?, _ player: UnsafePointer<CChar>?, _ volume: Float)
    -> vc_result
{
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        try hand(.playerVolume(volume, player: participantID(player, "player")), to: handle)
    }
}

@_cdecl("vc_engine_set_maximum_delay")
public func cEngineSetMaximumDelay(_ engine: OpaquePointer?, _ milliseconds: Double) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let range = DelayBudget.allowedMilliseconds
        guard milliseconds.isFinite, range.contains(milliseconds) else {
            throw .invalidArgument(
                "milliseconds is \(milliseconds); give \(Int(range.lowerBound))…\(Int(range.upperBound))")
        }
        try engineCall { () throws(VoiceChatError) in try handle.engine.setMaximumDelay(milliseconds: milliseconds) }
    }
}

@_cdecl("vc_engine_set_speech_processing")
public func cEngineSetSpeechProcessing(_ engine: OpaquePointer?, _ denoise: Int32, _ gainControl: Int32) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        var processing = handle.engine.speechProcessing
        processing.denoise = denoise != 0
        processing.automaticGainControl = gainControl != 0
        try engineCall { () throws(VoiceChatError) in try handle.engine.setSpeechProcessing(processing) }
    }
}

@_cdecl("vc_engine_meters")
public func cEngineMeters(
    _ engine: OpaquePointer?, _ input: UnsafeMutablePointer<Float>?, _ output: UnsafeMutablePointer<Float>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        guard input != nil || output != nil else {
            throw .invalidArgument("input_dbfs and output_dbfs are both NULL; pass where to put a level")
        }
        let snapshot = handle.readSnapshot()
        let levels = (snapshot.inputDBFS, snapshot.outputDBFS)
        input?.pointee = levels.0
        output?.pointee = levels.1
    }
}

@_cdecl("vc_engine_statistics_json")
public func cEngineStatisticsJSON(
    _ engine: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int,
    _ needed: UnsafeMutablePointer<Int>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let snapshot = handle.readSnapshot()
        try write(snapshot.statisticsJSON, into: buffer, capacity: capacity, needed: needed)
    }
}

@_cdecl("vc_engine_poll_event")
public func cEnginePollEvent(_ engine: OpaquePointer?, _ event: UnsafeMutablePointer<vc_event>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        _ = try sized(UnsafePointer(event), "event", filledBy: "set its struct_size to sizeof(vc_event)")
        guard let event else { return }
        if !handle.events.poll(into: event) { event.pointee.type = VC_EVENT_NONE }
    }
}

@_cdecl("vc_engine_receive_real_time")
public func cEngineReceiveRealTime(
    _ engine: OpaquePointer?, _ from: UnsafePointer<CChar>?, _ data: UnsafePointer<UInt8>?, _ length: Int
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try engines.object(engine, "engine")
        let sender = try participantID(from, "from")
        let bytes = try received(data, length, maximum: 2_048)
        handle.service.receivedRealTime(bytes, from: sender)
    }
}

/// Bytes a C caller handed in: present, 1…`maximum` of them.
func received(_ data: UnsafePointer<UInt8>?, _ length: Int, maximum: Int) throws(CallFailure) -> [UInt8] {
    guard let data else { throw .invalidArgument("data is NULL; pass the bytes the other game sent") }
    guard length > 0, length <= maximum else { throw .invalidArgument("length is \(length); give 1…\(maximum) bytes") }
    return Array(UnsafeBufferPointer(start: data, count: length))
}
