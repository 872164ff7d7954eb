"""The jax smoke test's fix for a CPU fallback on a GPU host: the CUDA jaxlib that this driver and this jax fit."""

from __future__ import annotations

import copy

from conftest import FACTS_DIR, load_json

from xladoctor.facts import Facts, facts_from_json
from xladoctor.fix import Install
from xladoctor.smoke.jax import _cuda_install


def _h200_with(driver: str | None = None, jax: str | None = None) -> Facts:
    """The recorded H200 host (driver 580.159.04, jax 0.11.2), with another driver or another jax's metadata."""
    doc = copy.deepcopy(load_json(FACTS_DIR / "real-gpu-h200.json"))
    if driver is not None:
        doc["system"]["nvidia"]["driver_version"] = driver
    if jax is not None:  # an older jax: its extras stop at cuda12
        [dist] = [d for d in doc["distributions"] if d["name"] == "jax"]
        dist["version"] = jax
        dist["requires"] = [r for r in dist["requires"] if "cuda13" not in r]
    return facts_from_json(doc)


def _installs(facts: Facts) -> list[tuple[str, str]]:
    [step] = _cuda_install(facts).steps
    assert isinstance(step, Install)
    return list(step.packages)


def test_a_driver_for_cuda_13_gets_the_cuda13_jaxlib_of_this_jax() -> None:
    assert _installs(_h200_with()) == [("jax[cuda13]", "==0.11.2")]


def test_a_driver_older_than_cuda_13_needs_gets_the_cuda12_jaxlib() -> None:
    assert _installs(_h200_with(driver="570.124.06")) == [("jax[cuda12]", "==0.11.2")]


def test_a_jax_without_a_cuda13_extra_gets_cuda12_whatever_the_driver() -> None:
    assert _installs(_h200_with(jax="0.6.2")) == [("jax[cuda12]", "==0.6.2")]
