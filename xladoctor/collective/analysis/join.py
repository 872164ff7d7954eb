"""Did everyone come? The roll call, the ranks' hello, torchrun's own rendezvous; the port; the world size."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from xladoctor.collective.analysis.common import finding, first_line, listing, noun, rank_names, who
from xladoctor.collective.observed import Observed
from xladoctor.findings import Finding, Status
from xladoctor.redact import redact_argv
from xladoctor.sanitize import clip

RENDEZVOUS = "collective-rendezvous"
PORT = "collective-port"
WORLD = "collective-world"
# torchrun's own words when its static rendezvous gives up (TCPStore, torch v2.9.0; seen on this project's machine)
_STORE_TIMEOUT = re.compile(r"Timed out after \d+ seconds waiting for clients\. \d+/\d+ clients joined\.")
_CLIENT_TIMEOUT = re.compile(r"The client socket has timed out after \d+ms while trying to connect to \([^)]*\)\.")
_CONNECT_WHY = {
    "ECONNREFUSED": "nothing listens there: node 0 has not started (or already gave up), the address is not node 0's "
    "(a name that resolves to this host itself, 127.0.1.1), or a firewall rejects the connection",
    "ETIMEDOUT": "the packets are dropped on the way: a firewall or security group between the hosts, or an address "
    "on a network this host does not reach",
    "EHOSTUNREACH": "there is no route to that host from here",
    "ENETUNREACH": "this host has no route to that network",
}


def roll_port(observed: Observed) -> Any:
    """The port of the roll call (the next one under an outer torchrun, whose agent's store holds the job's)."""
    return (observed.roll or {}).get("port") or observed.plan.get("roll_port") or observed.plan.get("master_port")


def _missing_hint(observed: Observed, missing: list[int]) -> tuple[str, list[str]]:
    plan = observed.plan
    addr, port = plan.get("master_addr"), roll_port(observed)
    target = f"{addr}:{port}"
    lines = [
        f"On each missing {noun(observed)}: is `xladoctor collective` running there, with the same job (--nnodes "
        f"{plan.get('nnodes')}, its own --node-rank, --master-addr {addr} --master-port {port}), started within the "
        "timeout? Its own one-line status names what it waited on.",
        f"Can it reach {target}? A firewall or security group must let TCP port {port} in on node 0 (and, for "
        "gloo and NCCL, the ephemeral ports they open between all hosts).",
        f"Does {addr} resolve there to node 0's address (not a loopback one)?",
    ]
    commands = [
        f"getent hosts {shlex.quote(str(addr))}  # on each missing {noun(observed)}",
        f"nc -vz {shlex.quote(str(addr))} {port}  # on each missing {noun(observed)}, while node 0 waits",
    ]
    return "\n".join(lines), commands


def _roll_host(observed: Observed, roll: Mapping[str, Any]) -> Finding:
    if roll.get("bind_error"):
        return finding(
            RENDEZVOUS,
            Status.SKIP,
            "The roll call could not start",
            f"Skipped because port {roll.get('port')} could not be taken ({roll.get('bind_error')}); see {PORT}.",
        )
    reply = roll.get("reply") or {}
    missing = [int(u) for u in reply.get("missing") or []]
    units = int(observed.plan.get("units") or 1)
    evidence = {
        "waited_s": reply.get("waited_s"),
        "waited_on": reply.get("waited_on"),
        "missing": missing,
        "joined": sorted(int(u.unit) for u in observed.units if u.hello),
        "strangers": reply.get("strangers"),
        "late": reply.get("late"),
    }
    strangers = reply.get("strangers") or []
    extra = f"\nAlso connected without a hello node 0 could take: {listing(strangers)}." if strangers else ""
    if missing:
        names = [f"{noun(observed)} {u}" for u in missing]
        hint, commands = _missing_hint(observed, missing)
        late = [
            f"{noun(observed)} {item.get('unit')} ({item.get('host')}) came {item.get('after_s')} s after node 0 "
            "stopped waiting: start the nodes closer together, or give every node a longer --timeout"
            for item in reply.get("late") or []
        ]
        extra = "".join(f"\n{line}." for line in late) + extra
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"{listing(names)} never joined ({units} expected): {who(observed, 0)} waited "
            f"{reply.get('waited_s')} s on port {roll_port(observed)}",
            hint + extra,
            evidence,
            commands,
        )
    return finding(
        RENDEZVOUS,
        Status.OK,
        f"All {units} {noun(observed)}s joined the roll call in {reply.get('waited_s')} s (port {roll_port(observed)})",
        extra.strip(),
        evidence=evidence,
    )


def _roll_member(observed: Observed, roll: Mapping[str, Any]) -> Finding:
    plan = observed.plan
    port = roll_port(observed)
    target = f"{plan.get('master_addr')}:{port}"
    keys = ("waited_s", "attempts", "connect_error", "stranger", "no_answer", "malformed")
    evidence = {k: roll.get(k) for k in keys}
    if roll.get("stranger"):
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"{target} answered, but not as xladoctor: another program listens on that port",
            f"Sent: {roll['stranger']!r}. Another process holds port {port} on the master (an old "
            "job's TCPStore, another service); node 0's own report names it. Free the port or pick another.",
            evidence,
        )
    if roll.get("no_answer") == "closed":
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"Node 0 ({target}) closed the connection without answering",
            "Its xladoctor stopped after it took the connection (a crash, Ctrl-C, the OOM killer, its own deadline) "
            "or closed it among too many at once; node 0's own output says which.",
            evidence,
        )
    if roll.get("no_answer") == "timeout":
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"{target} took the connection but sent no answer in {roll.get('waited_s')} s",
            "Node 0's xladoctor answers once every node joined or half its --timeout passed: it is stuck, or another "
            f"program holds port {port} there and waits for words of its own (an old job's "
            "TCPStore does). `ss -ltnp` on node 0 names it.",
            evidence,
        )
    if roll.get("malformed"):
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"Node 0's answer could not be read: {roll['malformed']}",
            "Node 0 speaks the roll call, but its reply does not have the shape this xladoctor knows: run the same "
            "xladoctor version on every node.",
            evidence,
        )
    reply = roll.get("reply")
    if not reply:
        error = str(roll.get("connect_error") or "no answer")
        why = _CONNECT_WHY.get(error, "")
        unassigned = plan.get("node_rank") is None and plan.get("mode") == "node"
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"Could not reach the master {target} from {observed.me.get('host')} for {roll.get('waited_s')} s "
            f"({roll.get('attempts')} attempts; last: {error})",
            (why[0].upper() + why[1:] + "." if why else "")
            + " Node 0's own report says whether it was waiting."
            + (
                f" Without --node-rank, node 0 is the node whose own address is {plan.get('master_addr')}: when no "
                "node has it (a virtual IP, NAT, an elastic or public address), none listens; give --node-rank on "
                "every node."
                if unassigned
                else ""
            ),
            evidence,
            [
                f"getent hosts {shlex.quote(str(plan.get('master_addr')))}",
                f"nc -vz {shlex.quote(str(plan.get('master_addr')))} {port}",
            ],
        )
    if reply.get("refused"):
        why = {
            "late": "It came after node 0 stopped waiting (half of node 0's --timeout): start the nodes closer "
            "together, or give every node a longer --timeout.",
            "malformed": "Its hello does not have the shape node 0's xladoctor knows: run the same xladoctor version "
            "on every node.",
        }.get(str(reply.get("reason")), "Another process already joined with the same rank; see its report.")
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"The master refused this {noun(observed)}: {reply['refused']}",
            why,
            evidence,
        )
    missing = [int(u) for u in reply.get("missing") or []]
    if missing:
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"The job is missing {listing([f'{noun(observed)} {u}' for u in missing])}: node 0 "
            f"({reply.get('waited_on')}) waited {reply.get('waited_s')} s",
            "Nothing was started; node 0's report says what to check on the missing ones.",
            evidence,
        )
    return finding(
        RENDEZVOUS, Status.OK, f"Joined the roll call at {target} in {roll.get('waited_s')} s", evidence=evidence
    )


def _hello(observed: Observed) -> Finding | None:
    """The ranks' own hello through the rendezvous store (rank 0's verdict), and torchrun's rendezvous errors."""
    rank0 = next((r for r in observed.records if r.get("rank") == 0), None)
    verdict = ((rank0 or {}).get("hello") or {}).get("verdict") or {}
    missing = [int(r) for r in verdict.get("missing") or []]
    if missing:
        stories = []
        recorded = {r.get("rank") for r in observed.records}
        for rank in missing:
            if rank not in recorded:
                stories.append(
                    f"rank {rank} left no record: its process never ran the worker's first line (it hung "
                    "or died while the interpreter started: sitecustomize, a .pth file, the launcher)"
                )
        for record in observed.records:
            if record.get("rank") in missing:
                error = record.get("error") or {}
                said = f": {error.get('type')}: {first_line(error.get('message'))}" if error else ""
                stories.append(
                    f"rank {record['rank']} ({record.get('host')}) stopped in phase {record.get('phase')}{said}"
                )
        names = rank_names(observed.records, missing)
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"{listing(names)} never said hello: rank 0 ({verdict.get('waited_on')}) waited "
            f"{verdict.get('waited_s')} s",
            "\n".join(
                [
                    "Their processes started (torchrun's rendezvous passed) but did not reach the store: a crash "
                    "at start-up, a hang in an import, or a launcher that started fewer processes.",
                    *stories,
                ]
            ),
            {"missing_ranks": missing, "waited_s": verdict.get("waited_s")},
        )
    tail = "\n".join((observed.launcher or {}).get("tail") or [])
    for pattern, why in (
        (_STORE_TIMEOUT, "torchrun's rendezvous on node 0 gave up: not every node's torchrun connected"),
        (_CLIENT_TIMEOUT, "this node's torchrun could not reach the master's rendezvous store"),
    ):
        hit = pattern.search(tail)
        if hit:
            return finding(RENDEZVOUS, Status.FAIL, f"torchrun: {hit.group(0)}", why + ".", {"torchrun": hit.group(0)})
    return None


