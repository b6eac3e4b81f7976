import VoiceEngine

extension ParticipantSnapshot {
    /// Folds every stream of `statistics` into one participant line.
    init(_ statistics: ParticipantStatistics, muted: Bool) {
        self.init(participant: statistics.participant, muted: muted)
        path = statistics.path?.rawValue
        rttMilliseconds = statistics.roundTripMilliseconds
        channels = statistics.streams.keys.sorted()
        for stream in statistics.streams.values {
            let receive = stream.receive
            levelDB = max(levelDB, SessionSnapshot.finiteLevel(stream.levelDBFS))
            speaking = speaking || stream.isSpeaking
            packetsReceived += receive.packetsReceived
            packetsLost += receive.packetsLost
            packetsRecovered += receive.recoveredByFEC + receive.recoveredByRedundancy
            concealedSamples += receive.concealedSamples
            packetsLate += receive.packetsLate
            framesInserted += receive.framesInserted
            framesSkipped += receive.framesDropped + receive.framesDroppedForCatchUp + receive.framesSqueezedAway
            jitterMilliseconds = max(jitterMilliseconds, receive.jitterMilliseconds)
            bufferDelayMilliseconds = max(bufferDelayMilliseconds, receive.currentDelayMilliseconds)
            if receive.targetDelayMilliseconds >= targetDelayMilliseconds {
                targetDelayMilliseconds = receive.targetDelayMilliseconds
                repairDelayMilliseconds = receive.repairDelayMilliseconds
                delayHeldFor =
                    receive.wantedTargetMilliseconds > receive.targetCeilingMilliseconds
                    ? "budget" : receive.repairDelayMilliseconds > 0 ? "repair" : "jitter"
            }
        }
        let expected = packetsReceived + packetsLost
        lossFraction = expected > 0 ? Double(packetsLost) / Double(expected) : 0
    }
}
