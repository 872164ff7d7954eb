"""The roll call: before torchrun starts, every node (or rank) says hello to node 0 over TCP on the rendezvous port.

torchrun's static rendezvous only says "Timed out after 600 seconds waiting for clients. 1/2 clients joined." (the
TCPStore server, torch v2.9.0) and a node whose master never answers only "The client socket has timed out after
600000ms while trying to connect to (HOST, PORT)". The roll call names who is missing, from which host the others
waited and for how long, catches nodes that disagree about the job (node count, duplicate ranks), and tells every
node the backends to test. Its connections stay open while torchrun runs, so each node can send node 0 how its own
launch ended (the outcome) even when the process group never formed.

Node 0 listens on the port before torchrun does and closes the listener before starting it; torchrun's TCPStore
binds with SO_REUSEADDR (libuv and the legacy backend both rebind while our accepted connections are open: tried on
torch 2.9.0). A line of JSON per message, each bounded in size and nesting, its shape checked where it arrives
(messages.py); node 0 reads every connection at once, each with its own buffer and deadline, so no peer (a port
scanner, a flood of connections, a node that connects and says nothing) can hold it past its deadline.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import selectors
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xladoctor.collective.messages import ABORT, HELLO, REPLY, from_node_0_problem, outcome_problem, problem
from xladoctor.probes.network import PortHolder, errno_name, port_holders, resolve
from xladoctor.sanitize import clip

PROTOCOL = "xladoctor-collective/1"
MAX_MESSAGE = 16 << 20  # an outcome may carry a snapshot (~60-200 KB); anything larger is not ours
MAX_HELLO = 256 << 10  # a hello is ~2 KB (its preflight lists the host's interfaces)
MAX_DEPTH = 32  # an outcome nests 11 levels deep (its snapshot 7); deeper is not ours
HELLO_WAIT_S = 5.0  # how long one connection may take to say hello, while node 0 reads the others
MAX_PENDING = 64  # connections that have not said hello yet, at once; the oldest goes when another comes
LATE_S = 0.5  # after the roll call, how long node 0 still answers latecomers (duplicates, too late) at most
LATE_IDLE_S = 0.2  # ... and it stops sooner once nothing came for this long
PREVIEW_BYTES = 4096  # what a stranger's line is read of to name it: redacted whole, then cut (sanitize.clip)
MAX_STRANGERS = 16  # connections without a proper hello that are named one by one (the rest are counted)
_RETRY_S = 0.5
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


@dataclass
class Roll:
    """How the roll call went, seen from this process."""

    role: str  # host | member
    port: int
    waited_s: float = 0.0
    bind_error: str | None = None  # host: EADDRINUSE, EACCES, ...
    holders: tuple[PortHolder, ...] = ()  # host: who listens on the port already
    connect_error: str | None = None  # member: the last error while reaching the host
    attempts: int = 0
    stranger: str | None = None  # something answered on the port that does not speak the roll call
    no_answer: str | None = None  # member: "closed" (EOF before any byte) or "timeout" (no byte before the deadline)
    malformed: str | None = None  # member: node 0's reply did not have the reply's shape (why)
    reply: dict[str, Any] | None = None  # the verdict the host sent (members) or sent out (host)
    members: dict[int, dict[str, Any]] = field(default_factory=dict)  # host: unit -> hello
    strangers: list[str] = field(default_factory=list)  # host: connections that sent no proper hello

    @property
    def go(self) -> bool:
        return bool(self.reply and self.reply.get("go"))


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
        return {"_garbage": f"JSON nested deeper than {MAX_DEPTH} levels: {clip(shown, 60)}"}
    try:
        value = json.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return {"_garbage": shown}
    return value if isinstance(value, dict) else {"_garbage": shown}


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


Check = Callable[[int, dict[str, Any]], dict[str, Any]]


class Watch:
    """While the ranks run and until the outcomes are in: read the first message each peer sends (an outcome, an
    abort) in a thread, all connections at once, each message through `check` (its shape); stop this node's launch
    (`cancel`) as soon as a peer reports a failure that ends the job, instead of waiting for the timeout."""

    def __init__(
        self,
        channels: Mapping[int, Channel],
        cancel: threading.Event,
        fatal: Callable[[dict[str, Any]], bool],
        check: Check,
        notice: Callable[[dict[str, Any]], bool] = lambda _: False,
    ):
        self.channels = channels
        self.cancel = cancel
        self.fatal = fatal
        self.check = check
        self.notice = notice  # a message sent ahead of the one awaited (a member's abort): judged, then read past
        self.received: dict[int, dict[str, Any]] = {}
        self.stop = threading.Event()
        self.done = threading.Event()  # every channel sent its message or closed
        self.cause: dict[str, Any] | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _take(self, unit: int) -> bool:
        """Whether this channel is done: its message came (and is kept), or it closed."""
        channel = self.channels[unit]
        while True:
            message = channel.pop()
            if message is None:
                return channel.closed
            message = self.check(unit, message)
            if self.cause is None and self.fatal(message):
                self.cause = {"unit": unit, "type": message.get("type"), "host": message.get("host")}
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

    def finish(self) -> dict[int, dict[str, Any]]:
        self.stop.set()
        self.thread.join()
        return self.received


@dataclass
class _Pending:
    """An accepted connection that has not said hello yet."""

    channel: Channel
    peer: str  # "ADDRESS:PORT"
    address: str
    until: float  # its deadline for the hello


def _address(peer: Any) -> str:
    """The peer's address as people read it: 127.0.0.1, not ::ffff:127.0.0.1 (the dual-stack listener's view)."""
    text = str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)
    return text[7:] if text.startswith("::ffff:") and "." in text else text


class Host:
    """Node 0's side: listen, take hellos until all are in or the join deadline, answer, then collect outcomes."""

    def __init__(self, port: int, own: dict[str, Any], units: int, assign: bool) -> None:
        self.roll = Roll("host", port)
        self.own = own
        self.units = units
        self.assign = assign  # give ranks in order of arrival (no --node-rank: --rdzv-endpoint)
        self.conns: dict[int, Channel] = {}
        self.listener: socket.socket | None = None
        self.duplicates: list[dict[str, Any]] = []
        self.late: list[dict[str, Any]] = []  # came for a missing unit after node 0 stopped waiting
        self.watch: Watch | None = None
        self.pending: dict[socket.socket, _Pending] = {}
        self._more_strangers = 0
        self._stopped_at = 0.0
        self._last_seen = 0.0

    def listen(self) -> bool:
        """Listen on the port, IPv6 and IPv4 alike where the host has IPv6 (as TCPStore does), else IPv4."""
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
                sock.bind((address, self.roll.port))
                sock.listen(max(128, self.units))
            except OSError as exc:
                sock.close()
                error = exc
                if family == socket.AF_INET6 and exc.errno in (97, 99):  # EAFNOSUPPORT, EADDRNOTAVAIL: no IPv6
                    continue
                break
            self.listener = sock
            return True
        assert error is not None
        self.roll.bind_error = errno_name(error)
        self.roll.holders = port_holders(self.roll.port)
        return False

    def gather(self, join_deadline: float) -> None:
        """Accept hellos until every unit said one or the deadline passed."""
        started = time.monotonic()
        own_unit = 0 if self.assign else int(self.own["unit"])
        self.roll.members[own_unit] = dict(self.own, unit=own_unit, peer="(itself)")
        self._serve(lambda: len(self.roll.members) >= self.units, join_deadline, late=False)
        self._stopped_at = time.monotonic()
        self.roll.waited_s = round(self._stopped_at - started, 3)

    def _late(self) -> None:
        """Connections after the roll call: a second node with a rank already taken is a conflict (two nodes
        believe they are node 1) and a node whose unit is still missing came too late; each hears so instead of
        waiting for an answer that never comes. Bounded: LATE_S at most, whatever comes."""
        self._last_seen = time.monotonic()
        self._serve(
            lambda: not self.pending and time.monotonic() - self._last_seen >= LATE_IDLE_S,
            time.monotonic() + LATE_S,
            late=True,
        )
        self._drop_silent()

    def _drop_silent(self) -> None:
        for pending in list(self.pending.values()):
            self._drop(None, pending, "said no hello before node 0 answered")

    def _serve(self, done: Callable[[], bool], deadline: float, late: bool) -> None:
        """Accept and read every connection at once until `done()` or the deadline."""
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
                        self._readable(selector, self.pending[key.fileobj], late)
                now = time.monotonic()
                for pending in [p for p in self.pending.values() if p.until <= now]:
                    self._drop(selector, pending, f"said no hello within {HELLO_WAIT_S:g} s")

    def _accept(self, selector: selectors.BaseSelector) -> None:
        for _ in range(MAX_PENDING):
            try:
                sock, peer = self.listener.accept()  # type: ignore[union-attr]
            except OSError:  # BlockingIOError: nothing more waits
                return
            self._last_seen = time.monotonic()
            sock.setblocking(False)
            if len(self.pending) >= MAX_PENDING:
                oldest = min(self.pending.values(), key=lambda p: p.until)
                self._drop(selector, oldest, f"was closed: more than {MAX_PENDING} connections waited to say hello")
            address = _address(peer)
            pending = _Pending(
                Channel(sock, MAX_HELLO), f"{address}:{peer[1]}", address, self._last_seen + HELLO_WAIT_S
            )
            self.pending[sock] = pending
            selector.register(sock, selectors.EVENT_READ)

    def _readable(self, selector: selectors.BaseSelector, pending: _Pending, late: bool) -> None:
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
        self._last_seen = time.monotonic()
        self._hello(pending, message, late)

    def _forget(self, selector: selectors.BaseSelector | None, pending: _Pending) -> None:
        self.pending.pop(pending.channel.sock, None)
        if selector is not None:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(pending.channel.sock)

    def _drop(self, selector: selectors.BaseSelector | None, pending: _Pending, what: str) -> None:
        self._forget(selector, pending)
        pending.channel.close()
        self._stranger(f"{pending.peer} {what}")

    def _stranger(self, text: str) -> None:
        if len(self.roll.strangers) < MAX_STRANGERS:
            self.roll.strangers.append(text)
        else:
            self._more_strangers += 1

    def _refuse(self, channel: Channel, reason: str, text: str) -> None:
        with contextlib.suppress(OSError):
            channel.sock.settimeout(1.0)
            channel.send({"proto": PROTOCOL, "go": False, "refused": text, "reason": reason})
        channel.close()

    def _hello(self, pending: _Pending, hello: dict[str, Any], late: bool) -> None:
        channel = pending.channel
        if "_garbage" in hello or hello.get("proto") != PROTOCOL:
            self._stranger(f"{pending.peer} sent {clip(str(hello.get('_garbage', hello)), 80)}")
            channel.close()
            return
        why = problem(hello, HELLO)
        if why is not None:
            host = hello.get("host")
            named = f"{pending.peer} ({clip(host, 64)})" if isinstance(host, str) else pending.peer
            self._stranger(f"{named} sent a hello node 0 cannot read: {why}")
            self._refuse(channel, "malformed", f"node 0 cannot read this hello: {why}")
            return
        hello = {**hello, "peer": pending.address}
        members = self.roll.members
        if self.assign:
            unit = next((u for u in range(self.units) if u not in members), None)
        else:
            unit = hello.get("unit")
        wanted = unit is not None and 0 <= unit < self.units and unit not in members
        if late and wanted:
            after = round(time.monotonic() - self._stopped_at, 3)
            self.late.append({"unit": unit, "host": hello["host"], "peer": pending.address, "after_s": after})
            self._refuse(channel, "late", f"too late: node 0 stopped waiting after {self.roll.waited_s} s")
            return
        if not wanted:
            self.duplicates.append(hello)
            taken = unit is not None and 0 <= unit < self.units
            self._refuse(
                channel,
                "taken",
                f"unit {unit} is taken" if taken else f"unit {unit} is out of range (the job has {self.units})",
            )
            return
        hello["unit"] = unit
        members[unit] = hello  # type: ignore[index]
        with contextlib.suppress(OSError):
            channel.sock.settimeout(5.0)  # replies and verdicts are written with sendall
        self.conns[unit] = channel  # type: ignore[index]

    def answer(
        self,
        backends: Sequence[str],
        removed: Mapping[str, Any] | None = None,
        jax: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Tell every member the verdict; the listener closes so that torchrun can take the port."""
        if self.listener is not None:
            self._late()
        missing = [u for u in range(self.units) if u not in self.roll.members]
        conflicts = conflicts_of(self.roll.members, self.duplicates, self.units)
        strangers = list(self.roll.strangers) + ([f"{self._more_strangers} more"] if self._more_strangers else [])
        reply = {
            "proto": PROTOCOL,
            "go": not missing and not conflicts["fatal"],
            "missing": missing,
            "conflicts": conflicts,
            # who is who, not what each said (a member needs the names; node 0 keeps the hellos)
            "members": {str(u): _member_view(m) for u, m in sorted(self.roll.members.items())},
            "waited_s": self.roll.waited_s,
            "waited_on": self.own.get("host"),
            "backends": list(backends),
            "removed": dict(removed or {}),
            "jax": dict(jax) if jax is not None else None,
            "run": uuid.uuid4().hex[:12],
            "strangers": strangers,
            "late": list(self.late),
        }
        for unit, conn in list(self.conns.items()):
            try:
                conn.send({**reply, "you": unit})
            except OSError:
                self.conns.pop(unit).close()
        self.roll.reply = reply
        self.close_listener()
        return reply

    def close_listener(self) -> None:
        self._drop_silent()
        if self.listener is not None:
            self.listener.close()
            self.listener = None

    def _checked(self, unit: int, message: dict[str, Any]) -> dict[str, Any]:
        """A member's outcome (or its early abort) as sent, or what stands for its outcome when it does not have an
        outcome's shape."""
        why = problem(message, ABORT) if message.get("type") == "abort" else outcome_problem(message)
        if why is None:
            return message
        host = (self.roll.members.get(unit) or {}).get("host")
        return {"type": "outcome", "unit": unit, "host": host, "malformed": why}

    def start_watch(self, cancel: threading.Event, fatal: Callable[[dict[str, Any]], bool]) -> None:
        """Read every member's outcome while this node's ranks run. A member whose ranks failed in a way that ends
        the job and that still has a phase to run (JAX) says so first with an abort: this node stops its launch
        then, instead of at its deadline, and still waits for that member's outcome."""
        self.watch = Watch(self.conns, cancel, lambda m: _is_abort(m) or fatal(m), self._checked, notice=_is_abort)

    def abort(self, why: Mapping[str, Any]) -> None:
        """This node failed in a way that ends the job: the members stop their launch instead of waiting."""
        for conn in self.conns.values():
            _send_abort(conn, why)

    def outcomes(self, deadline: float) -> dict[int, dict[str, Any] | None]:
        """Each member's outcome: those that came while the ranks ran, then the rest until the deadline, all
        connections read at once."""
        if self.watch is None:
            self.start_watch(threading.Event(), lambda _: False)
        assert self.watch is not None
        self.watch.done.wait(max(0.0, deadline - time.monotonic()))
        found: dict[int, dict[str, Any] | None] = dict(self.watch.finish())
        for unit in self.conns:
            found.setdefault(unit, None)
        return found

    def tell(self, verdict: Mapping[str, Any]) -> None:
        """The job's verdict, to every member still connected: a node whose own part passed must not start the
        job (the gate) when another node failed, or it would wait for that node at the first collective."""
        for conn in self.conns.values():
            with contextlib.suppress(OSError):
                conn.send({"proto": PROTOCOL, "type": "verdict", **verdict})
            conn.close()
        self.conns.clear()

    def close(self) -> None:
        self.close_listener()
        for conn in self.conns.values():
            conn.close()
        self.conns.clear()


def _member_view(hello: Mapping[str, Any]) -> dict[str, Any]:
    return {k: hello.get(k) for k in ("unit", "host", "peer", "mode")}


def conflicts_of(
    members: Mapping[int, Mapping[str, Any]], refused: Sequence[Mapping[str, Any]], units: int
) -> dict[str, Any]:
    """What the members disagree about: fatal (the job cannot form) and soft (it forms, but not as meant)."""
    fatal: list[str] = []
    soft: list[str] = []
    for hello in refused:
        noun = "node" if hello.get("mode") == "node" else "rank"
        if hello.get("unit") is None:
            fatal.append(f"{hello.get('host')} ({hello.get('peer')}) came too, but the job has {units} {noun}s")
        else:
            fatal.append(f"{hello.get('host')} ({hello.get('peer')}) also says it is {noun} {hello.get('unit')}")
    for key, label in (("units", "the job's size"), ("world_size", "the world size")):
        values = {u: m.get(key) for u, m in members.items() if m.get(key) is not None}
        if len(set(values.values())) > 1:
            fatal.append(f"{label} differs: " + ", ".join(f"{_who(members[u])} says {v}" for u, v in values.items()))
    versions = {u: m.get("xladoctor") for u, m in members.items() if m.get("xladoctor") is not None}
    if len(set(versions.values())) > 1:  # the roll call's messages may differ between releases
        soft.append("xladoctor differs: " + ", ".join(f"{_who(members[u])} runs {v}" for u, v in versions.items()))
    nproc = {u: m.get("nproc_per_node") for u, m in members.items() if m.get("nproc_per_node") is not None}
    if len(set(nproc.values())) > 1:
        soft.append(
            "processes per node differ: " + ", ".join(f"{_who(members[u])} starts {v}" for u, v in nproc.items())
        )
    return {"fatal": fatal, "soft": soft}


def _who(member: Mapping[str, Any]) -> str:
    return f"{'node' if member.get('mode') != 'rank' else 'rank'} {member.get('unit')} ({member.get('host')})"


class Member:
    """Another node's side: reach the host until the join deadline, say hello, wait for the verdict."""

    def __init__(self, host: str, port: int, own: dict[str, Any], addresses: Sequence[str] = ()) -> None:
        self.roll = Roll("member", port)
        self.address = host
        self.addresses = tuple(addresses)  # resolved already (preflight): no lookup, which could hang, per attempt
        self.own = own
        self.conn: Channel | None = None
        self.watch: Watch | None = None

    def _connect(self, join_deadline: float) -> socket.socket | None:
        timeout = min(2.0, max(0.1, join_deadline - time.monotonic()))
        addresses = self.addresses
        if not addresses:
            found = resolve(self.address, timeout)
            if found.error or not found.addresses:
                self.roll.connect_error = f"cannot resolve {self.address}: {found.error or 'no address'}"
                return None
            addresses = found.addresses
        for address in addresses:
            try:
                return socket.create_connection((address, self.roll.port), timeout=timeout)
            except OSError as exc:
                self.roll.connect_error = errno_name(exc)
        return None

    def join(self, join_deadline: float, deadline: float) -> None:
        started = time.monotonic()
        while time.monotonic() < join_deadline:
            self.roll.attempts += 1
            sock = self._connect(join_deadline)
            if sock is None:
                time.sleep(min(_RETRY_S, max(0.0, join_deadline - time.monotonic())))
                continue
            conn = Channel(sock)
            try:
                conn.send(self.own)
            except OSError as exc:
                self.roll.connect_error = errno_name(exc)
                conn.close()
                continue
            reply = conn.read(deadline)
            self.roll.waited_s = round(time.monotonic() - started, 3)
            self._answered(conn, reply)
            return
        self.roll.waited_s = round(time.monotonic() - started, 3)

    def _answered(self, conn: Channel, reply: dict[str, Any] | None) -> None:
        """What came back: node 0's reply (kept, with the connection), or why there is none."""
        if reply is None:
            said = conn.said()
            if conn.overflow:
                self.roll.stranger = f"over {MAX_MESSAGE >> 20} MiB without a line end"
            elif said:
                self.roll.stranger = said
            else:
                self.roll.no_answer = "closed" if conn.closed else "timeout"
        elif "_garbage" in reply or reply.get("proto") != PROTOCOL:
            self.roll.stranger = clip(str(reply.get("_garbage", reply)), 200)
        else:
            self.roll.malformed = problem(reply, REPLY)
            if self.roll.malformed is None:
                self.roll.reply = reply
                self.conn = conn
                return
        conn.close()

    def _checked(self, unit: int, message: dict[str, Any]) -> dict[str, Any]:
        why = from_node_0_problem(message)
        return message if why is None else {"type": "malformed", "malformed": why}

    def start_watch(self, cancel: threading.Event) -> None:
        if self.conn is not None:
            self.watch = Watch({0: self.conn}, cancel, _is_abort, self._checked)

    def abort(self, why: Mapping[str, Any]) -> None:
        """This node's ranks failed in a way that ends the job, and its outcome must wait for a later phase: node 0
        hears it now and stops its own launch (it still waits for the outcome)."""
        if self.conn is not None:
            _send_abort(self.conn, why)

    def report(self, outcome: Mapping[str, Any]) -> dict[str, Any] | None:
        """Send this node's outcome; what node 0 sent meanwhile (an abort), if anything."""
        received = self.watch.finish().get(0) if self.watch else None
        if self.conn is not None:
            try:
                self.conn.send(outcome)
            except OSError:
                self.close()
        return received

    def verdict(self, deadline: float) -> dict[str, Any] | None:
        """Node 0's verdict on the whole job, once it has every outcome (None: it never came)."""
        if self.conn is None:
            return None
        while True:
            answer = self.conn.read(deadline)
            if answer is None:
                self.close()
                return None
            if answer.get("type") == "verdict":
                self.close()
                why = from_node_0_problem(answer)
                return answer if why is None else {"type": "verdict", "malformed": why}

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def _is_abort(message: Mapping[str, Any]) -> bool:
    return message.get("type") == "abort"


def _send_abort(channel: Channel, why: Mapping[str, Any]) -> None:
    """Tell the other side this node failed in a way that ends the job; a peer already gone is no matter."""
    with contextlib.suppress(OSError):
        channel.send({"proto": PROTOCOL, "type": "abort", **why})


def hello_message(unit: int | None, units: int, mode: str, host: str, **extra: Any) -> dict[str, Any]:
    return {"proto": PROTOCOL, "unit": unit, "units": units, "mode": mode, "host": host, "pid": os.getpid(), **extra}