def rendezvous(observed: Observed) -> Finding:
    roll = observed.roll
    if roll and roll.get("role") == "host":
        result = _roll_host(observed, roll)
    elif roll and roll.get("role") == "member":
        result = _roll_member(observed, roll)
    else:
        result = None
    if result is not None and result.status is not Status.OK:
        return result
    hello = _hello(observed)
    if hello is not None:
        return hello
    if result is not None:
        return result
    world = next((r.get("world_size") for r in observed.records), None)
    if not observed.records:
        return finding(RENDEZVOUS, Status.SKIP, "No rank ran", "Skipped because nothing was launched.")
    verdict = (next((r for r in observed.records if r.get("rank") == 0), {}).get("hello") or {}).get("verdict") or {}
    return finding(
        RENDEZVOUS,
        Status.OK,
        f"All {world} ranks said hello through the rendezvous store"
        + (f" in {verdict.get('waited_s')} s" if verdict.get("waited_s") is not None else ""),
    )


def _holder(holder: Mapping[str, Any]) -> str:
    """'pid 123 (python -m torch.distributed.run ...)': the command on one line, at most 100 characters."""
    words = holder.get("cmdline") or []
    command = " ".join(" ".join(redact_argv([str(w) for w in words])).split()) or holder.get("name") or "?"
    return f"pid {holder.get('pid')} ({clip(command, 100)})"


