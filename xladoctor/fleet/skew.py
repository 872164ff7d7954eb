"""One property across the workers: the majority value, the outliers, and how bad the difference is."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from xladoctor.facts import Facts
from xladoctor.findings import Status
from xladoctor.fleet.properties import Property, Unknown, Value

MAJORITY_RULE = (
    "The reference value of each property is the one most workers share (a plurality). On a tie it is the "
    "tied value of the first snapshot given (a shell glob gives them sorted; put the worker you trust first), "
    "and the finding says so. Workers whose snapshot cannot tell a value are left out of that comparison."
)


@dataclass(frozen=True)
class Worker:
    """One snapshot in the comparison, named by its file (the path when two files share a name)."""

    label: str
    path: str
    facts: Facts
    # the command that diagnoses this worker alone where `xladoctor check --facts PATH` cannot (a tar member, a line
    # of stdin); empty for a file
    replay: str = ""


@dataclass(frozen=True)
class Comparison:
    """A property's values on the workers whose snapshot tells it."""

    prop: Property
    values: tuple[tuple[str, str | None], ...]  # (worker label, value), in the order given
    reference: str | None  # the majority value
    reference_worker: str  # the first worker that holds it
    tie: bool
    outliers: tuple[str, ...]  # labels of the workers that differ from the reference
    status: Status

    def value_of(self, label: str) -> str | None:
        return dict(self.values)[label]


def _status(prop: Property, values: Sequence[str | None]) -> Status:
    """A property's own status, but a warning when the values differ only below its series (3.11.7/3.11.9)."""
    present = [v for v in values if v is not None]
    if prop.series is not None and len(present) == len(values) and len({prop.series(v) for v in present}) == 1:
        return Status.WARN
    return prop.status


def compare(prop: Property, workers: Sequence[Worker]) -> Comparison | None:
    """Compare one property; None when fewer than two workers' snapshots tell its value."""
    return compare_values(prop, [(worker.label, prop.read(worker.facts)) for worker in workers])


def compare_values(prop: Property, values: Sequence[tuple[str, Value]]) -> Comparison | None:
    """Compare one property's values, read already (label, value) in the order given; None when fewer than two
    workers' snapshots tell it."""
    known = [(label, value) for label, value in values if not isinstance(value, Unknown)]
    if len(known) < 2:
        return None
    counts = Counter(v for _, v in known)
    top = max(counts.values())
    leaders = {v for v, n in counts.items() if n == top}
    reference_worker, reference = next((label, v) for label, v in known if v in leaders)
    outliers = tuple(label for label, v in known if v != reference)
    status = _status(prop, [v for _, v in known]) if outliers else Status.OK
    return Comparison(prop, tuple(known), reference, reference_worker, len(leaders) > 1, outliers, status)


def names(labels: Sequence[str], limit: int = 8) -> str:
    """'a.json', 'a.json and b.json', 'a.json, b.json and c.json', ... 'and 12 more'."""
    shown = list(labels[:limit])
    if len(labels) > limit:
        shown.append(f"{len(labels) - limit} more")
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def describe(comparison: Comparison) -> str:
    """'worker-3.json has torch_xla 2.8.0; 7 others have 2.9.0.' and, on a tie, which value was taken."""
    prop = comparison.prop
    groups: dict[str | None, list[str]] = {}
    for label in comparison.outliers:
        groups.setdefault(comparison.value_of(label), []).append(label)
    parts = [f"{names(labels)} {prop.phrase(value, len(labels))}" for value, labels in groups.items()]
    holders = sum(1 for _, v in comparison.values if v == comparison.reference)
    others = f"{holders} other{'s' if holders != 1 else ''} {prop.phrase(comparison.reference, holders)}"
    sentence = "; ".join([*parts, others]) + "."
    if comparison.tie:
        sentence += (
            f" No majority (a tie): {comparison.reference_worker}, the first snapshot given, is taken as the reference."
        )
    return sentence
