"""The profile's detectors on records of real runs (tests/profile/records: `xladoctor profile --keep-records` of the
programs in tests/integration/programs, in the real venvs), plus transformations of them for the cases this
machine cannot produce (a GPU, a second rank), each said where it is made."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from xladoctor.findings import Status
from xladoctor.profile.analysis import build_report, exit_status
from xladoctor.profile.launch import RunOutcome
from xladoctor.profile.model import ProcessRecord, ProfileReport
from xladoctor.profile.records import read_records
from xladoctor.reporters.profile_report import profile_document, profile_schema

RECORDS = Path(__file__).parents[2] / "profile" / "records"


def _report(case: str, records: list[ProcessRecord] | None = None) -> ProfileReport:
    found = records if records is not None else read_records(RECORDS / case)
    report = build_report(RunOutcome(("python", f"{case}.py"), 0, 10.0), found)
    jsonschema.validate(json.loads(json.dumps(profile_document(report))), profile_schema())
    return report


def _by_id(report: ProfileReport) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for item in report.findings:
        found.setdefault(item.finding.id, []).append(item)
    return found


def _short(item: Any) -> str:
    return item.location.short("/work/main") if item.location else ""


def test_torch_compile_record() -> None:
    report = _report("compile-pitfalls-torch-2.13")
    found = _by_id(report)
    [graph_break] = found["compile-graph-break"]
    assert graph_break.finding.title == (
        "`if y.abs().max().item() > 100:` breaks the torch.compile graph: Unsupported Tensor.item() call with "
        "capture_scalar_outputs=False"
    )
    # taken on every step, counted per step: six steps, six breaks
    assert _short(graph_break).endswith("compile_pitfalls.py:18") and graph_break.steps == (1, 2, 3, 4, 5, 6)
    [recompiled] = found["compile-recompilation"]
    assert recompiled.finding.title == (
        "repeat() was recompiled 2 times (0.1 s, 3% of the run): a Python number is baked into the graph and changes "
        "from call to call "
        "(the Python number `times` in `for _ in range(times):`)"
    )
    assert _short(recompiled).endswith("compile_pitfalls.py:40") and recompiled.steps == (2, 3)
    [limit] = found["compile-recompile-limit"]
    assert limit.finding.status is Status.FAIL and limit.steps == (5,)
    assert limit.finding.title == (
        "torch.compile gave up on pool(): it hit the recompile limit in step 5 and runs eager from then on"
    )
    assert limit.finding.evidence["recompilations"] == 3 and limit.finding.evidence["cause"] == "shape"
    assert exit_status(report) == 1
    [process] = report.processes
    assert [s.recompiles for s in process.steps] == [0, 2, 2, 1, 0, 0]
    assert process.compile_share is not None and 0 < process.compile_share <= 1


def test_torch_xla_record() -> None:
    found = _by_id(_report("xla-pitfalls-torch-xla-2.9"))
    [item] = found["xla-host-sync"]
    assert item.finding.title == "`loss = w.sum().item()` copies a value to the host inside the step"
    assert _short(item).endswith("xla_pitfalls.py:11") and item.steps == (1, 2, 3, 4, 5, 6)
    [fallback] = found["xla-cpu-fallback"]
    assert fallback.finding.title == "`counts = torch.histc(w, bins=4)` runs on the CPU: no XLA lowering for histc"
    [recompiled] = found["xla-recompilation"]
    assert recompiled.finding.evidence["source"] == "debug analysis" and recompiled.steps == (3, 4, 5, 6)
    assert _short(recompiled).endswith("xla_pitfalls.py:13")


def _without_debug_analysis(record: ProcessRecord) -> ProcessRecord:
    """The same run as a rank whose torch_xla writes no debug analysis (PJRT_LOCAL_PROCESS_RANK=1): its events
    minus those read from that analysis (tests/integration checks the real thing)."""
    kept = tuple(e for e in record.events if e.get("kind") not in ("xla_compile", "xla_early_execution"))
    return replace(record, events=kept)


def test_torch_xla_record_without_debug_analysis_falls_back_to_metrics() -> None:
    [record] = read_records(RECORDS / "xla-pitfalls-torch-xla-2.9")
    found = _by_id(_report("xla-pitfalls-torch-xla-2.9", [_without_debug_analysis(record)]))
    [recompiled] = found["xla-recompilation"]
    assert recompiled.finding.evidence["source"] == "metrics" and recompiled.steps == (3, 4, 5, 6)
    [fallback] = found["xla-cpu-fallback"]
    assert fallback.finding.title == "histc ran on the CPU: no XLA lowering (in 6 steps)"
    [item] = found["xla-host-sync"]
    assert item.count == 6 and item.finding.evidence == {"kind": "item", "source": "metrics"}


def test_jax_record() -> None:
    found = _by_id(_report("jax-pitfalls-jax-0.10.2"))
    titles = sorted(f.finding.title for f in found["jax-recompilation"])
    assert titles == [
        "<lambda>() was traced and compiled 5 times: jax.jit is applied to a function created anew on every call (a "
        "lambda or closure inside the loop), so nothing is ever reused",
        "normalize() was traced and compiled 5 times: its input shapes or dtypes change from call to call (`x` is "
        "now f32[3], before f32[2])",
        "power() was traced and compiled 5 times: a static argument (static_argnums/static_argnames) or the "
        "structure of its inputs changes from call to call (a static value is now 1, before 0)",
    ]


def test_tensorflow_record() -> None:
    found = _by_id(_report("tf-retrace-tensorflow-2.21"))
    by_function = {f.finding.evidence["function"]: f for f in found["tf-function-retracing"]}
    # at the call that retraced, where the fix goes; the definition is evidence
    assert by_function["scale"].count == 8 and _short(by_function["scale"]).endswith("tf_retrace.py:22")
    assert by_function["scale"].finding.evidence["defined_at"].endswith("tf_retrace.py:6")
    [jit] = found["tf-jit-compile-unsupported-op"]
    assert jit.finding.status is Status.FAIL and jit.finding.evidence["op"] == "AsString"


LITTLE = "tf-clusters-little-tensorflow-2.21"


def _tf_variant(flags: str | None = None, **coverage: Any) -> list[ProcessRecord]:
    """The autoclustering record with other TF_XLA_FLAGS, or other figures in its coverage event (what another
    program or device would give; made here because this machine has one CPU and one TensorFlow)."""
    [record] = read_records(RECORDS / LITTLE)
    events = []
    for event in record.events:
        if flags is not None and event.get("kind") == "tf_xla_clusters":
            event = {**event, "tf_xla_flags": flags, **({"clusters": {}} if coverage.get("clusters") == 0 else {})}
        if event.get("kind") == "tf_xla_coverage":
            event = {**event, **coverage}
        events.append(event)
    return [replace(record, events=tuple(events))]


def test_autoclustering_that_takes_little_of_a_function_names_the_ops_left_outside() -> None:
    found = _by_id(_report(LITTLE))
    assert "tf-autoclustering-inactive" not in found
    [partial] = found["tf-autoclustering-partial"]
    assert partial.finding.title == ("XLA autoclustering took 6 of the 13 ops of tf.function step; 7 run outside XLA")
    assert _short(partial).endswith("tf_clusters_little.py:9")  # the first op left outside: as_string
    assert "AsString (tf_clusters_little.py:9)" in partial.finding.detail
    assert "StringStrip (tf_clusters_little.py:11)" in partial.finding.detail
    assert "jit_compile=True" in partial.code_fix[1]


@pytest.mark.parametrize(
    ("coverage", "why"),
    [
        ({"ops": 12, "outside": 6}, "exactly half clustered is not little"),
        ({"ops": 3, "outside": 3}, "a function under four ops is left alone"),
        ({"ops": 13, "outside": 0}, "all of it clustered"),
    ],
)
def test_autoclustering_that_takes_enough_gives_no_warning(coverage: dict[str, int], why: str) -> None:
    found = _by_id(_report(LITTLE, _tf_variant(**coverage)))
    assert "tf-autoclustering-partial" not in found and "tf-autoclustering-inactive" not in found, why


def test_autoclustering_not_turned_on_for_the_cpu_says_the_flag_not_the_ops() -> None:
    records = _tf_variant(flags="--tf_xla_auto_jit=2", clusters=0, outside=13)
    found = _by_id(_report(LITTLE, records))
    assert "tf-autoclustering-partial" not in found
    [inactive] = found["tf-autoclustering-inactive"]
    assert inactive.finding.remediation == ("export TF_XLA_FLAGS='--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit'",)


def test_autoclustering_on_a_gpu_that_clusters_nothing_names_the_ops_not_a_cpu_flag() -> None:
    device = "/job:localhost/replica:0/task:0/device:GPU:0"
    records = _tf_variant(flags="--tf_xla_auto_jit=2", clusters=0, outside=13, device=device)
    found = _by_id(_report(LITTLE, records))
    assert "tf-autoclustering-inactive" not in found
    [partial] = found["tf-autoclustering-partial"]
    assert (
        partial.finding.title.startswith("XLA autoclustering took 0 of the 13 ops") and not partial.finding.remediation
    )


def _as_rank(record: ProcessRecord, rank: int, pid: int) -> ProcessRecord:
    return replace(record, pid=pid, ranks={"RANK": str(rank), "WORLD_SIZE": "2"})


def test_the_same_problem_on_two_ranks_is_one_finding_naming_both() -> None:
    [record] = read_records(RECORDS / "compile-pitfalls-torch-2.13")
    report = _report("compile-pitfalls-torch-2.13", [_as_rank(record, 1, 2), _as_rank(record, 0, 1)])
    [graph_break] = _by_id(report)["compile-graph-break"]
    assert graph_break.ranks == ("rank 0", "rank 1") and graph_break.count == 12
    assert graph_break.finding.evidence["per_process"] == {"rank 0": 6, "rank 1": 6}
    assert [p.label for p in report.processes] == ["rank 0", "rank 1"]


def _gpu_record(events: list[Mapping[str, Any]]) -> ProcessRecord:
    """Events in the shape the dynamo hook writes on a GPU (synthesized: this machine has none; the fields are
    those of torch 2.13's CompilationMetrics.cudagraph_skip_reason and torch.cuda's sync warning)."""
    return ProcessRecord(1, None, ("train.py",), "/w", "3.11.7", {}, tuple(events), exited=True)


def test_cudagraph_skips_and_cuda_syncs_name_their_reason_and_line() -> None:
    function = {"file": "/w/train.py", "line": 10, "function": "step"}
    events: list[Mapping[str, Any]] = [
        {"kind": "steps_begin", "t": 0.0, "step": 1},
        {"kind": "dynamo_compile", "frame_id": 0, "frame_compile_id": 0, "function": function, "step": 1,
         "called_from": {"file": "/w/train.py", "line": 30, "function": "<module>"},
         "cudagraph_skip": "skipping cudagraphs due to mutated inputs (1 instances)"},
        {"kind": "cuda_sync", "location": {"file": "/w/train.py", "line": 33, "function": "<module>",
                                           "code": "total += loss.item()"}, "step": 1,
         "message": "called a synchronizing CUDA operation"},
        {"kind": "step", "index": 1, "source": "optimizer.step()", "t": 1.0, "step": 1},
    ]  # fmt: skip
    found = _by_id(_report("gpu", [_gpu_record(events)]))
    [skip] = found["compile-cudagraph-skipped"]
    assert skip.finding.title == "CUDA graphs were skipped for step(): mutated inputs (1 instances)"
    assert _short(skip) == "/w/train.py:30"
    [sync] = found["cuda-host-sync"]
    assert sync.finding.title == "`total += loss.item()` makes the CPU wait for the GPU inside the step"
    assert sync.steps == (1,)


def test_a_cuda_graph_skip_at_run_time_is_named_once_with_the_function_running() -> None:
    # the event the hook writes when inductor skips at run time (cudagraph_trees.py, after the compile's metrics)
    running = {"file": "/w/train.py", "line": 12, "function": "step", "code": "return model(x)"}
    # torch 2.13's words end ". Found from :" with the stack on the next lines (the hook keeps the first line)
    reason = "skipping cudagraphs due to mutated inputs (1 instances). Found from :"
    compiled = {"kind": "dynamo_compile", "frame_id": 0, "frame_compile_id": 0, "step": 1,
                "function": {"file": "/w/train.py", "line": 10, "function": "step"}}  # fmt: skip
    events: list[Mapping[str, Any]] = [
        {"kind": "steps_begin", "t": 0.0, "step": 1},
        {"kind": "cudagraph_skip", "reason": reason, "called_from": running, "step": 1},
        {"kind": "cudagraph_skip", "reason": reason, "called_from": running, "step": 2},
        {"kind": "count", "of": "cudagraph_skip", "key": reason, "count": 500, "steps": [3, 4], "t": 9.0},
        {"kind": "cudagraph_skip", "reason": "skipping cudagraphs due to cpu device (x)", "step": 2,
         "called_from": {"file": "/w/train.py", "line": 40, "function": "train"}},
    ]  # fmt: skip
    found = _by_id(_report("gpu", [_gpu_record([compiled, *events])]))
    mutated, cpu = found["compile-cudagraph-skipped"]
    assert mutated.finding.title == "CUDA graphs were skipped for step(): mutated inputs (1 instances)"
    assert _short(mutated) == "/w/train.py:12" and mutated.count == 500  # the hook's count past the recorded 64
    # the innermost user frame at run time is the caller when it is no compiled function of the record
    assert cpu.finding.title == "CUDA graphs were skipped for a compiled function called from train(): cpu device (x)"
    # the same skip in a compile's metrics too (torch 2.13 sets both when the compile decides it): reported once
    again = {**compiled, "cudagraph_skip": reason}
    [once] = _by_id(_report("gpu", [_gpu_record([*events[:2], again])]))["compile-cudagraph-skipped"]
    assert _short(once) == "/w/train.py:10"


def test_a_real_h100_run_names_its_host_sync_at_its_line() -> None:
    """The record `scripts/gpu_profile.sh` kept on an H100 (torch 2.11.0+cu130, 2026-12-05): .item() in every step.
    That run's CUDA-graph skip came at run time, before the hook read it (the test above and
    test_profile_real.py's run-time skip cover that now); its record holds no event of it."""
    [record] = read_records(RECORDS / "gpu-cuda-pitfalls-torch-2.11-h100")
    [sync] = _by_id(_report("gpu", [record]))["cuda-host-sync"]
    assert _short(sync).endswith("gpu_cuda_pitfalls.py:25") and sync.steps == (2, 3, 4, 5, 6, 7)
    assert sync.finding.title == "`total += loss.item()` makes the CPU wait for the GPU inside the step"