def port(observed: Observed) -> Finding:
    roll = observed.roll or {}
    plan = observed.plan
    number = plan.get("master_port") or (observed.launcher or {}).get("port")
    evidence = {"port": number, "source": plan.get("port_source")}
    if roll.get("bind_error"):
        number = roll.get("port") or number
        holders = roll.get("holders") or []
        held = listing([_holder(h) for h in holders]) if holders else ""
        error = roll["bind_error"]
        what = "is already in use" if error == "EADDRINUSE" else f"cannot be taken ({error})"
        return finding(
            PORT,
            Status.FAIL,
            f"Port {number} on {observed.me.get('host')} {what}" + (f" by {held}" if held else ""),
            f"The rendezvous port ({plan.get('port_source')}) must be free on node 0. "
            + ("A port below 1024 needs root. " if error == "EACCES" else "")
            + "Stop what holds it, or give every node another --master-port (XLADOCTOR_COLLECTIVE_PORT in the gate).",
            dict(evidence, error=error, holders=holders),
            [f"ss -ltnp 'sport = :{number}'"],
        )
    if roll.get("role") == "member" and not roll.get("reply") and roll.get("connect_error"):
        number = roll_port(observed)
        error = str(roll["connect_error"])
        return finding(
            PORT,
            Status.FAIL,
            f"Port {number} of {plan.get('master_addr')} is unreachable from {observed.me.get('host')} ({error})",
            _CONNECT_WHY.get(error, error).capitalize() + ".",
            dict(evidence, error=error),
            [f"nc -vz {shlex.quote(str(plan.get('master_addr')))} {number}"],
        )
    tail = "\n".join((observed.launcher or {}).get("tail") or [])
    if "EADDRINUSE" in tail or "address already in use" in tail:
        line = next(x for x in tail.splitlines() if "EADDRINUSE" in x or "address already in use" in x)
        return finding(
            PORT,
            Status.FAIL,
            f"torchrun could not listen on port {number}: already in use",
            first_line(line),
            evidence,
            [f"ss -ltnp 'sport = :{number}'"],
        )
    if not number:
        return finding(PORT, Status.SKIP, "Rendezvous port: not chosen", "Skipped because nothing was launched.")
    roll_at = plan.get("roll_port")
    if roll_at and roll_at != number:
        return finding(
            PORT,
            Status.OK,
            f"Port {roll_at} (the roll call's; torchrun's agent store is on {number}) was free and reachable",
            evidence=dict(evidence, roll_port=roll_at),
        )
    return finding(
        PORT, Status.OK, f"Port {number} ({plan.get('port_source')}) was free and reachable", evidence=evidence
    )


