import VoiceCore

/// Decides, frame by frame, whether captured audio is speech worth sending.
///
/// speexdsp's detector flags nearly everything as speech, so the engine uses its own, built on
/// the observation that speech is bursty while room noise is steady: a frame is speech when its
/// energy stands `marginDB` above the noise floor and above `absoluteThresholdDBFS`. The noise
/// floor is the lowest frame energy of the last `floorWindowSeconds` (minimum statistics, as in
/// Martin's noise estimator): speech always has quiet gaps between syllables and words within a
/// couple of seconds, so the minimum follows the noise and not the voice; it falls at once when
/// the room gets quieter and rises within one window when it gets louder, and stationary noise
/// present for longer than a window is never taken for speech. Until the window has filled once,
/// the floor is the minimum seen so far but no higher than `absoluteThresholdDBFS`: a talker who
/// starts the moment the microphone opens has given the estimator no quiet frame yet, and cutting
/// their first words is worse than sending a steady noise for the first window.
///
/// The noise floor is measured on energies over the last 20 ms whatever the frame length (a 5 ms
/// frame's energy is averaged with the three before it): shorter frames of steady noise scatter
/// so widely that their minimum would sit far below their typical level and let noise peaks
/// through. A frame is speech only when both that 20 ms energy and its own energy clear the
/// floor by the margin: the average rejects short noise peaks, the frame's own energy ends
/// activity as soon as the speech stops rather than 20 ms later.
///
/// The minimum is kept over eight sub-windows (the current one plus seven finished ones), so the
/// memory is fixed whatever the frame length. Onsets switch to speech on the first loud frame;
/// after the last speech frame the gate stays open for `hangoverSeconds` so that word tails and
/// short pauses are not cut.
///
/// The gate is a value: deterministic for the same input, and `process` neither allocates nor locks.
public struct SpeechGate: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// How far above the noise floor a frame's energy must be to count as speech.
        public var marginDB: Float
        /// Frames quieter than this are never speech, however quiet the room.
        public var absoluteThresholdDBFS: Float
        /// How long the gate stays open after the last speech frame.
        public var hangoverSeconds: Double
        /// How far back the noise floor looks for the quietest frame.
        public var floorWindowSeconds: Double

        public init(
            marginDB: Float = 9,
            absoluteThresholdDBFS: Float = -55,
            hangoverSeconds: Double = 0.4,
            floorWindowSeconds: Double = 2
        ) {
            self.marginDB = marginDB
            self.absoluteThresholdDBFS = absoluteThresholdDBFS
            self.hangoverSeconds = hangoverSeconds
            self.floorWindowSeconds = floorWindowSeconds
        }

        public func validate() throws(DSPSettingError) {
            try DSPSettingError.check(marginDB, in: 0...60, component: "SpeechGate", setting: "marginDB", unit: " dB")
            try DSPSettingError.check(
                absoluteThresholdDBFS, in: -120...0, component: "SpeechGate", setting: "absoluteThresholdDBFS",
                unit: " dBFS")
            try DSPSettingError.check(
                hangoverSeconds, in: 0...5, component: "SpeechGate", setting: "hangoverSeconds", unit: " s")
            try DSPSettingError.check(
                floorWindowSeconds, in: 0.1...30, component: "SpeechGate", setting: "floorWindowSeconds", unit: " s")
        }
    }

    private static let subWindowCount = 8

    public private(set) var configuration: Configuration
    public let sampleRate: Int

    /// The decision for the last frame, hangover included.
    public private(set) var isSpeech = false
    /// True when the last frame itself was loud enough for speech (not held open by the hangover).
    public private(set) var isActive = false
    /// The last frame's energy in dBFS.
    public private(set) var frameLevelDBFS: Float = LevelMeter.floorDBFS
    /// The current noise-floor estimate in dBFS.
    public private(set) var noiseFloorDBFS: Float = LevelMeter.floorDBFS

    private let hangoverSamples: Int
    private let subWindowSamples: Int
    private var hangoverRemaining = 0
    private var subWindowFilled = 0
    private var currentMinimum = Float.infinity
    private var finishedMinima = InlineArray<7, Float>(repeating: .infinity)
    private var nextFinished = 0
    /// Whether every sub-window of the floor's window has been filled at least once.
    private var windowFilled = false
    private let analysisSamples: Int
    private var recentPowers = InlineArray<8, Float>(repeating: 0)
    private var nextRecent = 0
    private var recentCount = 0

    public init(_ configuration: Configuration = Configuration(), sampleRate: Int = engineSampleRate)
        throws(DSPSettingError)
    {
        try configuration.validate()
        guard (8_000...192_000).contains(sampleRate) else {
            throw DSPSettingError(
                component: "SpeechGate", setting: "sampleRate", value: "\(sampleRate) Hz", allowed: "8000…192000 Hz")
        }
        self.configuration = configuration
        self.sampleRate = sampleRate
        hangoverSamples = Int((configuration.hangoverSeconds * Double(sampleRate)).rounded())
        analysisSamples = sampleRate / 50
        subWindowSamples = max(
            1, Int((configuration.floorWindowSeconds * Double(sampleRate) / Double(Self.subWindowCount)).rounded()))
    }

    /// Classifies one frame of mono samples and returns `isSpeech`. Frames may be of any length,
    /// but a steady length (one codec frame) keeps the energy statistics comparable.
    @discardableResult
    public mutating func process(_ frame: UnsafeBufferPointer<Float>) -> Bool {
        guard !frame.isEmpty else { return isSpeech }
        let power = LevelMeter.meanPower(of: frame)
        let level = LevelMeter.decibels(power: power)
        let analysisLevel = self.analysisLevel(adding: power, frameSamples: frame.count)
        frameLevelDBFS = level
        updateFloor(with: analysisLevel, samples: frame.count)

        let threshold = noiseFloorDBFS + configuration.marginDB
        isActive = min(level, analysisLevel) > threshold && level > configuration.absoluteThresholdDBFS
        if isActive {
            hangoverRemaining = hangoverSamples
            isSpeech = true
        } else if hangoverRemaining > 0 {
            hangoverRemaining -= frame.count
            isSpeech = true
        } else {
            isSpeech = false
        }
        return isSpeech
    }

    /// Changes the level below which no frame is speech, keeping what the gate has learnt.
    public mutating func setAbsoluteThreshold(dbfs: Float) throws(DSPSettingError) {
        var changed = configuration
        changed.absoluteThresholdDBFS = dbfs
        try changed.validate()
        configuration = changed
    }

    /// Forgets the noise floor and closes the gate, as for a new microphone.
    public mutating func reset() {
        isSpeech = false
        isActive = false
        frameLevelDBFS = LevelMeter.floorDBFS
        noiseFloorDBFS = LevelMeter.floorDBFS
        hangoverRemaining = 0
        subWindowFilled = 0
        currentMinimum = .infinity
        finishedMinima = InlineArray(repeating: .infinity)
        nextFinished = 0
        windowFilled = false
        recentPowers = InlineArray(repeating: 0)
        nextRecent = 0
        recentCount = 0
    }

    /// The mean power of this frame (`power`) and as many frames before it as make up 20 ms, in dBFS.
    private mutating func analysisLevel(adding power: Float, frameSamples: Int) -> Float {
        recentPowers[nextRecent] = power
        recentCount = min(recentCount + 1, recentPowers.count)
        let wanted = max(1, (analysisSamples + frameSamples / 2) / frameSamples)
        let count = min(recentCount, wanted)
        var total: Float = 0
        for back in 0..<count {
            total += recentPowers[(nextRecent - back + recentPowers.count) % recentPowers.count]
        }
        nextRecent = (nextRecent + 1) % recentPowers.count
        return LevelMeter.decibels(power: total / Float(count))
    }

    private mutating func updateFloor(with level: Float, samples: Int) {
        currentMinimum = min(currentMinimum, level)
        var floor = currentMinimum
        for index in finishedMinima.indices { floor = min(floor, finishedMinima[index]) }
        noiseFloorDBFS = windowFilled ? floor : min(floor, configuration.absoluteThresholdDBFS)

        subWindowFilled += samples
        if subWindowFilled >= subWindowSamples {
            finishedMinima[nextFinished] = currentMinimum
            nextFinished = (nextFinished + 1) % finishedMinima.count
            if nextFinished == 0 { windowFilled = true }
            currentMinimum = .infinity
            subWindowFilled = 0
        }
    }
}
