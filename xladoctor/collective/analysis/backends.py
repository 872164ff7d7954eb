"""The collectives themselves, per backend: errors, wrong numbers, timing; what each rank really loaded; how each
node's launcher ended."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from xladoctor.collective.analysis.common import finding, first_line, listing, who
from xladoctor.collective.availability import XLA_CPU_NOTE
from xladoctor.collective.observed import Observed
from xladoctor.findings import Finding, Status

OPS = ("all_reduce", "all_gather", "broadcast", "barrier")
RUNTIME = "collective-runtime-skew"
TESTED = "collective-backends"
LAUNCH = "collective-launch"
FINAL_PHASES = ("done", "failed", "stopped")
# What an error says about its cause (the texts are gloo's, c10d's and NCCL's own, as quoted)
_CAUSES = (
    (
        "Unable to find address for",
        "GLOO_SOCKET_IFNAME names an interface this host does not have (see collective-socket-ifname)",
    ),  # gloo/transport/tcp/device.cc (torch 2.9.0's gloo), seen here
    (
        "connectFullMesh failed",
        "the gloo ranks could not connect to each other: an address they advertise is not "
        "reachable (a host name that resolves to a loopback address) or a firewall blocks the ports gloo opens",
    ),
    ("Connection refused", "a peer refused the connection: it is gone, or the address it advertised is not its own"),
    ("Connection reset by peer", "a peer went away in the middle of the collective (it crashed or was killed)"),
    ("Timed out", "a peer did not take part in time: it hangs, died, or cannot be reached"),
    ("NCCL error", "NCCL failed: its own diagnostics below (collective-nccl-diagnostics) say where"),
)


def backend_id(name: str) -> str:
    return f"collective-{name}"


def _records_for(observed: Observed, backend: str) -> list[Mapping[str, Any]]:
    if backend == "jax":
        return list(observed.jax)
    return list(observed.records)


def _entry(record: Mapping[str, Any], backend: str) -> Mapping[str, Any] | None:
    if backend == "jax":
        return record if record.get("phase") in ("collectives", "done", "failed") or record.get("ops") else None
    return next((b for b in record.get("backends") or [] if b.get("backend") == backend), None)


def _who_rank(record: Mapping[str, Any], backend: str) -> str:
    number = record.get("process_id") if backend == "jax" else record.get("rank")
    label = "process" if backend == "jax" else "rank"
    return f"{label} {number}" + (f" ({record.get('host')})" if record.get("host") else "")


def _cause(message: str) -> str | None:
    return next((why for needle, why in _CAUSES if needle in message), None)


def summary_rows(observed: Observed, backend: str) -> list[dict[str, Any]]:
    """Per op: how many ranks ran it, how many were right, the slowest rank's median time, the lowest bus bandwidth."""
    rows = []
    for op in OPS:
        runs = []
        for record in _records_for(observed, backend):
            entry = _entry(record, backend)
            for item in (entry or {}).get("ops") or []:
                if item.get("op") == op:
                    runs.append(item)
        if not runs:
            continue
        times = [r["median_s"] for r in runs if isinstance(r.get("median_s"), (int, float))]
        busbw = [r["busbw_gbps"] for r in runs if isinstance(r.get("busbw_gbps"), (int, float))]
        rows.append(
            {
                "backend": backend,
                "op": op,
                "ranks": len(runs),
                "correct": sum(1 for r in runs if r.get("ok")),
                "bytes": runs[0].get("bytes"),
                "slowest_median_s": max(times) if times else None,
                "lowest_busbw_gbps": min(busbw) if busbw and op != "barrier" else None,
            }
        )
    return rows


def _number(value: Any) -> Any:
    """4.0 stays 4.0 (a value), but a count reads 524288, not 524288.0."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) >= 1000 else value


def _wrong(observed: Observed, backend: str) -> list[str]:
    lines = []
    for record in _records_for(observed, backend):
        for item in (_entry(record, backend) or {}).get("ops") or []:
            if item.get("ok") is False:
                got, want = _number(item.get("got")), _number(item.get("expected"))
                where = (
                    f"element {item.get('first_bad_index')} is {got}, expected {want}"
                    if item.get("first_bad_index") is not None
                    else f"{got} elements came back, expected {want}"
                )
                lines.append(f"{item.get('op')} on {_who_rank(record, backend)}: {where}")
    return lines


_ENFORCE = re.compile(r"^\[enforce fail at [^\]]*\]\s*(?:[^.]*(?:!=|==)[^.]*\.\s*)?")


def short_error(message: str | None) -> str:
    """The words of an error that say what went wrong: gloo's `[enforce fail at FILE:LINE] COND. ` prefix dropped."""
    return _ENFORCE.sub("", first_line(message))


