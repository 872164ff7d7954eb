"""What the ranks write (scripts/_xladoctor_collective_worker.py: rank-<R>.json) and JAX's processes
(scripts/_xladoctor_collective_jax.py: jax-<ID>.json), parsed where they are read: this node's files (launch.py,
jaxrun.py), what rank 0 gathered, another node's outcome (its shape checked first: shapes.py), a fixture. Each keeps
the record as it was written (`raw`, without what rank 0 gathered): the report shows every rank's own record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xladoctor.collective.messages.read import Fields, Scalar
from xladoctor.collective.messages.shapes import RECORD, problem


@dataclass(frozen=True)
class RankError:
    """What a rank (or one backend of it) failed with."""

    type: str | None
    message: str | None
    phase: str | None = None  # the phase the rank was in; None for a backend's own error

    @staticmethod
    def parse(value: object) -> RankError | None:
        found = Fields(value)
        return RankError(found.text("type"), found.text("message"), found.text("phase")) if found else None


@dataclass(frozen=True)
class OpResult:
    """One collective as one rank ran it: right or wrong (where, what), and how fast."""

    op: str | None
    ok: bool | None
    bytes: float | None
    median_s: float | None
    busbw_gbps: float | None
    first_bad_index: int | None = None
    expected: float | None = None
    got: float | None = None

    @staticmethod
    def parse(found: Fields) -> OpResult:
        return OpResult(
            found.text("op"),
            found.flag("ok"),
            found.number("bytes"),
            found.number("median_s"),
            found.number("busbw_gbps"),
            found.integer("first_bad_index"),
            found.number("expected"),
            found.number("got"),
        )


def _ops(found: Fields) -> tuple[OpResult, ...]:
    return tuple(OpResult.parse(item) for item in found.objects("ops"))


@dataclass(frozen=True)
class BackendResult:
    """One backend's part of a rank's record: its world, its collectives, or the error that stopped it."""

    backend: str | None
    world_size: int | None
    pjrt_device: str | None  # torch_xla's PJRT_DEVICE as the rank saw it
    ops: tuple[OpResult, ...]
    error: RankError | None

    @staticmethod
    def parse(found: Fields) -> BackendResult:
        return BackendResult(
            found.text("backend"),
            found.integer("world_size"),
            found.text("pjrt_device"),
            _ops(found),
            RankError.parse(found.value("error")),
        )


@dataclass(frozen=True)
class StoreVerdict:
    """Rank 0's word on the ranks' own hello through the rendezvous store (who never said it, how long it waited)."""

    go: bool | None
    missing: tuple[int, ...]
    waited_s: float | None
    waited_on: str | None


@dataclass(frozen=True)
class RankRecord:
    """One torch rank's record."""

    rank: int
    unit: int | None  # the node (or rank) of the roll call it belongs to; older records give only their node rank
    host: str | None
    phase: str | None  # the last phase it reached: import, store, hello, init, backend-*, gather, done, failed, ...
    error: RankError | None
    world_size: int | None
    backends: tuple[BackendResult, ...]
    store_verdict: StoreVerdict | None  # rank 0's verdict on the store's hello, as this rank heard it
    versions: Mapping[str, Scalar]  # what it really loaded: python, torch, cuda, nccl, torch_xla
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def parse(value: object) -> RankRecord | None:
        """None when it names no rank (a half-written or foreign file)."""
        found = Fields(value)
        rank = found.integer("rank")
        if rank is None:
            return None
        verdict = found.obj("hello").obj("verdict")
        return RankRecord(
            rank,
            found.integer("unit") if "unit" in found else found.integer("node_rank"),
            found.text("host"),
            found.text("phase"),
            RankError.parse(found.value("error")),
            found.integer("world_size"),
            tuple(BackendResult.parse(item) for item in found.objects("backends")),
            StoreVerdict(
                verdict.flag("go"), verdict.integers("missing"), verdict.number("waited_s"), verdict.text("waited_on")
            )
            if verdict
            else None,
            found.scalar_map("versions"),
            {k: v for k, v in found.raw.items() if k != "gathered"},
        )

    def backend(self, name: str) -> BackendResult | None:
        return next((b for b in self.backends if b.backend == name), None)


@dataclass(frozen=True)
class Gathered:
    """One rank's record as rank 0 gathered it through the process group, with its node's snapshot (one per node)."""

    record: RankRecord
    snapshot: str | None  # the snapshot's JSON text, sent by the node's local rank 0


def gathered_by(value: object) -> tuple[Gathered, ...]:
    """What rank 0's record says it gathered; each record's shape is checked as an outcome's records are (it came
    from every node's ranks)."""
    found = Fields(value)
    items = []
    for item in found.objects("gathered"):
        record = RankRecord.parse(item.value("record")) if problem(item.value("record"), RECORD) is None else None
        if record is not None:
            snapshot = item.value("facts")
            items.append(Gathered(record, snapshot if isinstance(snapshot, str) and snapshot else None))
    return tuple(items)


@dataclass(frozen=True)
class JaxRecord:
    """One JAX process's record."""

    process_id: int
    unit: int | None
    host: str | None
    phase: str | None
    error: RankError | None
    ops: tuple[OpResult, ...]
    versions: Mapping[str, Scalar]  # python, jax, jaxlib
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def parse(value: object) -> JaxRecord | None:
        found = Fields(value)
        process_id = found.integer("process_id")
        if process_id is None:
            return None
        return JaxRecord(
            process_id,
            found.integer("unit"),
            found.text("host"),
            found.text("phase"),
            RankError.parse(found.value("error")),
            _ops(found),
            found.scalar_map("versions"),
            dict(found.raw),
        )


def rank_records(values: object) -> tuple[RankRecord, ...]:
    """The records of a list that name their rank."""
    found = [RankRecord.parse(v) for v in values] if isinstance(values, list | tuple) else []
    return tuple(r for r in found if r is not None)


def jax_records(values: object) -> tuple[JaxRecord, ...]:
    found = [JaxRecord.parse(v) for v in values] if isinstance(values, list | tuple) else []
    return tuple(r for r in found if r is not None)
