"""What a command prints passes through one filter: no control character reaches the
terminal.

A spec, situation or replay file is untrusted, and its text is printed (a title, a
`say` text, a note). The loader refuses control characters in such files; this is the
second line, for every command at once: while a command runs, `sys.stdout` and
`sys.stderr` show every C0 and C1 control character but newline and tab as `\\xNN`
(`properties.concrete.text_safety.terminal_text`), so an escape sequence cannot set the
terminal's title and a carriage return cannot overwrite a line already printed. A
carriage return that begins a write is kept: the progress line of `rulespec check`
rewrites itself that way.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from ..concrete.text_safety import terminal_text


class EscapingStream:
    """A text stream that writes `terminal_text` of what it is given to `stream`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click asks whether a stream takes bytes this way
            raise TypeError(f"write() takes text, not {type(text).__name__}")
        self._stream.write(terminal_text(text, redraw=True))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":  # bytes written there would pass the filter by
            raise AttributeError(name)
        return getattr(self._stream, name)


@contextlib.contextmanager
def escaped_output() -> Iterator[None]:
    """Within it, `sys.stdout` and `sys.stderr` escape control characters."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapingStream(saved[0]), EscapingStream(saved[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
