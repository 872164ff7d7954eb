"""The roll call over real TCP sockets on 127.0.0.1, node 0 and the members in threads of this process."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from dataclasses import replace
from typing import Any

import pytest

from xladoctor.collective.merge import Launched, fatal_outcome
from xladoctor.collective.messages.outcome import Abort, Outcome, StopCause, Verdict
from xladoctor.collective.messages.roll import PROTOCOL, Conflicts, Hello, MemberName, PreflightView, Reply
from xladoctor.collective.observed import Roll
from xladoctor.collective.plan import PlanView
from xladoctor.collective.rollcall.channel import MAX_DEPTH, Channel, parse_line
from xladoctor.collective.rollcall.door import MAX_HELLO, MAX_PENDING
from xladoctor.collective.rollcall.host import LATE_S, Host
from xladoctor.collective.rollcall.member import Member


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def hello_message(unit: int | None, units: int, mode: str, host: str, **extra: Any) -> Hello:
    return Hello(unit, units, mode, host, **extra)


class RawMember(Member):
    """A member whose hello is a message as given (what node 0 must refuse), not a Hello."""

    def __init__(self, port: int, message: dict[str, Any]) -> None:
        super().__init__("127.0.0.1", port, Hello(None, 0, "", ""))
        self.message = message

    def said(self) -> dict[str, Any]:
        return self.message


def members_join(port: int, hellos: list[Hello | dict[str, Any]], deadline_s: float = 10) -> list[Member]:
    members = [Member("127.0.0.1", port, h) if isinstance(h, Hello) else RawMember(port, h) for h in hellos]
    threads = [
        threading.Thread(target=m.join, args=(time.monotonic() + deadline_s, time.monotonic() + deadline_s))
        for m in members
    ]
    for thread in threads:
        thread.start()
        time.sleep(0.05)  # arrival order
    return members, threads  # type: ignore[return-value]


def roll_call(
    host: Host,
    port: int,
    hellos: list[Hello | dict[str, Any]],
    gather_s: float = 5,
    backends: tuple[str, ...] = ("gloo",),
) -> tuple[Reply, list[Member]]:
    """The members join (in this order), node 0 gathers them for `gather_s` and answers: its reply, the members."""
    members, threads = members_join(port, hellos)
    host.gather(time.monotonic() + gather_s)
    reply = host.answer(list(backends))
    for thread in threads:
        thread.join(5)
    return reply, members


def test_ranks_are_given_in_order_of_arrival_with_an_rdzv_endpoint() -> None:
    port = free_port()
    host = Host(port, hello_message(None, 3, "node", "a"), 3, assign=True)
    assert host.listen()
    reply, members = roll_call(host, port, [hello_message(None, 3, "node", h) for h in ("b", "c")])
    assert reply.go is True and reply.missing == ()
    assert [m.reply.you for m in members if m.reply] == [1, 2]
    assert {u: m.host for u, m in host.members.items()} == {0: "a", 1: "b", 2: "c"}
    host.close()


def test_a_second_node_with_a_taken_rank_is_refused_and_the_job_does_not_go() -> None:
    port = free_port()
    host = Host(port, hello_message(0, 2, "node", "a"), 2, assign=False)
    assert host.listen()
    reply, members = roll_call(host, port, [hello_message(1, 2, "node", "b"), hello_message(1, 2, "node", "c")], 1.5)
    assert reply.go is False
    assert reply.conflicts.fatal == ("c (127.0.0.1) also says it is node 1",)
    assert members[1].reply == Reply(False, refused="unit 1 is taken", reason="taken")
    host.close()


def test_a_node_that_believes_in_another_job_size_stops_the_job() -> None:
    port = free_port()
    host = Host(port, hello_message(0, 2, "node", "a"), 2, assign=False)
    assert host.listen()
    reply, _ = roll_call(host, port, [hello_message(1, 3, "node", "b")])
    assert reply.go is False
    assert reply.conflicts.fatal == ("the job's size differs: node 0 (a) says 2, node 1 (b) says 3",)
    host.close()


def test_something_that_is_not_xladoctor_is_a_stranger_on_either_side() -> None:
    port = free_port()
    host = Host(port, hello_message(0, 2, "node", "a"), 2, assign=False)
    assert host.listen()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET / HTTP/1.0\r\n\r\n\n")
        host.gather(time.monotonic() + 1.0)
    assert host.door.strangers[0].endswith("sent GET / HTTP/1.0")
    host.close()
    # a member that reaches a port held by another program
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def answer() -> None:
        conn, _ = server.accept()
        conn.recv(1024)
        conn.sendall(b"HTTP/1.0 400 Bad Request\n")
        conn.close()

    threading.Thread(target=answer, daemon=True).start()
    member = Member("127.0.0.1", server.getsockname()[1], hello_message(1, 2, "node", "b"))
    member.join(time.monotonic() + 5, time.monotonic() + 5)
    assert member.stranger == "HTTP/1.0 400 Bad Request"
    server.close()


def test_a_port_in_use_is_a_bind_error_with_its_holder() -> None:
    holder = socket.socket()
    holder.bind(("", 0))
    holder.listen()
    port = holder.getsockname()[1]
    host = Host(port, hello_message(0, 2, "node", "a"), 2, assign=False)
    assert host.listen() is False
    assert host.door.bind_error == "EADDRINUSE"
    holder.close()


def test_a_channel_keeps_what_follows_a_line_for_the_next_read() -> None:
    left, right = socket.socketpair()
    channel = Channel(right)
    left.sendall(b'{"a": 1}\n{"b": ')
    assert channel.read(time.monotonic() + 1) == {"a": 1}
    assert channel.read(time.monotonic() + 0.2) is None and not channel.closed  # half a line: wait, keep it
    left.sendall(b"2}\n")
    assert channel.read(time.monotonic() + 1) == {"b": 2}
    left.close()
    assert channel.read(time.monotonic() + 1) is None and channel.closed


# --- what a peer may send: node 0 never crashes, never waits past its deadlines, and names who sent what -----------


def host_of(units: int = 2, assign: bool = False) -> tuple[Host, int]:
    port = free_port()
    host = Host(port, hello_message(None if assign else 0, units, "node", "a"), units, assign=assign)
    assert host.listen()
    return host, port


def send_raw(port: int, data: bytes, hold_s: float = 3.0) -> threading.Thread:
    """A peer that connects, sends `data` and keeps the connection open `hold_s` (reading what comes)."""

    def peer() -> None:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(data)
            sock.settimeout(hold_s)
            with contextlib.suppress(OSError):
                sock.recv(1 << 16)

    thread = threading.Thread(target=peer, daemon=True)
    thread.start()
    return thread


def test_a_connect_flood_cannot_hold_node_0_past_its_answer() -> None:
    host, port = host_of()
    host.gather(time.monotonic() + 0.2)  # node 1 never comes
    stop = time.monotonic() + 4

    def flood() -> None:
        while time.monotonic() < stop:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            time.sleep(0.02)

    threading.Thread(target=flood, daemon=True).start()
    time.sleep(0.05)
    started = time.monotonic()
    reply = host.answer(["gloo"])
    assert time.monotonic() - started < LATE_S + 0.3
    assert reply.missing == (1,) and reply.go is False
    assert reply.strangers and all(s.endswith("sent nothing") for s in reply.strangers[:-1])
    host.close()


def test_node_0_holds_a_bounded_number_of_silent_connections() -> None:
    host, port = host_of()
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(MAX_PENDING + 6)]
    host.gather(time.monotonic() + 1.0)
    assert len(host.door.pending) == MAX_PENDING
    closed = [s for s in host.door.strangers if s.endswith("connections waited to say hello")]
    assert len(closed) == 6
    host.close()
    for sock in socks:
        sock.close()


def test_a_silent_connection_does_not_stall_the_others() -> None:
    """Node 0 reads every connection at once: one that connects and says nothing costs the real node nothing."""
    host, port = host_of()
    silent = socket.create_connection(("127.0.0.1", port))
    members, threads = members_join(port, [hello_message(1, 2, "node", "b")])
    started = time.monotonic()
    host.gather(time.monotonic() + 20)
    assert time.monotonic() - started < 2.0
    reply = host.answer(["gloo"])
    for thread in threads:
        thread.join(5)
    assert reply.go is True and members[0].go is True
    assert [s.split(" ", 1)[1] for s in reply.strangers] == ["said no hello before node 0 answered"]
    silent.close()
    host.close()


def test_a_deeply_nested_hello_is_a_stranger_not_a_crash() -> None:
    host, port = host_of()
    send_raw(port, b"[" * 100000 + b"\n")
    time.sleep(0.2)
    reply, members = roll_call(host, port, [hello_message(1, 2, "node", "b")])
    assert reply.go is True
    assert reply.strangers[0].split(" ", 1)[1].startswith(f"sent JSON nested deeper than {MAX_DEPTH} levels: [[[")
    host.close()


def test_an_oversized_hello_is_cut_off() -> None:
    host, port = host_of()
    send_raw(port, b'{"proto": "' + b"x" * (MAX_HELLO + 10))
    host.gather(time.monotonic() + 0.6)
    assert host.door.strangers[0].split(" ", 1)[1] == f"sent over {MAX_HELLO >> 10} KiB without ending its hello"
    host.close()


def test_json_nesting_is_judged_before_parsing_and_brackets_in_strings_do_not_count() -> None:
    deep = b'{"a": ' + b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1) + b"}"
    assert parse_line(deep)["_garbage"].startswith(f"JSON nested deeper than {MAX_DEPTH} levels")
    fine = b'{"a": ' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"}"
    assert "_garbage" not in parse_line(fine)
    quoted = json.dumps({"tail": ["[enforce fail at x.cc:1] " + "[" * 500 + '\\"]' * 3]}).encode()
    assert parse_line(quoted) == json.loads(quoted)
    assert parse_line(b"[1, 2]") == {"_garbage": "[1, 2]"}
    # a real run's outcome (a snapshot inside: the deepest message there is) parses
    from pathlib import Path

    doc = json.loads((Path(__file__).resolve().parents[1] / "collective" / "two-nodes-healthy.json").read_text())
    text = json.dumps(doc).encode()
    assert parse_line(text) == doc


def test_the_reply_names_the_members_without_echoing_their_hellos() -> None:
    host, port = host_of()
    interfaces = {f"veth{i}": ("10.0.0.1",) for i in range(500)}
    big = hello_message(1, 2, "node", "b", preflight=PreflightView(interfaces=interfaces))
    reply, members = roll_call(host, port, [big])
    assert reply.to_json()["members"] == {
        "0": {"unit": 0, "host": "a", "peer": "(itself)", "mode": "node"},
        "1": {"unit": 1, "host": "b", "peer": "127.0.0.1", "mode": "node"},
    }
    assert members[0].reply is not None and members[0].reply.members[1] == MemberName(1, "b", "127.0.0.1", "node")
    preflight = host.members[1].preflight
    assert preflight is not None and len(preflight.interfaces) == 500  # node 0 keeps them for its own report
    host.close()


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"units": [2]}, "'units' is [2], not a whole number"),
        ({"unit": True}, "'unit' is true, not a whole number"),
        ({"unit": "1"}, "'unit' is \"1\", not a whole number"),
        ({"available": "gloo"}, "'available' is \"gloo\", not a list"),
        ({"world_size": 2.5}, "'world_size' is 2.5, not a whole number"),
        (
            {"preflight": {"interfaces": {"eth0": "10.0.0.1"}}},
            "'preflight.interfaces.eth0' is \"10.0.0.1\", not a list",
        ),
        ({"mode": None}, "'mode' is null, not a string"),
    ],
)
def test_a_malformed_hello_is_refused_and_named_never_a_crash(change: dict[str, Any], why: str) -> None:
    host, port = host_of()
    reply, members = roll_call(host, port, [{**hello_message(1, 2, "node", "b").to_json(), **change}], 0.4)
    assert reply.missing == (1,) and reply.go is False
    assert reply.strangers[0].split(" ", 1)[1] == f"(b) sent a hello node 0 cannot read: {why}"
    assert members[0].reply == Reply(False, refused=f"node 0 cannot read this hello: {why}", reason="malformed")
    host.close()


def job(outcome: Outcome | dict[str, Any]) -> tuple[Host, Member, list[Any]]:
    """Node 0 and node 1 joined; node 1 sends `outcome` (an Outcome, or any message as given) while node 0 watches."""
    host, port = host_of()
    _, members = roll_call(host, port, [hello_message(1, 2, "node", "b")])
    member = members[0]
    cancel = threading.Event()
    host.start_watch(cancel, fatal_outcome)
    if isinstance(outcome, Outcome):
        member.report(outcome)
    else:
        assert member.conn is not None
        member.conn.send(outcome)
    return host, member, [cancel, host.outcomes(time.monotonic() + 5)]


def plan_view(**changes: Any) -> PlanView:
    plan = PlanView("node", "flags", 2, 0, None, "127.0.0.1", 1, None, "", None, None, None, (), 60.0, 2, 0)
    return replace(plan, **changes)


@pytest.mark.parametrize(
    ("outcome", "why"),
    [
        ({"type": "outcome", "jax": [1]}, "'jax' is [1], not an object"),
        ({"type": "outcome", "records": ["x"]}, "'records[0]' is \"x\", not an object"),
        ({"type": "outcome", "records": [{"rank": True}]}, "'records[0].rank' is true, not a whole number"),
        ({"type": "outcome", "launcher": {"ok": False, "tail": "boom"}}, "'launcher.tail' is \"boom\", not a list"),
        ({"type": "verdict"}, 'a message of type "verdict" came where its outcome was due'),
        ({"type": "abort", "unit": "b"}, "'unit' is \"b\", not a whole number"),
    ],
)
def test_a_malformed_outcome_is_a_finding_naming_the_node(outcome: dict[str, Any], why: str, capsys) -> None:
    from xladoctor.collective.analysis import analyze
    from xladoctor.collective.merge import assemble

    host, member, (cancel, outcomes) = job(outcome)
    assert outcomes == {1: Outcome(1, "b", malformed=why)}
    assert not cancel.is_set() and capsys.readouterr().err == ""  # no traceback from the watch's thread
    observed = assemble(
        plan_view(),
        host.own,
        Roll("host", 1, reply=host.reply),
        0,
        host.members,
        outcomes,
        Launched(),
        facts_of(),
        ["gloo"],
        {},
        [],
        1.0,
    )
    launch = next(f for f in analyze(observed).all_findings if f.id == "collective-launch")
    assert (launch.status.value, launch.title) == ("fail", f"node 1 (b) sent an outcome node 0 cannot read: {why}")
    host.tell(Verdict(1))
    member.close()


def test_a_member_that_fails_before_its_jax_phase_stops_node_0_at_once_and_still_sends_its_outcome() -> None:
    host, port = host_of()
    _, members = roll_call(host, port, [hello_message(1, 2, "node", "b")], backends=("gloo", "jax"))
    [member] = members
    cancel = threading.Event()
    host.start_watch(cancel, fatal_outcome)
    member.abort(Abort(1, "b"))
    assert cancel.wait(5)  # node 0 stops its ranks now, not at its deadline
    assert host.watch is not None and host.watch.cause == StopCause(1, "abort", "b")
    time.sleep(0.3)  # the JAX phase
    outcome = Outcome(1, "b", jax=())
    member.report(outcome)
    assert host.outcomes(time.monotonic() + 5) == {1: outcome}  # the outcome, not the abort that came first
    host.tell(Verdict(1))
    member.close()


def facts_of() -> Any:
    from pathlib import Path

    from xladoctor.collective.observed import observed_from_json

    doc = json.loads((Path(__file__).resolve().parents[1] / "collective" / "two-nodes-healthy.json").read_text())
    return observed_from_json(doc).facts[0]


def test_a_malformed_verdict_fails_the_verdict_finding() -> None:
    host, member, _ = job(Outcome(1, "b"))
    for conn in host.conns.values():
        conn.send({"proto": PROTOCOL, "type": "verdict", "exit": "zero"})
    verdict = member.verdict(time.monotonic() + 5)
    assert verdict == Verdict(None, malformed="'exit' is \"zero\", not a whole number")


def test_a_node_late_for_a_missing_unit_is_told_too_late_not_taken() -> None:
    host, port = host_of()
    host.gather(time.monotonic() + 0.3)
    members, threads = members_join(port, [hello_message(1, 2, "node", "b")])
    time.sleep(0.1)
    reply = host.answer(["gloo"])
    for thread in threads:
        thread.join(5)
    assert reply.missing == (1,) and reply.conflicts == Conflicts()
    assert [(x.unit, x.host) for x in reply.late] == [(1, "b")]
    told = members[0].reply
    assert told == Reply(False, refused=f"too late: node 0 stopped waiting after {host.waited_s} s", reason="late")
    host.close()


def test_node_0_that_closes_without_answering_is_not_called_another_program() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def crash() -> None:  # node 0 accepts, then dies (a crash, Ctrl-C, the OOM killer)
        conn, _ = server.accept()
        conn.recv(1 << 16)
        time.sleep(0.2)
        conn.close()

    threading.Thread(target=crash, daemon=True).start()
    member = Member("127.0.0.1", server.getsockname()[1], hello_message(1, 2, "node", "b"))
    member.join(time.monotonic() + 5, time.monotonic() + 5)
    assert (member.stranger, member.no_answer, member.reply) == (None, "closed", None)
    server.close()


def test_a_port_that_takes_the_hello_and_stays_silent_is_a_timeout() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(server.accept()[0]), daemon=True).start()
    member = Member("127.0.0.1", server.getsockname()[1], hello_message(1, 2, "node", "b"))
    member.join(time.monotonic() + 5, time.monotonic() + 1)
    assert (member.stranger, member.no_answer) == (None, "timeout")
    server.close()


def test_a_member_connects_to_the_addresses_preflight_resolved() -> None:
    """No lookup per attempt (a resolver that hangs would hold the member past its deadline)."""
    host, port = host_of()
    member = Member("name.that.does.not.resolve.invalid", port, hello_message(1, 2, "node", "b"), ["127.0.0.1"])
    thread = threading.Thread(target=member.join, args=(time.monotonic() + 5, time.monotonic() + 5))
    thread.start()
    host.gather(time.monotonic() + 5)
    host.answer(["gloo"])
    thread.join(5)
    assert member.go
    host.close()


def test_nodes_running_different_xladoctor_releases_are_told() -> None:
    from xladoctor.collective.rollcall.host import conflicts_of

    members = {
        0: hello_message(0, 2, "node", "a", xladoctor="0.9.0"),
        1: hello_message(1, 2, "node", "b", xladoctor="0.8.0"),
    }
    assert conflicts_of(members, [], 2) == Conflicts(
        (), ("xladoctor differs: node 0 (a) runs 0.9.0, node 1 (b) runs 0.8.0",)
    )


def _ipv6_loopback() -> bool:
    """Whether this host can bind ::1 at all (a container may have IPv6 turned off): the test needs it."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="this host has no IPv6 loopback (::1)")