def _errors(observed: Observed, backend: str) -> list[tuple[str, list[str], str]]:
    """(error, the ranks that met it, its cause): one group per distinct error."""
    groups: dict[str, list[str]] = {}
    causes: dict[str, str] = {}
    for record in _records_for(observed, backend):
        entry = _entry(record, backend) or {}
        error = entry.get("error") if backend != "jax" else record.get("error")
        if not error and backend == "gloo" and (record.get("error") or {}).get("phase") in ("init", "gather"):
            error = record["error"]  # gloo is the default group: its init and the gather are gloo's too
        if error:
            text = f"{error.get('type')}: {short_error(error.get('message'))}"
            groups.setdefault(text, []).append(_who_rank(record, backend))
            causes[text] = _cause(str(error.get("message"))) or ""
    return [(text, holders, causes[text]) for text, holders in groups.items()]


def _unfinished(observed: Observed, backend: str) -> list[str]:
    """Ranks that started the backend but never finished (killed at the deadline, or hung)."""
    lines = []
    for record in _records_for(observed, backend):
        phase = record.get("phase")
        ran = (backend == "jax") or any(b.get("backend") == backend for b in record.get("backends") or [])
        if ran and phase not in FINAL_PHASES and phase != "gather" and not record.get("error"):
            peer = stopped_by(observed, record.get("unit", record.get("node_rank")))
            why = (
                f" when {who(observed, int(peer['unit']))} failed" if peer and isinstance(peer.get("unit"), int) else ""
            )
            lines.append(f"{_who_rank(record, backend)} {'was ' if why else ''}stopped in phase {phase}{why}")
    return lines


def stopped_by(observed: Observed, unit: Any) -> Mapping[str, Any] | None:
    """The peer whose failure made node 0 (or this node) stop a unit's launch early, if that is how it ended."""
    for item in observed.units:
        if item.unit == unit:
            launcher = (item.outcome or {}).get("launcher") or {}
            found = launcher.get("stopped_by")
            return found if isinstance(found, Mapping) else None
    return None


def _xla_world(observed: Observed) -> str | None:
    for record in observed.records:
        entry = _entry(record, "xla")
        if entry and entry.get("world_size") is not None and entry.get("world_size") != record.get("world_size"):
            device = entry.get("pjrt_device") or "unset"
            note = f" {XLA_CPU_NOTE}." if device.upper() in ("CPU", "UNSET") else ""
            return (
                f"torch_xla formed a world of {entry.get('world_size')} in a job of {record.get('world_size')} "
                f"processes (PJRT_DEVICE={device}); its collectives did not cross processes.{note}"
            )
    return None


def removed_by(observed: Observed) -> dict[str, list[tuple[str, str]]]:
    """backend -> (node, why) for each other node that could not run it (the roll call's agreement)."""
    removed = ((observed.roll or {}).get("reply") or {}).get("removed") or {}
    return {
        name: [(who(observed, int(item.get("unit") or 0)), str(item.get("why"))) for item in items]
        for name, items in removed.items()
    }


