"""The relay, run inside a game server, and the tokens it admits players with."""

import ctypes
import json
import time
from ctypes import byref, c_uint16
from typing import List, Optional

from . import _native
from ._native import library
from .engine import _text_call
from .errors import check, text


def sign_token(
    secret: bytes, match: str, participant: str, expiry: Optional[int] = None, audience: Optional[str] = None
) -> str:
    """A join token for `participant` in `match`, good until `expiry` (Unix seconds; default an hour from now)."""
    expires = int(time.time()) + 3600 if expiry is None else expiry
    key = (ctypes.c_uint8 * len(secret)).from_buffer_copy(secret) if secret else None
    return _text_call(lambda buffer, size, needed: library.vc_token_sign(
        key, len(secret), text(audience) if audience is not None else None, text(match), text(participant), expires,
        buffer, size, needed))


class Relay:
    """A relay in this process, on its own threads. Use it as a context manager, or call close()."""

    def __init__(self, secret: bytes, host: Optional[str] = None, port: int = 7700, audience: Optional[str] = None,
                 liveness_timeout_seconds: float = 5.0):
        options = _native.RelayOptions()
        library.vc_relay_options_init(byref(options))
        self._secret = (ctypes.c_uint8 * len(secret)).from_buffer_copy(secret) if secret else None
        self._keep = [text(host) if host is not None else None, text(audience) if audience is not None else None]
        options.host, options.audience = self._keep
        options.port = port
        options.secret, options.secret_length = self._secret, len(secret)
        options.liveness_timeout_seconds = liveness_timeout_seconds
        handle = ctypes.c_void_p()
        check(library.vc_relay_create(byref(options), byref(handle)))
        self._handle: Optional[ctypes.c_void_p] = handle
        self.port = 0

    def start(self) -> int:
        """Starts listening; returns the port."""
        port = c_uint16()
        check(library.vc_relay_start(self._handle, byref(port)))
        self.port = port.value
        return self.port

    def close(self) -> None:
        if self._handle is not None:
            handle, self._handle = self._handle, None
            check(library.vc_relay_destroy(handle))

    def __enter__(self) -> "Relay":
        self.start()
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def set_server_mute(self, match: str, player: str, muted: bool) -> None:
        check(library.vc_relay_set_server_mute(self._handle, text(match), text(player), int(muted)))

    def move(self, match: str, player: str, channel: str) -> None:
        check(library.vc_relay_move(self._handle, text(match), text(player), text(channel)))

    def kick(self, match: str, player: str) -> None:
        check(library.vc_relay_kick(self._handle, text(match), text(player)))

    def players(self, match: str) -> List[dict]:
        return json.loads(_text_call(lambda buffer, size, needed: library.vc_relay_players_json(
            self._handle, text(match), buffer, size, needed)))

    def statistics(self) -> dict:
        return json.loads(_text_call(lambda buffer, size, needed: library.vc_relay_statistics_json(
            self._handle, buffer, size, needed)))
