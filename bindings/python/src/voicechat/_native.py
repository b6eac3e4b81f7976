"""The C ABI (voicechat.h) as ctypes sees it: its structs, its functions' types, and the library."""

import ctypes
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int32,
    c_size_t,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path

ABI_VERSION = 1

c_result = c_int
c_handle = c_void_p
c_bytes_p = POINTER(ctypes.c_uint8)

EVENT_CALLBACK = CFUNCTYPE(None, c_void_p, c_void_p)


class RelayOptions(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("host", c_char_p),
        ("port", c_uint16),
        ("secret", c_bytes_p),
        ("secret_length", c_size_t),
        ("audience", c_char_p),
        ("liveness_timeout_seconds", c_double),
    ]


class EngineOptions(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("participant", c_char_p),
        ("audio_mode", c_int),
        ("capture_device", c_char_p),
        ("playback_device", c_char_p),
        ("sample_rate", c_uint32),
        ("channels", c_uint32),
        ("block_frames", c_uint32),
        ("frame_ms", c_uint32),
        ("bitrate", c_uint32),
        ("complexity", c_uint32),
        ("maximum_delay_ms", c_double),
        ("denoise", c_int),
        ("automatic_gain_control", c_int),
        ("echo_cancellation", c_int),
        ("udp_host", c_char_p),
        ("udp_port", c_uint16),
        ("offers_real_time_data", c_int),
        ("event_callback", c_void_p),
        ("event_context", c_void_p),
    ]


class RelayJoinOptions(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("match", c_char_p),
        ("host", c_char_p),
        ("port", c_uint16),
        ("token", c_char_p),
        ("relay_primary", c_int),
        ("other_relays", c_char_p),
    ]


class Event(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("type", c_int),
        ("match", c_void_p),
        ("call", c_char_p),
        ("player", c_char_p),
        ("channel", c_char_p),
        ("text", c_char_p),
        ("value", c_int32),
        ("data", c_bytes_p),
        ("data_length", c_size_t),
    ]


def _library_path() -> str:
    """The library inside the package, else $VOICECHAT_LIBRARY, else the project's sdk/."""
    inside = Path(__file__).resolve().parent / "lib" / "libvoicechat.so"
    if inside.exists():
        return str(inside)
    if "VOICECHAT_LIBRARY" in os.environ:
        return os.environ["VOICECHAT_LIBRARY"]
    project = Path(__file__).resolve().parents[4] / "sdk" / "lib" / "libvoicechat.so"
    if project.exists():
        return str(project)
    raise OSError(
        "voicechat: libvoicechat.so is not in the package; make the SDK (scripts/build-sdk.sh) and "
        "install the package again, or set VOICECHAT_LIBRARY to the library's path"
    )


library = ctypes.CDLL(_library_path())

