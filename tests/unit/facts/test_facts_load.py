"""Loading a snapshot: each malformed value is one FactsError line that names where it is, at any depth."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.facts import FactsError, facts_from_json
from xladoctor.facts.load import MAX_DEPTH
from xladoctor.facts.model import freeze

T29 = load_json(FACTS_DIR / "real-torch29-xla29.json")


def _nested(levels: int) -> Any:
    value: Any = "s"
    for _ in range(levels):
        value = [value]
    return value


def _torch(doc: dict[str, Any]) -> dict[str, Any]:
    return next(d for d in doc["distributions"] if d["name"] == "torch")


CASES: list[tuple[Callable[[dict[str, Any]], object], str]] = [
    (lambda d: d["distributions"][3].pop("version"), "facts.distributions[3]: missing required field 'version'"),
    (
        lambda d: d["distributions"][5].update(requires=["a", 3]),
        "facts.distributions[5].requires[1]: expected str, got int",
    ),
    (
        lambda d: d["env"].update(XLA_FLAGS={"a": [1, {"b": 10**30}]}),
        "facts.env.XLA_FLAGS.a[1].b: the number 10000000000000000000... is out of range",
    ),
    (
        lambda d: d["env"].update(X=_nested(MAX_DEPTH)),
        "facts.env.X" + "[0]" * MAX_DEPTH + f": nested more than {MAX_DEPTH} levels deep",
    ),
    (
        lambda d: d["system"]["nvidia"]["gpus"].append({"index": 0, "name": "g", "compute_capability": "x"}),
        "facts.system.nvidia.gpus[0].compute_capability: 'x'",
    ),
    (
        lambda d: d["system"]["nvidia"]["attempts"][1].update(duration_s="slow"),
        "facts.system.nvidia.attempts[1].duration_s: expected float, got str",
    ),
    (
        lambda d: d["system"]["resources"].update(cgroup_cpus=float("nan")),
        "facts.system.resources.cgroup_cpus: the number nan is out of range",
    ),
    (
        lambda d: _torch(d)["self_declared"]["values"].update(cuda=[[2**70]]),
        "facts.distributions[1].self_declared.values.cuda[0][0]: the number 11805916207174113034... is out of range",
    ),
    (lambda d: d.update(system=[]), "facts.system: expected an object, got list"),
]


@pytest.mark.parametrize(("change", "message"), CASES)
def test_a_bad_value_is_named_by_its_whole_path(change: Callable[[dict[str, Any]], object], message: str) -> None:
    doc = copy.deepcopy(T29)
    change(doc)
    with pytest.raises(FactsError) as raised:
        facts_from_json(doc)
    assert str(raised.value) == message


def test_values_at_the_limits_load() -> None:
    doc = copy.deepcopy(T29)
    doc["env"]["X"] = _nested(MAX_DEPTH - 1)  # a string at depth MAX_DEPTH is still allowed
    doc["probes"][0]["duration_s"] = 3  # an integer where a float is expected (JSON does not tell them apart)
    facts = facts_from_json(doc)
    assert facts.env["X"] == freeze(_nested(MAX_DEPTH - 1))
    assert facts.probes[0].duration_s == 3
    assert facts == facts_from_json(copy.deepcopy(doc))
