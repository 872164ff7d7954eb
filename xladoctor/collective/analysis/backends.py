"""The collectives themselves, per backend: errors, wrong numbers, timing; what each rank really loaded; how each
node's launcher ended."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xladoctor.collective.analysis.common import finding, first_line, listing, process_name, who
from xladoctor.collective.availability import XLA_CPU_NOTE
from xladoctor.collective.messages.outcome import StopCause
from xladoctor.collective.messages.records import JaxRecord, OpResult, RankError, RankRecord
from xladoctor.collective.observed import Observed, Unit
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


Taker = RankRecord | JaxRecord  # a torch rank, or a JAX process


@dataclass(frozen=True)
class OpRow:
    """One collective of one backend across the job: how many ranks ran it and how many got it right, its size,
    the slowest rank's median time and the lowest bus bandwidth."""

    backend: str
    op: str
    ranks: int
    correct: int
    bytes: float | None
    slowest_median_s: float | None
    lowest_busbw_gbps: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "op": self.op,
            "ranks": self.ranks,
            "correct": self.correct,
            "bytes": self.bytes,
            "slowest_median_s": self.slowest_median_s,
            "lowest_busbw_gbps": self.lowest_busbw_gbps,
        }


def _takers(observed: Observed, backend: str) -> Sequence[Taker]:
    return observed.jax if backend == "jax" else observed.records


def _ops(record: Taker, backend: str) -> tuple[OpResult, ...]:
    if isinstance(record, JaxRecord):
        return record.ops
    entry = record.backend(backend)
    return entry.ops if entry is not None else ()


def _cause(message: str) -> str | None:
    return next((why for needle, why in _CAUSES if needle in message), None)


def summary_rows(observed: Observed, backend: str) -> list[OpRow]:
    """Per op: how many ranks ran it, how many were right, the slowest rank's median time, the lowest bus bandwidth."""
    rows = []
    for op in OPS:
        runs = [item for record in _takers(observed, backend) for item in _ops(record, backend) if item.op == op]
        if not runs:
            continue
        times = [r.median_s for r in runs if r.median_s is not None]
        busbw = [r.busbw_gbps for r in runs if r.busbw_gbps is not None]
        rows.append(
            OpRow(
                backend,
                op,
                len(runs),
                sum(1 for r in runs if r.ok),
                runs[0].bytes,
                max(times) if times else None,
                min(busbw) if busbw and op != "barrier" else None,
            )
        )
    return rows


def _number(value: float | None) -> float | None:
    """4.0 stays 4.0 (a value), but a count reads 524288, not 524288.0."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) >= 1000 else value


def _wrong(observed: Observed, backend: str) -> list[str]:
    lines = []
    for record in _takers(observed, backend):
        for item in _ops(record, backend):
            if item.ok is False:
                got, want = _number(item.got), _number(item.expected)
                where = (
                    f"element {item.first_bad_index} is {got}, expected {want}"
                    if item.first_bad_index is not None
                    else f"{got} elements came back, expected {want}"
                )
                lines.append(f"{item.op} on {process_name(record)}: {where}")
    return lines


_ENFORCE = re.compile(r"^\[enforce fail at [^\]]*\]\s*(?:[^.]*(?:!=|==)[^.]*\.\s*)?")


def short_error(message: str | None) -> str:
    """The words of an error that say what went wrong: gloo's `[enforce fail at FILE:LINE] COND. ` prefix dropped."""
    return _ENFORCE.sub("", first_line(message))


def _error(record: Taker, backend: str) -> RankError | None:
    """What stopped this rank's part in the backend: its own error (a JAX process's record's)."""
    if isinstance(record, JaxRecord):
        return record.error
    entry = record.backend(backend)
    if entry is not None and entry.error is not None:
        return entry.error
    if backend == "gloo" and record.error is not None and record.error.phase in ("init", "gather"):
        return record.error  # gloo is the default group: its init and the gather are gloo's too
    return None


def _errors(observed: Observed, backend: str) -> list[tuple[str, list[str], str]]:
    """(error, the ranks that met it, its cause): one group per distinct error."""
    groups: dict[str, list[str]] = {}
    causes: dict[str, str] = {}
    for record in _takers(observed, backend):
        error = _error(record, backend)
        if error is not None:
            text = f"{error.type}: {short_error(error.message)}"
            groups.setdefault(text, []).append(process_name(record))
            causes[text] = _cause(str(error.message)) or ""
    return [(text, holders, causes[text]) for text, holders in groups.items()]


def _unfinished(observed: Observed, backend: str) -> list[str]:
    """Ranks that started the backend but never finished (killed at the deadline, or hung)."""
    lines = []
    for record in _takers(observed, backend):
        phase = record.phase
        ran = isinstance(record, JaxRecord) or record.backend(backend) is not None
        if ran and phase not in FINAL_PHASES and phase != "gather" and record.error is None:
            peer = stopped_by(observed, record.unit)
            why = f" when {who(observed, peer.unit)} failed" if peer is not None and peer.unit is not None else ""
            lines.append(f"{process_name(record)} {'was ' if why else ''}stopped in phase {phase}{why}")
    return lines