def backend(observed: Observed, name: str) -> Finding:
    fid = backend_id(name)
    if name in observed.impossible:
        return finding(fid, Status.FAIL, f"{name} was asked for, but cannot run here: {observed.skipped.get(name)}")
    if name in observed.skipped:
        return finding(fid, Status.SKIP, f"{name}: not tested", f"Skipped because {observed.skipped[name]}.")
    elsewhere = removed_by(observed).get(name)
    if elsewhere and name not in observed.backends:
        lines = [f"{node}: {why}" for node, why in elsewhere]
        nodes = listing([node for node, _ in elsewhere])
        if name in (observed.plan.get("backends") or ()):
            return finding(
                fid,
                Status.FAIL,
                f"{name} was asked for, but {nodes} cannot run it: {elsewhere[0][1]}",
                "\n".join(lines),
                {"removed_by": lines},
            )
        return finding(
            fid,
            Status.SKIP,
            f"{name}: not tested",
            f"Skipped because {nodes} cannot run it:\n" + "\n".join(lines),
            {"removed_by": lines},
        )
    if name not in observed.backends:
        return finding(
            fid, Status.SKIP, f"{name}: not run", "Skipped because the job did not form (see collective-rendezvous)."
        )
    rows = summary_rows(observed, name)
    evidence = {"ops": rows}
    stopped = [r for r in observed.records if r.get("phase") == "stopped"]
    if stopped and not rows and name != "jax":
        return finding(
            fid,
            Status.SKIP,
            f"{name}: not run",
            "Skipped because rank 0 stopped the job before the "
            "process group: not every rank said hello (see collective-rendezvous).",
        )
    wrong, errors, unfinished = _wrong(observed, name), _errors(observed, name), _unfinished(observed, name)
    world_note = _xla_world(observed) if name == "xla" else None
    if world_note or wrong or errors or unfinished:
        lines = [x for x in (world_note,) if x]
        lines += [f"{listing(who_list)}: {text}" + (f" ({cause})" if cause else "") for text, who_list, cause in errors]
        lines += wrong + unfinished
        if errors:
            text, who_list, _ = errors[0]
            title = f"{name} failed on {listing(who_list, 3)}: {first_line(text, 140)}"
        elif world_note:
            title = f"{name}: {first_line(world_note.split(';')[0], 160)}"
        elif wrong:
            title = f"{name} returned wrong numbers: {first_line(wrong[0], 160)}"
        else:
            title = f"{name} did not finish: {first_line(unfinished[0], 160)}"
        return finding(
            fid,
            Status.FAIL,
            title,
            "\n".join(lines),
            evidence,
            refs=("https://github.com/pytorch/xla/issues/9089",) if world_note else (),
        )
    if not rows:
        return finding(
            fid,
            Status.FAIL,
            f"{name}: no rank reported a result",
            "The ranks ended before their first collective (see collective-launch).",
            evidence,
        )
    ranks = max(r["ranks"] for r in rows)
    reduce = next((r for r in rows if r["op"] == "all_reduce"), None)
    speed = ""
    if reduce and reduce.get("slowest_median_s"):
        size = (reduce.get("bytes") or 0) / (1 << 20)
        bus = reduce.get("lowest_busbw_gbps")
        speed = f"; all_reduce of {size:.0f} MiB in {reduce['slowest_median_s'] * 1e3:.1f} ms" + (
            f" (bus bandwidth {bus:.2f} GB/s)" if bus else ""
        )
    return finding(
        fid,
        Status.OK,
        f"{name}: {', '.join(r['op'] for r in rows)} correct on {ranks} "
        f"{'processes' if name == 'jax' else 'ranks'}{speed}",
        evidence=evidence,
    )


_VERSION_KEYS = ("python", "torch", "cuda", "nccl", "torch_xla", "jax", "jaxlib")


def runtime_skew(observed: Observed) -> Finding:
    """What each rank really loaded (torch.__version__, torch.version.cuda, torch.cuda.nccl.version(), ...)."""
    values: dict[str, dict[str, list[str]]] = {}
    for record in [*observed.records, *observed.jax]:
        label = _who_rank(record, "jax" if "process_id" in record else "torch")
        for key in _VERSION_KEYS:
            value = (record.get("versions") or {}).get(key)
            if value is not None:
                values.setdefault(key, {}).setdefault(str(value), []).append(label)
    skewed = {k: v for k, v in values.items() if len(v) > 1}
    evidence = {k: {value: holders for value, holders in v.items()} for k, v in values.items()}
    if not values:
        return finding(RUNTIME, Status.SKIP, "Loaded versions: not reported", "Skipped because no rank ran.")
    if skewed:
        lines = []
        for key, groups in skewed.items():
            parts = [f"{listing(holders, 4)} loaded {key} {value}" for value, holders in groups.items()]
            lines.append(f"{key}: " + "; ".join(parts))
        return finding(
            RUNTIME,
            Status.FAIL,
            f"The ranks loaded different {', '.join(skewed)}",
            "\n".join(
                [
                    "What each process really imported differs (the snapshots' comparison, fleet-*, says which "
                    "packages to change).",
                    *lines,
                ]
            ),
            evidence,
        )
    shown = ", ".join(f"{k} {next(iter(v))}" for k, v in values.items())
    return finding(RUNTIME, Status.OK, f"Every rank loaded the same versions: {shown}", evidence=evidence)