def test_node_0_listens_on_ipv6_and_ipv4_alike() -> None:
    """An --rdzv-endpoint [::1]:PORT or an IPv6 master address reaches node 0 as 127.0.0.1 does (TCPStore listens
    on both); IPv4 peers are named as IPv4."""
    host, port = host_of(3)
    members = [
        Member("127.0.0.1", port, hello_message(1, 3, "node", "b")),
        Member("::1", port, hello_message(2, 3, "node", "c"), ["::1"]),
    ]
    threads = [threading.Thread(target=m.join, args=(time.monotonic() + 5, time.monotonic() + 5)) for m in members]
    for thread in threads:
        thread.start()
    host.gather(time.monotonic() + 5)
    reply = host.answer(["gloo"])
    for thread in threads:
        thread.join(5)
    assert reply.go is True and all(m.go for m in members)
    assert {u: m.peer for u, m in host.members.items() if u} == {1: "127.0.0.1", 2: "::1"}
    host.close()


def test_a_hello_with_a_huge_host_name_is_refused_at_once_and_named_briefly() -> None:
    """A valid hello with a 200 KB host name once kept node 0 busy past 90 s (its name, highlighted by rich):
    every field has a size limit where the message arrives, and what is echoed of it is cut."""
    host, port = host_of()
    started = time.monotonic()
    reply, members = roll_call(host, port, [{**hello_message(1, 2, "node", "b").to_json(), "host": "h" * 200_000}], 0.4)
    assert time.monotonic() - started < 10
    assert reply.go is False and len(reply.strangers[0]) < 400
    assert reply.strangers[0].endswith(
        "sent a hello node 0 cannot read: 'host' is a string of 200,000 characters, longer than the 255 a host "
        "name may be"
    )
    assert members[0].reply is not None and members[0].reply.reason == "malformed"
    host.close()
