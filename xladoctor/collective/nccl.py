"""Read NCCL's own diagnostics (NCCL_DEBUG=INFO, one file per process): what it chose and why it gave up. Pure.

NCCL v2.27.7-1 (the NCCL torch 2.9's wheels depend on) writes, in src/debug.cc ncclDebugLog:

    HOST:PID:TID [DEV] NCCL INFO MESSAGE
    (an empty line)
    [%F %T] HOST:PID:TID [DEV] FILE:LINE NCCL WARN MESSAGE

A WARN starts with a newline, and a timestamp leads the levels of NCCL_DEBUG_TIMESTAMP_LEVELS (by default WARN only;
since v2.26) in the format of NCCL_DEBUG_TIMESTAMP_FORMAT (default "[%F %T] "); FILE is the path the Makefile
compiles (`bootstrap.cc`, `transport/net_socket.cc`). v2.30.7-1 puts the function between them:
`FILE:LINE (FUNC) NCCL WARN`. The messages matched below are quoted from v2.27.7-1 and unchanged in v2.30.7-1; the
file and line of each is given beside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_LINE = re.compile(
    r"^(?:\[[^\]]*\] ?)?(?P<host>[^\s:\[\]]+):(?P<pid>\d+):\d+ \[[^\]]*\] "
    r"(?:\S+:\d+ (?:\([^)]*\) )?)?NCCL (?P<level>INFO|WARN) (?P<msg>.*)$"
)
# (kind, pattern); the first that matches a message names it
_MESSAGES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("version", re.compile(r"^NCCL version (?P<value>\S+)")),  # src/init.cc: "NCCL version " STR(NCCL_MAJOR)...
    ("no-ib", re.compile(r"^NET/IB : No device found\.")),  # src/transport/net_ib.cc:749
    ("no-ibverbs", re.compile(r"^Failed to open libibverbs\.so")),  # src/misc/ibvsymbols.cc:81
    ("network", re.compile(r"^Using network (?P<value>\S+)")),  # src/init.cc:346
    ("socket-interfaces", re.compile(r"^NET/Socket : Using(?P<value>.*)")),  # src/transport/net_socket.cc:67
    ("bootstrap-interface", re.compile(r"^Bootstrap: Using(?P<value>.*)")),  # src/bootstrap.cc:123
    ("ifname-set", re.compile(r"^NCCL_SOCKET_IFNAME set by environment to (?P<value>\S+)")),  # misc/socket.cc:361
    ("no-interface", re.compile(r"^Bootstrap : no socket interface found")),  # src/bootstrap.cc:115
    ("no-listen-interface", re.compile(r"^NET/Socket : No usable listening interface found")),  # bootstrap.cc:108
    ("no-socket-interface", re.compile(r"^NET/Socket : no interface found")),  # src/transport/net_socket.cc
    # graph/paths.cc:350 (a WARN: NCCL gives up, "probably due to a hardware issue") and :353 (an INFO)
    ("p2p-nvlink-disabled", re.compile(r"^P2P is disabled between NVLINK connected GPUs (?P<value>\d+ and \d+)")),
    ("p2p-disabled", re.compile(r"^P2P is disabled between connected GPUs (?P<value>\d+ and \d+)")),
)
# "[0]eth0:10.0.0.5<0> [1]ib0:..." (net_socket.cc) or " eth0:10.0.0.5<0>" (bootstrap.cc): the interface names
_INTERFACE = re.compile(r"(?:\[\d+\])?(?P<name>[\w.:-]+?):(?P<addr>[0-9a-fA-F.:]+)<\d+>")


@dataclass(frozen=True)
class NcclNote:
    """One line of NCCL's that says something about the job's health (another node's may lack a field)."""

    kind: str
    host: str | None
    pid: int | None
    level: str | None
    message: str | None
    value: str | None = None

    @property
    def interfaces(self) -> list[str]:
        return [m.group("name") for m in _INTERFACE.finditer(self.value or "")]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "host": self.host,
            "pid": self.pid,
            "level": self.level,
            "message": self.message,
            "value": self.value,
        }


def parse_lines(lines: Iterable[str]) -> list[NcclNote]:
    """The lines that say something about the job's health; other INFO lines are left out."""
    notes = []
    for raw in lines:
        line = _LINE.match(raw.strip())
        if line is None:
            continue
        message = line.group("msg").strip()
        for kind, pattern in _MESSAGES:
            hit = pattern.match(message)
            if hit:
                value = hit.groupdict().get("value")
                notes.append(
                    NcclNote(
                        kind,
                        line.group("host"),
                        int(line.group("pid")),
                        line.group("level"),
                        message,
                        value.strip() if value else None,
                    )
                )
                break
        else:
            if line.group("level") == "WARN":
                notes.append(NcclNote("warn", line.group("host"), int(line.group("pid")), "WARN", message))
    return notes


def parse_logs(logs: Mapping[str, str]) -> list[NcclNote]:
    """Every NCCL_DEBUG_FILE of a node (file name -> text)."""
    return [note for text in logs.values() for note in parse_lines(text.splitlines())]
