"""The voice engine: its audio, calls, matches, channels and events."""

import array
import ctypes
import json
from ctypes import byref, c_char_p, c_float, c_int, c_size_t, c_uint16
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import library
from .errors import VoiceChatError, check, text
from .events import Event, EventType, PlayerState

AUDIO_DEVICES = 0
AUDIO_GAME = 1

ECHO_CANCELLATION = {"auto": 0, "on": 1, "off": 2}


@dataclass(frozen=True)
class Devices:
    """The engine opens ALSA devices itself (None: "default")."""

    capture: Optional[str] = None
    playback: Optional[str] = None


@dataclass(frozen=True)
class GameAudio:
    """The program moves audio itself with Engine.process: its rate, channels and block size."""

    rate: int = 48_000
    channels: int = 1
    block_frames: int = 480


def _floats(samples: "array.array", count: int):
    """A ctypes view of an array('f') of at least `count` samples."""
    if not isinstance(samples, array.array) or samples.typecode != "f":
        raise TypeError("audio is an array.array('f') of samples in -1…1")
    if len(samples) < count:
        raise ValueError(f"the block holds {len(samples)} samples, not the {count} asked for")
    return (c_float * len(samples)).from_buffer(samples)


def _bytes(data: bytes):
    return (ctypes.c_uint8 * len(data)).from_buffer_copy(data) if data else None


