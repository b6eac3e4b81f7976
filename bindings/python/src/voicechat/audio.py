"""Audio helpers without NumPy: WAV files as float arrays, and a clock for an audio loop."""

import array
import sys
import time
import wave
from typing import Iterator, Tuple


def read_wav(path: str) -> Tuple[array.array, int, int]:
    """A 16-bit PCM WAV file's samples as floats in -1…1 (interleaved), its rate and its channels."""
    with wave.open(path, "rb") as file:
        if file.getsampwidth() != 2:
            raise ValueError(f"{path}: only 16-bit PCM WAV files are read here")
        raw = array.array("h", file.readframes(file.getnframes()))
        if sys.byteorder == "big":
            raw.byteswap()
        return array.array("f", (sample / 32768.0 for sample in raw)), file.getframerate(), file.getnchannels()


class WavWriter:
    """Writes float samples (-1…1) to a 16-bit PCM WAV file as they come; a context manager."""

    def __init__(self, path: str, rate: int = 48_000, channels: int = 1):
        self._file = wave.open(path, "wb")
        self._file.setnchannels(channels)
        self._file.setsampwidth(2)
        self._file.setframerate(rate)

    def write(self, samples: "array.array") -> None:
        pcm = array.array("h", (int(max(-1.0, min(1.0, sample)) * 32767) for sample in samples))
        if sys.byteorder == "big":
            pcm.byteswap()
        self._file.writeframes(pcm.tobytes())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "WavWriter":
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()


def every(interval: float, seconds: float) -> Iterator[int]:
    """Yields 0, 1, 2 … once every `interval` seconds on an absolute clock for `seconds`, as an
    audio callback is called: a late turn is followed by the next at once, so none is lost."""
    start = time.monotonic()
    turns = int(seconds / interval)
    for turn in range(turns):
        delay = start + turn * interval - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        yield turn