def world(observed: Observed) -> Finding:
    conflicts = ((observed.roll or {}).get("reply") or {}).get("conflicts") or {}
    fatal, soft = list(conflicts.get("fatal") or []), list(conflicts.get("soft") or [])
    views = {int(r["rank"]): r.get("world_size") for r in observed.records if isinstance(r.get("rank"), int)}
    sizes = sorted({v for v in views.values() if v is not None})
    if len(sizes) > 1:
        fatal.append(
            "the ranks' WORLD_SIZE differs: "
            + ", ".join(
                f"{listing(rank_names(observed.records, [r for r, v in views.items() if v == s]))} say {s}"
                for s in sizes
            )
        )
    evidence = {"conflicts": fatal + soft, "world_sizes": sizes}
    if fatal:
        return finding(
            WORLD,
            Status.FAIL,
            f"The {noun(observed)}s disagree about the job: {fatal[0]}",
            "\n".join(
                [
                    "Every node must be started with the same --nnodes and a rank of its own "
                    "(0 ... N-1, each once); the launcher's variables must agree.",
                    *fatal,
                    *soft,
                ]
            ),
            evidence,
        )
    if soft:
        return finding(
            WORLD,
            Status.WARN,
            soft[0][0].upper() + soft[0][1:],
            "\n".join(
                [
                    "The job forms, but not as the nodes may mean: torchrun accepts different process counts per "
                    "node (the world is then not nodes x processes), and xladoctor releases may not read each "
                    "other's messages.",
                    *soft,
                ]
            ),
            evidence,
        )
    if not views:
        return finding(WORLD, Status.SKIP, "World size: not observed", "Skipped because no rank ran.")
    size = sizes[0] if sizes else None
    # ranks that never reported are the rendezvous finding's subject; here only the views must agree
    return finding(WORLD, Status.OK, f"Every rank that reported sees world size {size}", evidence=evidence)
