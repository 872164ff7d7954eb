"""Noise is not the cause: the root cause ranks first, a follow-on never outranks it, benign lines are marked
benign (and alone they are no failure), and a cause that is benign without a GPU is judged from the facts."""

from __future__ import annotations

import copy
import io
import re

from conftest import FACTS_DIR, load_json
from rich.console import Console

from xladoctor.explain.engine import _from_scan, exit_status
from xladoctor.explain.scan import scan
from xladoctor.facts import Facts, facts_from_json
from xladoctor.fix import Fix
from xladoctor.matrix.signatures import Signature, find_signature
from xladoctor.reporters.explain_report import explanation_to_json, render_explanation_text


def _sig(
    id: str, pattern: str, role: str = "cause", generic: bool = False, benign_when: str | None = None
) -> Signature:
    return Signature(id, "test", re.compile(pattern), f"cause of {id}", Fix(), "https://example.org", role,
                     benign_when, generic)  # fmt: skip


TABLE = (
    _sig("pjrt-init-failed", r"PJRT init failed: (?P<why>\w+)"),
    _sig("was-initialized", r"Check failed: !was_initialized", role="follow_on"),
    _sig("tf-trt-warning", r"TF-TRT Warning: Could not find TensorRT", role="benign"),
    _sig("no-cuda-drivers", r"Could not find cuda drivers on your machine", benign_when="no-gpu"),
    _sig("libcudnn-missing", r"libcudnn\.so\.\d+: cannot open shared object file"),
    _sig("shared-library", r"cannot open shared object file", generic=True),  # generic files load last
)


def _explain(text: str, facts: Facts | None = None):  # type: ignore[no-untyped-def]
    result = scan([text], signatures=TABLE)
    return _from_scan("log.txt", "text", len(text), result, facts)


def _facts(gpus: bool) -> Facts:
    doc = copy.deepcopy(load_json(FACTS_DIR / ("gpu-h100-healthy.json" if gpus else "gpu-h100-healthy.json")))
    if not gpus:
        doc["system"]["nvidia"]["gpus"] = []
    return facts_from_json(doc)


def test_a_follow_on_never_outranks_its_cause_wherever_it_is() -> None:
    log = "start\nF Check failed: !was_initialized\nE PJRT init failed: TPU\nF Check failed: !was_initialized\n"
    explanation = _explain(log)
    assert explanation.primary == "pjrt-init-failed"
    assert [m.id for m in explanation.ranked()] == ["pjrt-init-failed", "was-initialized"]
    assert [m.id for m in explanation.matches] == ["was-initialized", "pjrt-init-failed"]  # first appearance
    doc = explanation_to_json(explanation)
    assert doc["primary"] == "pjrt-init-failed"
    assert {m["id"]: m["role"] for m in doc["matches"]} == {"was-initialized": "follow_on", "pjrt-init-failed": "cause"}


def test_a_follow_on_alone_is_still_the_lead() -> None:
    explanation = _explain("F Check failed: !was_initialized\n")
    assert explanation.primary == "was-initialized" and exit_status(explanation) == 1


def test_a_specific_cause_outranks_a_generic_one_that_came_first() -> None:
    log = (
        "ImportError: libfoo.so: cannot open shared object file\n"
        "ImportError: libcudnn.so.9: cannot open shared object file\n"
    )
    assert _explain(log).primary == "libcudnn-missing"


def test_benign_lines_alone_are_no_failure_and_the_error_lines_are_shown() -> None:
    log = "TF-TRT Warning: Could not find TensorRT\nTraceback (most recent call last):\nValueError: bad shape\n"
    explanation = _explain(log)
    assert explanation.primary is None and exit_status(explanation) == 0
    assert [m.role for m in explanation.matches] == ["benign"]
    assert explanation.candidates and explanation.candidates[-1][1] == "ValueError: bad shape"
    out = io.StringIO()
    render_explanation_text(explanation, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "Only known-benign lines: nothing here explains a failure." in text and "ValueError: bad shape" in text


def test_benign_lines_beside_a_cause_are_listed_last_as_harmless() -> None:
    log = "TF-TRT Warning: Could not find TensorRT\nE PJRT init failed: CUDA\n"
    explanation = _explain(log)
    assert explanation.primary == "pjrt-init-failed"
    out = io.StringIO()
    render_explanation_text(explanation, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert text.index("root cause pjrt-init-failed") < text.index("known-benign (harmless start-up noise):")
    assert "- tf-trt-warning (1 time, first at line 1)" in text


def test_no_gpu_benign_cause_is_judged_from_the_facts() -> None:
    log = "W Could not find cuda drivers on your machine, GPU will not be used.\n"
    unknown = _explain(log)
    assert (
        unknown.primary == "no-cuda-drivers"
        and "expected, and harmless, on a machine without" in unknown.matches[0].cause
    )
    with_gpu = _explain(log, _facts(gpus=True))
    assert with_gpu.primary == "no-cuda-drivers" and "This machine has 8 NVIDIA GPUs" in with_gpu.matches[0].cause
    without = _explain(log, _facts(gpus=False))
    assert without.primary is None and without.matches[0].role == "benign" and exit_status(without) == 0


def test_smoke_classification_skips_benign_lines_and_prefers_a_cause() -> None:
    lines = ["TF-TRT Warning: Could not find TensorRT", "F Check failed: !was_initialized", "PJRT init failed: CPU"]
    match = find_signature(lines, TABLE)
    assert match is not None and match.signature.id == "pjrt-init-failed" and match.groups == {"why": "CPU"}
    assert find_signature(lines[:1], TABLE) is None
