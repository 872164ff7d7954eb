"""Remediation: the installer the environment uses, and one plan that never fights itself."""

from __future__ import annotations

from conftest import FACTS_DIR, load_json

from xladoctor.facts import facts_from_json
from xladoctor.facts.installer import detect_installer
from xladoctor.findings import Finding, Status
from xladoctor.fix import Fix, install, reinstall_exactly, uninstall
from xladoctor.remedy.plan import build_plan
from xladoctor.remedy.render import render_fix


def _facts(case: str):
    return facts_from_json(load_json(FACTS_DIR / f"{case}.json"))


def test_installer_is_detected_from_the_environment() -> None:
    assert detect_installer(_facts("real-torch29-xla29")).kind == "pip"
    assert detect_installer(_facts("uv-venv-torch-xla-mismatch")).kind == "uv"
    assert detect_installer(_facts("jax-jaxlib-mismatch-conda")).kind == "conda"
    # a conda env whose packages pip installed (Kaggle) is fixed with pip
    assert detect_installer(_facts("kaggle-tensorflow-and-tensorflow-cpu")).kind == "pip"


def test_fix_renders_for_each_installer() -> None:
    fix = uninstall("triton") + install(("torch", "==2.9.0"), ("torch_xla[tpu]", "==2.9.0"))
    assert render_fix(fix, _facts("uv-venv-torch-xla-mismatch")) == (
        "uv pip uninstall --python /opt/venv/bin/python triton",
        "uv pip install --python /opt/venv/bin/python torch==2.9.0 'torch_xla[tpu]==2.9.0'",
    )
    assert render_fix(install(("torch", "==2.9.0")), _facts("jax-jaxlib-mismatch-conda")) == (
        "conda install -y -p /opt/conda/envs/ml -c conda-forge pytorch==2.9.0",
    )


def _finding(id: str, status: Status, fix: Fix) -> Finding:
    return Finding(id, "test", status, id, fix=fix)


def test_plan_merges_pins_into_one_command_and_intersects_ranges() -> None:
    facts = _facts("real-torch29-xla29")
    plan = build_plan(
        [
            _finding("a", Status.FAIL, install(("torch", "==2.9.0"))),
            _finding("b", Status.FAIL, install(("numpy", ">=1.26"), ("torch_xla", "==2.9.0"))),
            _finding("c", Status.WARN, install(("numpy", "<2.1"))),
        ],
        facts,
    )
    python = facts.python.executable
    assert plan.commands == (f"{python} -m pip install torch==2.9.0 'numpy<2.1,>=1.26' torch_xla==2.9.0",)
    assert plan.conflicts == ()


def test_plan_keeps_the_more_severe_pin_and_says_so() -> None:
    plan = build_plan(
        [
            _finding("warned", Status.WARN, install(("triton", "==3.4.0"))),
            _finding("failed", Status.FAIL, install(("triton", "==3.5.0"))),
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
            _finding("x", Status.FAIL, uninstall("tensorflow", "tensorflow-cpu") + install(("tensorflow", "==2.18.0"))),
            _finding("y", Status.OK, install(("numpy", "==1.0"))),
        ],
        _facts("kaggle-tensorflow-and-tensorflow-cpu"),
    )
    assert plan.commands == (
        "/opt/conda/bin/python -m pip uninstall -y tensorflow tensorflow-cpu",
        "/opt/conda/bin/python -m pip install tensorflow==2.18.0",
    )


def test_uv_gets_uv_commands_for_every_kind_of_install() -> None:
    """A uv venv has no pip: reinstalls and other indexes are written for `uv pip` too (a reinstall names its
    package, where uv's --reinstall would reinstall every dependency)."""
    facts = _facts("uv-venv-torch-xla-mismatch")
    swap = install(("torch", "==2.9.0"), index_url="https://download.pytorch.org/whl/cu128", reinstall=True)
    assert render_fix(swap, facts) == (
        "uv pip install --python /opt/venv/bin/python --reinstall-package torch torch==2.9.0 "
        "--index-url https://download.pytorch.org/whl/cu128",
    )
    assert render_fix(reinstall_exactly(("triton", "==3.5.0")), facts) == (
        "uv pip install --python /opt/venv/bin/python --reinstall-package triton --no-deps triton==3.5.0",
    )


