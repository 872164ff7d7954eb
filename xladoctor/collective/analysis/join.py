"""Did everyone come? The roll call, the ranks' hello, torchrun's own rendezvous; the port; the world size."""

from __future__ import annotations

import re
import shlex

from xladoctor.collective.analysis.common import finding, first_line, listing, noun, rank_names, who
from xladoctor.collective.messages.records import StoreVerdict
from xladoctor.collective.messages.roll import Reply
from xladoctor.collective.observed import Observed, Roll
from xladoctor.findings import Finding, Status
from xladoctor.probes.network import PortHolder
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


def roll_port(observed: Observed) -> int:
    """The port of the roll call (the next one under an outer torchrun, whose agent's store holds the job's)."""
    return (observed.roll.port if observed.roll else 0) or observed.plan.roll_port or observed.plan.master_port


def _missing_hint(observed: Observed, missing: list[int]) -> tuple[str, list[str]]:
    plan = observed.plan
    addr, port = plan.master_addr, roll_port(observed)
    target = f"{addr}:{port}"
    lines = [
        f"On each missing {noun(observed)}: is `xladoctor collective` running there, with the same job (--nnodes "
        f"{plan.nnodes}, its own --node-rank, --master-addr {addr} --master-port {port}), started within the "
        "timeout? Its own one-line status names what it waited on.",
        f"Can it reach {target}? A firewall or security group must let TCP port {port} in on node 0 (and, for "
        "gloo and NCCL, the ephemeral ports they open between all hosts).",
        f"Does {addr} resolve there to node 0's address (not a loopback one)?",
    ]
    commands = [
        f"getent hosts {shlex.quote(addr)}  # on each missing {noun(observed)}",
        f"nc -vz {shlex.quote(addr)} {port}  # on each missing {noun(observed)}, while node 0 waits",
    ]
    return "\n".join(lines), commands


def _roll_host(observed: Observed, roll: Roll) -> Finding:
    if roll.bind_error:
        return finding(
            RENDEZVOUS,
            Status.SKIP,
            "The roll call could not start",
            f"Skipped because port {roll.port} could not be taken ({roll.bind_error}); see {PORT}.",
        )
    reply = roll.reply or Reply(False)
    missing = list(reply.missing)
    units = observed.plan.units
    evidence = {
        "waited_s": reply.waited_s,
        "waited_on": reply.waited_on,
        "missing": missing,
        "joined": sorted(u.unit for u in observed.units if u.joined),
        "strangers": list(reply.strangers),
        "late": [item.to_json() for item in reply.late],
    }
    strangers = list(reply.strangers)
    extra = f"\nAlso connected without a hello node 0 could take: {listing(strangers)}." if strangers else ""
    if missing:
        names = [f"{noun(observed)} {u}" for u in missing]
        hint, commands = _missing_hint(observed, missing)
        late = [
            f"{noun(observed)} {item.unit} ({item.host}) came {item.after_s} s after node 0 "
            "stopped waiting: start the nodes closer together, or give every node a longer --timeout"
            for item in reply.late
        ]
        extra = "".join(f"\n{line}." for line in late) + extra
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"{listing(names)} never joined ({units} expected): {who(observed, 0)} waited "
            f"{reply.waited_s} s on port {roll_port(observed)}",
            hint + extra,
            evidence,
            commands,
        )
    return finding(
        RENDEZVOUS,
        Status.OK,
        f"All {units} {noun(observed)}s joined the roll call in {reply.waited_s} s (port {roll_port(observed)})",
        extra.strip(),
        evidence=evidence,
    )


