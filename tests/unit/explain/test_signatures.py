"""Failure signatures: every bundled one matches a real error text from its source, and not a near miss.

The texts live in tests/signatures/examples.json, each with where it was seen (an upstream issue, or a
real run on this project's machines).
"""

from __future__ import annotations

import importlib.util
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from xladoctor.explain.hazards import MAX_BOUNDED, hazards
from xladoctor.explain.literals import all_required_literals, required_literals
from xladoctor.explain.scan import WHOLE_LINE
from xladoctor.fix import Fix, Shell, UnsetEnv, install
from xladoctor.matrix.signatures import Match, find_signature, load_signatures

EXAMPLES: dict[str, Any] = json.loads((Path(__file__).parents[2] / "signatures" / "examples.json").read_text())[
    "examples"
]
IDS = sorted(EXAMPLES)


def test_every_signature_has_a_real_text() -> None:
    assert sorted(s.id for s in load_signatures()) == IDS


@pytest.mark.parametrize("signature_id", IDS)
def test_real_text_matches_and_near_miss_does_not(signature_id: str) -> None:
    example = EXAMPLES[signature_id]
    assert example["seen"], "every text says where it was seen"
    assert _first_claim(example["text"]) == signature_id, example["seen"]
    assert _first_claim(example["near_miss"]) != signature_id
    assert _first_claim("unrelated line") is None


def _first_claim(line: str) -> str | None:
    """The signature a line is read as: the first in bundle order whose pattern it matches (benign ones too,
    which find_signature never returns as a cause)."""
    return next((s.id for s in load_signatures() if s.pattern.search(line)), None)


@pytest.mark.parametrize("signature_id", IDS)
def test_every_signature_can_be_searched_fast(signature_id: str) -> None:
    # explain searches a big log for these literals before any regular expression runs
    [signature] = [s for s in load_signatures() if s.id == signature_id]
    literals = required_literals(signature.pattern)
    assert literals, f"{signature_id}: its pattern needs a literal of 4+ characters every match contains"
    text = EXAMPLES[signature_id]["text"]
    haystack = text.lower() if signature.pattern.flags & re.IGNORECASE else text
    assert any(literal in haystack for literal in literals)


@pytest.mark.parametrize("signature_id", IDS)
def test_every_literal_a_signature_is_gated_on_is_in_its_real_text(signature_id: str) -> None:
    # a chunk is searched for a signature only when it holds one of each set: a set the real text lacks hides it
    [signature] = [s for s in load_signatures() if s.id == signature_id]
    text = EXAMPLES[signature_id]["text"]
    haystack = text.lower() if signature.pattern.flags & re.IGNORECASE else text
    for need in all_required_literals(signature.pattern):
        assert any(literal in haystack for literal in need), (signature_id, need)


def test_all_required_literals_are_every_literal_a_match_needs() -> None:
    pattern = re.compile(r"computation_client\.cc:\d+ ?: Missing XLA [Cc]onfiguration")
    assert all_required_literals(pattern) == (("computation_client.cc:",), (": Missing XLA ",), ("onfiguration",))
    either = re.compile(r"(?:cudaErrorNoKernel|no kernel image) for (?:sm_\d+|compute_\d+)")
    assert all_required_literals(either) == (("cudaErrorNoKernel", "no kernel image"), (" for ",))
    assert all_required_literals(re.compile(r"Out of Memory", re.IGNORECASE)) == (("out of memory",),)
    assert all_required_literals(re.compile(r"(?:abc)?x+")) == ()  # an optional group and a short run need nothing


def test_a_log_full_of_one_literal_still_finds_the_signature_that_needs_another() -> None:
    # every torch_xla log line holds computation_client.cc: -- the gate on the pattern's other literals must not
    # hide the one line that holds them all
    from io import BytesIO

    from xladoctor.explain.engine import explain_stream

    busy = b"I1129 12:00:01.1 1 pjrt_computation_client.cc:123] Executing computation on device TPU:0\n" * 40000
    failure = b"F1129 12:00:02.1 1 computation_client.cc:280 : Missing XLA configuration\n"
    found = explain_stream("train.log", BytesIO(busy + failure + busy), None)
    assert [(m.id, m.first_line) for m in found.matches] == [("xrt-missing-xla-configuration", 40001)]


