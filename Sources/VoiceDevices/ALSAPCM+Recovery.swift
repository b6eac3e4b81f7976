import CVoiceALSA
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

extension ALSAPCM {
    /// Recovers from an xrun (-EPIPE), a suspend (-ESTRPIPE) or an interrupted call (-EINTR)
    /// and counts the first two. Returns false when the error is not one the device can
    /// recover from (e.g. -ENODEV: it went away). Either way the stream's periods no longer
    /// keep the rhythm they had, so `cadence` forgets it.
    ///
    /// Called on the device thread: `snd_pcm_recover` prepares the PCM again, and for a
    /// suspend first retries `snd_pcm_resume`; neither allocates.
    func recover(from status: Int32, counters: DeviceCounters, cadence: PeriodCadence) -> Bool {
        cadence.restart()
        switch -status {
        case EPIPE: counters.xruns.add(1, ordering: .relaxed)
        case ESTRPIPE: counters.suspends.add(1, ordering: .relaxed)
        case EINTR, EAGAIN: return true
        default: return false
        }
        return snd_pcm_recover(handle, status, 1) >= 0
    }

    var isRunning: Bool { snd_pcm_state(handle) == SND_PCM_STATE_RUNNING }
    var isPrepared: Bool { snd_pcm_state(handle) == SND_PCM_STATE_PREPARED }
}
