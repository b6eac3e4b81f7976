import VoiceCore
import VoiceWire

/// Identifies one remote speaker's stream in one channel.
public struct MixerStreamKey: Hashable, Sendable, CustomStringConvertible {
    public var sender: MediaID
    public var channel: MixerChannelID

    public init(sender: MediaID, channel: MixerChannelID) {
        self.sender = sender
        self.channel = channel
    }

    public var description: String { "sender \(sender) in channel \(channel)" }
}

/// Mixes the decoded frames of every remote speaker in every started channel into the output.
///
/// Channels have a volume (0…1, 0 silences the channel), can be started and stopped, and mute
/// players individually, as GameKit's voice chats do. Each player also has a volume of their own
/// across every channel (0…2, as a chat app's per-user volume), which multiplies the channel's; on a
/// positional channel, a level for the player's distance multiplies both. Streams are keyed by sender and channel,
/// so a player heard in two channels is two streams and is mixed once for each channel they
/// speak in. Each frame:
///
/// ```
/// for each receive stream:
///     if !mixer.fill(sender: s, channel: c, { stream.pullFrame(into: $0, at: now) }) {
///         stream.skipFrame(at: now)   // muted player, stopped or silent channel: not decoded at all
///     }
/// try mixer.mix(into: output)         // sum × channel and player volume, soft limiter, output meter
/// ```
///
/// The sum is taken in Float, stream by stream in the order the streams were added, and then
/// goes through a `SoftLimiter`, which leaves it bit-identical unless it comes near full scale.
///
/// Thread contract: one thread at a time (the engine thread); control changes from the
/// application reach it through the engine. Adding streams and channels allocates (each stream
/// gets its frame buffer then); `fill`, `submit` and `mix` neither allocate nor lock. A stereo
/// mixer writes interleaved left and right; a player not placed is heard in the centre.
public final class VoiceMixer {
    /// What the mixer knows about a channel.
    public struct Channel: Sendable, Hashable {
        public let id: MixerChannelID
        public var name: String
        public var isStarted: Bool
        /// 0…1; 0 silences the channel (and its streams are not decoded).
        public var volume: Float
        public var mutedPlayers: Set<MediaID>
    }

    private struct Stream {
        let key: MixerStreamKey
        let frame: UnsafeMutableBufferPointer<Float>
        /// Channel volume, or 0 when the channel is stopped or the player muted in it.
        var gain: Float
        /// Where the player is heard on a positional channel; `.center` elsewhere.
        var placement: MixerPlacement
        /// The placement the last mixed frame ended at: a change is ramped over the next frame,
        /// so that a player who moves never clicks.
        var appliedPlacement: MixerPlacement
        /// Whether `frame` holds this round's audio.
        var isFilled: Bool

        /// Whether anything of it reaches the mix this round (else it is not even decoded).
        var isHeard: Bool { gain > 0 && (placement.level > 0 || appliedPlacement.level > 0) }
    }

    public let frameDuration: FrameDuration
    /// Samples per frame at 48 kHz, per output channel.
    public let frameSamples: Int
    /// 1 (mono) or 2 (stereo, interleaved): what `mix` writes.
    public let outputChannels: Int
    public private(set) var outputMeter = LevelMeter()
    public private(set) var limiter: SoftLimiter
    /// How many streams went into the last mixed frame.
    public private(set) var lastMixedStreamCount = 0

    private var channels: [MixerChannelID: Channel] = [:]
    /// Players' own volumes, where not 1.
    private var playerVolumes: [MediaID: Float] = [:]
    /// Placements on positional channels, where set (kept for streams that start later).
    private var placements: [MixerStreamKey: MixerPlacement] = [:]
    private var streams: [Stream] = []
    private var streamIndex: [MixerStreamKey: Int] = [:]
    private let taps: PlayerAudioTaps

    public init(
        frameDuration: FrameDuration = .ms20, outputChannels: Int = 1,
        limiter: SoftLimiter.Configuration = SoftLimiter.Configuration()
    ) throws(MixerError) {
        guard outputChannels == 1 || outputChannels == 2 else { throw .unsupportedChannels(outputChannels) }
        self.frameDuration = frameDuration
        self.outputChannels = outputChannels
        frameSamples = frameDuration.engineFrames
        taps = PlayerAudioTaps(frameSamples: frameSamples)
        do {
            self.limiter = try SoftLimiter(limiter)
        } catch {
            throw .invalidLimiter(error)
        }
    }

    deinit {
        for stream in streams { stream.frame.deallocate() }
    }

    // MARK: Channels

    /// Adds a channel, stopped, at full volume.
    public func addChannel(_ id: MixerChannelID, name: String = "", volume: Float = 1) throws(MixerError) {
        guard channels[id] == nil else { throw .duplicateChannel(id) }
        try Self.checkVolume(volume)
        channels[id] = Channel(id: id, name: name, isStarted: false, volume: volume, mutedPlayers: [])
    }

