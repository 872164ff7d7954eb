"""Addresses and interfaces: the master address, the host names gloo advertises, *_SOCKET_IFNAME, NCCL's choices."""

from __future__ import annotations

import shlex
from typing import Any

from xladoctor.collective.analysis.common import finding, hosts_differ, hosts_known_alike, listing, who
from xladoctor.collective.analysis.common import preflights as all_preflights
from xladoctor.collective.messages.roll import PreflightView
from xladoctor.collective.observed import Observed
from xladoctor.collective.preflight import is_local_only, matching_interfaces, named_interfaces
from xladoctor.findings import Finding, Status
from xladoctor.probes.network import is_loopback
from xladoctor.sanitize import clip

MASTER = "collective-master-address"
IFNAME = "collective-socket-ifname"
NCCL = "collective-nccl-diagnostics"
GLOO_DEFAULT_DEVICE = (
    "gloo binds the address the host name resolves to (torch ProcessGroupGloo createDefaultDevice) when "
    "GLOO_SOCKET_IFNAME is not set, and tells the other ranks to connect there"
)


def _interfaces_text(view: PreflightView) -> str:
    found = view.interfaces
    return listing([f"{name} ({', '.join(addrs[:2])})" for name, addrs in sorted(found.items())], limit=12)


def _routable(view: PreflightView) -> str:
    """A host's addresses other hosts could use (not loopback, not link-local), by interface."""
    found = []
    for name, addrs in sorted(view.interfaces.items()):
        usable = [a for a in addrs if not is_loopback(a) and not a.lower().startswith("fe80")]
        if usable and not is_local_only(name):
            found.append(f"{name} {', '.join(usable)}")
    return "; ".join(found)


def master_address(observed: Observed) -> Finding:
    plan = observed.plan
    addr = plan.master_addr
    multi = plan.nnodes > 1  # more than one host may take part (ranks of one host are not)
    spread = hosts_differ(observed)
    problems: list[tuple[str, str]] = []  # (title, detail)
    commands: list[str] = []
    evidence: dict[str, Any] = {}
    for unit, view in all_preflights(observed):
        name = who(observed, unit)
        addresses = list(view.master_addresses)
        evidence[name] = {"master": addresses, "host": view.host, "host_addresses": list(view.host_addresses)}
        if view.master_error:
            title = f"{addr} does not resolve on {name}"
            problems.append((title, f"{title}: {view.master_error}"))
            commands.append(f"getent hosts {shlex.quote(addr)}  # on {name}")
            continue
        if multi and spread and addresses and all(is_loopback(a) for a in addresses):
            title = (
                f"{addr} is a loopback address"
                if addresses == [addr]
                else f"{addr} resolves to {', '.join(addresses)} on {name}, a loopback address"
            )
            unknown = len(observed.units) < plan.units and not hosts_known_alike(observed)
            routable = _routable(view) if unit == 0 else ""
            detail = (
                f"{title}: a node on another host that reads it connects to itself, and waits on its own "
                "coordinator. Give node 0's routable address"
                + (f" (node 0 has {routable})" if routable else "")
                + " or fix the name in /etc/hosts (Debian and Ubuntu map the host's own name to 127.0.1.1)."
                + (
                    " The other nodes did not join, so whether they run on this same host is unknown; if they do, "
                    "a loopback address is right."
                    if unknown
                    else ""
                )
            )
            problems.append((title, detail))
            if addresses != [addr]:
                commands.append(f"getent hosts {shlex.quote(addr)}  # on {name}")
        if multi and view.master_is_here and unit != 0 and observed.plan.mode == "node":
            title = f"{addr} is an address of {name} itself, but that is node {unit}, not node 0"
            problems.append((title, title + "."))
        host_addresses = list(view.host_addresses)
        gloo = "gloo" in (observed.me.available or ())
        if (
            multi
            and spread
            and gloo
            and host_addresses
            and all(is_loopback(a) for a in host_addresses)
            and not view.ifnames.get("GLOO_SOCKET_IFNAME")
        ):
            title = f"The host name of {name} resolves to {', '.join(host_addresses)}: gloo would advertise it"
            problems.append(
                (
                    title,
                    f"{title}. {GLOO_DEFAULT_DEVICE}, so the other hosts would connect to their own loopback. Set "
                    "GLOO_SOCKET_IFNAME to the interface that reaches them, or map the host name to its real address "
                    "in /etc/hosts.",
                )
            )
            commands.append(f"getent hosts {shlex.quote(str(view.host))}  # on {name}")
    if problems:
        return finding(MASTER, Status.FAIL, problems[0][0], "\n".join(d for _, d in problems), evidence, commands)
    if multi and not spread:
        return finding(
            MASTER,
            Status.OK,
            f"{addr} resolves on every node; they all run on one host, so a loopback address is fine here",
            evidence=evidence,
        )
    return finding(
        MASTER,
        Status.OK,
        f"{addr} resolves to an address the other hosts can use"
        if multi
        else f"Single host: the rendezvous is on {addr}",
        evidence=evidence,
    )


