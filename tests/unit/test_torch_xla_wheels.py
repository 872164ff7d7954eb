"""No fix installs a torch_xla that has no wheel for the target Python (compat_matrix/torch_xla-python.json)."""

from __future__ import annotations

import copy
from typing import Any

from conftest import FACTS_DIR, load_json
from test_checks_edges import diagnose, dist

from xladoctor.facts import Facts, facts_from_json
from xladoctor.findings import Finding, Status
from xladoctor.fix import install
from xladoctor.matrix import load_matrix
from xladoctor.matrix.wheels import torch_xla_wheel_missing
from xladoctor.remedy.plan import build_plan

COLAB_TPU = "colab-tpu-torch-upgraded"  # Python 3.12, torch 2.9.0 beside torch_xla[tpu] 2.8.1


def _facts(case: str, edit: Any = None) -> Facts:
    doc = copy.deepcopy(load_json(FACTS_DIR / f"{case}.json"))
    if edit:
        edit(doc)
    return facts_from_json(doc)


def _python(version: str) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        doc["python"]["version"] = version
        doc["python"]["marker_env"]["python_version"] = version.rsplit(".", 1)[0]

    return edit


def test_wheel_availability_per_python() -> None:
    matrix, facts = load_matrix(), _facts(COLAB_TPU)
    assert torch_xla_wheel_missing(matrix, facts, "==2.7.0") == (
        "torch_xla 2.7 has no wheels for Python 3.12 (it has them for 3.9, 3.10, 3.11), so `torch_xla==2.7.0` "
        "cannot install here; use one of those Pythons (a new venv made with one)"
    )
    assert torch_xla_wheel_missing(matrix, facts, "==2.9.0") is None
    assert torch_xla_wheel_missing(matrix, facts, "==2.8.1") is None  # installed: pip downloads no torch_xla
    assert torch_xla_wheel_missing(matrix, facts, "==3.0.0") is None  # a release the matrix does not know
    assert torch_xla_wheel_missing(matrix, facts, "==2.7.*", brief=True) == (
        "torch_xla 2.7 has no wheels for Python 3.12 (it has them for 3.9, 3.10, 3.11)"
    )
    py314 = _facts(COLAB_TPU, _python("3.14.0"))
    assert torch_xla_wheel_missing(matrix, py314, ">=2.9", name="torch_xla[tpu]") == (
        "no torch_xla release has wheels for Python 3.14 (the newest has them for 3.10, 3.11, 3.12, 3.13), so "
        "`torch_xla[tpu]>=2.9` cannot install here; use one of those Pythons (a new venv made with one)"
    )


def test_a_mismatch_moves_torch_to_the_installed_torch_xla_when_its_own_release_has_no_wheel() -> None:
    def edit(doc: dict[str, Any]) -> None:  # torch 2.7 pinned by something else; torch_xla 2.7 has no cp312
        dist(doc, "torch")["version"] = "2.7.1"

    [finding] = diagnose(COLAB_TPU, edit, "torch-xla-torch-mismatch")
    assert finding.evidence["move"] == (
        "torch_xla 2.7 has no wheels for Python 3.12 (it has them for 3.9, 3.10, 3.11); move torch up to 2.8.0, "
        "which torch_xla 2.8.1 is built for"
    )
    assert finding.remediation == ("/usr/bin/python3 -m pip install torch==2.8.0 'torch_xla[tpu]==2.8.1'",)


def test_a_mismatch_whose_only_pairing_has_no_wheel_gives_no_command() -> None:
    def edit(doc: dict[str, Any]) -> None:  # a torch_xla newer than the matrix, beside torch 2.7 on Python 3.12
        dist(doc, "torch")["version"] = "2.7.1"
        dist(doc, "torch-xla")["version"] = "2.10.0"

    [finding] = diagnose(COLAB_TPU, edit, "torch-xla-torch-mismatch")
    assert finding.status is Status.FAIL
    assert finding.fix is None and finding.remediation == ()
    assert finding.detail.endswith(
        "The pairing would be: keep torch and install the torch_xla built for it. torch_xla 2.7 has no wheels for "
        "Python 3.12 (it has them for 3.9, 3.10, 3.11), so `torch_xla[tpu]==2.7.0` cannot install here; use one of "
        "those Pythons (a new venv made with one)."
    )


def test_the_plan_drops_a_torch_xla_pin_with_no_wheel_for_the_python() -> None:
    fix = install(("torch", "==2.7.1"), ("torch_xla", "==2.7.0"))
    plan = build_plan([Finding("f", "test", Status.FAIL, "t", fix=fix)], _facts(COLAB_TPU))
    assert plan.commands == ()
    assert plan.conflicts == (
        "refused: torch_xla 2.7 has no wheels for Python 3.12 (it has them for 3.9, 3.10, 3.11), so "
        "`torch_xla==2.7.0` cannot install here; use one of those Pythons (a new venv made with one); the plan "
        "leaves torch_xla as it is (and the torch pin that moved with it)",
    )


def test_a_tpu_pairing_skips_torch_xla_releases_without_a_wheel_for_the_python() -> None:
    plan = build_plan([Finding("f", "test", Status.FAIL, "t", fix=install(("torch", "==2.7.1")))], _facts(COLAB_TPU))
    assert plan.commands == ()
    assert plan.conflicts == (
        "refused: torch==2.7.1 beside torch_xla 2.8.1, because torch_xla 2.7 has no wheels for Python 3.12 (it has "
        "them for 3.9, 3.10, 3.11), so `torch_xla==2.7.0` cannot install here; use one of those Pythons (a new venv "
        "made with one) and torch_xla 2.8.1 only imports beside the torch it was built for; the plan leaves torch "
        "as it is",
    )
