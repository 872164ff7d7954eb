"""explain on real GPU failures: logs a lent H100 printed (scripts/gpu_failure_logs.sh; gpu_logs/README.md says
how), replayed here since CI has no GPU. Each must read as what the program really did, from the log alone and
joined with that machine's own facts."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import run_cli

from xladoctor.explain.engine import explain_stream
from xladoctor.facts import facts_from_json

LOGS = Path(__file__).parent / "gpu_logs"
FACTS = LOGS / "h100-facts.json"

# log: (family, verdict, words the cause must hold from the log alone)
CASES = {
    "torch_oom": ("out-of-memory", "not-environment", "39.59 GiB"),
    "torch_device_assert": ("user-code-error", "not-environment", "srcIndex < srcSelectDimSize"),
    "triton_illegal_address": ("cuda-illegal-access", "unknown", "cudaErrorInvalidAddressSpace"),
    "triton_shared_memory": ("user-code-error", "not-environment", "triton_shared_memory.py:21"),
    "torch_invalid_ordinal": ("bad-configuration", "environment", "cuda:1"),
    "torch_no_visible_gpu": ("bad-configuration", "environment", "CUDA_VISIBLE_DEVICES"),
    "jax_oom": ("out-of-memory", "not-environment", "400.00GiB"),
    "nccl_two_ranks_one_gpu": ("nccl-duplicate-gpu", "not-environment", "same GPU"),
    "cupy_wrong_arch_cubin": ("gpu-arch-unsupported", "environment", "no machine code"),
    "torch_extension_wrong_arch": ("gpu-arch-unsupported", "environment", "extension"),
}
# what the H100's facts add: (log, words of the join)
JOINED = {
    # torch 2.11 carries sm_90, so the kernel without code is the extension's, not torch's
    "torch_extension_wrong_arch": "torch has code for sm_90: the kernel with none is another library's",
    "cupy_wrong_arch_cubin": "torch has code for sm_90",
    # one allocation larger than the whole GPU: no allocator setting explains it
    "jax_oom": "larger than the whole GPU",
}


def _explain(name: str, with_facts: bool):  # type: ignore[no-untyped-def]
    facts = facts_from_json(json.loads(FACTS.read_text())) if with_facts else None
    return explain_stream(f"{name}.log", io.BytesIO((LOGS / f"{name}.log").read_bytes()), facts)


def test_every_recorded_log_has_a_case() -> None:
    assert sorted(p.stem for p in LOGS.glob("*.log")) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_real_gpu_failure_reads_as_what_the_program_did(name: str) -> None:
    family, verdict, words = CASES[name]
    for with_facts in (False, True):
        diagnosis = _explain(name, with_facts).diagnosis
        assert diagnosis is not None, name
        assert (diagnosis.family, diagnosis.verdict) == (family, verdict), (diagnosis.decided_by, diagnosis.cause)
        assert words in diagnosis.cause + " ".join(diagnosis.joined), diagnosis.cause


@pytest.mark.parametrize("name", sorted(JOINED))
def test_the_machines_facts_decide_what_the_log_leaves_open(name: str) -> None:
    alone, joined = _explain(name, False).diagnosis, _explain(name, True).diagnosis
    assert JOINED[name] not in " ".join(alone.joined)
    assert JOINED[name] in " ".join(joined.joined), joined.joined
    assert not joined.contradicted  # the log came from this very machine


def test_a_catalogue_signature_names_itself_unredacted_in_json() -> None:
    # "signature:<id>" read as a credential (Azure's `sig`/`signature`) and printed as "signature:<redacted>"
    result = run_cli("explain", str(LOGS / "cupy_wrong_arch_cubin.log"), "--no-facts", "--json")
    document = json.loads(result.stdout)
    assert document["diagnosis"]["decided_by"] == "catalogue:cuda-no-kernel-image"
    assert "<redacted>" not in result.stdout  # these logs hold no secret