def launch(observed: Observed) -> Finding:
    """How each node's torchrun (or lone worker) ended, and the nodes that never said."""
    problems: list[str] = []
    explained: list[str] = []
    for unit in observed.units:
        outcome = unit.outcome
        if outcome is None:
            if observed.backends and observed.roll and observed.roll.get("role") == "host":
                problems.append(
                    f"{who(observed, unit.unit)} sent no outcome: its xladoctor was stopped or lost the "
                    "connection to node 0"
                )
            continue
        if outcome.get("malformed"):
            problems.append(f"{who(observed, unit.unit)} sent an outcome node 0 cannot read: {outcome['malformed']}")
            continue
        launcher = outcome.get("launcher")
        if not launcher or launcher.get("ok", True):
            continue
        peer = launcher.get("stopped_by")
        if isinstance(peer, Mapping) and isinstance(peer.get("unit"), int):
            explained.append(f"{who(observed, unit.unit)}: stopped early, when {who(observed, peer['unit'])} failed")
            continue
        ranks = [r for r in observed.records if r.get("unit", r.get("node_rank")) == unit.unit]
        open_ranks = [r for r in ranks if r.get("phase") not in FINAL_PHASES]
        tail = [line for line in launcher.get("tail") or [] if line.strip()]
        error_line = next(
            (line for line in reversed(tail) if "Error" in line or "error:" in line), tail[-1] if tail else ""
        )
        text = f"{who(observed, unit.unit)}: torchrun {launcher.get('ended')}"
        if not ranks or open_ranks or launcher.get("timed_out"):
            phases = listing([f"rank {r.get('rank')} in {r.get('phase')}" for r in open_ranks]) if open_ranks else ""
            problems.append(
                text + (f"; {phases}" if phases else "") + (f": {first_line(error_line)}" if error_line else "")
            )
        else:
            explained.append(text + " (a check above failed)")
    evidence = {"launchers": {str(u.unit): (u.outcome or {}).get("launcher") for u in observed.units}}
    if problems:
        return finding(LAUNCH, Status.FAIL, first_line(problems[0], 200), "\n".join(problems + explained), evidence)
    if not any(u.outcome and u.outcome.get("launcher") for u in observed.units):
        return finding(LAUNCH, Status.SKIP, "Launch: nothing was started", "Skipped because the job did not form.")
    if explained:
        return finding(
            LAUNCH,
            Status.OK,
            "Every launcher ended; a non-zero status comes from a failure above",
            "\n".join(explained),
            evidence,
        )
    return finding(LAUNCH, Status.OK, "Every launcher ended cleanly", evidence=evidence)


def _formed(observed: Observed) -> bool:
    """Whether the job got as far as the launch (its roll call, if any, said go)."""
    roll = observed.roll or {}
    if roll.get("bind_error"):
        return False
    if roll.get("role") in ("host", "member"):
        return bool((roll.get("reply") or {}).get("go"))
    return True


def tested(observed: Observed) -> Finding:
    """A run that tested no backend says so: an environment with neither torch nor jax has nothing to run."""
    if observed.backends:
        return finding(
            TESTED,
            Status.OK,
            f"Tested: {', '.join(observed.backends)}",
            evidence={"tested": list(observed.backends), "skipped": dict(observed.skipped)},
        )
    if not _formed(observed):
        return finding(TESTED, Status.SKIP, "Backends: none run", "Skipped because the job did not form.")
    removed = removed_by(observed)
    reasons = [f"{name}: {why}" for name, why in sorted(observed.skipped.items())]
    reasons += [f"{name}: {node}: {why}" for name, items in sorted(removed.items()) for node, why in items]
    return finding(
        TESTED,
        Status.FAIL,
        "No backend could be tested in this environment" if not removed else "No backend runs on every node",
        "\n".join(["Nothing ran, so nothing about the job's collectives is known.", *reasons]),
        {"skipped": dict(observed.skipped)},
    )
