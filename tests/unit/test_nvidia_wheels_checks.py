"""Branches of nccl-wheels and shared-cuda-libraries that the fixtures do not reach."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json
from packaging.specifiers import SpecifierSet

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.facts.nvidia_wheels import compatible
from xladoctor.findings import Finding

Edit = Callable[[dict[str, Any]], None]


def diagnose(case: str, edit: Edit, check_id: str) -> list[Finding]:
    doc = copy.deepcopy(load_json(FACTS_DIR / f"{case}.json"))
    edit(doc)
    return list(run_diagnosis(facts_from_json(doc), select_checks(only=[check_id])).findings)


def one(case: str, edit: Edit, check_id: str) -> Finding:
    [finding] = diagnose(case, edit, check_id)
    return finding


def dist(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(d for d in doc["distributions"] if d["name"].lower().replace("_", "-") == name)


# --- nccl-wheels ---------------------------------------------------------------------------------------------------


def _add(doc: dict[str, Any], name: str, version: str, requires: list[str] | None = None, **more: Any) -> None:
    site = doc["python"]["purelib"]
    doc["distributions"].append(
        {"name": name, "version": version, "location": site, "path_index": 4, "requires": requires or [], **more}
    )


def test_a_second_nccl_that_another_package_needs_moves_that_package_to_its_own_environment() -> None:
    def edit(doc: dict[str, Any]) -> None:
        _add(doc, "jax", "0.7.2", ['jax-cuda12-plugin[with-cuda]==0.7.2; extra == "cuda12"', "jaxlib==0.7.2"])
        _add(doc, "jaxlib", "0.7.2")
        _add(doc, "jax-cuda12-plugin", "0.7.2", ['nvidia-nccl-cu12>=2.18.1; extra == "with-cuda"'])

    finding = one("torch-nccl-cu12-and-cu13", edit, "nccl-wheels")
    assert finding.status.value == "fail"
    assert finding.remediation == (
        "/opt/venv/bin/python -m venv /opt/venv-jax  # a separate environment for jax (any folder you can write): "
        "install jax[cuda12]==0.7.2 there with its own python; nvidia-nccl-cu13 stays here",
        "/opt/venv/bin/python -m pip uninstall -y nvidia-nccl-cu12",
        "/opt/venv/bin/python -m pip install --force-reinstall --no-deps nvidia-nccl-cu13==2.28.9",
    )
    assert "jax-cuda12-plugin 0.7.2 [with-cuda] requires nvidia-nccl-cu12>=2.18.1" in finding.detail


def test_two_nccl_wheels_nothing_requires_keep_the_newest_cuda_family() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["distributions"] = [d for d in doc["distributions"] if d["name"] != "torch"]

    finding = one("torch-nccl-cu12-and-cu13", edit, "nccl-wheels")
    assert finding.remediation[-2:] == (
        "/opt/venv/bin/python -m pip uninstall -y nvidia-nccl-cu12",
        "/opt/venv/bin/python -m pip install --force-reinstall --no-deps nvidia-nccl-cu13==2.28.9",
    )


def test_cuda_12_wheels_beside_a_cuda_13_torch_are_disk_space_not_a_failure() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["distributions"] = [d for d in doc["distributions"] if d["name"] != "nvidia-nccl-cu12"]

    finding = one("torch-nccl-cu12-and-cu13", edit, "nccl-wheels")
    assert (finding.status.value, finding.title) == (
        "ok",
        "One NCCL wheel is installed: nvidia-nccl-cu13 2.28.9; 14 library wheel(s) of another CUDA family sit beside "
        "torch's CUDA 13 ones, in other folders with other sonames, so they replace none of torch's libraries "
        "(nothing installed requires them: they only take disk space)",
    )


# --- shared-cuda-libraries -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "fits"),
    [
        ("==9.5.1.17", ">=9.8,<10.0", False),
        ("==9.10.2.21", ">=9.8,<10.0", True),
        (">=9.1,<10.0", "==9.5.1.17", True),
        (">9.8", "<9.8.1", True),
        ("<9", ">=9", False),
        ("~=9.1", "==9.0.1", False),
        ("!=9.8", "==9.8", False),
        ("==9.*", ">=9.5", True),
        ("<10.0,>=9.3.0.75", "==8.9.7.29", False),
        ("===weird", "==1.0", True),
        ("", "==2.27.5", True),
    ],
)
def test_specifier_intersection_on_boundary_versions(first: str, second: str, fits: bool) -> None:
    assert compatible(SpecifierSet(first), SpecifierSet(second)) is fits


def _torch_pins_cudnn(version: str) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        torch = dist(doc, "torch")
        torch["requires"] = [
            f"nvidia-cudnn-cu12=={version}" if r.startswith("nvidia-cudnn-cu12") else r for r in torch["requires"]
        ]

    return edit


def test_a_torch_whose_cudnn_pin_fits_jax_is_ok_and_a_partial_extra_does_not_count() -> None:
    assert (
        one("torch27-jax06-cudnn-conflict", _torch_pins_cudnn("9.10.2.21"), "shared-cuda-libraries").status.value
        == "ok"
    )

    def without_nvcc(doc: dict[str, Any]) -> None:  # jax[cuda12-local]: the plugin's with-cuda extra is not there
        doc["distributions"] = [d for d in doc["distributions"] if d["name"] != "nvidia-cuda-nvcc-cu12"]

    assert one("torch27-jax06-cudnn-conflict", without_nvcc, "shared-cuda-libraries").status.value == "ok"


def test_the_one_that_stays_gets_its_pins_back_when_the_other_won_the_install() -> None:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "nvidia-cudnn-cu12")["version"] = "9.10.2.21"

    finding = one("torch27-jax06-cudnn-conflict", edit, "shared-cuda-libraries")
    assert finding.remediation[-1] == "/opt/venv/bin/python -m pip install nvidia-cudnn-cu12==9.5.1.17"
    assert finding.detail.endswith("with this one set back to the pins of the one that stays.")


def test_tensorflow_and_cuda_beside_torch_moves_tensorflow_and_lists_every_library() -> None:
    def edit(doc: dict[str, Any]) -> None:
        tf = load_json(FACTS_DIR / "tf-and-cuda-on-l4.json")
        names = {d["name"] for d in doc["distributions"]}
        doc["distributions"] += [d for d in tf["distributions"] if d["name"] not in names]
        dist(doc, "tensorflow")["requires"] = [
            r.replace("nvidia-cudnn-cu12<10.0,>=9.3.0.75", "nvidia-cudnn-cu12==9.3.0.75").replace(
                "nvidia-nccl-cu12<3.0,>=2.25.1", "nvidia-nccl-cu12==2.23.4"
            )
            for r in dist(doc, "tensorflow")["requires"]
        ]
        doc["distributions"] = [d for d in doc["distributions"] if not d["name"].startswith("jax")]

    finding = one("torch27-jax06-cudnn-conflict", edit, "shared-cuda-libraries")
    assert finding.title == (
        "torch 2.7.1 and tensorflow 2.20.0 [and-cuda] require 2 nvidia-* libraries at versions apart: "
        "nvidia-cudnn-cu12 (==9.5.1.17 vs ==9.3.0.75), nvidia-nccl-cu12 (==2.26.2 vs ==2.23.4)"
    )
    assert finding.remediation[0].startswith(
        "/opt/venv/bin/python -m venv /opt/venv-tensorflow  # a separate environment for tensorflow (any folder you "
        "can write): install tensorflow[and-cuda]==2.20.0 there"
    )