    /// Removes a channel and every stream in it.
    public func removeChannel(_ id: MixerChannelID) {
        guard channels.removeValue(forKey: id) != nil else { return }
        for key in streams.map(\.key) where key.channel == id {
            removeStream(sender: key.sender, channel: key.channel)
        }
    }

    public func channel(_ id: MixerChannelID) -> Channel? { channels[id] }
    public var channelIDs: [MixerChannelID] { channels.keys.sorted() }

    public func start(channel id: MixerChannelID) throws(MixerError) {
        try updateChannel(id) { $0.isStarted = true }
    }

    /// Stops a channel: its streams contribute nothing and are not decoded.
    public func stop(channel id: MixerChannelID) throws(MixerError) {
        try updateChannel(id) { $0.isStarted = false }
    }

    public func setVolume(_ volume: Float, channel id: MixerChannelID) throws(MixerError) {
        try Self.checkVolume(volume)
        try updateChannel(id) { $0.volume = volume }
    }

    /// Mutes or unmutes one player in one channel; they stay audible in their other channels.
    public func setPlayer(_ sender: MediaID, muted: Bool, channel id: MixerChannelID) throws(MixerError) {
        try updateChannel(id) { channel in
            if muted { channel.mutedPlayers.insert(sender) } else { channel.mutedPlayers.remove(sender) }
        }
    }

    private func updateChannel(_ id: MixerChannelID, _ change: (inout Channel) -> Void) throws(MixerError) {
        guard var channel = channels[id] else { throw .unknownChannel(id) }
        change(&channel)
        channels[id] = channel
        for index in streams.indices where streams[index].key.channel == id {
            streams[index].gain = gain(of: streams[index].key.sender, in: channel)
        }
    }

    private func gain(of sender: MediaID, in channel: Channel) -> Float {
        channel.isStarted && !channel.mutedPlayers.contains(sender)
            ? channel.volume * (playerVolumes[sender] ?? 1) : 0
    }

    // MARK: Players

    /// What a player's volume may be: up to twice as loud as they sent it (the limiter keeps the
    /// mix from clipping), down to 0, which silences them everywhere without muting them.
    public static let playerVolumes: ClosedRange<Float> = 0...2

    /// Sets one player's volume in every channel, for the streams they have and will have.
    public func setVolume(_ volume: Float, player sender: MediaID) throws(MixerError) {
        guard volume.isFinite, Self.playerVolumes.contains(volume) else { throw .playerVolumeOutOfRange(volume) }
        playerVolumes[sender] = volume == 1 ? nil : volume
        for index in streams.indices where streams[index].key.sender == sender {
            guard let channel = channels[streams[index].key.channel] else { continue }
            streams[index].gain = gain(of: sender, in: channel)
        }
    }

    /// A player's own volume (1 unless set).
    public func volume(ofPlayer sender: MediaID) -> Float { playerVolumes[sender] ?? 1 }

    private static func checkVolume(_ volume: Float) throws(MixerError) {
        guard volume.isFinite, (0...1).contains(volume) else { throw .volumeOutOfRange(volume) }
    }

    // MARK: Placement

    /// Where a player is heard on a positional channel, for where they stand (nil: not
    /// positional, full level in the centre). Takes effect over the next mixed frame.
    public func setPlacement(_ placement: MixerPlacement?, sender: MediaID, channel: MixerChannelID) {
        let key = MixerStreamKey(sender: sender, channel: channel)
        placements[key] = placement
        if let index = streamIndex[key] { streams[index].placement = placements[key] ?? .center }
    }

    /// Where a player is heard on a channel (`.center` when not positional).
    public func placement(sender: MediaID, channel: MixerChannelID) -> MixerPlacement {
        placements[MixerStreamKey(sender: sender, channel: channel)] ?? .center
    }

    // MARK: Streams

    /// Registers a remote speaker's stream in a channel the mixer knows, and makes its frame buffer.
    public func addStream(sender: MediaID, channel: MixerChannelID) throws(MixerError) {
        let key = MixerStreamKey(sender: sender, channel: channel)
        guard let state = channels[channel] else { throw .unknownChannel(channel) }
        guard streamIndex[key] == nil else { throw .duplicateStream(sender: sender, channel: channel) }
        let frame = UnsafeMutableBufferPointer<Float>.allocate(capacity: frameSamples)
        frame.initialize(repeating: 0)
        streamIndex[key] = streams.count
        let placement = placements[key] ?? .center
        streams.append(
            Stream(
                key: key, frame: frame, gain: gain(of: sender, in: state), placement: placement,
                appliedPlacement: placement, isFilled: false))
    }

