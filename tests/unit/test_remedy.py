"""Remediation: the installer the environment uses, and one plan that never fights itself."""

from __future__ import annotations

from conftest import FACTS_DIR, load_json

from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding, Fix, Status
from xladoctor.remedy import build_plan, detect_installer, render_fix


def _facts(case: str):
    return facts_from_json(load_json(FACTS_DIR / f"{case}.json"))


def test_installer_is_detected_from_the_environment() -> None:
    assert detect_installer(_facts("real-torch29-xla29")).kind == "pip"
    assert detect_installer(_facts("uv-venv-torch-xla-mismatch")).kind == "uv"
    assert detect_installer(_facts("jax-jaxlib-mismatch-conda")).kind == "conda"
    # a conda env whose packages pip installed (Kaggle) is fixed with pip
    assert detect_installer(_facts("kaggle-tensorflow-and-tensorflow-cpu")).kind == "pip"


def test_fix_renders_for_each_installer() -> None:
    fix = Fix(uninstall=("triton",), install=(("torch", "==2.9.0"), ("torch_xla[tpu]", "==2.9.0")))
    assert render_fix(fix, _facts("uv-venv-torch-xla-mismatch")) == (
        "uv pip uninstall --python /opt/venv/bin/python triton",
        "uv pip install --python /opt/venv/bin/python torch==2.9.0 'torch_xla[tpu]==2.9.0'",
    )
    assert render_fix(Fix(install=(("torch", "==2.9.0"),)), _facts("jax-jaxlib-mismatch-conda")) == (
        "conda install -y -p /opt/conda/envs/ml -c conda-forge pytorch==2.9.0",
    )


def _finding(id: str, status: Status, fix: Fix) -> Finding:
    return Finding(id, "test", status, id, fix=fix)


def test_plan_merges_pins_into_one_command_and_intersects_ranges() -> None:
    facts = _facts("real-torch29-xla29")
    plan = build_plan(
        [
            _finding("a", Status.FAIL, Fix(install=(("torch", "==2.9.0"),))),
            _finding("b", Status.FAIL, Fix(install=(("numpy", ">=1.26"), ("torch_xla", "==2.9.0")))),
            _finding("c", Status.WARN, Fix(install=(("numpy", "<2.1"),))),
        ],
        facts,
    )
    python = facts.python.executable
    assert plan.commands == (f"{python} -m pip install torch==2.9.0 'numpy<2.1,>=1.26' torch_xla==2.9.0",)
    assert plan.conflicts == ()


def test_plan_keeps_the_more_severe_pin_and_says_so() -> None:
    plan = build_plan(
        [
            _finding("warned", Status.WARN, Fix(install=(("triton", "==3.4.0"),))),
            _finding("failed", Status.FAIL, Fix(install=(("triton", "==3.5.0"),))),
        ],
        _facts("real-torch29-xla29"),
    )
    assert plan.commands[-1].endswith("-m pip install triton==3.5.0")
    assert plan.conflicts == (
        "warned asks for triton==3.4.0, which contradicts triton==3.5.0 from a more severe "
        "finding; the plan keeps the latter",
    )


def test_uninstall_comes_before_install_and_ok_findings_add_nothing() -> None:
    plan = build_plan(
        [
            _finding(
                "x", Status.FAIL, Fix(uninstall=("tensorflow", "tensorflow-cpu"), install=(("tensorflow", "==2.18.0"),))
            ),
            _finding("y", Status.OK, Fix(install=(("numpy", "==1.0"),))),
        ],
        _facts("kaggle-tensorflow-and-tensorflow-cpu"),
    )
    assert plan.commands == (
        "/opt/conda/bin/python -m pip uninstall -y tensorflow tensorflow-cpu",
        "/opt/conda/bin/python -m pip install tensorflow==2.18.0",
    )
