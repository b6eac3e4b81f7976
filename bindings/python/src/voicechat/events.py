"""What the engine reports, as Python values."""

import enum
from dataclasses import dataclass
from typing import Optional

from . import _native


class EventType(enum.IntEnum):
    NONE = 0
    SIGNALLING_OUT = 1
    REAL_TIME_OUT = 2
    CALL_INVITATION = 3
    CALL_STARTED = 4
    CALL_DID_NOT_START = 5
    CALL_STOPPED = 6
    PATH_CHANGED = 7
    PLAYER_STATE = 8
    PLAYER_CONNECTION = 9
    GAME_DATA = 10
    SIGNALLING_REJECTED = 11
    RELAY_FAILED = 12
    SERVER_MUTED = 13
    MOVED = 14
    RELAY_JOINED = 15
    RELAY_LOST = 16
    RELAY_REFUSED = 17


class PlayerState(enum.IntEnum):
    CONNECTING = 0
    CONNECTED = 1
    DISCONNECTED = 2
    SPEAKING = 3
    SILENT = 4


@dataclass(frozen=True)
class Event:
    """One event; see voicechat.h for what each type fills. `match` is the Match it is about, if any."""

    type: EventType
    match: Optional[object]
    call: str
    player: str
    channel: str
    text: str
    value: int
    data: bytes

    @staticmethod
    def from_c(event: _native.Event, match: Optional[object]) -> "Event":
        def string(value: Optional[bytes]) -> str:
            return value.decode("utf-8", "replace") if value else ""

        data = bytes(event.data[: event.data_length]) if event.data_length and event.data else b""
        try:
            kind = EventType(event.type)
        except ValueError:
            kind = EventType.NONE
        return Event(
            kind, match, string(event.call), string(event.player), string(event.channel), string(event.text),
            int(event.value), data,
        )
