"""What the network of this host looks like to a distributed job: names, interfaces, and who holds a port.

Every call is bounded (a DNS lookup runs in a thread with a deadline) and returns data; a failure is a value.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import threading
from dataclasses import dataclass, field

import psutil

from xladoctor.redact import redact_argv


@dataclass(frozen=True)
class Resolution:
    """The addresses a name resolves to on this host (getaddrinfo, as TCPStore, gloo and NCCL resolve it)."""

    name: str
    addresses: tuple[str, ...] = ()
    error: str | None = None

    @property
    def loopback_only(self) -> bool:
        return bool(self.addresses) and all(is_loopback(a) for a in self.addresses)


@dataclass(frozen=True)
class Interface:
    name: str
    addresses: tuple[str, ...]  # IPv4 and IPv6, without the link-local scope suffix
    up: bool | None = None


@dataclass(frozen=True)
class PortHolder:
    """A process that listens on a port (psutil.net_connections: its pid and name, when this user may see them)."""

    pid: int | None
    name: str | None = None
    cmdline: tuple[str, ...] = field(default_factory=tuple)


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return address in ("localhost",)


def resolve(name: str, timeout_s: float = 5.0) -> Resolution:
    """getaddrinfo of `name` (TCP), bounded: a resolver that hangs becomes an error, not a wait."""
    box: dict[str, object] = {}

    def lookup() -> None:
        try:
            infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
            box["addresses"] = tuple(dict.fromkeys(str(info[4][0]) for info in infos))
        except (OSError, UnicodeError) as exc:
            box["error"] = str(exc)

    thread = threading.Thread(target=lookup, daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        return Resolution(name, error=f"the lookup did not answer within {timeout_s:g} s")
    if "error" in box:
        return Resolution(name, error=str(box["error"]))
    return Resolution(name, tuple(box.get("addresses", ())))  # type: ignore[arg-type]


def interfaces() -> tuple[Interface, ...]:
    """Every interface with an IP address (psutil.net_if_addrs), and whether it is up (net_if_stats)."""
    try:
        addrs = psutil.net_if_addrs()
        stats = psutil.net_if_stats()
    except (OSError, psutil.Error):
        return ()
    found = []
    for name, entries in sorted(addrs.items()):
        ips = tuple(e.address.split("%", 1)[0] for e in entries if e.family in (socket.AF_INET, socket.AF_INET6))
        if ips:
            stat = stats.get(name)
            found.append(Interface(name, ips, stat.isup if stat is not None else None))
    return tuple(found)


def hostname() -> str:
    return socket.gethostname()


def port_holders(port: int) -> tuple[PortHolder, ...]:
    """The processes listening on a TCP port; () when none is, or when this user may not see them."""
    try:
        connections = psutil.net_connections(kind="tcp")
    except (OSError, psutil.Error):
        return ()
    holders: dict[int | None, PortHolder] = {}
    for conn in connections:
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
            holders.setdefault(conn.pid, _holder(conn.pid))
    return tuple(holders.values())


def _holder(pid: int | None) -> PortHolder:
    if pid is None:
        return PortHolder(None)
    try:
        process = psutil.Process(pid)
        return PortHolder(pid, process.name(), redact_argv(process.cmdline())[:4])
    except (psutil.Error, OSError):
        return PortHolder(pid)


def errno_name(exc: OSError) -> str:
    """ECONNREFUSED, ETIMEDOUT, EADDRINUSE, ... (or the message when the error has no number)."""
    if isinstance(exc, socket.timeout) or (exc.errno is None and "timed out" in str(exc)):
        return "ETIMEDOUT"
    if exc.errno is not None:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return type(exc).__name__
