"""Platform detection from Facts: which hosted notebook, which accelerator, and the evidence for each."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.facts import Facts, facts_from_json
from xladoctor.facts.platform import Platform, detect_platform


def _facts(case: str, env: dict[str, str] | None = None, devices: list[str] | None = None) -> Facts:
    doc: dict[str, Any] = load_json(FACTS_DIR / f"{case}.json")
    if env is not None:
        doc["env"] = env
    if devices is not None:
        doc["system"]["resources"]["devices"] = devices
    return facts_from_json(doc)


@pytest.mark.parametrize(
    ("case", "name", "accelerator", "evidence"),
    [
        (
            "colab-tpu-torch-upgraded",
            "colab",
            "tpu",
            ("COLAB_RELEASE_TAG is set", "1 TPU chip(s) in /dev"),
        ),
        (
            "colab-t4",
            "colab",
            "gpu",
            ("COLAB_RELEASE_TAG is set", "1 NVIDIA GPU(s): Tesla T4"),
        ),
        (
            "kaggle-tpu-single-process-leftovers",
            "kaggle",
            "tpu",
            ("KAGGLE_KERNEL_RUN_TYPE is set", "KAGGLE_URL_BASE is set", "8 TPU chip(s) in /dev"),
        ),
        (
            "kaggle-tensorflow-and-tensorflow-cpu",
            "kaggle",
            "cpu",
            ("KAGGLE_KERNEL_RUN_TYPE is set", "KAGGLE_URL_BASE is set"),
        ),
        ("tpu-vm-healthy", "local", "tpu", ("4 TPU chip(s) in /dev",)),
        ("gpu-h100-healthy", "local", "gpu", ("8 NVIDIA GPU(s): NVIDIA H100 80GB HBM3",)),
        ("real-torch29-xla29", "local", "cpu", ()),
    ],
)
def test_fixtures_are_placed_where_they_run(case: str, name: str, accelerator: str, evidence: tuple[str, ...]) -> None:
    assert detect_platform(_facts(case)) == Platform(name, accelerator, evidence)


@pytest.mark.parametrize(
    ("env", "name", "accelerator"),
    [
        ({"COLAB_GPU": "1"}, "colab", "gpu"),  # Colab's GPU runtime
        ({"COLAB_GPU": "0"}, "colab", "cpu"),  # set to 0 on CPU and TPU runtimes
        ({"COLAB_GPU": ""}, "colab", "cpu"),
        ({"COLAB_TPU_ADDR": "10.0.0.2:8470"}, "colab", "tpu"),  # the TPU-node runtime: no chip in /dev
        ({"KAGGLE_DATA_PROXY_URL": "https://dp.kaggle.net"}, "kaggle", "cpu"),
        ({"KAGGLE_URL_BASE": "https://www.kaggle.com"}, "local", "cpu"),  # a Kaggle API user's setting proves nothing
        ({"PJRT_DEVICE": "TPU"}, "local", "cpu"),  # a variable is not a chip
    ],
)
def test_environment_variables_decide_the_hosted_platform(env: dict[str, str], name: str, accelerator: str) -> None:
    platform = detect_platform(_facts("real-torch29-xla29", env=env))
    assert (platform.name, platform.accelerator) == (name, accelerator)


def test_vfio_control_node_is_not_a_chip() -> None:
    assert detect_platform(_facts("tpu-vm-healthy", devices=["/dev/vfio/vfio"])).accelerator == "cpu"
    assert detect_platform(_facts("tpu-vm-healthy", devices=["/dev/vfio/0", "/dev/vfio/vfio"])).evidence == (
        "1 TPU chip(s) in /dev",
    )


def test_a_jupyter_kernel_counts_only_when_it_runs_the_diagnosed_interpreter() -> None:
    facts = _facts("real-torch29-xla29")
    assert facts.python is not None
    own = detect_platform(facts, kernel_python=facts.python.executable)
    assert own == Platform(
        "jupyter", "cpu", ("diagnosed from a Jupyter kernel running this interpreter",), facts.python.executable
    )
    assert (own.notebook, own.hosted, own.restart) == (True, False, "Kernel > Restart Kernel")
    other = detect_platform(facts, kernel_python="/usr/bin/python3")
    assert other == Platform("local", "cpu")
    assert (other.notebook, other.restart) == (False, None)


def test_hosted_platforms_name_their_restart_menu() -> None:
    assert detect_platform(_facts("colab-t4")).restart == "Runtime > Restart session"
    assert detect_platform(_facts("kaggle-tensorflow-and-tensorflow-cpu")).restart == (
        "Run > Restart & clear cell outputs"
    )
    assert detect_platform(_facts("colab-t4")).describe() == "Colab, GPU"
