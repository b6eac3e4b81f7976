/// How far behind what was said a recording of it runs, from the loudness envelopes of the two
/// (millisecond blocks), searched over 0 to `maximumMilliseconds`. Coarse (a millisecond) but needs
/// nothing beyond the two signals; the scorer, when set up, measures it to the sample.
enum SpeechDelay {
    static func estimate(said: [Float], heard: [Float], sampleRate: Int = 48_000, maximumMilliseconds: Int = 1000)
        -> Int?
    {
        let block = sampleRate / 1000
        func envelope(_ samples: [Float], blocks: Int) -> [Float] {
            (0..<blocks).map { index in
                let start = index * block
                guard start + block <= samples.count else { return 0 }
                var sum: Float = 0
                for sample in samples[start..<(start + block)] { sum += abs(sample) }
                return sum / Float(block)
            }
        }
        // Ten seconds of speech are plenty to find the lag. A short run heard only the start of
        // what was said: compare that start.
        let length = min(said.count / block, heard.count / block, 10_000)
        guard length > 500 else { return nil }
        let reference = envelope(said, blocks: length)
        let recording = envelope(heard, blocks: length + maximumMilliseconds)
        let meanReference = reference.reduce(0, +) / Float(length)
        var best: (lag: Int, score: Float) = (0, -.infinity)
        for lag in 0...maximumMilliseconds {
            var score: Float = 0
            for index in 0..<length where index + lag < recording.count {
                score += (reference[index] - meanReference) * recording[index + lag]
            }
            if score > best.score { best = (lag, score) }
        }
        return best.score > 0 ? best.lag : nil
    }
}