class Engine:
    """One player's voice engine. Use it as a context manager, or call close().

    Thread rules: process() and add_game_mix() from one audio thread; poll_events() from one
    thread; everything else from any thread. Per-frame calls (positions, volumes, mutes, the talk
    key) never wait for the engine; reads (meters, speaking, statistics) come from its snapshot.
    """

    def __init__(
        self,
        participant: str,
        audio: Union[Devices, GameAudio] = Devices(),
        *,
        frame_ms: Optional[int] = None,
        bitrate: Optional[int] = None,
        maximum_delay_ms: Optional[float] = None,
        denoise: bool = False,
        automatic_gain_control: bool = False,
        echo_cancellation: str = "auto",
        udp_host: Optional[str] = None,
        udp_port: int = 0,
        offers_real_time_data: bool = False,
        on_event: Optional[Callable[[Event], None]] = None,
    ):
        options = _native.EngineOptions()
        library.vc_engine_options_init(byref(options))
        self._keep = [text(participant)]
        options.participant = self._keep[0]
        if isinstance(audio, GameAudio):
            options.audio_mode = AUDIO_GAME
            options.sample_rate, options.channels, options.block_frames = audio.rate, audio.channels, audio.block_frames
            self._channels = audio.channels
        else:
            options.audio_mode = AUDIO_DEVICES
            for field, name in (("capture_device", audio.capture), ("playback_device", audio.playback)):
                if name is not None:
                    self._keep.append(text(name))
                    setattr(options, field, self._keep[-1])
            self._channels = 1
        if frame_ms is not None:
            options.frame_ms = frame_ms
        if bitrate is not None:
            options.bitrate = bitrate
        if maximum_delay_ms is not None:
            options.maximum_delay_ms = maximum_delay_ms
        options.denoise, options.automatic_gain_control = int(denoise), int(automatic_gain_control)
        if echo_cancellation not in ECHO_CANCELLATION:
            raise ValueError(f"echo_cancellation is {echo_cancellation!r}; give auto, on or off")
        options.echo_cancellation = ECHO_CANCELLATION[echo_cancellation]
        if udp_host is not None:
            self._keep.append(text(udp_host))
            options.udp_host = self._keep[-1]
        options.udp_port = udp_port
        options.offers_real_time_data = int(offers_real_time_data)
        self._matches: Dict[int, "Match"] = {}
        self._callback = None
        if on_event is not None:
            def deliver(event, _context):
                on_event(Event.from_c(event.contents, self._matches.get(event.contents.match or 0)))

            self._callback = _native.EVENT_CALLBACK(
                lambda event, context: deliver(ctypes.cast(event, ctypes.POINTER(_native.Event)), context))
            options.event_callback = ctypes.cast(self._callback, ctypes.c_void_p)
        handle = ctypes.c_void_p()
        check(library.vc_engine_create(byref(options), byref(handle)))
        self._handle = handle
        self._output = array.array("f")

    @property
    def handle(self) -> ctypes.c_void_p:
        if self._handle is None:
            raise VoiceChatError(2, "the engine was closed")
        return self._handle

    def start(self) -> None:
        check(library.vc_engine_start(self.handle))

    def close(self) -> None:
        """Leaves every match and ends the engine."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            check(library.vc_engine_destroy(handle))

    def __enter__(self) -> "Engine":
        self.start()
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    @property
    def udp_port(self) -> int:
        port = c_uint16()
        check(library.vc_engine_udp_port(self.handle, byref(port)))
        return port.value

    # Audio the program moves (GameAudio)

    def process(self, captured: Optional["array.array"], frames: Optional[int] = None) -> "array.array":
        """One block: `captured` (interleaved floats; shorter is padded with silence, None is
        silence) goes to the engine; returns as many frames of what it mixed."""
        if frames is None:
            frames = (len(captured) if captured is not None else 0) // self._channels
        count = frames * self._channels
        if captured is not None and len(captured) < count:
            captured = captured + array.array("f", bytes(4 * (count - len(captured))))
        if len(self._output) != count:
            self._output = array.array("f", bytes(4 * count))
        source = _floats(captured, count) if captured is not None else None
        check(library.vc_engine_process(self.handle, source, _floats(self._output, count), frames))
        return array.array("f", self._output)

    def add_game_mix(self, mix: "array.array") -> None:
        """What the program plays besides voices, for the echo canceller."""
        check(library.vc_engine_add_game_mix(self.handle, _floats(mix, len(mix)), len(mix) // self._channels))

    # Controls

    def set_microphone_muted(self, muted: bool) -> None:
        check(library.vc_engine_set_microphone_muted(self.handle, int(muted)))

    def set_push_to_talk(self, on: bool) -> None:
        check(library.vc_engine_set_push_to_talk(self.handle, int(on)))

    def set_talk_key(self, down: bool) -> None:
        check(library.vc_engine_set_talk_key(self.handle, int(down)))

    def set_player_volume(self, player: str, volume: float) -> None:
        check(library.vc_engine_set_player_volume(self.handle, text(player), volume))

    def set_maximum_delay(self, milliseconds: float) -> None:
        check(library.vc_engine_set_maximum_delay(self.handle, milliseconds))

    def set_speech_processing(self, denoise: bool, automatic_gain_control: bool) -> None:
        check(library.vc_engine_set_speech_processing(self.handle, int(denoise), int(automatic_gain_control)))

    def meters(self) -> Tuple[float, float]:
        """The microphone's and the mix's levels, dBFS."""
        level_in, level_out = c_float(), c_float()
        check(library.vc_engine_meters(self.handle, byref(level_in), byref(level_out)))
        return level_in.value, level_out.value

    def statistics(self) -> List[dict]:
        return json.loads(_text_call(lambda buffer, size, needed: library.vc_engine_statistics_json(
            self.handle, buffer, size, needed)))

    # Each player apart

    def open_player_audio(self, player: str) -> None:
        """Keeps `player`'s voice apart (48 kHz mono) for read_player_audio."""
        check(library.vc_engine_open_player_audio(self.handle, text(player)))

    def read_player_audio(self, player: str, capacity: int = 96_000) -> "array.array":
        samples = array.array("f", bytes(4 * capacity))
        frames = c_size_t()
        check(library.vc_engine_read_player_audio(
            self.handle, text(player), _floats(samples, capacity), capacity, byref(frames)))
        del samples[frames.value:]
        return samples

    def close_player_audio(self, player: str) -> None:
        check(library.vc_engine_close_player_audio(self.handle, text(player)))

    # Events

    def poll_events(self) -> List[Event]:
        """Every event waiting, oldest first; never waits."""
        events = []
        event = _native.Event()
        event.struct_size = ctypes.sizeof(_native.Event)
        while True:
            check(library.vc_engine_poll_event(self.handle, byref(event)))
            if event.type == EventType.NONE:
                return events
            events.append(Event.from_c(event, self._matches.get(event.match or 0)))

    # 1:1 calls whose signalling the program carries

    def call(self, participant: str) -> str:
        """Invites `participant`; returns the call ID."""
        buffer = ctypes.create_string_buffer(33)
        needed = c_size_t()
        check(library.vc_call_start(self.handle, text(participant), buffer, 33, byref(needed)))
        return buffer.value.decode()

    def accept(self, call: str) -> None:
        check(library.vc_call_accept(self.handle, text(call)))

    def deny(self, call: str) -> None:
        check(library.vc_call_deny(self.handle, text(call)))

    def hang_up(self, participant: str) -> None:
        check(library.vc_call_stop(self.handle, text(participant)))

    def receive_call_signalling(self, sender: str, data: bytes) -> None:
        check(library.vc_engine_receive_call_signalling(self.handle, text(sender), _bytes(data), len(data)))

    def receive_real_time(self, sender: str, data: bytes) -> None:
        check(library.vc_engine_receive_real_time(self.handle, text(sender), _bytes(data), len(data)))

    # Matches

    def join_relay(
        self, match: str, host: str, port: int, token: str, relay_primary: bool = False,
        other_relays: Sequence[str] = (),
    ) -> "Match":
        """Joins `match` through the relay at host:port with the game server's token; `other_relays`
        ("HOST:PORT" each) are the cluster's other relays, tried when that one does not answer."""
        options = _native.RelayJoinOptions()
        library.vc_relay_join_options_init(byref(options))
        keep = [text(match), text(host), text(token), text(",".join(other_relays))]
        options.match, options.host, options.token, options.other_relays = keep
        options.port = port
        options.relay_primary = int(relay_primary)
        handle = ctypes.c_void_p()
        check(library.vc_match_join_relay(self.handle, byref(options), byref(handle)))
        return self._adopt(Match(self, handle, match))

    def create_match(self, match: str, players: Sequence[str]) -> "Match":
        """Joins `match` whose signalling the program carries (Event SIGNALLING_OUT, Match.receive_signalling)."""
        names = (c_char_p * max(1, len(players)))(*[text(player) for player in players])
        handle = ctypes.c_void_p()
        check(library.vc_match_create(self.handle, text(match), names, len(players), byref(handle)))
        return self._adopt(Match(self, handle, match))

    def _adopt(self, match: "Match") -> "Match":
        self._matches[match.handle.value] = match
        return match

    def _forget(self, match: "Match") -> None:
        self._matches.pop(match.handle.value, None)


