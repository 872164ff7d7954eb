"""While the ranks run and until the outcomes are in: the first message each peer sends, all connections at once."""

from __future__ import annotations

import contextlib
import selectors
import threading
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from xladoctor.collective.messages.outcome import StopCause
from xladoctor.collective.rollcall.channel import Channel

M = TypeVar("M")


class Watch(Generic[M]):
    """Read the first message each peer sends (an outcome, an abort) in a thread, every message through `check`
    (its shape, then its dataclass); stop this node's launch (`cancel`) as soon as `fatal` names the cause of a
    failure that ends the job, instead of waiting for the timeout."""

    def __init__(
        self,
        channels: Mapping[int, Channel],
        cancel: threading.Event,
        check: Callable[[int, dict[str, Any]], M],
        fatal: Callable[[int, M], StopCause | None],
        notice: Callable[[M], bool] = lambda _: False,
    ):
        self.channels = channels
        self.cancel = cancel
        self.check = check
        self.fatal = fatal
        self.notice = notice  # a message sent ahead of the one awaited (a member's abort): judged, then read past
        self.received: dict[int, M] = {}
        self.stop = threading.Event()
        self.done = threading.Event()  # every channel sent its message or closed
        self.cause: StopCause | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _take(self, unit: int) -> bool:
        """Whether this channel is done: its message came (and is kept), or it closed."""
        channel = self.channels[unit]
        while True:
            line = channel.pop()
            if line is None:
                return channel.closed
            message = self.check(unit, line)
            if self.cause is None:
                self.cause = self.fatal(unit, message)
                if self.cause is not None:
                    self.cancel.set()
            if not self.notice(message):
                self.received[unit] = message
                return True

    def _run(self) -> None:
        with selectors.DefaultSelector() as selector:
            for unit, channel in self.channels.items():
                if self._take(unit):
                    continue
                with contextlib.suppress(ValueError, OSError, KeyError):
                    selector.register(channel.sock, selectors.EVENT_READ, unit)
            while selector.get_map() and not self.stop.is_set():
                for key, _ in selector.select(0.1):
                    unit = int(key.data)
                    self.channels[unit].feed()
                    if self._take(unit):
                        selector.unregister(key.fileobj)
        self.done.set()

    def finish(self) -> dict[int, M]:
        self.stop.set()
        self.thread.join()
        return self.received
