"""Real-time voice chat for games, from Python: the engine and the relay through their C ABI."""

from .audio import WavWriter, every, read_wav
from .engine import Devices, Engine, GameAudio, Match
from .errors import VoiceChatError
from .events import Event, EventType, PlayerState
from .relay import Relay, sign_token

__all__ = [
    "Devices", "Engine", "Event", "EventType", "GameAudio", "Match", "PlayerState", "Relay", "VoiceChatError",
    "WavWriter", "every", "read_wav", "sign_token",
]
