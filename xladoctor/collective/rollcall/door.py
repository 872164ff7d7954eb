"""Node 0's listener and the connections that have not said hello yet: every connection read at once, each with its
own buffer and deadline, so that no peer (a port scanner, a flood of connections, a node that connects and says
nothing) can hold node 0 past its deadline. A connection's first whole line goes to the host; one that sends none,
too much, or nothing in time is named a stranger."""

from __future__ import annotations

import contextlib
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xladoctor.collective.rollcall.channel import Channel
from xladoctor.probes.network import PortHolder, errno_name, port_holders

MAX_HELLO = 256 << 10  # a hello is ~2 KB (its preflight lists the host's interfaces)
HELLO_WAIT_S = 5.0  # how long one connection may take to say hello, while node 0 reads the others
MAX_PENDING = 64  # connections that have not said hello yet, at once; the oldest goes when another comes
MAX_STRANGERS = 16  # connections without a proper hello that are named one by one (the rest are counted)


@dataclass
class Pending:
    """An accepted connection that has not said hello yet."""

    channel: Channel
    peer: str  # "ADDRESS:PORT"
    address: str
    until: float  # its deadline for the hello


def _address(peer: Any) -> str:
    """The peer's address as people read it: 127.0.0.1, not ::ffff:127.0.0.1 (the dual-stack listener's view)."""
    text = str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)
    return text[7:] if text.startswith("::ffff:") and "." in text else text


class Door:
    """Listen on a port; hand each connection's first line to `take` (Door.serve); name the strangers."""

    def __init__(self, port: int, backlog: int = 128) -> None:
        self.port = port
        self.backlog = backlog
        self.listener: socket.socket | None = None
        self.pending: dict[socket.socket, Pending] = {}
        self.strangers: list[str] = []
        self.more_strangers = 0
        self.last_seen = 0.0  # when a connection came or said hello
        self.bind_error: str | None = None  # EADDRINUSE, EACCES, ...
        self.holders: tuple[PortHolder, ...] = ()  # who listens on the port already

    def listen(self) -> bool:
        """Listen on the port, IPv6 and IPv4 alike where the host has IPv6 (as TCPStore does), else IPv4; when it
        cannot, why (`bind_error`) and who holds it."""
        error: OSError | None = None
        for family, address in ((socket.AF_INET6, "::"), (socket.AF_INET, "")):
            try:
                sock = socket.socket(family, socket.SOCK_STREAM)
            except OSError as exc:  # no IPv6 on this host
                error = exc
                continue
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                sock.bind((address, self.port))
                sock.listen(self.backlog)
            except OSError as exc:
                sock.close()
                error = exc
                if family == socket.AF_INET6 and exc.errno in (97, 99):  # EAFNOSUPPORT, EADDRNOTAVAIL: no IPv6
                    continue
                break
            self.listener = sock
            return True
        assert error is not None
        self.bind_error = errno_name(error)
        self.holders = port_holders(self.port)
        return False

    def serve(self, done: Callable[[], bool], deadline: float, take: Callable[[Pending, dict[str, Any]], None]) -> None:
        """Accept and read every connection at once until `done()` or the deadline; each first line to `take`."""
        assert self.listener is not None
        self.listener.setblocking(False)
        with selectors.DefaultSelector() as selector:
            selector.register(self.listener, selectors.EVENT_READ)
            for sock in self.pending:
                selector.register(sock, selectors.EVENT_READ)
            while not done():
                now = time.monotonic()
                if now >= deadline:
                    break
                soonest = min([deadline, *(p.until for p in self.pending.values())])
                for key, _ in selector.select(max(0.0, min(0.5, soonest - now))):
                    if key.fileobj is self.listener:
                        self._accept(selector)
                    elif key.fileobj in self.pending:
                        self._readable(selector, self.pending[key.fileobj], take)
                now = time.monotonic()
                for pending in [p for p in self.pending.values() if p.until <= now]:
                    self._drop(selector, pending, f"said no hello within {HELLO_WAIT_S:g} s")

    def _accept(self, selector: selectors.BaseSelector) -> None:
        assert self.listener is not None
        for _ in range(MAX_PENDING):
            try:
                sock, peer = self.listener.accept()
            except OSError:  # BlockingIOError: nothing more waits
                return
            self.last_seen = time.monotonic()
            sock.setblocking(False)
            if len(self.pending) >= MAX_PENDING:
                oldest = min(self.pending.values(), key=lambda p: p.until)
                self._drop(selector, oldest, f"was closed: more than {MAX_PENDING} connections waited to say hello")
            address = _address(peer)
            pending = Pending(Channel(sock, MAX_HELLO), f"{address}:{peer[1]}", address, self.last_seen + HELLO_WAIT_S)
            self.pending[sock] = pending
            selector.register(sock, selectors.EVENT_READ)

    def _readable(
        self, selector: selectors.BaseSelector, pending: Pending, take: Callable[[Pending, dict[str, Any]], None]
    ) -> None:
        channel = pending.channel
        channel.feed()
        message = channel.pop()
        if message is None:
            if channel.overflow:
                self._drop(selector, pending, f"sent over {MAX_HELLO >> 10} KiB without ending its hello")
            elif channel.closed:
                said = channel.said()
                self._drop(selector, pending, f"sent {said}" if said else "sent nothing")
            return
        self._forget(selector, pending)
        self.last_seen = time.monotonic()
        take(pending, message)

    def _forget(self, selector: selectors.BaseSelector | None, pending: Pending) -> None:
        self.pending.pop(pending.channel.sock, None)
        if selector is not None:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(pending.channel.sock)

    def _drop(self, selector: selectors.BaseSelector | None, pending: Pending, what: str) -> None:
        self._forget(selector, pending)
        pending.channel.close()
        self.stranger(f"{pending.peer} {what}")

    def drop_silent(self, why: str) -> None:
        """Close every connection that has not said hello yet."""
        for pending in list(self.pending.values()):
            self._drop(None, pending, why)

    def stranger(self, text: str) -> None:
        if len(self.strangers) < MAX_STRANGERS:
            self.strangers.append(text)
        else:
            self.more_strangers += 1

    def named_strangers(self) -> tuple[str, ...]:
        """The strangers named one by one, then how many more came."""
        return (*self.strangers, *([f"{self.more_strangers} more"] if self.more_strangers else []))

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()
            self.listener = None