    public func removeStream(sender: MediaID, channel: MixerChannelID) {
        let key = MixerStreamKey(sender: sender, channel: channel)
        guard let index = streamIndex.removeValue(forKey: key) else { return }
        streams[index].frame.deallocate()
        streams.remove(at: index)
        // Later streams move up by one; the mixing order stays the order of addition.
        for later in index..<streams.count { streamIndex[streams[later].key] = later }
    }

    public var streamKeys: [MixerStreamKey] { streams.map(\.key) }

    /// Whether this player's audio in this channel is heard at all: the channel is known,
    /// started and not at volume 0, and the player is not muted in it. When false, the receive
    /// side should advance the stream without decoding it (`skipFrame`).
    public func shouldDecode(sender: MediaID, channel: MixerChannelID) -> Bool {
        guard let state = channels[channel] else { return false }
        let key = MixerStreamKey(sender: sender, channel: channel)
        if let index = streamIndex[key] { return streams[index].isHeard }
        return gain(of: sender, in: state) > 0 && (placements[key] ?? .center).level > 0
    }

    /// Puts a frame of `sender`'s voice, as the mix hears it, into `ring` (mono) each mixed frame
    /// (`PlayerAudioTaps`); nil stops it.
    public func tap(player sender: MediaID, into ring: AudioRing?) {
        if let ring {
            taps.add(sender: sender, ring: ring)
        } else {
            taps.remove(sender: sender)
        }
    }

    // MARK: Mixing

    /// Lets `fill` write this round's frame of a stream straight into the mixer's buffer for it
    /// (all `frameSamples` samples). Returns false without calling `fill` when the stream is not
    /// registered or not to be decoded; the caller then skips the frame instead.
    @discardableResult
    public func fill(
        sender: MediaID, channel: MixerChannelID, _ fill: (UnsafeMutableBufferPointer<Float>) -> Void
    ) -> Bool {
        guard let index = streamIndex[MixerStreamKey(sender: sender, channel: channel)], streams[index].isHeard
        else { return false }
        fill(streams[index].frame)
        streams[index].isFilled = true
        return true
    }

    /// Hands in this round's frame of a stream by copying it. Returns false (and copies nothing)
    /// when the stream is not registered or not heard.
    @discardableResult
    public func submit(_ frame: UnsafeBufferPointer<Float>, sender: MediaID, channel: MixerChannelID) throws(MixerError)
        -> Bool
    {
        guard frame.count == frameSamples else { throw .wrongFrameLength(got: frame.count, expected: frameSamples) }
        return fill(sender: sender, channel: channel) { buffer in _ = buffer.update(fromContentsOf: frame) }
    }

    /// Writes the mix of every frame handed in since the last call into `output` (exactly
    /// `frameSamples` × `outputChannels` samples, interleaved): each stream × its channel's and its
    /// player's volume and its placement, summed, then limited and metered. Streams without a
    /// frame this round contribute nothing.
    public func mix(into output: UnsafeMutableBufferPointer<Float>) throws(MixerError) {
        let expected = frameSamples * outputChannels
        guard output.count == expected else { throw .wrongFrameLength(got: output.count, expected: expected) }
        output.update(repeating: 0)
        let tapping = !taps.isEmpty
        if tapping { taps.beginFrame() }
        var mixed = 0
        for index in streams.indices where streams[index].isFilled {
            streams[index].isFilled = false
            // A stream muted or stopped after it was filled drops out here.
            guard streams[index].isHeard else { continue }
            let gain = streams[index].gain
            let frame = streams[index].frame
            let from = streams[index].appliedPlacement
            let to = streams[index].placement
            if tapping { taps.add(frame, sender: streams[index].key.sender, gain: gain) }
            if outputChannels == 1 {
                add(frame, into: output, from: gain * from.level, to: gain * to.level)
            } else {
                let (fromLeft, fromRight) = from.stereoGains
                let (toLeft, toRight) = to.stereoGains
                add(frame, into: output, from: gain * fromLeft, to: gain * toLeft, offset: 0)
                add(frame, into: output, from: gain * fromRight, to: gain * toRight, offset: 1)
            }
            streams[index].appliedPlacement = to
            mixed += 1
        }
        lastMixedStreamCount = mixed
        if tapping { taps.endFrame() }
        limiter.process(output)
        outputMeter.process(UnsafeBufferPointer(output))
    }

    /// Adds `frame` × a level ramped from `from` to `to` over the frame into every
    /// `outputChannels`-th sample of `output` from `offset`.
    @inline(__always)
    private func add(
        _ frame: UnsafeMutableBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>, from: Float,
        to: Float, offset: Int = 0
    ) {
        let stride = outputChannels
        if from == to {
            for sample in 0..<frameSamples { output[sample * stride + offset] += frame[sample] * to }
        } else {
            let step = (to - from) / Float(frameSamples)
            for sample in 0..<frameSamples {
                output[sample * stride + offset] += frame[sample] * (from + step * Float(sample + 1))
            }
        }
    }
}
