"""Failure signatures: every bundled one matches a real error text from its source, and not a near miss.

The texts live in tests/signatures/examples.json, each with where it was seen (an upstream issue, or a
real run on this project's machines).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from xladoctor.explain.literals import required_literals
from xladoctor.matrix.signatures import find_signature, load_signatures
from xladoctor.remedy.fix import Fix, Shell, UnsetEnv, install

EXAMPLES: dict[str, Any] = json.loads((Path(__file__).parent.parent / "signatures" / "examples.json").read_text())[
    "examples"
]
IDS = sorted(EXAMPLES)


def test_every_signature_has_a_real_text() -> None:
    assert sorted(s.id for s in load_signatures()) == IDS


@pytest.mark.parametrize("signature_id", IDS)
def test_real_text_matches_and_near_miss_does_not(signature_id: str) -> None:
    example = EXAMPLES[signature_id]
    assert example["seen"], "every text says where it was seen"
    match = find_signature(["unrelated line", example["text"]])
    assert match is not None and match.signature.id == signature_id, example["seen"]
    near = find_signature([example["near_miss"]])
    assert near is None or near.signature.id != signature_id


@pytest.mark.parametrize("signature_id", IDS)
def test_every_signature_can_be_searched_fast(signature_id: str) -> None:
    # explain searches a big log for these literals before any regular expression runs
    [signature] = [s for s in load_signatures() if s.id == signature_id]
    literals = required_literals(signature.pattern)
    assert literals, f"{signature_id}: its pattern needs a literal of 4+ characters every match contains"
    text = EXAMPLES[signature_id]["text"]
    haystack = text.lower() if signature.pattern.flags & re.IGNORECASE else text
    assert any(literal in haystack for literal in literals)


def test_fix_templates_are_filled_from_the_environment() -> None:
    match = find_signature([EXAMPLES["torch-xla-undefined-symbol"]["text"]])
    assert match is not None
    fix = match.fix({"torch_xla_series": "2.9", "torch_xla_version": "2.9.0"})
    assert fix == install(("torch", "~=2.9.0"), ("torch_xla", "==2.9.0"))
    assert "_ZN2at6native12cpu_fallback" in match.cause({})


def test_named_groups_reach_the_cause_and_fix() -> None:
    match = find_signature(["Unknown flag in TF_XLA_FLAGS: --tf_xla_bogus_flag=1"])
    assert match is not None
    assert "--tf_xla_bogus_flag" in match.cause({})
    fix = match.fix({})
    assert fix == Fix((UnsetEnv("TF_XLA_FLAGS", "or remove --tf_xla_bogus_flag from it"),))


def test_a_step_no_value_fills_is_left_out_of_the_fix() -> None:
    """With torch_xla's facts but no JAX, the JAX step of a PJRT mismatch does not apply and is not offered."""
    match = find_signature([EXAMPLES["pjrt-api-version-mismatch"]["text"]])
    assert match is not None
    fix = match.fix({"torch_xla_version": "2.9.0"})
    assert fix is not None and [type(s).__name__ for s in fix.steps] == ["Install", "SetEnv"]
    assert fix.installs[0].packages == (("torch_xla[tpu]", "==2.9.0"),)
    assert match.unfilled({"torch_xla_version": "2.9.0"}) is True
    assert match.fix({}) is not None and match.unfilled({"torch_xla_version": "2.9.0", "jax_version": "0.7.2"}) is False


def test_no_signature_writes_an_installer_command_as_text() -> None:
    """Installs are structured steps, rendered for the environment's installer; text steps only look or clean.
    A `<placeholder>` line is an instruction to adapt, never pasted as is."""
    for signature in load_signatures():
        for step in signature.fix.steps:
            if isinstance(step, Shell) and "<" not in step.text:
                assert not re.search(r"\bpip (install|uninstall)\b|\buv pip\b", step.text), (signature.id, step.text)


def test_every_signature_names_its_source() -> None:
    for signature in load_signatures():
        assert "https://" in signature.source, signature.id