def _roll_member(observed: Observed, roll: Roll) -> Finding:
    plan = observed.plan
    port = roll_port(observed)
    target = f"{plan.master_addr}:{port}"
    evidence = {
        "waited_s": roll.waited_s,
        "attempts": roll.attempts,
        "connect_error": roll.connect_error,
        "stranger": roll.stranger,
        "no_answer": roll.no_answer,
        "malformed": roll.malformed,
    }
    if roll.stranger:
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"{target} answered, but not as xladoctor: another program listens on that port",
            f"Sent: {roll.stranger!r}. Another process holds port {port} on the master (an old "
            "job's TCPStore, another service); node 0's own report names it. Free the port or pick another.",
            evidence,
        )
    if roll.no_answer == "closed":
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"Node 0 ({target}) closed the connection without answering",
            "Its xladoctor stopped after it took the connection (a crash, Ctrl-C, the OOM killer, its own deadline) "
            "or closed it among too many at once; node 0's own output says which.",
            evidence,
        )
    if roll.no_answer == "timeout":
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"{target} took the connection but sent no answer in {roll.waited_s} s",
            "Node 0's xladoctor answers once every node joined or half its --timeout passed: it is stuck, or another "
            f"program holds port {port} there and waits for words of its own (an old job's "
            "TCPStore does). `ss -ltnp` on node 0 names it.",
            evidence,
        )
    if roll.malformed:
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"Node 0's answer could not be read: {roll.malformed}",
            "Node 0 speaks the roll call, but its reply does not have the shape this xladoctor knows: run the same "
            "xladoctor version on every node.",
            evidence,
        )
    reply = roll.reply
    if reply is None:
        error = str(roll.connect_error or "no answer")
        why = _CONNECT_WHY.get(error, "")
        unassigned = plan.node_rank is None and plan.mode == "node"
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"Could not reach the master {target} from {observed.me.host} for {roll.waited_s} s "
            f"({roll.attempts} attempts; last: {error})",
            (why[0].upper() + why[1:] + "." if why else "")
            + " Node 0's own report says whether it was waiting."
            + (
                f" Without --node-rank, node 0 is the node whose own address is {plan.master_addr}: when no "
                "node has it (a virtual IP, NAT, an elastic or public address), none listens; give --node-rank on "
                "every node."
                if unassigned
                else ""
            ),
            evidence,
            [
                f"getent hosts {shlex.quote(plan.master_addr)}",
                f"nc -vz {shlex.quote(plan.master_addr)} {port}",
            ],
        )
    if reply.refused:
        why = {
            "late": "It came after node 0 stopped waiting (half of node 0's --timeout): start the nodes closer "
            "together, or give every node a longer --timeout.",
            "malformed": "Its hello does not have the shape node 0's xladoctor knows: run the same xladoctor version "
            "on every node.",
        }.get(str(reply.reason), "Another process already joined with the same rank; see its report.")
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"The master refused this {noun(observed)}: {reply.refused}",
            why,
            evidence,
        )
    missing = list(reply.missing)
    if missing:
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"The job is missing {listing([f'{noun(observed)} {u}' for u in missing])}: node 0 "
            f"({reply.waited_on}) waited {reply.waited_s} s",
            "Nothing was started; node 0's report says what to check on the missing ones.",
            evidence,
        )
    return finding(RENDEZVOUS, Status.OK, f"Joined the roll call at {target} in {roll.waited_s} s", evidence=evidence)


def _hello(observed: Observed) -> Finding | None:
    """The ranks' own hello through the rendezvous store (rank 0's verdict), and torchrun's rendezvous errors."""
    verdict = _store_verdict(observed)
    missing = list(verdict.missing)
    if missing:
        stories = []
        recorded = {r.rank for r in observed.records}
        for rank in missing:
            if rank not in recorded:
                stories.append(
                    f"rank {rank} left no record: its process never ran the worker's first line (it hung "
                    "or died while the interpreter started: sitecustomize, a .pth file, the launcher)"
                )
        for record in observed.records:
            if record.rank in missing:
                error = record.error
                said = f": {error.type}: {first_line(error.message)}" if error else ""
                stories.append(f"rank {record.rank} ({record.host}) stopped in phase {record.phase}{said}")
        names = rank_names(observed.records, missing)
        return finding(
            RENDEZVOUS,
            Status.FAIL,
            f"{listing(names)} never said hello: rank 0 ({verdict.waited_on}) waited {verdict.waited_s} s",
            "\n".join(
                [
                    "Their processes started (torchrun's rendezvous passed) but did not reach the store: a crash "
                    "at start-up, a hang in an import, or a launcher that started fewer processes.",
                    *stories,
                ]
            ),
            {"missing_ranks": missing, "waited_s": verdict.waited_s},
        )
    tail = "\n".join(observed.launcher.tail if observed.launcher else ())
    for pattern, why in (
        (_STORE_TIMEOUT, "torchrun's rendezvous on node 0 gave up: not every node's torchrun connected"),
        (_CLIENT_TIMEOUT, "this node's torchrun could not reach the master's rendezvous store"),
    ):
        hit = pattern.search(tail)
        if hit:
            return finding(RENDEZVOUS, Status.FAIL, f"torchrun: {hit.group(0)}", why + ".", {"torchrun": hit.group(0)})
    return None


