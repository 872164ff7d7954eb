"""The roll call: before torchrun starts, every node (or rank) says hello to node 0 over TCP on the rendezvous port.

torchrun's static rendezvous only says "Timed out after 600 seconds waiting for clients. 1/2 clients joined." (the
TCPStore server, torch v2.9.0) and a node whose master never answers only "The client socket has timed out after
600000ms while trying to connect to (HOST, PORT)". The roll call names who is missing, from which host the others
waited and for how long, catches nodes that disagree about the job (node count, duplicate ranks), and tells every
node the backends to test. Its connections stay open while torchrun runs, so each node can send node 0 how its own
launch ended (the outcome) even when the process group never formed.

Node 0 listens on the port before torchrun does and closes the listener before starting it; torchrun's TCPStore
binds with SO_REUSEADDR (libuv and the legacy backend both rebind while our accepted connections are open: tried on
torch 2.9.0). A line of JSON per message, each bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xladoctor.probes.network import PortHolder, errno_name, port_holders

PROTOCOL = "xladoctor-collective/1"
MAX_LINE = 16 << 20  # an outcome may carry a snapshot (~60-200 KB); anything larger is not ours
_RETRY_S = 0.5


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
    reply: dict[str, Any] | None = None  # the verdict the host sent (members) or sent out (host)
    members: dict[int, dict[str, Any]] = field(default_factory=dict)  # host: unit -> hello
    strangers: list[str] = field(default_factory=list)  # host: connections that sent no hello

    @property
    def go(self) -> bool:
        return bool(self.reply and self.reply.get("go"))


class Channel:
    """A connection that carries one JSON object per line; bytes after a line wait in the buffer for the next read."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""
        self.closed = False

    def send(self, message: Mapping[str, Any]) -> None:
        self.sock.sendall((json.dumps(message, default=str) + "\n").encode())

    def _line(self) -> dict[str, Any] | None:
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            value = json.loads(line.decode("utf-8", errors="replace"))
        except ValueError:
            return {"_garbage": line[:200].decode("utf-8", errors="replace").strip()}
        return value if isinstance(value, dict) else {"_garbage": str(value)[:200]}

    def read(self, deadline: float) -> dict[str, Any] | None:
        """The next line before the deadline; None on a timeout (the bytes read so far stay), EOF or a line too
        long (then `closed`)."""
        while b"\n" not in self.buffer:
            if self.closed or time.monotonic() >= deadline or len(self.buffer) > MAX_LINE:
                self.closed = self.closed or len(self.buffer) > MAX_LINE
                return None
            self.sock.settimeout(max(0.01, min(1.0, deadline - time.monotonic())))
            try:
                data = self.sock.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError:
                data = b""
            if not data:
                self.closed = True
                return None
            self.buffer += data
        return self._line()

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError):
            self.sock.close()


