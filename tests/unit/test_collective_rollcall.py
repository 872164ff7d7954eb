"""The roll call over real TCP sockets on 127.0.0.1, node 0 and the members in threads of this process."""

from __future__ import annotations

import socket
import threading
import time

from xladoctor.collective.rollcall import PROTOCOL, Channel, Host, Member, hello_message


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def members_join(port: int, hellos: list[dict], deadline_s: float = 10) -> list[Member]:
    members = [Member("127.0.0.1", port, hello) for hello in hellos]
    threads = [
        threading.Thread(target=m.join, args=(time.monotonic() + deadline_s, time.monotonic() + deadline_s))
        for m in members
    ]
    for thread in threads:
        thread.start()
        time.sleep(0.05)  # arrival order
    return members, threads  # type: ignore[return-value]


def test_ranks_are_given_in_order_of_arrival_with_an_rdzv_endpoint() -> None:
    port = free_port()
    host = Host(port, hello_message(None, 3, "node", "a"), 3, assign=True)
    assert host.listen()
    members, threads = members_join(port, [hello_message(None, 3, "node", h) for h in ("b", "c")])
    host.gather(time.monotonic() + 5)
    reply = host.answer(["gloo"])
    for thread in threads:
        thread.join(5)
    assert reply["go"] is True and reply["missing"] == []
    assert [m.roll.reply["you"] for m in members] == [1, 2]  # type: ignore[index]
    assert {u: m["host"] for u, m in host.roll.members.items()} == {0: "a", 1: "b", 2: "c"}
    host.close()


def test_a_second_node_with_a_taken_rank_is_refused_and_the_job_does_not_go() -> None:
    port = free_port()
    host = Host(port, hello_message(0, 2, "node", "a"), 2, assign=False)
    assert host.listen()
    members, threads = members_join(port, [hello_message(1, 2, "node", "b"), hello_message(1, 2, "node", "c")])
    host.gather(time.monotonic() + 1.5)
    reply = host.answer(["gloo"])
    for thread in threads:
        thread.join(5)
    assert reply["go"] is False
    assert reply["conflicts"]["fatal"] == ["c (127.0.0.1) also says it is node 1"]
    assert members[1].roll.reply == {"proto": PROTOCOL, "go": False, "refused": "unit 1 is taken"}
    host.close()


def test_a_node_that_believes_in_another_job_size_stops_the_job() -> None:
    port = free_port()
    host = Host(port, hello_message(0, 2, "node", "a"), 2, assign=False)
    assert host.listen()
    _, threads = members_join(port, [hello_message(1, 3, "node", "b")])
    host.gather(time.monotonic() + 5)
    reply = host.answer(["gloo"])
    for thread in threads:
        thread.join(5)
    assert reply["go"] is False
    assert reply["conflicts"]["fatal"] == ["the job's size differs: node 0 (a) says 2, node 1 (b) says 3"]
    host.close()


def test_something_that_is_not_xladoctor_is_a_stranger_on_either_side() -> None:
    port = free_port()
    host = Host(port, hello_message(0, 2, "node", "a"), 2, assign=False)
    assert host.listen()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET / HTTP/1.0\r\n\r\n\n")
        host.gather(time.monotonic() + 1.0)
    assert host.roll.strangers[0].endswith("sent GET / HTTP/1.0")
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
    assert member.roll.stranger == "HTTP/1.0 400 Bad Request"
    server.close()


def test_a_port_in_use_is_a_bind_error_with_its_holder() -> None:
    holder = socket.socket()
    holder.bind(("", 0))
    holder.listen()
    port = holder.getsockname()[1]
    host = Host(port, hello_message(0, 2, "node", "a"), 2, assign=False)
    assert host.listen() is False
    assert host.roll.bind_error == "EADDRINUSE"
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
