"""Fix plans on TPUs and in notebooks: torch never moves without its torch_xla, cells, restart notes."""

from __future__ import annotations

from conftest import FACTS_DIR, load_json

from xladoctor.facts import Facts, facts_from_json
from xladoctor.findings import Finding, Fix, Status
from xladoctor.platform import Platform, detect_platform
from xladoctor.remedy import build_plan

PAIRED = (
    "torch_xla is pinned beside torch: on a TPU runtime torch only changes together with the torch_xla built "
    "for it (torch_xla X.Y imports beside torch X.Y only)"
)


def _facts(case: str) -> Facts:
    return facts_from_json(load_json(FACTS_DIR / f"{case}.json"))


def _plan(case: str, *fixes: Fix, platform: Platform | None = None):
    findings = [Finding(f"f{i}", "test", Status.FAIL, "t", fix=fix) for i, fix in enumerate(fixes)]
    return build_plan(findings, _facts(case), platform)


def test_a_torch_pin_on_a_tpu_vm_brings_the_matching_torch_xla() -> None:
    plan = _plan("tpu-vm-healthy", Fix(install=(("torch", "==2.9.1"),)))
    assert plan.commands == ("/usr/bin/python3 -m pip install torch==2.9.1 'torch_xla[tpu]==2.9.0'",)
    assert plan.notes == (PAIRED,)
    assert plan.conflicts == ()


def test_a_torch_range_is_narrowed_to_the_series_of_the_installed_torch_xla() -> None:
    plan = _plan("tpu-vm-healthy", Fix(install=(("torch", ">=2.8"),)))
    assert plan.commands == ("/usr/bin/python3 -m pip install 'torch==2.9.*,>=2.8' 'torch_xla[tpu]==2.9.0'",)


def test_a_torch_pin_in_another_series_takes_that_series_torch_xla() -> None:
    plan = _plan("tpu-vm-healthy", Fix(install=(("torch", "==2.8.0"),)))
    assert plan.commands == ("/usr/bin/python3 -m pip install torch==2.8.0 'torch_xla[tpu]==2.8.1'",)


def test_a_torch_with_no_torch_xla_release_is_refused_on_a_tpu() -> None:
    plan = _plan("tpu-vm-healthy", Fix(install=(("torch", "==2.13.0"),), uninstall=("triton",)))
    assert plan.commands == ("/usr/bin/python3 -m pip uninstall -y triton",)
    assert plan.conflicts == (
        "refused: torch==2.13.0 on this TPU runtime, because no torch_xla release is built for that torch and "
        "torch_xla 2.9.0 only imports beside the torch it was built for; the plan leaves torch as it is",
    )
    assert plan.notes == ()


def test_a_reinstall_of_torch_on_a_tpu_reinstalls_torch_xla_with_it() -> None:
    plan = _plan("tpu-vm-healthy", Fix(install=(("torch", "==2.9.0"),), reinstall=True))
    assert plan.commands == (
        "/usr/bin/python3 -m pip install --force-reinstall --no-deps torch==2.9.0 'torch_xla[tpu]==2.9.0'",
    )


def test_a_literal_command_that_moves_torch_alone_is_refused_on_a_tpu() -> None:
    alone = "/usr/bin/python3 -m pip install --force-reinstall torch==2.9.0 --index-url https://download.pytorch.org/whl/cu126"
    paired = "/usr/bin/python3 -m pip install torch==2.9.0 'torch_xla[tpu]==2.9.0'"
    plan = _plan("tpu-vm-healthy", Fix(commands=(alone, paired, "export PJRT_DEVICE=TPU")))
    assert plan.commands == (paired, "export PJRT_DEVICE=TPU")
    assert plan.conflicts == (
        f"refused `{alone}`: it changes torch on this TPU runtime without torch_xla, and torch_xla only imports "
        "beside the torch release it was built for",
    )


def test_off_a_tpu_torch_moves_alone() -> None:
    plan = _plan("real-torch29-xla29", Fix(install=(("torch", "==2.9.1"),)))
    python = _facts("real-torch29-xla29").python
    assert python is not None
    assert plan.commands == (f"{python.executable} -m pip install torch==2.9.1",)
    assert plan.notes == ()


def test_colab_tpu_plan_in_cells_ends_with_the_restart() -> None:
    plan = _plan("colab-tpu-torch-upgraded", Fix(install=(("torch", "==2.8.0"),)))
    assert plan.commands == ("/usr/bin/python3 -m pip install torch==2.8.0 'torch_xla[tpu]==2.8.1'",)
    assert plan.cells == ("!/usr/bin/python3 -m pip install torch==2.8.0 'torch_xla[tpu]==2.8.1'",)
    assert plan.notes == (
        PAIRED,
        "then restart the kernel (Runtime > Restart session): a running kernel keeps the modules it has already "
        "imported and the variables it has set",
    )


def test_cells_use_pip_and_env_magics_in_the_kernel_they_diagnose() -> None:
    facts = _facts("real-torch29-xla29")
    assert facts.python is not None
    python = facts.python.executable
    platform = detect_platform(facts, kernel_python=python)
    plan = _plan(
        "real-torch29-xla29",
        Fix(install=(("numpy", "<2.1"),), commands=("export PJRT_DEVICE=CPU", "unset XLA_FLAGS", "rm -rf /tmp/x")),
        platform=platform,
    )
    assert plan.cells == (
        "%pip install 'numpy<2.1'",
        "%env PJRT_DEVICE=CPU",
        "import os; os.environ.pop('XLA_FLAGS', None)",
        "!rm -rf /tmp/x",
    )
    assert plan.notes == (
        "then restart the kernel (Kernel > Restart Kernel): a running kernel keeps the modules it has already "
        "imported and the variables it has set",
    )


def test_outside_a_notebook_there_are_no_cells_and_no_restart_note() -> None:
    plan = _plan("real-torch29-xla29", Fix(install=(("numpy", "<2.1"),)))
    assert (plan.cells, plan.notes, plan.platform) == ((), (), Platform("local", "cpu"))


def test_a_hosted_notebook_gets_no_driver_install() -> None:
    driver = "sudo apt-get install -y nvidia-driver-570  # Ubuntu; then reboot"
    assert _plan("gpu-driver-too-old", Fix(commands=(driver,))).commands == (driver,)
    plan = _plan("colab-t4", Fix(commands=(driver,)))
    assert plan.commands == ()
    assert plan.conflicts == (
        f"not for Colab: `{driver}`; the NVIDIA driver belongs to the hosted runtime and a notebook can neither "
        "replace it nor reboot; keep to framework builds for the CUDA this driver runs",
    )