@pytest.mark.parametrize("signature_id", IDS)
def test_no_pattern_can_be_made_to_backtrack(signature_id: str) -> None:
    """Every repeat of more than MAX_BOUNDED characters repeats one character class and is fenced by a fixed
    character it cannot match (xladoctor/explain/hazards.py): a hostile line cannot make it slow."""
    [signature] = [s for s in load_signatures() if s.id == signature_id]
    assert hazards(signature.pattern) == (), signature.pattern.pattern


def test_the_fence_rules_catch_the_shapes_that_once_took_seconds() -> None:
    unbounded = f"has no bound of {MAX_BOUNDED} and no fixed character before it that it cannot match"
    flagged = {  # the patterns of glibc-too-old-for-wheel, triton-gpu-capability-too-old, ... before they were fenced
        r"(?P<loaded>\S*lib\w+\.so\.\d+): version": (f"\\S* {unbounded}", f"\\w+ {unbounded}"),
        r"Found (?P<gpu>.+?) which is too old": (f".+? {unbounded}",),
        r"_XLAC\.[^:]*\.so: undefined symbol": (f"[^:]* {unbounded}",),
        r"version (?P<jax>\d+(?:\.\d+)*)": (f"(...)* repeats a group without a bound of {MAX_BOUNDED}",),
        r"Found (?:\w+\s?){0,8}x": (
            "(...){0,8} repeats a group that does not start with a character of its own",
            f"\\w+ {unbounded}",
        ),
        r"x.{0,500}y": (f".{{0,500}} {unbounded}",),
        r"(?P<quote>['`])x(?P=quote)": ("a back reference, whose cost these rules cannot bound",),
    }
    assert {pattern: hazards(re.compile(pattern)) for pattern in flagged} == flagged
    fenced = [
        r"(?<!\S)\S*\blib\w{1,64}\.so",  # a lookbehind, then a bounded repeat
        r"jaxlib is version (?P<jaxlib>[^\s,]+), but",  # the space before it
        r"(?:^|[\s(])[^\s(]+",  # a line start or a character it cannot match
        r"x\d*y\d*z",
        r"version (?P<jax>\d+(?:\.\d+){0,8})",  # a group that starts with its own character
        r"No PjRtPlugin registered for: ?(?P<device>[A-Za-z0-9_]+)",  # an optional character in between
    ]
    assert {pattern: hazards(re.compile(pattern)) for pattern in fenced} == dict.fromkeys(fenced, ())