def test_a_healthy_record_gives_no_warning() -> None:
    """The compile record minus everything that went wrong is a healthy run: nothing is reported from nothing."""
    [record] = read_records(RECORDS / "compile-pitfalls-torch-2.13")
    kept = tuple(
        e
        for e in record.events
        if e.get("kind") != "graph_break" and not (e.get("kind") == "dynamo_compile" and e.get("frame_compile_id"))
    )
    report = _report("healthy", [replace(record, events=kept)])
    assert [f.finding.id for f in report.findings] == ["program-exit"] and exit_status(report) == 0


# --- real torchrun runs (torch 2.13.0 CPU, gloo, 2 ranks), their records kept ------------------------------------


def _torchrun_report(case: str) -> ProfileReport:
    records = read_records(RECORDS / case)
    return build_report(RunOutcome(("torchrun", "--nproc-per-node", "2", f"{case}.py"), 0, 40.0), records)


def test_ddp_with_compile_healthy_has_no_warning_and_its_warm_up_recompile_is_not_a_cost() -> None:
    """Block.forward compiled for two layers whose inputs differ in requires_grad, both in step 1: warm-up."""
    report = _torchrun_report("ddp-compile-healthy-torch-2.13")
    assert {f.finding.status for f in report.findings} == {Status.OK}, [f.finding.title for f in report.findings]
    [internal] = _by_id(report)["compile-graph-break-internal"]
    assert internal.ranks == ("rank 0", "rank 1") and "DistributedDataParallel" in internal.finding.title


def test_a_realistic_gpt_run_names_its_skipped_forward_and_its_one_costly_recompile() -> None:
    """examples/profile/train_gpt.py: LayerDrop with random.random() in the layer loop, a last partial batch."""
    report = _torchrun_report("gpt-ddp-compile-torch-2.13")
    found = _by_id(report)
    [skipped] = found["compile-frame-skipped"]
    assert skipped.finding.status is Status.FAIL and _short(skipped).endswith("train_gpt.py:41")
    assert skipped.finding.title.startswith("forward() at train_gpt.py:38 is not compiled at all")
    assert "outside the compiled code" in skipped.code_fix[0] and skipped.ranks == ("rank 0", "rank 1")
    # one finding for both ranks, for the layer's forward only: torch's own wrapper (`inner`, 0.09 s of compile)
    # shared the step with it and is not charged the step's stall
    [recompiled] = found["compile-recompilation"]
    assert recompiled.ranks == ("rank 0", "rank 1") and recompiled.steps == (5,)
    evidence = recompiled.finding.evidence
    assert evidence["function"] == "forward" and evidence["recompile_s"] > 5
    assert "took the sizes 16, 6" in recompiled.code_fix[0]
    assert "compile-graph-break" not in found  # DDP's own breaks are not the user's
