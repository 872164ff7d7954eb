"""One JSON object per line over a socket: each line bounded in size and nesting, read without an exception."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import time
from collections.abc import Mapping
from typing import Any

from xladoctor.collective.messages.roll import PROTOCOL
from xladoctor.sanitize import clip

MAX_MESSAGE = 16 << 20  # an outcome may carry a snapshot (~60-200 KB); anything larger is not ours
MAX_DEPTH = 32  # an outcome nests 11 levels deep (its snapshot 7); deeper is not ours
PREVIEW_BYTES = 4096  # what a stranger's line is read of to name it: redacted whole, then cut (sanitize.clip)
GARBAGE = "_garbage"  # the key of what stands for a line that is not a JSON object
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def too_deep(line: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether a JSON text nests deeper than `limit` (or its brackets do not pair up), read without parsing it:
    json's decoder recurses once per level, and whatever handles the value afterwards would too."""
    if line.count(b"[") + line.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", line).translate(None, _NOT_BRACKETS)
    for _ in range(limit):  # each pass removes the innermost pairs: one level at least
        brackets = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if not brackets:
            return False
    return True


def parse_line(line: bytes) -> dict[str, Any]:
    """One message: a JSON object, else `{"_garbage": what came}` (never an exception)."""
    shown = clip(line[:PREVIEW_BYTES].decode("utf-8", errors="replace").strip(), 200)  # redacted, then cut
    if too_deep(line):
        return {GARBAGE: f"JSON nested deeper than {MAX_DEPTH} levels: {clip(shown, 60)}"}
    try:
        value = json.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return {GARBAGE: shown}
    return value if isinstance(value, dict) else {GARBAGE: shown}


class Channel:
    """A connection that carries one JSON object per line; bytes after a line wait in the buffer for the next read.
    A line longer than `limit` closes it (`overflow`)."""

    def __init__(self, sock: socket.socket, limit: int = MAX_MESSAGE) -> None:
        self.sock = sock
        self.limit = limit
        self.buffer = bytearray()
        self.received = 0  # bytes, in all
        self.closed = False
        self.overflow = False
        self._scanned = 0  # the buffer holds no newline before this index

    def send(self, message: Mapping[str, Any]) -> None:
        self.sock.sendall((json.dumps(message, default=str) + "\n").encode())

    def feed(self) -> None:
        """Take what the socket has now (once it is readable); EOF or an error closes the channel."""
        try:
            data = self.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError, TimeoutError):
            return
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return
        self.received += len(data)
        self.buffer += data

    def said(self, limit: int = 80) -> str:
        """The start of what the peer sent and nobody read: how a stranger or a half-sent line is named."""
        return clip(bytes(self.buffer[:PREVIEW_BYTES]).decode("utf-8", errors="replace").strip(), limit)

    def pop(self) -> dict[str, Any] | None:
        """The next whole line of the buffer, parsed; None when there is none yet."""
        end = self.buffer.find(b"\n", self._scanned)
        if end < 0 or end > self.limit:
            self._scanned = len(self.buffer)
            if len(self.buffer) > self.limit:
                self.overflow = self.closed = True
                self.buffer.clear()
            return None
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        self._scanned = 0
        return parse_line(line)

    def read(self, deadline: float) -> dict[str, Any] | None:
        """The next line before the deadline; None on a timeout (the bytes read so far stay), EOF or a line too
        long (then `closed`)."""
        while True:
            message = self.pop()
            if message is not None:
                return message
            if self.closed or time.monotonic() >= deadline:
                return None
            try:
                self.sock.settimeout(max(0.01, min(1.0, deadline - time.monotonic())))
            except OSError:
                self.closed = True
                return None
            self.feed()

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError):
            self.sock.close()


def foreign(message: Mapping[str, Any]) -> str | None:
    """What a line that is not one of the roll call's messages shows (a peer that does not speak it), else None."""
    if GARBAGE in message:
        return str(message[GARBAGE])
    return None if message.get("proto") == PROTOCOL else str(message)
