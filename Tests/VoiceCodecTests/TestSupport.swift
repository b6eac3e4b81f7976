import Testing
import VoiceCodec
import VoiceCore
import VoiceDevices

#if canImport(Glibc)
    import Glibc
#endif

/// Fixture audio from the repository's Fixtures/ folder, found relative to this file.
enum Fixture {
    static func load(_ name: String, filePath: String = #filePath) throws -> WAVAudio {
        var components = filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // TestSupport.swift, VoiceCodecTests, Tests
        let path = components.joined(separator: "/") + "/Fixtures/" + name
        return try WAVAudio(contentsOfFile: path)
    }
}

enum Signal {
    static func energy(_ samples: ArraySlice<Float>) -> Double {
        samples.reduce(0) { $0 + Double($1) * Double($1) }
    }

    static func rms(_ samples: ArraySlice<Float>) -> Double {
        samples.isEmpty ? 0 : (energy(samples) / Double(samples.count)).squareRoot()
    }

    static func decibels(_ ratio: Double) -> Double { 10 * log10(ratio) }

    /// Normalized correlation of `reference[range]` with `signal` shifted later by `lag` samples.
    static func correlation(_ reference: [Float], _ signal: [Float], lag: Int, range: Range<Int>) -> Double {
        var cross = 0.0
        var referenceEnergy = 0.0
        var signalEnergy = 0.0
        for index in range where index + lag >= 0 && index + lag < signal.count && index < reference.count {
            let a = Double(reference[index])
            let b = Double(signal[index + lag])
            cross += a * b
            referenceEnergy += a * a
            signalEnergy += b * b
        }
        guard referenceEnergy > 0, signalEnergy > 0 else { return 0 }
        return cross / (referenceEnergy * signalEnergy).squareRoot()
    }

    /// The lag in `lags` at which `signal` best matches `reference`, and that correlation.
    static func bestLag(_ reference: [Float], _ signal: [Float], lags: ClosedRange<Int>, range: Range<Int>)
        -> (lag: Int, correlation: Double)
    {
        var best = (lag: lags.lowerBound, correlation: -2.0)
        for lag in lags {
            let value = correlation(reference, signal, lag: lag, range: range)
            if value > best.correlation { best = (lag, value) }
        }
        return best
    }
}

/// Runs `body` and checks that it throws a `CodecError` with `code` whose text mentions each
/// of `words`; returns the error for further checks.
@discardableResult
func expectCodecError(
    _ code: CodecError.Code,
    mentioning words: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> CodecError? {
    do {
        try body()
        Issue.record("expected a CodecError .\(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as CodecError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        for word in words {
            #expect(
                error.description.contains(word), "'\(error)' does not mention '\(word)'",
                sourceLocation: sourceLocation)
        }
        return error
    } catch {
        Issue.record("expected a CodecError .\(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Encodes `samples` frame by frame (the tail that does not fill a frame is dropped).
func encodeAll(_ samples: [Float], with encoder: inout OpusEncoder) throws -> [[UInt8]] {
    let frameLength = encoder.frameSamples * encoder.configuration.channels
    var packets: [[UInt8]] = []
    var start = 0
    while start + frameLength <= samples.count {
        packets.append(try encoder.encode(Array(samples[start..<start + frameLength])))
        start += frameLength
    }
    return packets
}

/// Decodes every packet in order into one signal.
func decodeAll(_ packets: [[UInt8]], with decoder: inout OpusDecoder) throws -> [Float] {
    var output: [Float] = []
    var buffer = [Float](repeating: 0, count: decoder.maximumFrameSamples * decoder.channels)
    for packet in packets {
        let frames = try packet.withUnsafeBufferPointer { (input) throws(CodecError) -> Int in
            try buffer.withUnsafeMutableBufferPointer { (pcm) throws(CodecError) -> Int in
                try decoder.decode(input, into: pcm)
            }
        }
        output.append(contentsOf: buffer[0..<frames * decoder.channels])
    }
    return output
}
