"""Fix plans on TPUs and in notebooks: torch never moves without its torch_xla, cells, restart notes."""

from __future__ import annotations

from conftest import FACTS_DIR, load_json

from xladoctor.facts import Facts, facts_from_json
from xladoctor.facts.platform import Platform, detect_platform
from xladoctor.findings import Finding, Status
from xladoctor.fix import Fix, export, install, remove_path, system_install, uninstall, unset
from xladoctor.remedy.plan import build_plan
from xladoctor.remedy.render import PYTORCH_INDEX

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
    plan = _plan("tpu-vm-healthy", install(("torch", "==2.9.1")))
    assert plan.commands == ("/usr/bin/python3 -m pip install torch==2.9.1 'torch_xla[tpu]==2.9.0'",)
    assert plan.notes == (PAIRED,)
    assert plan.conflicts == ()


def test_a_torch_range_is_narrowed_to_the_series_of_the_installed_torch_xla() -> None:
    plan = _plan("tpu-vm-healthy", install(("torch", ">=2.8")))
    assert plan.commands == ("/usr/bin/python3 -m pip install 'torch==2.9.*,>=2.8' 'torch_xla[tpu]==2.9.0'",)


def test_a_torch_pin_in_another_series_takes_that_series_torch_xla() -> None:
    plan = _plan("tpu-vm-healthy", install(("torch", "==2.8.0")))
    assert plan.commands == ("/usr/bin/python3 -m pip install torch==2.8.0 'torch_xla[tpu]==2.8.1'",)


def test_a_torch_with_no_torch_xla_release_is_refused_on_a_tpu() -> None:
    plan = _plan("tpu-vm-healthy", uninstall("triton") + install(("torch", "==2.13.0")))
    assert plan.commands == ("/usr/bin/python3 -m pip uninstall -y triton",)
    assert plan.conflicts == (
        "refused: torch==2.13.0 beside torch_xla 2.9.0, because no torch_xla release is built for that torch and "
        "torch_xla 2.9.0 only imports beside the torch it was built for; the plan leaves torch as it is",
    )
    assert plan.notes == ()


def test_a_reinstall_of_torch_on_a_tpu_reinstalls_torch_xla_with_it() -> None:
    plan = _plan("tpu-vm-healthy", install(("torch", "==2.9.0"), reinstall=True, no_deps=True))
    assert plan.commands == (
        "/usr/bin/python3 -m pip install --force-reinstall --no-deps torch==2.9.0 'torch_xla[tpu]==2.9.0'",
    )


def test_a_torch_build_swap_on_a_tpu_moves_torch_xla_in_the_same_command() -> None:
    """The swap a GPU check asks for (another index, a forced reinstall) keeps torch_xla in its command."""
    swap = install(("torch", "==2.9.0"), index_url=f"{PYTORCH_INDEX}cu126", reinstall=True)
    plan = _plan("tpu-vm-healthy", swap, export("PJRT_DEVICE", "TPU"))
    assert plan.commands == (
        "/usr/bin/python3 -m pip install --force-reinstall torch==2.9.0 'torch_xla[tpu]==2.9.0' "
        "--index-url https://download.pytorch.org/whl/cu126",
        "export PJRT_DEVICE=TPU",
    )
    assert plan.conflicts == ()


def test_off_a_tpu_torch_moves_alone() -> None:
    plan = _plan("real-torch29-xla29", install(("torch", "==2.9.1")))
    python = _facts("real-torch29-xla29").python
    assert python is not None
    assert plan.commands == (f"{python.executable} -m pip install torch==2.9.1",)
    assert plan.notes == ()


def test_colab_tpu_plan_in_cells_ends_with_the_restart() -> None:
    plan = _plan("colab-tpu-torch-upgraded", install(("torch", "==2.8.0")))
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
        install(("numpy", "<2.1")) + export("PJRT_DEVICE", "CPU") + unset("XLA_FLAGS") + remove_path("/tmp/x"),
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
    plan = _plan("real-torch29-xla29", install(("numpy", "<2.1")))
    assert (plan.cells, plan.notes, plan.platform) == ((), (), Platform("local", "cpu"))


def test_a_hosted_notebook_gets_no_driver_install() -> None:
    driver = "sudo apt-get install -y nvidia-driver-570  # Ubuntu; then reboot"
    fix = system_install("apt", "nvidia-driver-570", note="Ubuntu; then reboot", driver=True)
    assert _plan("gpu-driver-too-old", fix).commands == (driver,)
    plan = _plan("colab-t4", fix)
    assert plan.commands == ()
    assert plan.conflicts == (
        f"not for Colab: `{driver}`; the NVIDIA driver belongs to the hosted runtime and a notebook can neither "
        "replace it nor reboot; keep to framework builds for the CUDA this driver runs",
    )
