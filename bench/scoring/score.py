#!/usr/bin/env python3
"""Scores what a listener heard against what was said.

Aligns DEGRADED with REFERENCE by cross-correlation (the engine delays the signal by its
codec and buffering delay), then computes wideband PESQ (ITU-T P.862.2) on the aligned
overlap, both resampled to 16 kHz. Prints one JSON object per pair:
{"reference": …, "degraded": …, "pesq_wb": …, "delay_ms": …, "correlation": …,
 "window_delays_ms": [… one per second of speech]}

Usage: score.py REFERENCE.wav DEGRADED.wav [DEGRADED2.wav …] [--max-delay-ms 1000]
"""

import argparse
import json
import sys

import numpy as np
import soundfile
from pesq import pesq
from scipy.signal import correlate, resample_poly

PESQ_RATE = 16_000


def load_mono(path):
    samples, rate = soundfile.read(path, dtype="float64", always_2d=True)
    return samples.mean(axis=1), rate


def align(reference, degraded, rate, max_delay_ms):
    """Returns the delay (in samples) of `degraded` behind `reference` that maximises their
    cross-correlation, searched over 0 … max_delay_ms."""
    max_lag = int(rate * max_delay_ms / 1000)
    # Correlate a window long enough to hold speech (up to 10 s) to keep this quick.
    length = min(len(reference), len(degraded) - max_lag, rate * 10)
    if length <= rate // 10:
        raise ValueError("the degraded file is too short to align with the reference")
    correlation = correlate(degraded[: length + max_lag], reference[:length], mode="valid", method="fft")
    return int(np.argmax(correlation[: max_lag + 1]))


def score(reference_path, degraded_path, max_delay_ms):
    reference, rate = load_mono(reference_path)
    degraded, degraded_rate = load_mono(degraded_path)
    if degraded_rate != rate:
        raise ValueError(f"{degraded_path} is at {degraded_rate} Hz but the reference is at {rate} Hz")
    delay = align(reference, degraded, rate, max_delay_ms)
    overlap = min(len(reference), len(degraded) - delay)
    ref = reference[:overlap]
    deg = degraded[delay : delay + overlap]
    correlation = float(np.corrcoef(ref, deg)[0, 1]) if np.std(deg) > 0 else 0.0
    if rate != PESQ_RATE:
        ref = resample_poly(ref, PESQ_RATE, rate)
        deg = resample_poly(deg, PESQ_RATE, rate)
    quality = float(pesq(PESQ_RATE, ref, deg, "wb"))
    return {
        "reference": reference_path,
        "degraded": degraded_path,
        "pesq_wb": round(quality, 4),
        "delay_ms": round(delay * 1000 / rate, 3),
        "correlation": round(correlation, 4),
        "window_delays_ms": window_delays(reference, degraded, rate, max_delay_ms),
    }


def window_delays(reference, degraded, rate, max_delay_ms, window_seconds=1.0):
    """The delay of each one-second window of speech (windows whose level is within 30 dB of the
    loudest), each aligned on its own: how the delay moved during the call."""
    window = int(rate * window_seconds)
    max_lag = int(rate * max_delay_ms / 1000)
    levels = [np.sqrt(np.mean(reference[start : start + window] ** 2)) for start in range(0, len(reference) - window, window)]
    loudest = max(levels, default=0)
    delays = []
    for index, level in enumerate(levels):
        start = index * window
        if loudest == 0 or level < loudest * 10 ** (-30 / 20) or start + window + max_lag > len(degraded):
            continue
        correlation = correlate(degraded[start : start + window + max_lag], reference[start : start + window], mode="valid", method="fft")
        delays.append(round(int(np.argmax(correlation[: max_lag + 1])) * 1000 / rate, 3))
    return delays


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reference")
    parser.add_argument("degraded", nargs="+")
    parser.add_argument("--max-delay-ms", type=float, default=1000)
    arguments = parser.parse_args()
    status = 0
    for path in arguments.degraded:
        try:
            print(json.dumps(score(arguments.reference, path, arguments.max_delay_ms)), flush=True)
        except Exception as error:  # one bad file must not hide the scores of the others
            print(json.dumps({"reference": arguments.reference, "degraded": path, "error": str(error)}), flush=True)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
