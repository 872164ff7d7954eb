"""What to do next about each kind of hang: the sentences and commands a finding ends with, and its sources."""

from __future__ import annotations

from xladoctor.profile.hang.model import Activity, Collective, RankState
from xladoctor.profile.model import Location

FLIGHT_RECORDER = "https://docs.pytorch.org/tutorials/prototype/flight_recorder_tutorial.html"
COLLECTIVE_ORDER = "https://docs.pytorch.org/docs/stable/distributed.html#collective-functions"
DATALOADER_FORK = "https://docs.pytorch.org/docs/stable/data.html#platform-specific-behaviors"
FORK_WITH_THREADS = "https://docs.python.org/3/library/os.html#os.fork"
OOM_KILLER = "https://www.kernel.org/doc/gorman/html/understand/understand016.html"
_REFS = {
    "hang-collective-mismatch": (COLLECTIVE_ORDER, FLIGHT_RECORDER),
    "hang-collective-skipped": (COLLECTIVE_ORDER, FLIGHT_RECORDER),
    "hang-rank-missing": (COLLECTIVE_ORDER,),
    "hang-rank-died": (OOM_KILLER,),
    "hang-rank-exited": (COLLECTIVE_ORDER,),
    "hang-all-waiting": (FLIGHT_RECORDER,),
    "hang-stuck": (),
    "hang-step-skew": (),
    "hang-compile-in-progress": (),
    "hang-job-moving": (),
}


def refs_for(finding_id: str) -> tuple[str, ...]:
    return _REFS.get(finding_id, ())


def _at(location: Location | None, cwd: str | None) -> str:
    return f" at {location.short(cwd)}" if location else ""


def mismatch(theirs: Collective, ref: Collective, cwd: str | None) -> tuple[str, ...]:
    return (
        "every rank must call the same collectives, with the same sizes, in the same order: look for the branch "
        f"that sent it to {theirs.op}{_at(theirs.location, cwd)} instead of {ref.op}{_at(ref.location, cwd)} (a "
        "condition on the rank, on its data, or on a value that differs between ranks)",
    )


def skipped(rank: RankState, ref: Collective, cwd: str | None) -> tuple[str, ...]:
    return (
        f"the {ref.op}{_at(ref.location, cwd)} sits behind a condition that {rank.label} did not meet: move the "
        "collective out of the condition, or make every rank take the same branch (compute the condition on one "
        "rank and broadcast it)",
    )


def _for_activity(rank: RankState, activity: Activity, cwd: str | None) -> str:
    where = _at(activity.location, cwd)
    kind = activity.kind
    if kind == "data-loader":
        workers = [h for h in rank.helpers if h.role == "DataLoader worker"]
        if any(h.activity.kind == "lock" for h in workers):
            return (
                "a DataLoader worker waits on a lock: a lock held by another thread when the worker was forked "
                "stays locked in the worker for ever; create it in the worker (worker_init_fn), or start the "
                "workers with multiprocessing_context='spawn' (or 'forkserver')"
            )
        if any(h.activity.kind == "io" for h in workers):
            return "a DataLoader worker waits on I/O: check the file system or the service the dataset reads"
        if any(not h.alive for h in workers):
            return "a DataLoader worker is gone: look at its output and the kernel log (the OOM killer)"
        return "look at the dataset's __getitem__ and the DataLoader's workers (py-spy dump --pid WORKER)"
    if kind == "lock":
        return (
            f"a thread holds the lock it waits for{where}, or nobody sets the event it waits for: see its other threads"
        )
    if kind == "io":
        return f"it waits on I/O{where}: check the file system, the network or the process it reads from"
    if kind == "sleep":
        return f"it sleeps{where}: a retry or polling loop whose condition never comes true?"
    if kind == "python":
        return f"it runs Python{where}: a loop that does not end on this rank, or work that only this rank does"
    if kind == "host-sync":
        return f"it waits for the device{where}: the computation before it never finishes"
    if kind == "device":
        return f"it is in the device's computation{where}: a collective inside it waits for the other ranks"
    if kind == "collective":
        return "every rank must call the collectives of every group in the same order"
    if kind == "unknown":
        return "its stack could not be read: see the notes, then `py-spy dump --pid PID` as the process's owner"
    return f"look at what it does{where}"


def missing(rank: RankState, ref: Collective, cwd: str | None) -> tuple[str, ...]:
    return (
        _for_activity(rank, rank.activity, cwd),
        f"every rank must reach {ref.op}{_at(ref.location, cwd)}: a branch on the rank or on its data that only "
        "some ranks take before it is the usual cause",
    )


def stuck(rank: RankState, cwd: str | None) -> tuple[str, ...]:
    return (_for_activity(rank, rank.activity, cwd),)


def died(rank: RankState) -> tuple[str, ...]:
    return (
        f"find out why {rank.label} died on {rank.host}: its own output, and the kernel log for the OOM killer",
        "a rank killed by SIGKILL leaves no traceback; a job whose ranks can die needs torchrun's --max-restarts "
        "or a checkpoint to restart from",
    )


def died_commands() -> tuple[str, ...]:
    return ("journalctl -k --since '-1h' | grep -i -e 'out of memory' -e 'killed process'",)


def exited(rank: RankState, ref: Collective, cwd: str | None) -> tuple[str, ...]:
    return (
        f"{rank.label} left its loop before {ref.op}{_at(ref.location, cwd)}: ranks with different numbers of "
        "batches do that (DistributedSampler(drop_last=True), or the same number of steps on every rank)",
    )


def all_waiting(absent: list[int]) -> tuple[str, ...]:
    if absent:
        return (
            f"run `xladoctor hang --job LAUNCHER_PID` on the host of ranks {', '.join(map(str, absent))}",
            "or check the network between the hosts: xladoctor collective",
        )
    return ("check the network between the ranks (xladoctor collective) and the backend's own logs",)


def compiling() -> tuple[str, ...]:
    return (
        "nothing to do: the first compile of a large model can take minutes; a persistent compile cache "
        "(TORCHINDUCTOR_CACHE_DIR, jax_compilation_cache_dir) makes the next start fast",
    )


def step_skew() -> tuple[str, ...]:
    return ("a rank in another step took another path through the loop: see the findings above",)