def stopped_by(observed: Observed, unit: int | None) -> StopCause | None:
    """The peer whose failure made node 0 (or this node) stop a unit's launch early, if that is how it ended."""
    for item in observed.units:
        if item.unit == unit:
            launcher = item.outcome.launcher if item.outcome is not None else None
            return launcher.stopped_by if launcher is not None else None
    return None


def _xla_world(observed: Observed) -> str | None:
    for record in observed.records:
        entry = record.backend("xla")
        if entry is not None and entry.world_size is not None and entry.world_size != record.world_size:
            device = entry.pjrt_device or "unset"
            note = f" {XLA_CPU_NOTE}." if device.upper() in ("CPU", "UNSET") else ""
            return (
                f"torch_xla formed a world of {entry.world_size} in a job of {record.world_size} "
                f"processes (PJRT_DEVICE={device}); its collectives did not cross processes.{note}"
            )
    return None


def removed_by(observed: Observed) -> dict[str, list[tuple[str, str]]]:
    """backend -> (node, why) for each other node that could not run it (the roll call's agreement)."""
    reply = observed.roll.reply if observed.roll is not None else None
    removed = reply.removed if reply is not None else {}
    return {name: [(who(observed, item.unit or 0), str(item.why)) for item in items] for name, items in removed.items()}


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
        if name in observed.plan.backends:
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
    evidence = {"ops": [row.to_json() for row in rows]}
    stopped = [r for r in observed.records if r.phase == "stopped"]
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
    ranks = max(r.ranks for r in rows)
    reduce = next((r for r in rows if r.op == "all_reduce"), None)
    speed = ""
    if reduce and reduce.slowest_median_s:
        size = (reduce.bytes or 0) / (1 << 20)
        bus = reduce.lowest_busbw_gbps
        speed = f"; all_reduce of {size:.0f} MiB in {reduce.slowest_median_s * 1e3:.1f} ms" + (
            f" (bus bandwidth {bus:.2f} GB/s)" if bus else ""
        )
    return finding(
        fid,
        Status.OK,
        f"{name}: {', '.join(r.op for r in rows)} correct on {ranks} "
        f"{'processes' if name == 'jax' else 'ranks'}{speed}",
        evidence=evidence,
    )


_VERSION_KEYS = ("python", "torch", "cuda", "nccl", "torch_xla", "jax", "jaxlib")


def runtime_skew(observed: Observed) -> Finding:
    """What each rank really loaded (torch.__version__, torch.version.cuda, torch.cuda.nccl.version(), ...)."""
    values: dict[str, dict[str, list[str]]] = {}
    takers: list[Taker] = [*observed.records, *observed.jax]
    for record in takers:
        label = process_name(record)
        for key in _VERSION_KEYS:
            value = record.versions.get(key)
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
            if observed.backends and observed.roll is not None and observed.roll.role == "host":
                problems.append(
                    f"{who(observed, unit.unit)} sent no outcome: its xladoctor was stopped or lost the "
                    "connection to node 0"
                )
            continue
        if outcome.malformed:
            problems.append(f"{who(observed, unit.unit)} sent an outcome node 0 cannot read: {outcome.malformed}")
            continue
        launcher = outcome.launcher
        if launcher is None or not launcher.failed:
            continue
        peer = launcher.stopped_by
        if peer is not None and peer.unit is not None:
            explained.append(f"{who(observed, unit.unit)}: stopped early, when {who(observed, peer.unit)} failed")
            continue
        ranks = [r for r in observed.records if r.unit == unit.unit]
        open_ranks = [r for r in ranks if r.phase not in FINAL_PHASES]
        tail = [line for line in launcher.tail if line.strip()]
        error_line = next(
            (line for line in reversed(tail) if "Error" in line or "error:" in line), tail[-1] if tail else ""
        )
        text = f"{who(observed, unit.unit)}: torchrun {launcher.ended}"
        if not ranks or open_ranks or launcher.timed_out:
            phases = listing([f"rank {r.rank} in {r.phase}" for r in open_ranks]) if open_ranks else ""
            problems.append(
                text + (f"; {phases}" if phases else "") + (f": {first_line(error_line)}" if error_line else "")
            )
        else:
            explained.append(text + " (a check above failed)")
    evidence = {"launchers": {str(u.unit): _launcher_json(u) for u in observed.units}}
    if problems:
        return finding(LAUNCH, Status.FAIL, first_line(problems[0], 200), "\n".join(problems + explained), evidence)
    if not any(u.outcome is not None and u.outcome.launcher is not None for u in observed.units):
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


def _launcher_json(unit: Unit) -> dict[str, Any] | None:
    launcher = unit.outcome.launcher if unit.outcome is not None else None
    return launcher.to_json() if launcher is not None else None


def _formed(observed: Observed) -> bool:
    """Whether the job got as far as the launch (its roll call, if any, said go)."""
    roll = observed.roll
    if roll is None:
        return True
    if roll.bind_error:
        return False
    return roll.go if roll.role in ("host", "member") else True


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