class Match:
    """A match and its named voice channels. Use it as a context manager, or call leave()."""

    def __init__(self, engine: Engine, handle: ctypes.c_void_p, match_id: str):
        self.engine = engine
        self.handle = handle
        self.match_id = match_id
        self._left = False

    def leave(self) -> None:
        if not self._left:
            self._left = True
            self.engine._forget(self)
            check(library.vc_match_leave(self.handle))

    def __enter__(self) -> "Match":
        return self

    def __exit__(self, *exception: object) -> None:
        if self.engine._handle is not None:
            self.leave()

    def start_channel(self, name: str, active: bool = False) -> None:
        """Starts hearing channel `name`; with `active`, talks in it too."""
        check(library.vc_match_start_channel(self.handle, text(name)))
        if active:
            self.set_active_channel(name)

    def stop_channel(self, name: str) -> None:
        check(library.vc_match_stop_channel(self.handle, text(name)))

    def set_active_channel(self, name: Optional[str]) -> None:
        check(library.vc_match_set_active_channel(self.handle, text(name) if name is not None else None))

    def set_proximity(self, channel: str, range: float, reference_distance: float = 1, linear: bool = False) -> None:
        """Makes `channel` positional (range 0: heard whole again)."""
        check(library.vc_match_set_proximity(self.handle, text(channel), range, reference_distance, int(linear)))

    def set_channel_volume(self, channel: str, volume: float) -> None:
        check(library.vc_match_set_channel_volume(self.handle, text(channel), volume))

    def set_player_muted(self, channel: str, player: str, muted: bool) -> None:
        check(library.vc_match_set_player_muted(self.handle, text(channel), text(player), int(muted)))

    def set_position(self, position: Sequence[float], right: Optional[Sequence[float]] = None) -> None:
        at = (c_float * 3)(*position)
        facing = (c_float * 3)(*right) if right is not None else None
        check(library.vc_match_set_position(self.handle, at, facing))

    def set_player_position(self, player: str, position: Sequence[float]) -> None:
        check(library.vc_match_set_player_position(self.handle, text(player), (c_float * 3)(*position)))

    def player_state(self, channel: str, player: str) -> PlayerState:
        state = c_int()
        check(library.vc_match_player_state(self.handle, text(channel), text(player), byref(state)))
        return PlayerState(state.value)

    def player_speaking(self, channel: str, player: str) -> Tuple[bool, float]:
        """Whether `player` speaks in `channel` now, and how loud (dBFS)."""
        speaking, level = c_int(), c_float()
        check(library.vc_match_player_speaking(self.handle, text(channel), text(player), byref(speaking), byref(level)))
        return bool(speaking.value), level.value

    def send_data(self, data: bytes, players: Optional[Sequence[str]] = None, reliable: bool = True) -> None:
        names = list(players or [])
        array_of_names = (c_char_p * max(1, len(names)))(*[text(name) for name in names])
        check(library.vc_match_send_data(
            self.handle, array_of_names if names else None, len(names), _bytes(data), len(data), int(reliable)))

    def receive_signalling(self, sender: str, data: bytes) -> None:
        check(library.vc_match_receive_signalling(self.handle, text(sender), _bytes(data), len(data)))

    def add_player(self, player: str) -> None:
        check(library.vc_match_add_player(self.handle, text(player)))

    def remove_player(self, player: str) -> None:
        check(library.vc_match_remove_player(self.handle, text(player)))


def _text_call(call: Callable[[Optional[ctypes.Array], int, "ctypes._Pointer"], int]) -> str:
    """Runs a call that writes text into a buffer, growing the buffer to what it needs."""
    needed = c_size_t()
    size = 4096
    while True:
        buffer = ctypes.create_string_buffer(size)
        result = call(buffer, size, byref(needed))
        if result == 6 and needed.value > size:
            size = needed.value
            continue
        check(result)
        return buffer.value.decode("utf-8")