def _ifname_problem(
    variable: str,
    value: str,
    view: PreflightView,
    name: str,
    spread: bool,
    present: list[str],
    chosen: list[str],
) -> str | None:
    """What is wrong with this node's `variable`, given its interfaces (`present`) and those the value selects."""
    if not chosen:
        return f"{variable}={value} names no interface on {name}: it has {_interfaces_text(view)}"
    down = [i for i in chosen if i in view.down]
    if down and len(down) == len(chosen):
        return f"{variable}={value} selects only {', '.join(down)} on {name}, which is down (`ip link set ... up`)"
    if spread and all(is_local_only(i) for i in chosen):
        return (
            f"{variable}={value} selects only {', '.join(chosen)} on {name}, which no other host can reach; "
            f"it has {_interfaces_text(view)}"
        )
    if variable == "GLOO_SOCKET_IFNAME":
        missing = [n for n in named_interfaces(variable, value) if n not in present]
        if missing:
            return f"{variable}={value}: {', '.join(missing)} does not exist on {name}"
    return None


def socket_ifname(observed: Observed) -> Finding:
    """GLOO_SOCKET_IFNAME is judged whenever torch ran (the worker's default group is gloo's), NCCL_SOCKET_IFNAME
    only when NCCL was tested: a gloo-only job never reads it, so it is shown there, not failed."""
    spread = hosts_differ(observed) and observed.plan.nnodes > 1
    problems: list[str] = []
    unjudged: list[str] = []
    evidence: dict[str, Any] = {}
    for unit, view in all_preflights(observed):
        name = who(observed, unit)
        present = sorted(view.interfaces)
        for variable, value in sorted(view.ifnames.items()):
            chosen = matching_interfaces(variable, str(value), present)
            judged = variable != "NCCL_SOCKET_IFNAME" or "nccl" in observed.backends
            evidence.setdefault(name, {})[variable] = {
                "value": value,
                "selects": chosen,
                "interfaces": present,
                "judged": judged,
            }
            problem = _ifname_problem(variable, str(value), view, name, spread, present, chosen)
            if problem and judged:
                problems.append(problem)
            elif problem:
                unjudged.append(problem)
    if problems:
        return finding(
            IFNAME,
            Status.FAIL,
            clip(problems[0], 160),
            "\n".join(
                [
                    "gloo fails at init with `Unable to find address for: NAME` (gloo/transport/tcp/device.cc) "
                    "and NCCL with `Bootstrap : no socket interface found` when the name matches no interface; "
                    "loopback and docker bridges only reach the same host.",
                    *problems,
                ]
            ),
            evidence,
            ["ip -brief address  # on each node named above"],
        )
    if not evidence:
        return finding(
            IFNAME,
            Status.OK,
            "GLOO_SOCKET_IFNAME and NCCL_SOCKET_IFNAME are not set: gloo uses the host "
            "name's address, NCCL picks an interface itself",
        )
    if unjudged:
        return finding(
            IFNAME,
            Status.OK,
            "NCCL_SOCKET_IFNAME was not judged: NCCL was not tested, and nothing that ran reads it",
            "\n".join(["A job that uses NCCL with these settings would meet:", *unjudged]),
            evidence,
        )
    return finding(IFNAME, Status.OK, "Every *_SOCKET_IFNAME selects an existing interface", evidence=evidence)


def nccl_diagnostics(observed: Observed) -> Finding:
    if "nccl" not in observed.backends:
        return finding(NCCL, Status.SKIP, "NCCL's diagnostics: not read", "Skipped because NCCL was not tested.")
    notes = list(observed.nccl)
    if not notes:
        return finding(
            NCCL,
            Status.WARN,
            "NCCL wrote no diagnostics (NCCL_DEBUG=INFO, NCCL_DEBUG_FILE)",
            "NCCL did not start on any rank, or its log files could not be read.",
        )
    spread = hosts_differ(observed)
    bad: list[str] = []
    warn: list[str] = []
    seen: dict[str, set[str]] = {}
    for note in notes:
        kind, host, value = note.kind, note.host, note.value or ""
        seen.setdefault(str(kind), set()).add(f"{host}: {value}" if value else str(host))
        if kind in ("no-interface", "no-listen-interface", "no-socket-interface"):
            bad.append(f"{host}: {note.message} (NCCL_SOCKET_IFNAME matches no interface there)")
        elif kind in ("socket-interfaces", "bootstrap-interface") and spread:
            names = [part.split(":")[0].split("]")[-1] for part in value.split() if ":" in part]
            if names and all(is_local_only(n) for n in names):
                bad.append(f"{host}: NCCL uses {', '.join(names)}, which other hosts cannot reach ({note.message})")
        elif kind == "no-ib" and spread:
            warn.append(f"{host}: no InfiniBand device (NET/IB : No device found): NCCL falls back to TCP sockets")
        elif kind == "no-ibverbs" and spread:
            warn.append(f"{host}: libibverbs cannot be loaded: NCCL cannot use InfiniBand/RoCE (install rdma-core)")
        elif kind == "p2p-nvlink-disabled":
            bad.append(f"{host}: {note.message}")
        elif kind == "p2p-disabled":
            warn.append(f"{host}: {note.message}")
        elif kind == "warn":
            warn.append(f"{host}: NCCL WARN {note.message}")
    evidence = {k: sorted(v) for k, v in seen.items()}
    if bad:
        return finding(NCCL, Status.FAIL, bad[0], "\n".join(bad + warn), evidence)
    if warn:
        return finding(NCCL, Status.WARN, warn[0], "\n".join(warn), evidence)
    network = ", ".join(sorted({str(n.value) for n in notes if n.kind == "network"}) or ["unknown"])
    return finding(NCCL, Status.OK, f"NCCL's own diagnostics show no problem ({network})", evidence=evidence)