_SIGNATURES = {
    "vc_last_error_message": (c_char_p, []),
    "vc_abi_version": (c_uint32, []),
    "vc_token_sign": (
        c_result,
        [c_bytes_p, c_size_t, c_char_p, c_char_p, c_char_p, c_uint64, c_char_p, c_size_t, POINTER(c_size_t)],
    ),
    "vc_relay_options_init": (None, [POINTER(RelayOptions)]),
    "vc_relay_create": (c_result, [POINTER(RelayOptions), POINTER(c_handle)]),
    "vc_relay_start": (c_result, [c_handle, POINTER(c_uint16)]),
    "vc_relay_stop": (c_result, [c_handle]),
    "vc_relay_destroy": (c_result, [c_handle]),
    "vc_relay_set_server_mute": (c_result, [c_handle, c_char_p, c_char_p, c_int]),
    "vc_relay_move": (c_result, [c_handle, c_char_p, c_char_p, c_char_p]),
    "vc_relay_kick": (c_result, [c_handle, c_char_p, c_char_p]),
    "vc_relay_set_position": (c_result, [c_handle, c_char_p, c_char_p, c_float, c_float, c_float]),
    "vc_relay_release_position": (c_result, [c_handle, c_char_p, c_char_p]),
    "vc_relay_players_json": (c_result, [c_handle, c_char_p, c_char_p, c_size_t, POINTER(c_size_t)]),
    "vc_relay_statistics_json": (c_result, [c_handle, c_char_p, c_size_t, POINTER(c_size_t)]),
    "vc_engine_options_init": (None, [POINTER(EngineOptions)]),
    "vc_engine_create": (c_result, [POINTER(EngineOptions), POINTER(c_handle)]),
    "vc_engine_start": (c_result, [c_handle]),
    "vc_engine_destroy": (c_result, [c_handle]),
    "vc_engine_udp_port": (c_result, [c_handle, POINTER(c_uint16)]),
    "vc_engine_process": (c_result, [c_handle, POINTER(c_float), POINTER(c_float), c_size_t]),
    "vc_engine_add_game_mix": (c_result, [c_handle, POINTER(c_float), c_size_t]),
    "vc_engine_set_microphone_muted": (c_result, [c_handle, c_int]),
    "vc_engine_set_push_to_talk": (c_result, [c_handle, c_int]),
    "vc_engine_set_talk_key": (c_result, [c_handle, c_int]),
    "vc_engine_set_player_volume": (c_result, [c_handle, c_char_p, c_float]),
    "vc_engine_set_maximum_delay": (c_result, [c_handle, c_double]),
    "vc_engine_set_speech_processing": (c_result, [c_handle, c_int, c_int]),
    "vc_engine_meters": (c_result, [c_handle, POINTER(c_float), POINTER(c_float)]),
    "vc_engine_statistics_json": (c_result, [c_handle, c_char_p, c_size_t, POINTER(c_size_t)]),
    "vc_engine_open_player_audio": (c_result, [c_handle, c_char_p]),
    "vc_engine_read_player_audio": (c_result, [c_handle, c_char_p, POINTER(c_float), c_size_t, POINTER(c_size_t)]),
    "vc_engine_close_player_audio": (c_result, [c_handle, c_char_p]),
    "vc_engine_poll_event": (c_result, [c_handle, POINTER(Event)]),
    "vc_call_start": (c_result, [c_handle, c_char_p, c_char_p, c_size_t, POINTER(c_size_t)]),
    "vc_call_accept": (c_result, [c_handle, c_char_p]),
    "vc_call_deny": (c_result, [c_handle, c_char_p]),
    "vc_call_stop": (c_result, [c_handle, c_char_p]),
    "vc_engine_receive_call_signalling": (c_result, [c_handle, c_char_p, c_bytes_p, c_size_t]),
    "vc_engine_receive_real_time": (c_result, [c_handle, c_char_p, c_bytes_p, c_size_t]),
    "vc_relay_join_options_init": (None, [POINTER(RelayJoinOptions)]),
    "vc_match_join_relay": (c_result, [c_handle, POINTER(RelayJoinOptions), POINTER(c_handle)]),
    "vc_match_create": (c_result, [c_handle, c_char_p, POINTER(c_char_p), c_size_t, POINTER(c_handle)]),
    "vc_match_add_player": (c_result, [c_handle, c_char_p]),
    "vc_match_remove_player": (c_result, [c_handle, c_char_p]),
    "vc_match_receive_signalling": (c_result, [c_handle, c_char_p, c_bytes_p, c_size_t]),
    "vc_match_leave": (c_result, [c_handle]),
    "vc_match_start_channel": (c_result, [c_handle, c_char_p]),
    "vc_match_stop_channel": (c_result, [c_handle, c_char_p]),
    "vc_match_set_active_channel": (c_result, [c_handle, c_char_p]),
    "vc_match_set_proximity": (c_result, [c_handle, c_char_p, c_float, c_float, c_int]),
    "vc_match_set_channel_volume": (c_result, [c_handle, c_char_p, c_float]),
    "vc_match_set_player_muted": (c_result, [c_handle, c_char_p, c_char_p, c_int]),
    "vc_match_set_position": (c_result, [c_handle, POINTER(c_float), POINTER(c_float)]),
    "vc_match_set_player_position": (c_result, [c_handle, c_char_p, POINTER(c_float)]),
    "vc_match_player_state": (c_result, [c_handle, c_char_p, c_char_p, POINTER(c_int)]),
    "vc_match_player_speaking": (c_result, [c_handle, c_char_p, c_char_p, POINTER(c_int), POINTER(c_float)]),
    "vc_match_send_data": (c_result, [c_handle, POINTER(c_char_p), c_size_t, c_bytes_p, c_size_t, c_int]),
}

for _name, (_returns, _arguments) in _SIGNATURES.items():
    _function = getattr(library, _name)
    _function.restype = _returns
    _function.argtypes = _arguments

if library.vc_abi_version() != ABI_VERSION:
    raise ImportError(
        f"voicechat: the library implements ABI {library.vc_abi_version()}, this package {ABI_VERSION}; "
        "install the package from the same checkout as the SDK"
    )
