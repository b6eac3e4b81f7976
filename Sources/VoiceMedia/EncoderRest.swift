import VoiceCodec

/// Lets a send pipeline's encoder rest through a long silence instead of coding every frame
/// nobody will hear, and brings it back up to date before the next frame it sends.
///
/// Opus's state (its prediction, the CELT overlap, the energy it codes against) follows the last
/// few tens of milliseconds of input; coding the frames in a pause that nobody hears only keeps it
/// continuous. After `restAfterFrames` frames the gate called silence in a row, each frame is held
/// here instead of coded, the newest `catchUpFrames` of them (40 ms); before the next frame that is
/// sent (a talk spurt's first, or a keep-alive) the encoder codes those, unsent, and it starts that
/// frame from the same recent input it would have had. Short pauses between words are coded as
/// before: the rest starts only after 200 ms of silence.
///
/// Hand-written rather than a library's: it runs per frame on the engine thread, so its buffer is
/// taken in `init`. One thread at a time, as its pipeline.
struct EncoderRest: ~Copyable {
    /// Silence after which the encoder rests, and how much of the latest input it codes to catch
    /// up, in milliseconds.
    static let restAfterMilliseconds = 200.0
    static let catchUpMilliseconds = 40.0

    private let frameSamples: Int
    private let restAfterFrames: Int
    private let catchUpFrames: Int
    /// The newest held frames, a ring of `catchUpFrames`.
    private let held: UnsafeMutableBufferPointer<Float>
    private var heldCount = 0
    private var nextSlot = 0
    /// Frames in a row the gate called silence.
    private var silentRun = 0

    init(frameSamples: Int, frameMilliseconds: Double) {
        self.frameSamples = frameSamples
        restAfterFrames = Int((Self.restAfterMilliseconds / frameMilliseconds).rounded(.up))
        catchUpFrames = Int((Self.catchUpMilliseconds / frameMilliseconds).rounded(.up))
        held = .allocate(capacity: catchUpFrames * frameSamples)
        held.initialize(repeating: 0)
    }

    deinit {
        held.deallocate()
    }

    /// Whether the gate's last `restAfterFrames` frames were all silence: a frame that is not
    /// sent needs no coding.
    var isResting: Bool { silentRun >= restAfterFrames }

    /// Counts a frame the gate called `speech` or not.
    mutating func note(speech: Bool) {
        silentRun = speech ? 0 : silentRun + 1
    }

    /// Holds a frame the encoder did not code.
    mutating func hold(_ frame: UnsafeBufferPointer<Float>) {
        let start = nextSlot * frameSamples
        _ = UnsafeMutableBufferPointer(rebasing: held[start..<start + frameSamples]).update(fromContentsOf: frame)
        nextSlot = (nextSlot + 1) % catchUpFrames
        heldCount = min(heldCount + 1, catchUpFrames)
    }

    /// The frames held since the encoder last coded, oldest first, for it to code before the next
    /// frame; none are held after.
    mutating func takeHeld(_ body: (UnsafeBufferPointer<Float>) throws(CodecError) -> Void) throws(CodecError) {
        let count = heldCount
        heldCount = 0
        for back in stride(from: count, to: 0, by: -1) {
            let slot = (nextSlot - back + catchUpFrames) % catchUpFrames
            try body(UnsafeBufferPointer(rebasing: held[slot * frameSamples..<(slot + 1) * frameSamples]))
        }
    }

    /// Starts over: the encoder was reset, nothing held is worth coding.
    mutating func restart() {
        heldCount = 0
        silentRun = 0
    }
}