class Watch:
    """While the ranks run: read what the peers send (an outcome, an abort) in a thread, and stop this node's launch
    (`cancel`) as soon as a peer reports a failure that ends the job, instead of waiting for the timeout."""

    def __init__(
        self, channels: Mapping[int, Channel], cancel: threading.Event, fatal: Callable[[dict[str, Any]], bool]
    ):
        self.channels = channels
        self.cancel = cancel
        self.fatal = fatal
        self.received: dict[int, dict[str, Any]] = {}
        self.stop = threading.Event()
        self.cause: dict[str, Any] | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            waiting = {c.sock: u for u, c in self.channels.items() if u not in self.received and not c.closed}
            if not waiting:
                self.stop.wait(0.1)
                continue
            try:
                ready, _, _ = select.select(list(waiting), [], [], 0.1)
            except (OSError, ValueError):
                self.stop.wait(0.1)
                continue
            for sock in ready:
                unit = waiting[sock]
                message = self.channels[unit].read(time.monotonic() + 0.05)
                if message is None:
                    continue
                self.received[unit] = message
                if self.cause is None and self.fatal(message):
                    self.cause = {"unit": unit, "type": message.get("type"), "host": message.get("host")}
                    self.cancel.set()

    def finish(self) -> dict[int, dict[str, Any]]:
        self.stop.set()
        self.thread.join()
        return self.received


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
        self.watch: Watch | None = None

    def listen(self) -> bool:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("", self.roll.port))
            sock.listen(max(16, self.units))
        except OSError as exc:
            sock.close()
            self.roll.bind_error = errno_name(exc)
            self.roll.holders = port_holders(self.roll.port)
            return False
        self.listener = sock
        return True

    def gather(self, join_deadline: float) -> None:
        """Accept hellos until every unit said one or the deadline passed."""
        started = time.monotonic()
        assert self.listener is not None
        own_unit = 0 if self.assign else int(self.own["unit"])
        self.roll.members[own_unit] = dict(self.own, unit=own_unit, peer="(itself)")
        while len(self.roll.members) < self.units and time.monotonic() < join_deadline:
            self.listener.settimeout(max(0.05, min(0.5, join_deadline - time.monotonic())))
            try:
                sock, peer = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            conn = Channel(sock)
            hello = conn.read(min(join_deadline, time.monotonic() + 5.0))
            if not hello or hello.get("proto") != PROTOCOL:
                said = (hello or {}).get("_garbage", hello) if hello else "nothing"
                self.roll.strangers.append(f"{peer[0]}:{peer[1]} sent {str(said)[:80]}")
                conn.close()
                continue
            hello = {**hello, "peer": peer[0]}
            unit = len(self.roll.members) if self.assign else hello.get("unit")
            if not isinstance(unit, int) or unit in self.roll.members or not 0 <= unit < self.units:
                self.duplicates.append(hello)
                with contextlib.suppress(OSError):
                    conn.send({"proto": PROTOCOL, "go": False, "refused": f"unit {unit} is taken or out of range"})
                conn.close()
                continue
            hello["unit"] = unit
            self.roll.members[unit] = hello
            self.conns[unit] = conn
        self.roll.waited_s = round(time.monotonic() - started, 3)

    def _late(self) -> None:
        """Connections that came after the roll was full: a second node with a rank already taken is a conflict
        (two nodes believe they are node 1), and it hears so instead of waiting for an answer that never comes."""
        assert self.listener is not None
        self.listener.settimeout(0.2)
        while True:
            try:
                sock, peer = self.listener.accept()
            except (TimeoutError, OSError):
                return
            conn = Channel(sock)
            hello = conn.read(time.monotonic() + 1.0)
            if hello and hello.get("proto") == PROTOCOL:
                self.duplicates.append({**hello, "peer": peer[0]})
                with contextlib.suppress(OSError):
                    conn.send({"proto": PROTOCOL, "go": False, "refused": f"unit {hello.get('unit')} is taken"})
            conn.close()

    def answer(self, backends: Sequence[str]) -> dict[str, Any]:
        """Tell every member the verdict; the listener closes so that torchrun can take the port."""
        if self.listener is not None:
            self._late()
        missing = [u for u in range(self.units) if u not in self.roll.members]
        conflicts = conflicts_of(self.roll.members, self.duplicates, self.units)
        reply = {
            "proto": PROTOCOL,
            "go": not missing and not conflicts["fatal"],
            "missing": missing,
            "conflicts": conflicts,
            "members": {str(u): m for u, m in sorted(self.roll.members.items())},
            "waited_s": self.roll.waited_s,
            "waited_on": self.own.get("host"),
            "backends": list(backends),
            "run": uuid.uuid4().hex[:12],
            "strangers": self.roll.strangers,
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
        if self.listener is not None:
            self.listener.close()
            self.listener = None

    def start_watch(self, cancel: threading.Event, fatal: Callable[[dict[str, Any]], bool]) -> None:
        self.watch = Watch(self.conns, cancel, fatal)

    def abort(self, why: Mapping[str, Any]) -> None:
        """This node failed in a way that ends the job: the members stop their launch instead of waiting."""
        for conn in self.conns.values():
            with contextlib.suppress(OSError):
                conn.send({"proto": PROTOCOL, "type": "abort", **why})

    def outcomes(self, deadline: float) -> dict[int, dict[str, Any] | None]:
        """Each member's outcome: those that came while the ranks ran, then the rest until the deadline."""
        found: dict[int, dict[str, Any] | None] = dict(self.watch.finish()) if self.watch else {}
        for unit, conn in sorted(self.conns.items()):
            if unit not in found:
                found[unit] = conn.read(deadline)
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


def conflicts_of(
    members: Mapping[int, Mapping[str, Any]], refused: Sequence[Mapping[str, Any]], units: int
) -> dict[str, Any]:
    """What the members disagree about: fatal (the job cannot form) and soft (it forms, but not as meant)."""
    fatal: list[str] = []
    soft: list[str] = []
    for hello in refused:
        fatal.append(
            f"{hello.get('host')} ({hello.get('peer')}) also says it is "
            f"{'node' if hello.get('mode') == 'node' else 'rank'} {hello.get('unit')}"
        )
    for key, label in (("units", "the job's size"), ("world_size", "the world size")):
        values = {u: m.get(key) for u, m in members.items() if m.get(key) is not None}
        if len(set(values.values())) > 1:
            fatal.append(f"{label} differs: " + ", ".join(f"{_who(members[u])} says {v}" for u, v in values.items()))
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

    def __init__(self, host: str, port: int, own: dict[str, Any]) -> None:
        self.roll = Roll("member", port)
        self.address = host
        self.own = own
        self.conn: Channel | None = None
        self.watch: Watch | None = None

    def join(self, join_deadline: float, deadline: float) -> None:
        started = time.monotonic()
        while time.monotonic() < join_deadline:
            self.roll.attempts += 1
            try:
                sock = socket.create_connection(
                    (self.address, self.roll.port), timeout=min(2.0, max(0.1, join_deadline - time.monotonic()))
                )
            except OSError as exc:
                self.roll.connect_error = (
                    f"cannot resolve {self.address}: {exc}" if isinstance(exc, socket.gaierror) else errno_name(exc)
                )
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
            if reply is None or reply.get("proto") != PROTOCOL:
                self.roll.stranger = str((reply or {}).get("_garbage", "no answer")) if reply else "no answer"
                conn.close()
                return
            self.roll.reply = reply
            self.conn = conn
            return
        self.roll.waited_s = round(time.monotonic() - started, 3)

    def start_watch(self, cancel: threading.Event) -> None:
        if self.conn is not None:
            self.watch = Watch({0: self.conn}, cancel, lambda message: message.get("type") == "abort")

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
            if answer is None or answer.get("type") == "verdict":
                self.close()
                return answer

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def hello_message(unit: int | None, units: int, mode: str, host: str, **extra: Any) -> dict[str, Any]:
    return {"proto": PROTOCOL, "unit": unit, "units": units, "mode": mode, "host": host, "pid": os.getpid(), **extra}
