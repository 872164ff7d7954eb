"""The registry: inputs by parameter name, skips with one wording, errors that never end a run, no lost module."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.diagnosis.describe import check_inputs
from xladoctor.diagnosis.inputs import INPUTS, needs
from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.registry import all_checks, area, make_check, run_check
from xladoctor.diagnosis.report import exit_code
from xladoctor.diagnosis.selection import select_checks
from xladoctor.exitcodes import ExitCode
from xladoctor.facts import Distribution, Facts, facts_from_json
from xladoctor.facts.model import TargetFacts
from xladoctor.facts.prerequisites import env_set
from xladoctor.facts.system import Gpu, ResourceFacts
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.matrix import load_matrix

CHECKS_DIR = Path(__file__).resolve().parents[2] / "checks"


def _facts(case: str = "real-torch29-xla29") -> Facts:
    return facts_from_json(load_json(FACTS_DIR / f"{case}.json"))


def _raises(target: TargetFacts) -> Iterator[Outcome]:
    raise KeyError("boom")
    yield  # pragma: no cover


def _mutates(env: Mapping[str, str]) -> Iterator[Outcome]:
    env["PJRT_DEVICE"] = "TPU"  # type: ignore[index]
    yield Outcome(Status.OK, "changed the facts")


def _needs_jax(jax: Distribution) -> Iterator[Outcome]:
    yield Outcome(Status.OK, f"jax {jax.version}")


def _maybe_jax(jax: Distribution | None) -> Iterator[Outcome]:
    yield Outcome(Status.OK, "no jax" if jax is None else "jax")


def _skips(torch: Distribution) -> Iterator[Outcome]:
    raise Skip("torch 2.9 is not in the table", {"torch": torch.version})
    yield  # pragma: no cover


def _run(function: object, requires: tuple = (), case: str = "real-torch29-xla29", env: tuple = ()):  # type: ignore[type-arg]
    item = make_check("under-test", "test", "Under test", function, requires, env)  # type: ignore[arg-type]
    return run_check(item, _facts(case), load_matrix())


def test_a_raising_check_becomes_an_error_finding_and_the_run_goes_on() -> None:
    broken = make_check("always-raises", "test", "Always raises", _raises)
    report = run_diagnosis(_facts(), [broken, *select_checks(only=["torch-xla"])])
    first, second = report.findings
    assert (first.id, first.status, first.title) == (
        "always-raises",
        Status.ERROR,
        "check 'always-raises' could not decide: KeyError: 'boom'",
    )
    assert "Traceback" in first.detail and "KeyError" in first.detail
    assert (second.id, second.status) == ("torch-xla-torch-mismatch", Status.OK)
    assert exit_code(report) is ExitCode.INTERNAL


def test_a_check_that_mutates_facts_is_caught() -> None:
    [finding] = _run(_mutates, env=("PJRT_DEVICE",))
    assert finding.status is Status.ERROR
    assert (
        finding.title
        == "check 'under-test' could not decide: TypeError: 'DeclaredEnv' object does not support item assignment"
    )


def test_a_check_reads_only_the_variables_it_declares() -> None:
    def reads(env: Mapping[str, str]) -> Iterator[Outcome]:
        yield Outcome(Status.OK, f"{env.get('PJRT_DEVICE')} {'XLA_FLAGS' in env} {sorted(env)}")

    [finding] = _run(reads, env=("PJRT_DEVICE", "XLA_FLAGS", "NOT_SET_ANYWHERE"))
    assert finding.title == "CPU False ['PJRT_DEVICE']"
    [finding] = _run(reads, env=("XLA_FLAGS",))
    assert (finding.status, finding.title) == (
        Status.ERROR,
        "check 'under-test' could not decide: UndeclaredVariable: 'PJRT_DEVICE' is read but not declared: add it "
        "to the check's env=(...)",
    )
    with pytest.raises(TypeError, match="it takes env, so it names the variables it reads"):
        make_check("no-env", "test", "No env", reads)
    with pytest.raises(TypeError, match="env= takes a tuple of variable names, not the string 'PATH'"):
        make_check("no-env", "test", "No env", reads, env="PATH")
    with pytest.raises(TypeError, match="it declares env=\\(...\\) but takes no env parameter"):
        make_check("no-env", "test", "No env", _needs_jax, env=("PJRT_DEVICE",))


def test_a_parameter_carries_its_input_type() -> None:
    def loose(gpus: list[Gpu]) -> Iterator[Outcome]:
        yield Outcome(Status.OK, "never")

    def absent_gpus(gpus: tuple[Gpu, ...] | None) -> Iterator[Outcome]:
        yield Outcome(Status.OK, "never")

    with pytest.raises(TypeError, match=r"parameter 'gpus' is annotated list\[Gpu\]; the input is tuple\[Gpu, ...\]$"):
        make_check("loose", "test", "Loose", loose)
    with pytest.raises(TypeError, match="the input is tuple"):
        make_check("absent", "test", "Absent", absent_gpus)  # GPUs are never absent: no GPU is ()


def test_a_prerequisite_listed_in_requires_is_tested_there() -> None:
    def both(jax: Distribution, resources: ResourceFacts) -> Iterator[Outcome]:
        yield Outcome(Status.OK, f"{jax.version} {resources.cpu_count}")

    first = make_check("both", "test", "Both", both)
    moved = make_check("both", "test", "Both", both, (needs("python"), needs("jax")))
    assert [p.name for p in first.requires] == ["installed:jax", "host:resources"]
    assert [p.name for p in moved.requires] == ["host:resources", "target", "installed:jax"]


def test_the_registry_knows_what_each_check_reads() -> None:
    def both(jax: Distribution, resources: ResourceFacts, env: Mapping[str, str]) -> Iterator[Outcome]:
        yield Outcome(Status.OK, "never")

    item = make_check("both", "test", "Both", both, (env_set("XLA_FLAGS"),), env=("PJRT_DEVICE",))
    assert item.reads == {
        "distributions",
        "system.resources",
        "system.resources?",
        "env.PJRT_DEVICE",
        "env.XLA_FLAGS",
    }


def test_an_input_that_is_absent_skips_with_its_reason() -> None:
    [finding] = _run(_needs_jax)
    assert (finding.status, finding.title, finding.detail) == (
        Status.SKIP,
        "Under test: skipped",
        "Skipped because jax is not installed.",
    )
    assert finding.evidence == {"prerequisite": "installed:jax"}


def test_an_optional_input_is_handed_over_as_none() -> None:
    [finding] = _run(_maybe_jax)
    assert (finding.status, finding.title) == (Status.OK, "no jax")


def test_a_declared_prerequisite_skips_after_the_inputs() -> None:
    [finding] = _run(_needs_jax, (env_set("NOT_SET_ANYWHERE"),), case="jax-jaxlib-mismatch-conda")
    assert finding.detail == "Skipped because NOT_SET_ANYWHERE is not set."


def test_skip_raised_in_a_check_reads_like_a_prerequisite() -> None:
    [finding] = _run(_skips)
    assert (finding.status, finding.title, finding.detail) == (
        Status.SKIP,
        "Under test: skipped",
        "Skipped because torch 2.9 is not in the table.",
    )
    assert finding.evidence == {"torch": "2.9.0"}


def test_an_unknown_input_fails_when_the_check_registers() -> None:
    def misspelt(tourch: Distribution) -> Iterator[Outcome]:
        yield Outcome(Status.OK, "never")

    with pytest.raises(TypeError, match="parameter 'tourch' is not an input; inputs are "):
        make_check("misspelt", "test", "Misspelt", misspelt)


def test_ids_are_kebab_case_and_unique() -> None:
    with pytest.raises(ValueError):
        area("test")("Not_Kebab", "x")(_raises)
    with pytest.raises(ValueError, match="duplicate"):
        area("torch-xla")("torch-xla-torch-mismatch", "x")(_raises)
    ids = [c.id for c in all_checks()]
    assert len(ids) == len(set(ids))


def _silent_modules(directory: Path, package: str) -> set[str]:
    """Modules of a checks directory that register no check (helpers belong in `_name.py`)."""
    registered = {c.module for c in all_checks()}
    names = {m.name for m in pkgutil.iter_modules([str(directory)]) if not m.name.startswith("_")}
    for name in names:
        importlib.import_module(f"{package}.{name}")
    registered = {c.module for c in all_checks()}
    return {n for n in names if f"{package}.{n}" not in registered}


def test_every_check_module_registers_checks_of_one_area() -> None:
    """A module in checks/ that registers nothing would silently never run."""
    assert _silent_modules(CHECKS_DIR, "xladoctor.checks") == set()
    areas: dict[str, set[str]] = {}
    for item in all_checks():
        areas.setdefault(item.module, set()).add(item.area)
    assert all(len(found) == 1 for found in areas.values()), areas


def test_a_module_without_checks_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "fakechecks"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "forgotten.py").write_text("VALUE = 1\n")
    (package / "_helpers.py").write_text("VALUE = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _silent_modules(package, "fakechecks") == {"forgotten"}


def test_every_input_reads_any_fixture_without_error() -> None:
    for case in ("real-bare", "target-broken", "gpu-h100-healthy"):
        facts = _facts(case)
        for name, source in INPUTS.items():
            if name != "matrix":
                source.read(facts)


def test_only_and_skip_select_by_id_or_area() -> None:
    assert [c.id for c in select_checks(only=["packages"], skip=["broken-distribution"])] == [
        "numpy2-abi",
        "conflicting-distributions",
        "shadowed-distribution",
        "unsatisfied-requirements",
    ]
    assert [c.id for c in select_checks(only=["jax-jaxlib-mismatch"])] == ["jax-jaxlib-mismatch"]


def test_strict_turns_warnings_into_failure() -> None:
    doc = load_json(FACTS_DIR / "torch-files-missing.json")
    doc["distributions"][[d["name"] for d in doc["distributions"]].index("torch")]["missing_top_level"] = []
    report = run_diagnosis(facts_from_json(doc), select_checks())
    assert report.summary["fail"] == 0 and report.summary["warn"] == 1
    assert exit_code(report) is ExitCode.OK
    assert exit_code(report, strict=True) is ExitCode.FAILED


def test_the_docs_read_each_check_s_inputs_from_the_registry() -> None:
    [pjrt] = select_checks(only=["pjrt-device"])
    docs = check_inputs(pjrt)
    assert [(d.name, d.type_name) for d in docs] == [
        ("torch_xla", "Distribution"),
        ("env", "Mapping[str, str]"),
        ("libtpu", "Distribution | None"),
        ("gpus", "tuple[Gpu, ...]"),
        ("distributions", "Distributions"),
        ("devices", "tuple[str, ...]"),
        ("torch", "Distribution | None"),
    ]
    env = next(d for d in docs if d.name == "env")
    assert env.variables == pjrt.env and "PJRT_DEVICE" in env.variables
    assert all(d.description == INPUTS[d.name].description for d in docs)
    assert [p.reason for p in pjrt.requires] == [
        "the target interpreter could not be probed",
        "torch_xla is not installed",
    ]
