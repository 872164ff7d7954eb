"""Another node's side of the roll call: reach node 0 until the join deadline, say hello, take its reply; while the
ranks run, hear an abort; then send this node's outcome and wait for node 0's verdict on the whole job."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from xladoctor.collective.messages.outcome import Abort, Outcome, StopCause, Verdict, from_node_0
from xladoctor.collective.messages.roll import Hello, Reply
from xladoctor.collective.messages.shapes import REPLY, problem
from xladoctor.collective.observed import Roll
from xladoctor.collective.rollcall.channel import MAX_MESSAGE, Channel, foreign
from xladoctor.collective.rollcall.watch import Watch
from xladoctor.probes.network import errno_name, resolve
from xladoctor.sanitize import clip

_RETRY_S = 0.5


class Member:
    """Another node: reach the host until the join deadline, say hello, wait for the verdict."""

    def __init__(self, host: str, port: int, own: Hello, addresses: Sequence[str] = ()) -> None:
        self.address = host
        self.port = port
        self.addresses = tuple(addresses)  # resolved already (preflight): no lookup, which could hang, per attempt
        self.own = own
        self.conn: Channel | None = None
        self.watch: Watch[Abort | Verdict] | None = None
        self.waited_s = 0.0
        self.attempts = 0
        self.connect_error: str | None = None  # the last error while reaching the host
        self.stranger: str | None = None  # something answered on the port that does not speak the roll call
        self.no_answer: str | None = None  # "closed" (EOF before any byte) or "timeout" (no byte before the deadline)
        self.malformed: str | None = None  # node 0's reply did not have the reply's shape (why)
        self.reply: Reply | None = None

    @property
    def go(self) -> bool:
        return bool(self.reply and self.reply.go)

    def said(self) -> Mapping[str, Any]:
        """The hello as it goes on the wire."""
        return self.own.to_json()

    def _connect(self, join_deadline: float) -> socket.socket | None:
        timeout = min(2.0, max(0.1, join_deadline - time.monotonic()))
        addresses = self.addresses
        if not addresses:
            found = resolve(self.address, timeout)
            if found.error or not found.addresses:
                self.connect_error = f"cannot resolve {self.address}: {found.error or 'no address'}"
                return None
            addresses = found.addresses
        for address in addresses:
            try:
                return socket.create_connection((address, self.port), timeout=timeout)
            except OSError as exc:
                self.connect_error = errno_name(exc)
        return None

    def join(self, join_deadline: float, deadline: float) -> None:
        started = time.monotonic()
        while time.monotonic() < join_deadline:
            self.attempts += 1
            sock = self._connect(join_deadline)
            if sock is None:
                time.sleep(min(_RETRY_S, max(0.0, join_deadline - time.monotonic())))
                continue
            conn = Channel(sock)
            try:
                conn.send(self.said())
            except OSError as exc:
                self.connect_error = errno_name(exc)
                conn.close()
                continue
            reply = conn.read(deadline)
            self.waited_s = round(time.monotonic() - started, 3)
            self._answered(conn, reply)
            return
        self.waited_s = round(time.monotonic() - started, 3)

    def _answered(self, conn: Channel, reply: dict[str, Any] | None) -> None:
        """What came back: node 0's reply (kept, with the connection), or why there is none."""
        if reply is None:
            said = conn.said()
            if conn.overflow:
                self.stranger = f"over {MAX_MESSAGE >> 20} MiB without a line end"
            elif said:
                self.stranger = said
            else:
                self.no_answer = "closed" if conn.closed else "timeout"
        elif (shown := foreign(reply)) is not None:
            self.stranger = clip(shown, 200)
        else:
            self.malformed = problem(reply, REPLY)
            if self.malformed is None:
                self.reply = Reply.parse(reply)
                self.conn = conn
                return
        conn.close()

    def start_watch(self, cancel: threading.Event) -> None:
        if self.conn is None:
            return

        def cause(unit: int, message: Abort | Verdict) -> StopCause | None:
            return StopCause(unit, message.kind, message.host) if isinstance(message, Abort) else None

        self.watch = Watch({0: self.conn}, cancel, lambda _, line: from_node_0(line), cause)

    def abort(self, why: Abort) -> None:
        """This node's ranks failed in a way that ends the job, and its outcome must wait for a later phase: node 0
        hears it now and stops its own launch (it still waits for the outcome)."""
        if self.conn is not None:
            with contextlib.suppress(OSError):  # node 0 already gone is no matter
                self.conn.send(why.to_json())

    def report(self, outcome: Outcome) -> None:
        """Send this node's outcome, once nothing more is watched for."""
        if self.watch is not None:
            self.watch.finish()
        if self.conn is not None:
            try:
                self.conn.send(outcome.to_json())
            except OSError:
                self.close()

    def verdict(self, deadline: float) -> Verdict | None:
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
                found = from_node_0(answer)
                return found if isinstance(found, Verdict) else None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def roll(self) -> Roll:
        """The roll call as this member saw it."""
        return Roll(
            "member",
            self.port,
            self.waited_s,
            self.reply,
            attempts=self.attempts,
            connect_error=self.connect_error,
            stranger=self.stranger,
            no_answer=self.no_answer,
            malformed=self.malformed,
        )
