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
    "torch_oom": ("out-of-memory", "not-environment", "of 79.18 GiB total, 31.16 GiB was free"),
    "torch_device_assert": ("user-code-error", "not-environment", "srcIndex < srcSelectDimSize"),
    "triton_illegal_address": ("cuda-illegal-access", "unknown", "cudaErrorInvalidAddressSpace"),
    "triton_shared_memory": ("user-code-error", "not-environment", "triton_shared_memory.py:21"),
    # the code names the GPU (device="cuda:1" on a one-GPU machine): the code's, as the corpus's threads settle it
    "torch_invalid_ordinal": ("user-code-error", "not-environment", "cuda:1"),
    "torch_no_visible_gpu": ("bad-configuration", "environment", "CUDA_VISIBLE_DEVICES"),
    "jax_oom": ("out-of-memory", "not-environment", "400.00GiB"),
    "nccl_two_ranks_one_gpu": ("nccl-duplicate-gpu", "not-environment", "same GPU"),
    "cupy_wrong_arch_cubin": ("gpu-arch-unsupported", "environment", "no machine code"),
    "torch_extension_wrong_arch": ("gpu-arch-unsupported", "environment", "extension"),
}
# what the H100's facts add: (log, words of the join)
JOINED = {
    # torch 2.11 carries sm_90, so the kernel without code is the extension's, not torch's
    "torch_extension_wrong_arch": "torch has code this sm_90 GPU runs (its own): the kernel with none",
    "cupy_wrong_arch_cubin": "torch has code this sm_90 GPU runs",
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
    joined = _explain(name, True).diagnosis
    assert JOINED[name] in " ".join(joined.joined), joined.joined
    assert "H100" in " ".join(joined.joined)  # the facts' GPU, not a guess
    assert not joined.contradicted  # the log came from this very machine


@pytest.mark.parametrize(
    ("capability", "cubins", "ptx", "runs"),
    [
        ("9.0", {75, 80, 86, 90}, set(), True),  # its own code
        ("8.9", {75, 80, 86, 90}, set(), True),  # sm_86 machine code runs on sm_89 (torch's cu12x wheels ship no sm_89)
        ("12.0", {50, 60, 70, 75, 80, 86, 90}, set(), False),  # Blackwell with a list that stops at Hopper
        ("12.0", {75, 80, 86, 90}, {90}, True),  # PTX of an older architecture is compiled for it when loaded
        ("8.0", {86, 90}, set(), False),  # a newer minor's code does not run on the older minor
    ],
)
def test_a_gpu_runs_machine_code_of_its_major_up_to_its_minor_and_older_ptx(
    capability: str, cubins: set[int], ptx: set[int], runs: bool
) -> None:
    from xladoctor.explain.join import _arch_verdict

    assert ("torch has code" in _arch_verdict(capability, cubins, ptx)) is runs


def test_a_catalogue_signature_names_itself_unredacted_in_json() -> None:
    # "signature:<id>" read as a credential (Azure's `sig`/`signature`) and printed as "signature:<redacted>"
    result = run_cli("explain", str(LOGS / "cupy_wrong_arch_cubin.log"), "--no-facts", "--json")
    document = json.loads(result.stdout)
    assert document["diagnosis"]["decided_by"] == "catalogue:cuda-no-kernel-image"
    assert "<redacted>" not in result.stdout  # these logs hold no secret


def test_an_allocation_larger_than_the_gpu_drops_the_allocator_fix_and_trusts_the_logs_own_gpu() -> None:
    # JAX asked for 400 GiB on the 80 GB H100: preallocation settings cannot help, so their export is not offered
    jax = _explain("jax_oom", True).diagnosis
    assert "larger than the whole GPU" in " ".join(jax.joined) and jax.remediation == ()
    assert _explain("jax_oom", False).diagnosis.remediation  # without the facts, the allocator's advice stands
    # torch names the GPU and its capacity: 30 GiB of an 80 GB GPU is no claim about a smaller GPU in the facts
    facts = json.loads(FACTS.read_text())
    facts["system"]["nvidia"]["gpus"][0].update(name="NVIDIA GeForce RTX 4090", memory_mib=24564)
    log = (LOGS / "torch_oom.log").read_text().replace("Tried to allocate 39.59 GiB", "Tried to allocate 30.00 GiB")
    torch = explain_stream("oom.log", io.BytesIO(log.encode()), facts_from_json(facts)).diagnosis
    assert not any("larger than" in said for said in torch.joined), torch.joined