def test_a_reinstall_and_a_pin_of_the_same_package_become_one_pin() -> None:
    """Two findings that install torch never give two torch commands: the pins merge, or the worse one wins."""
    facts = _facts("real-torch29-xla29")
    python = facts.interpreter
    swap = install(("torch", "==2.9.0"), index_url="https://download.pytorch.org/whl/cu128", reinstall=True)
    plan = build_plan(
        [_finding("gpu", Status.WARN, swap), _finding("xla", Status.FAIL, install(("torch", "~=2.9.0")))], facts
    )
    assert plan.commands == (
        f"{python} -m pip install --force-reinstall 'torch==2.9.0,~=2.9.0' --index-url https://download.pytorch.org/whl/cu128",
    )
    fight = build_plan(
        [_finding("gpu", Status.WARN, swap), _finding("xla", Status.FAIL, install(("torch", "==2.8.0")))], facts
    )
    # torch_xla 2.9.0 is installed: the torch the plan moves takes its torch_xla along (the plan's pairing check)
    assert fight.commands == (f"{python} -m pip install torch==2.8.0 torch_xla==2.8.1",)
    assert fight.conflicts == (
        "gpu asks for torch==2.9.0 from https://download.pytorch.org/whl/cu128, which contradicts torch==2.8.0 from a "
        "more severe finding; the plan keeps the latter",
        "torch==2.8.0 does not pair with torch_xla 2.9.0, which is built for torch 2.9; the plan installs the "
        "torch_xla built for that torch in the same command",
    )


def test_shell_quoting_survives_spaces_and_dollars() -> None:
    doc = load_json(FACTS_DIR / "real-torch29-xla29.json")
    doc["python"]["executable"] = "/home/me/my envs/$HOME/bin/python"
    facts = facts_from_json(doc)
    assert render_fix(install(("numpy", "<2")), facts) == (
        "'/home/me/my envs/$HOME/bin/python' -m pip install 'numpy<2'",
    )


def test_a_pin_of_tensorflow_names_the_tensorflow_build_installed() -> None:
    # `pip install 'tensorflow<2.16'` beside tensorflow-cpu installs a second copy of the `tensorflow` package
    cpu_only = _facts("real-tensorflow-cpu-vlog")
    assert cpu_only.installed("tensorflow") is None and cpu_only.installed("tensorflow-cpu") is not None
    assert render_fix(install(("tensorflow", "<2.16")), cpu_only)[-1].endswith("install 'tensorflow-cpu<2.16'")
    # the GPU build asked for by its extra, a fix that removes the CPU build, both installed, no facts: as written
    assert render_fix(install(("tensorflow[and-cuda]", "<2.16")), cpu_only)[-1].endswith("'tensorflow[and-cuda]<2.16'")
    swap = render_fix(uninstall("tensorflow-cpu") + install(("tensorflow", "==2.18.0")), cpu_only)
    assert swap[-1].endswith("install tensorflow==2.18.0")
    # the plan of the same fix says the same (both render through for_target)
    plan = build_plan([_finding("tf", Status.FAIL, install(("tensorflow", "<2.16")))], cpu_only)
    assert plan.commands[-1].endswith("install 'tensorflow-cpu<2.16'")
    both = _facts("kaggle-tensorflow-and-tensorflow-cpu")
    assert render_fix(install(("tensorflow", "<2.16")), both)[-1].endswith("install 'tensorflow<2.16'")
    assert render_fix(install(("tensorflow", "<2.16")), None) == ("python -m pip install 'tensorflow<2.16'",)
