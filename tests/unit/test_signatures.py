"""Failure signatures: every bundled one matches a real error text from its source, and not a near miss."""

from __future__ import annotations

import pytest

from xladoctor.signatures import find_signature, load_signatures

# (signature id, a real error line, where it was seen, a near miss that must match nothing)
REAL_TEXTS = [
    (
        "torch-xla-undefined-symbol",
        "ImportError: /usr/local/lib/python3.10/dist-packages/_XLAC.cpython-310-x86_64-linux-gnu.so: "
        "undefined symbol: "
        "_ZN2at6native12cpu_fallbackERKN3c1014OperatorHandleEPSt6vectorINS1_6IValueESaIS6_EEbNS1_11DispatchKeyE",
        "https://github.com/pytorch/xla/issues/8292",
        "ImportError: /usr/lib/libfoo.so.1: undefined symbol: bar_init",
    ),
    (
        "pjrt-plugin-not-registered",
        "RuntimeError: Bad StatusOr access: INVALID_ARGUMENT: No PjRtPlugin registered for: CUDA",
        "torch_xla 2.9.0 with PJRT_DEVICE=CUDA, tests/integration/test_torch_xla_env_real.py",
        "PjRtPlugin registered for: TPU",
    ),
    (
        "tf-xla-flags-unknown-flag",
        "F0000 00:00:1.0 12 parse_flags_from_env.cc:234] Unknown flag in TF_XLA_FLAGS: --tf_xla_bogus_flag=1",
        "tensorflow-cpu 2.21.0, tests/integration/test_xla_config_real.py",
        "Parsed TF_XLA_FLAGS: --tf_xla_auto_jit=2",
    ),
    (
        "xla-flags-unknown-flag",
        "F0000 00:00:1.0 12 parse_flags_from_env.cc:234] Unknown flag in XLA_FLAGS: --xla_bogus_flag=1",
        "torch_xla 2.9.0, tests/integration/test_torch_xla_env_real.py",
        "XLA_FLAGS: --xla_dump_to=/tmp/dump",
    ),
    (
        "inductor-no-cxx-compiler",
        "InductorError: InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx: "
        "(None, '/nonexistent/g++')",
        "torch 2.9.0 with CXX=/nonexistent/g++, tests/integration/test_smoke_real.py",
        "torch._inductor.config.cpp.cxx = (None, 'g++')",
    ),
    (
        "python-headers-missing",
        "/tmp/tmp8rlaiy4j/main.c:5:10: fatal error: Python.h: No such file or directory",
        "https://github.com/pytorch/pytorch/issues/129351",
        "/tmp/x/main.c:5:10: fatal error: cuda.h: No such file or directory",
    ),
    (
        "triton-missing",
        "torch._inductor.exc.TritonMissing: Cannot find a working triton installation. Either the package is not "
        "installed or it is too old.",
        "https://github.com/kijai/ComfyUI-WanVideoWrapper/issues/978",
        "Using triton 3.5.0 from /venv/lib/python3.11/site-packages/triton",
    ),
    (
        "cuda-driver-too-old",
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
        "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx",
        "https://github.com/lllyasviel/Fooocus/issues/1313",
        "NVIDIA driver version 580.159.03 is recent enough",
    ),
    (
        "shared-library-missing",
        "ImportError: libc10.so: cannot open shared object file: No such file or directory",
        "torch 2.13.0 with torch/lib/libc10.so deleted, tests/integration/test_real_host.py",
        "loaded libc10.so from /venv/lib/python3.11/site-packages/torch/lib",
    ),
]


def test_every_signature_has_a_real_text_here() -> None:
    assert sorted(s.id for s in load_signatures()) == sorted(case[0] for case in REAL_TEXTS)


@pytest.mark.parametrize(("signature_id", "text", "seen", "near_miss"), REAL_TEXTS, ids=[c[0] for c in REAL_TEXTS])
def test_real_text_matches_and_near_miss_does_not(signature_id: str, text: str, seen: str, near_miss: str) -> None:
    match = find_signature(["unrelated line", text])
    assert match is not None and match.signature.id == signature_id, seen
    assert match.line == text.strip()[:500]
    assert find_signature([near_miss]) is None


def test_fix_templates_are_filled_from_the_environment() -> None:
    match = find_signature([REAL_TEXTS[0][1]])
    assert match is not None
    fix = match.fix({"torch_xla_series": "2.9", "torch_xla_version": "2.9.0"})
    assert fix is not None and fix.install == (("torch", "~=2.9.0"), ("torch_xla", "==2.9.0"))
    assert "_ZN2at6native12cpu_fallback" in match.cause({})


def test_named_groups_reach_the_cause_and_fix() -> None:
    match = find_signature(["Unknown flag in TF_XLA_FLAGS: --tf_xla_bogus_flag=1"])
    assert match is not None
    assert "--tf_xla_bogus_flag" in match.cause({})
    fix = match.fix({})
    assert fix is not None and fix.commands == ("unset TF_XLA_FLAGS  # or remove --tf_xla_bogus_flag from it",)


def test_every_signature_names_its_source() -> None:
    for signature in load_signatures():
        assert signature.source.startswith("https://"), signature.id
