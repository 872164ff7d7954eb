"""Every fix plan passes our own pairing check before it is printed, and keeps the build of what it replaces.

A plan is what people paste in trouble: `pip install torch==2.9.0 torch_xla==2.8.1` would install a pair that does
not import, and `torch==2.9.0` in place of a `2.13.0+cpu` build would pull PyPI's CUDA wheel (several GB of
nvidia-* wheels) onto a CPU machine. Each fixture's plan is run through the matrix here, pin by pin.
"""

from __future__ import annotations

import pytest
from conftest import FACTS_DIR, load_json
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import Facts, facts_from_json
from xladoctor.findings import Finding, Status
from xladoctor.fix import Install, install
from xladoctor.matrix import load_matrix
from xladoctor.remedy.builds import label_of
from xladoctor.remedy.plan import Plan, build_plan
from xladoctor.remedy.render import package_key

CASES = sorted(
    p.name[: -len(".json")]
    for p in FACTS_DIR.glob("*.json")
    if not p.name.endswith(".expected.json") and p.name != "resolved.json"
)


def _pins(plan: Plan) -> dict[str, str]:
    """package key -> the exact version the plan installs (a pin without one is not judged)."""
    found: dict[str, str] = {}
    for step in plan.steps:
        if isinstance(step, Install):
            for name, spec in step.packages:
                exact = [s.version for s in SpecifierSet(spec) if s.operator == "=="] if spec else []
                if exact:
                    found[package_key(name)] = exact[0]
    return found


def _series(version: str) -> str:
    release = Version(version).release
    return f"{release[0]}.{release[1]}"


def _after(plan: Plan, facts: Facts, key: str) -> str | None:
    """The version of `key` once the plan has run: its pin, else what is installed (unless uninstalled)."""
    pinned = _pins(plan).get(key)
    if pinned is not None:
        return pinned
    installed = facts.installed(key)
    return installed.version if installed is not None else None


def assert_plan_pairs(plan: Plan, facts: Facts) -> None:
    torch, xla = _after(plan, facts, "torch"), _after(plan, facts, "torch-xla")
    moved = {"torch", "torch-xla"} & set(_pins(plan))
    if torch is None or xla is None or not moved:
        return
    rows = load_matrix().get("torch-torch_xla").rows_where("torch_xla", Version(xla).base_version)
    wanted = _series(str(rows[0]["torch"])) if rows else _series(xla)
    assert _series(torch) == wanted, f"the plan leaves torch {torch} beside torch_xla {xla}: {plan.commands}"


def assert_plan_keeps_builds(plan: Plan, facts: Facts) -> None:
    """A pin from PyTorch's own index chose its build on purpose (a CPU torch on an A100 gets a CUDA one); any
    other pin of a +cpu build stays +cpu."""
    chosen = {package_key(n) for s in plan.steps if isinstance(s, Install) and s.index_url for n, _ in s.packages}
    pins = {k: v for k, v in _pins(plan).items() if k not in chosen}
    for key in ("torch", "torchvision", "torchaudio"):
        installed = facts.installed(key)
        if key in pins and installed is not None and label_of(installed.version) == "cpu":
            assert label_of(pins[key]) == "cpu", f"{key} {installed.version} would become {pins[key]}: {plan.commands}"


@pytest.mark.parametrize("case", CASES)
def test_every_fixture_plan_pairs_and_keeps_its_builds(case: str) -> None:
    facts = facts_from_json(load_json(FACTS_DIR / f"{case}.json"))
    plan = run_diagnosis(facts, select_checks()).plan
    assert_plan_pairs(plan, facts)
    assert_plan_keeps_builds(plan, facts)


def _facts(case: str) -> Facts:
    return facts_from_json(load_json(FACTS_DIR / f"{case}.json"))


def _finding(ident: str, status: Status, *pins: tuple[str, str]) -> Finding:
    return Finding(ident, "test", status, ident, fix=install(*pins))


def test_pins_of_two_findings_that_do_not_pair_are_paired_before_printing() -> None:
    """The issue's case: one finding moves torch to 2.9, another pins the torch_xla of the 2.8 series."""
    facts = _facts("py313-torch27-beside-torch-xla-28")
    plan = build_plan(
        [
            _finding("torch-python", Status.FAIL, ("torch", "==2.9.0")),
            _finding("xla", Status.WARN, ("torch", "==2.8.0"), ("torch_xla", "==2.8.1")),
        ],
        facts,
    )
    assert _pins(plan) == {"torch": "2.9.0", "torch-xla": "2.9.0"}
    assert_plan_pairs(plan, facts)


def test_a_cpu_build_of_torch_moves_to_the_cpu_build_of_its_new_release() -> None:
    facts = _facts("real-torch213-xla29")
    assert facts.installed("torch").version == "2.13.0+cpu"  # type: ignore[union-attr]
    plan = build_plan([_finding("xla", Status.FAIL, ("torch", "==2.9.0"), ("torch_xla", "==2.9.0"))], facts)
    assert plan.commands == (
        f"{facts.interpreter} -m pip install --extra-index-url https://download.pytorch.org/whl/cpu "
        "torch==2.9.0+cpu torch_xla==2.9.0",
    )


def test_the_pairing_check_fails_a_plan_that_does_not_pair() -> None:
    """The test above can fail: a plan made by hand with the issue's pair is caught."""
    facts = _facts("py313-torch27-beside-torch-xla-28")
    bad = Plan(
        ("pip install torch==2.9.0 torch_xla==2.8.1",),
        (),
        (),
        build_plan([], facts).installer,
        steps=(Install((("torch", "==2.9.0"), ("torch_xla", "==2.8.1"))),),
    )
    with pytest.raises(AssertionError, match="torch 2.9.0 beside torch_xla 2.8.1"):
        assert_plan_pairs(bad, facts)
