"""The compatibility matrix: every file has a valid shape and every row names its upstream source."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.facts.builds import CudaRuntime
from xladoctor.matrix import Matrix, Relation, load_matrix, validate_relation
from xladoctor.matrix.driver import driver_need, ga_minimum
from xladoctor.matrix.gpu import runs_on, tegra_capabilities

FILES = sorted(p.name for p in resources.files("xladoctor.compat_matrix").iterdir() if p.name.endswith(".json"))


def _doc(name: str) -> dict:
    return json.loads(resources.files("xladoctor.compat_matrix").joinpath(name).read_text())


def test_the_issue_relations_are_all_there() -> None:
    assert {
        "torch-torch_xla.json",
        "torch-triton.json",
        "torch-python.json",
        "torch_xla-python.json",
        "tensorflow-python.json",
        "conflicting-distributions.json",
    } <= set(FILES)


@pytest.mark.parametrize("name", FILES)
def test_every_file_is_valid(name: str) -> None:
    assert validate_relation(_doc(name), name[: -len(".json")]) == []


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda d: d["rows"][0].pop("source"), "row 0: needs a 'source' https URL naming the upstream file or release"),
        (lambda d: d["rows"][0].update(source="see the README"), "row 0: needs a 'source' https URL"),
        (lambda d: d["rows"][0].update(torch="two point nine"), "row 0.torch: 'two point nine' is not a version"),
        (lambda d: d["rows"][0].update(python=["3.1x"]), "row 0.python: ['3.1x'] is not a non-empty list"),
        (lambda d: d["rows"][0].update(extra=1), "row 0: unknown columns ['extra']"),
        (lambda d: d["rows"][0].pop("torch"), "row 0: missing column 'torch'"),
        (lambda d: d.update(relation="torch-xla"), "relation 'torch-xla' does not match the file name"),
        (lambda d: d.update(rows=[]), "'rows' must be a non-empty list"),
    ],
)
def test_invalid_shapes_are_named(edit, problem: str) -> None:
    doc = copy.deepcopy(_doc("torch-torch_xla.json"))
    edit(doc)
    assert any(p.startswith(problem) for p in validate_relation(doc, "torch-torch_xla")), validate_relation(
        doc, "torch-torch_xla"
    )


def test_pairing_rows_agree_with_upstream_release_naming() -> None:
    # torch_xla X.Y is released for torch X.Y (pytorch/xla README); a row that broke this would be a typo.
    for row in load_matrix().get("torch-torch_xla").rows:
        assert row["torch_xla"].split(".")[:2] == row["torch"].split(".")[:2]


def test_installed_wheel_declaration_wins_over_the_table() -> None:
    # Corrupt the table's row for torch 2.9.0; torch's own Requires-Dist (triton==3.5.0) must still decide.
    real = load_matrix()
    rows = tuple({**r, "triton": "==9.9.9"} if r["torch"] == "2.9.0" else r for r in real.get("torch-triton").rows)
    bent = Matrix(
        {
            **real.relations,
            "torch-triton": Relation("torch-triton", "t", "torch", real.get("torch-triton").columns, rows),
        }
    )
    facts = facts_from_json(load_json(FACTS_DIR / "real-torch29-xla29.json"))
    [finding] = run_diagnosis(facts, select_checks(only=["torch-triton-mismatch"]), bent).findings
    assert (finding.status.value, finding.evidence["declared_by_torch"]) == (
        "ok",
        'triton==3.5.0; platform_system == "Linux" and platform_machine == "x86_64"',
    )


@pytest.mark.parametrize(
    ("arch_list", "capability", "tegra", "runs"),
    [
        # NVIDIA: a cubin runs on the same major and an equal or higher minor (desktop GPUs) ...
        ("7.5;8.0;8.6;9.0;10.0;12.0", "8.9", False, True),
        ("7.5;8.0;8.6;9.0;10.0;12.0", "10.3", False, True),  # B300 runs sm_100 code
        ("7.5;8.0;8.6;9.0;10.0;12.0", "12.1", False, True),  # GB10 runs sm_120 code
        ("7.5;8.0;8.6;9.0", "10.3", False, False),
        # ... but not on Tegra, where only that capability's cubin (or PTX) runs
        ("7.5;8.0;8.6;9.0;10.0;12.0", "8.7", True, False),  # Jetson Orin
        ("8.0;8.7", "8.7", True, True),
        ("8.0+PTX", "8.7", True, True),
        ("7.5;8.0;8.6;9.0;10.0;12.0", "11.0", True, False),  # Jetson Thor (sm_101 before CUDA 13.0)
        ("7.5;8.0;8.6;9.0;10.0;11.0;12.0", "11.0", True, True),
        # PTX is JIT-compiled for any newer GPU, never an older one
        ("9.0;10.0;12.0+PTX", "13.0", False, True),
        ("9.0;10.0;12.0", "13.0", False, False),
        ("12.0+PTX", "11.0", True, False),
    ],
)
def test_which_builds_run_on_which_gpu(arch_list: str, capability: str, tegra: bool, runs: bool) -> None:
    assert runs_on(arch_list, capability, tegra) is runs


def test_the_tegra_capabilities_are_marked() -> None:
    assert tegra_capabilities(load_matrix()) == {"8.7", "11.0"}


def test_cuda13_wheels_carry_no_ptx() -> None:
    # The published 13.0 wheels of 2.11-2.14 and 2.15's 13.2 wheel hold no PTX (libtorch_cuda.so census)
    rows = {(r["torch"], r["cuda"]): r["arch_list"] for r in load_matrix().get("torch-cuda_arch").rows}
    for key in (("2.11", "13.0"), ("2.12", "13.0"), ("2.13", "13.0"), ("2.14", "13.0"), ("2.15", "13.2")):
        assert rows[key] == "7.5;8.0;8.6;9.0;10.0;12.0", key


@pytest.mark.parametrize(
    ("kind", "version", "series", "release", "min_driver"),
    [
        ("cudart", "12.8.90", "12.8", "12.8 Update 1", "570.124.06"),  # what torch 2.8-2.10 pin
        ("cudart", "12.8.57", "12.8", "12.8 GA", "570.26"),
        ("cudart", "12.6.77", "12.6", "12.6 Update 2", "560.35.03"),  # shipped in Update 2 and 3: the first
        ("cudart", "13.1.80", "13.1", "13.1 GA", "590.44.01"),
        ("cudart", "13.0.96", "13.0", "13.0 Update 2", "580.95.05"),  # torch 2.11-2.14's cuda-toolkit 13.0.2/13.0.3
        ("cudart", "13.2.86", "13.2", "13.2 Update 1", "595.58.03"),  # 13.2 Update 2: newer than the matrix, a bound
        ("toolkit", "12.5.1", "12.5", "12.5 Update 1", "555.42.06"),  # TensorFlow's build_info
        ("toolkit", "11.7.1", "11.7", "11.7 Update 1", "515.48.07"),  # conda's cudatoolkit
        ("toolkit", "12.1.1", "12.1", "12.1 Update 1", "530.30.02"),
        ("series", None, "12.8", "12.8 GA", "570.26"),  # torch.version.cuda alone: the update is unknown
    ],
)
def test_a_runtime_is_judged_by_the_release_it_is(
    kind: str, version: str | None, series: str, release: str, min_driver: str
) -> None:
    need = driver_need(load_matrix(), CudaRuntime("x", series, version, kind, "test"))
    assert need is not None
    assert (need.release, need.min_driver) == (release, min_driver)


def test_a_cuda_series_without_rows_has_no_need_and_the_ga_is_the_floor() -> None:
    assert driver_need(load_matrix(), CudaRuntime("x", "13.4", "13.4.92", "cudart", "test")) is None
    assert ga_minimum(load_matrix(), "12.8") == "570.26"
