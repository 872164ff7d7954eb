"""Before anything starts: how this host resolves the master and itself, its interfaces, the socket variables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xladoctor.collective.messages.roll import PreflightView
from xladoctor.collective.plan import Plan
from xladoctor.probes.network import Interface, Resolution, hostname, interfaces, resolve

# GLOO_SOCKET_IFNAME: a comma-separated list of interfaces gloo binds (torch/csrc/distributed/c10d/init.cpp splits
# it on ','); NCCL_SOCKET_IFNAME: NCCL's prefix list, `^` to exclude, `=` for exact names (NCCL src/misc/socket.cc
# ncclFindInterfaces; docs "Environment Variables"). Both are read from the environment the job runs with.
IFNAME_VARIABLES = ("GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME")


@dataclass(frozen=True)
class Preflight:
    host: str
    host_resolution: Resolution  # gloo's default device is the address the host name resolves to
    master: Resolution
    interfaces: tuple[Interface, ...]
    ifnames: Mapping[str, str]  # GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME as set

    @property
    def local_addresses(self) -> set[str]:
        return {a for i in self.interfaces for a in i.addresses}

    @property
    def master_is_here(self) -> bool:
        """The master address is one of this host's own (so this host should be node 0)."""
        return bool(set(self.master.addresses) & self.local_addresses) and not self.master.loopback_only

    def view(self) -> PreflightView:
        """What this node says of its preflight at the roll call."""
        return PreflightView(
            self.host,
            self.host_resolution.addresses,
            self.host_resolution.error,
            self.master.name,
            self.master.addresses,
            self.master.error,
            self.master_is_here,
            {i.name: i.addresses for i in self.interfaces},
            tuple(i.name for i in self.interfaces if i.up is False),
            dict(self.ifnames),
        )


def run_preflight(plan: Plan, environ: Mapping[str, str], timeout_s: float = 5.0) -> Preflight:
    host = hostname()
    return Preflight(
        host,
        resolve(host, timeout_s),
        resolve(plan.master_addr, timeout_s),
        interfaces(),
        {n: environ[n] for n in IFNAME_VARIABLES if environ.get(n)},
    )


def matching_interfaces(variable: str, value: str, names: list[str]) -> list[str]:
    """The interfaces a *_SOCKET_IFNAME value selects, read the way its library reads it."""
    if variable == "GLOO_SOCKET_IFNAME":
        wanted = [v.strip() for v in value.split(",") if v.strip()]
        return [n for n in names if n in wanted]
    text = value.strip()
    exclude = text.startswith("^")
    text = text[1:] if exclude else text
    exact = text.startswith("=")
    text = text[1:] if exact else text
    prefixes = [p for p in text.split(",") if p]

    def hit(name: str) -> bool:
        return any(name == p if exact else name.startswith(p) for p in prefixes)

    return [n for n in names if hit(n) != exclude]


def named_interfaces(variable: str, value: str) -> list[str]:
    """The names a *_SOCKET_IFNAME value asks for (without NCCL's ^ and = marks)."""
    text = value.strip().lstrip("^").lstrip("=") if variable == "NCCL_SOCKET_IFNAME" else value
    return [p.strip() for p in text.split(",") if p.strip()]


def is_local_only(name: str) -> bool:
    """Interfaces no other host can reach: loopback, docker bridges, libvirt's (NCCL skips these last:
    ncclFindInterfaces tries "^docker,lo,virbr" before them)."""
    return name == "lo" or name.startswith(("docker", "virbr", "lo:"))
