"""What the library refuses, raised with its words."""

from ._native import library


class VoiceChatError(Exception):
    """A call the library refused: `code` is its vc_result, the message names the argument and what to do."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def check(result: int) -> None:
    """Raises VoiceChatError for anything but VC_OK, with the calling thread's last error."""
    if result != 0:
        raise VoiceChatError(result, library.vc_last_error_message().decode("utf-8", "replace"))


def text(value: str) -> bytes:
    """A str as the library takes it: UTF-8 (its NUL added by ctypes)."""
    if not isinstance(value, str):
        raise TypeError(f"expected a str, not {type(value).__name__}")
    return value.encode("utf-8")