def _store_verdict(observed: Observed) -> StoreVerdict:
    """Rank 0's verdict on the ranks' hello through the store (empty when rank 0 left none)."""
    rank0 = next((r for r in observed.records if r.rank == 0), None)
    found = rank0.store_verdict if rank0 is not None else None
    return found or StoreVerdict(None, (), None, None)


def rendezvous(observed: Observed) -> Finding:
    roll = observed.roll
    if roll and roll.role == "host":
        result = _roll_host(observed, roll)
    elif roll and roll.role == "member":
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
    world = next((r.world_size for r in observed.records), None)
    if not observed.records:
        return finding(RENDEZVOUS, Status.SKIP, "No rank ran", "Skipped because nothing was launched.")
    verdict = _store_verdict(observed)
    return finding(
        RENDEZVOUS,
        Status.OK,
        f"All {world} ranks said hello through the rendezvous store"
        + (f" in {verdict.waited_s} s" if verdict.waited_s is not None else ""),
    )


def _holder(holder: PortHolder) -> str:
    """'pid 123 (python -m torch.distributed.run ...)': the command on one line, at most 100 characters."""
    command = " ".join(" ".join(redact_argv(list(holder.cmdline))).split()) or holder.name or "?"
    return f"pid {holder.pid} ({clip(command, 100)})"


def port(observed: Observed) -> Finding:
    roll = observed.roll
    plan = observed.plan
    number = plan.master_port or (observed.launcher.port if observed.launcher else None)
    evidence = {"port": number, "source": plan.port_source}
    if roll is not None and roll.bind_error:
        number = roll.port or number
        holders = [{"pid": h.pid, "name": h.name, "cmdline": list(h.cmdline)} for h in roll.holders]
        held = listing([_holder(h) for h in roll.holders]) if roll.holders else ""
        error = roll.bind_error
        what = "is already in use" if error == "EADDRINUSE" else f"cannot be taken ({error})"
        return finding(
            PORT,
            Status.FAIL,
            f"Port {number} on {observed.me.host} {what}" + (f" by {held}" if held else ""),
            f"The rendezvous port ({plan.port_source}) must be free on node 0. "
            + ("A port below 1024 needs root. " if error == "EACCES" else "")
            + "Stop what holds it, or give every node another --master-port (XLADOCTOR_COLLECTIVE_PORT in the gate).",
            dict(evidence, error=error, holders=holders),
            [f"ss -ltnp 'sport = :{number}'"],
        )
    if roll is not None and roll.role == "member" and roll.reply is None and roll.connect_error:
        number = roll_port(observed)
        error = roll.connect_error
        return finding(
            PORT,
            Status.FAIL,
            f"Port {number} of {plan.master_addr} is unreachable from {observed.me.host} ({error})",
            _CONNECT_WHY.get(error, error).capitalize() + ".",
            dict(evidence, error=error),
            [f"nc -vz {shlex.quote(plan.master_addr)} {number}"],
        )
    tail = "\n".join(observed.launcher.tail if observed.launcher else ())
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
    roll_at = plan.roll_port
    if roll_at and roll_at != number:
        return finding(
            PORT,
            Status.OK,
            f"Port {roll_at} (the roll call's; torchrun's agent store is on {number}) was free and reachable",
            evidence=dict(evidence, roll_port=roll_at),
        )
    return finding(PORT, Status.OK, f"Port {number} ({plan.port_source}) was free and reachable", evidence=evidence)


def world(observed: Observed) -> Finding:
    reply = observed.roll.reply if observed.roll else None
    fatal, soft = (list(reply.conflicts.fatal), list(reply.conflicts.soft)) if reply else ([], [])
    views = {r.rank: r.world_size for r in observed.records}
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