# What the fenced patterns read from the real texts: the same as before they were fenced (the cause and fix use it).
FENCED_GROUPS = {
    "glibc-too-old-for-wheel": {
        "loaded": "/lib64/libm.so.6",
        "needed": "GLIBC_2.23",
        "required_by": "lib/python3.7/site-packages/jaxlib/xla_extension.so",
    },
    "libstdcxx-glibcxx-too-old": {"loaded": "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "needed": "GLIBCXX_3.4.30"},
    "libcudnn-missing": {"library": "libcudnn.so.9", "cudnn_major": "9"},
    "libcudart-cuda-major-missing": {"library": "libcudart.so.11.0", "cuda_major": "11"},
    "nvjitlink-undefined-symbol": {
        "library": "libcusparse.so.12",
        "symbol": "__nvJitLinkComplete_12_4",
        "major": "12",
        "minor": "4",
    },
    "shared-library-missing": {"library": "libc10.so"},
    "torch-xla-undefined-symbol": {
        "symbol": "_ZN2at6native12cpu_fallbackERKN3c1014OperatorHandleEPSt6vectorINS1_6IValueESaIS6_EE"
        "bNS1_11DispatchKeyE"
    },
    "triton-gpu-capability-too-old": {"gpu": "NVIDIA GeForce GTX 1080"},
    "triton-api-mismatch-with-torch": {"name": "AttrsDescriptor", "module": "triton.compiler.compiler"},
    "xla-flag-bad-value": {
        "value": "=/home/hyadav/deephyp/lib/python2.7/site-packages/tensorflow/compiler/xla:--tf_xla_cpu_global_jit="
        "/home/hyadav/deephyp/lib/python2.7/site-packages/tensorflow/compiler/xla:=--tf_xla_cpu_global_jit="
        "--tf_xla_cpu_global_jit",
        "flag": "tf_xla_cpu_global_jit",
    },
    "jaxlib-older-than-jax-minimum": {"jaxlib": "0.1.75", "required": "0.3.0"},
    "jaxlib-newer-than-jax": {"jaxlib": "0.4.31", "jax": "0.4.20"},
}


def test_fenced_patterns_read_the_same_values_from_the_real_texts() -> None:
    found = {}
    for signature_id in FENCED_GROUPS:
        match = find_signature([EXAMPLES[signature_id]["text"]])
        assert match is not None and match.signature.id == signature_id
        found[signature_id] = dict(match.groups)
    assert found == FENCED_GROUPS


def _fillers() -> tuple[str, ...]:
    path = Path(__file__).parents[3] / "scripts" / "bench_explain_hostile.py"
    spec = importlib.util.spec_from_file_location("bench_explain_hostile", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fillers: tuple[str, ...] = module.FILLERS
    return fillers


@pytest.mark.parametrize("signature_id", IDS)
def test_no_line_the_size_of_a_window_makes_a_pattern_slow(signature_id: str) -> None:
    """Coarse, as the project has no fine timed tests: each run of FILLERS (scripts/bench_explain_hostile.py), as
    long as the longest text explain searches at once, before, after and around each literal of the pattern.
    The slowest pattern takes about 25 ms for all of them; glibc-too-old-for-wheel's old `\\S*lib\\w+` took
    200 s on one."""
    [signature] = [s for s in load_signatures() if s.id == signature_id]
    started = time.perf_counter()
    for literal in required_literals(signature.pattern) or ():
        for filler in _fillers():
            run = filler * ((WHOLE_LINE - len(literal)) // len(filler))
            buried = (filler * (40 // len(filler) + 1) + literal) * (WHOLE_LINE // (40 + len(literal)))
            for line in (run + literal, literal + run, buried):
                signature.pattern.search(line)
    assert time.perf_counter() - started < 1.0


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
    A line to adapt before it runs (a name to fill in) is a comment: pasted, it does nothing. A `<placeholder>` is
    never in a command: the shell reads `<` as a redirection."""
    for signature in load_signatures():
        for step in signature.fix.steps:
            if isinstance(step, Shell) and not step.text.lstrip().startswith("#"):
                command = step.text.split("  #", 1)[0]
                assert not re.search(r"<[A-Za-z][\w -]*>", command), (signature.id, step.text)
                assert not re.search(r"\bpip (install|uninstall)\b|\buv pip\b", command), (signature.id, step.text)


def test_the_cause_only_names_values_the_real_text_gives() -> None:
    """A cause's {placeholders} are named groups of its pattern that the real text fills: a cause never shows a hole."""
    for signature in load_signatures():
        text = EXAMPLES[signature.id]["text"]
        hit = signature.pattern.search(text)
        assert hit is not None
        match = Match.of(signature, text, hit)
        named = set(re.findall(r"\{([a-z_]+)\}", signature.cause))
        assert named <= set(match.groups), (signature.id, named - set(match.groups))


# Never harmful: a recursive delete or a driver install is only named in a comment after a look, never pasted as is.
_HARMFUL = re.compile(r"\brm\s+-\w*[rf]|\.run\b|\b(?:nvidia-driver|cuda-drivers|nvidia-fabricmanager)[-=\w.]*\s*$")


def test_no_run_step_deletes_or_installs_a_driver() -> None:
    for signature in load_signatures():
        for step in signature.fix.steps:
            if isinstance(step, Shell):
                command = step.text.split("#", 1)[0]
                assert not _HARMFUL.search(command), (signature.id, step.text)
                if "sudo" in command:  # only to look (lsof, modprobe listings), never to change the system
                    assert not re.search(r"\b(?:apt|apt-get|yum|dnf|rm|dpkg|sh)\b", command), (signature.id, step.text)


def test_roles_are_declared_where_they_matter() -> None:
    """Start-up noise and wrappers are marked, so a ranking can put every cause before them."""
    roles = {s.id: s.role for s in load_signatures()}
    assert roles["inductor-backend-compiler-failed"] == "follow_on"
    assert roles["xla-duplicate-cuda-factory-registration"] == roles["tf-trt-not-found"] == "benign"
    assert {s.id for s in load_signatures() if s.benign_when == "no-gpu"} >= {
        "tf-cuda-runtime-not-loadable",
        "cuda-no-device-detected",
        "jax-cuda-version-helper-failed",
    }
    # JAX's fallback warning breaks GPU work where there is a GPU: a cause, never benign
    assert roles["jax-gpu-present-no-cuda-plugin"] == "cause"


def test_every_signature_names_its_source() -> None:
    for signature in load_signatures():
        assert "https://" in signature.source, signature.id
