"""The rank comparison on real stalls (tests/hang/*.json, recorded by tests/hang/record.py from the planted programs
in tests/integration/programs/), the classification of each recorded stack, and the edges no real run shows."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from xladoctor.findings import Status
from xladoctor.profile.hang.analysis import Context, judge
from xladoctor.profile.hang.classify import classify, main_thread
from xladoctor.profile.hang.model import Activity, Collective, HangReport, RankState
from xladoctor.profile.hang.replay import ranks_from_json
from xladoctor.profile.model import Location
from xladoctor.reporters.hang_report import hang_document, hang_schema

HANG = Path(__file__).parents[1] / "hang"
PROGRAMS = Path(__file__).parents[1] / "integration" / "programs"
CASES = sorted(p.stem for p in HANG.glob("*.json"))


def line_of(program: str, marker: str) -> int:
    """The line of a planted program that carries `# <- marker`."""
    for number, text in enumerate((PROGRAMS / program).read_text().splitlines(), 1):
        if f"# <- {marker}" in text:
            return number
    raise AssertionError(f"{program} has no line marked {marker}")


def recorded(case: str) -> dict[str, Any]:
    return dict(json.loads((HANG / f"{case}.json").read_text()))


def rejudged(case: str) -> list[Any]:
    document = recorded(case)
    context = Context(document["stalled_s"], post_mortem=document["trigger"] == "exit")
    return judge(ranks_from_json(document), context, document["cwd"])


@pytest.mark.parametrize("case", CASES)
def test_a_recorded_stall_is_judged_again_as_it_was(case: str) -> None:
    document = recorded(case)
    again = [f.to_json(document["cwd"]) for f in rejudged(case)]
    assert [(f["id"], f["title"], f["culprits"]) for f in again] == [
        (f["id"], f["title"], f["culprits"]) for f in document["findings"]
    ]
    jsonschema.validate(document, hang_schema())


@pytest.mark.parametrize("case", CASES)
def test_each_recorded_stack_classifies_as_recorded(case: str) -> None:
    for rank in ranks_from_json(recorded(case)):
        if not rank.threads:
            continue
        code = rank.activity.code
        again = classify(main_thread(rank.threads), rank.cpu, lambda file, line, code=code: code)
        assert (again.kind, again.summary, again.location) == (
            rank.activity.kind,
            rank.activity.summary,
            rank.activity.location,
        ), rank.label


def test_a_rank_that_calls_all_gather_where_the_others_call_all_reduce() -> None:
    [finding] = rejudged("gloo-mismatch")
    mismatch, reduce = line_of("hang_gloo.py", "mismatch"), line_of("hang_gloo.py", "all_reduce")
    assert finding.finding.id == "hang-collective-mismatch" and finding.finding.status is Status.FAIL
    assert finding.finding.title == (
        f"rank 1 called all_gather #3 (sizes 10) at hang_gloo.py:{mismatch} where ranks 0, 2 call all_reduce #3 "
        f"(sizes 10) at hang_gloo.py:{reduce}"
    )
    assert [(g.ranks, g.hosts, g.doing) for g in finding.groups] == [
        (("rank 1",), ("vm",), "called all_gather #3"),
        (("rank 0", "rank 2"), ("vm",), "wait in all_reduce #3"),
    ]
    assert finding.finding.evidence["source"] == "flight-recorder"
    assert finding.next_steps[0].startswith("every rank must call the same collectives")


def test_a_rank_that_skipped_an_all_reduce_is_named_at_the_step_it_skipped() -> None:
    [finding] = rejudged("gloo-skip")
    reduce, barrier = line_of("hang_gloo.py", "all_reduce"), line_of("hang_gloo.py", "barrier")
    assert finding.finding.id == "hang-collective-skipped" and finding.culprits == ("rank 1",)
    assert finding.finding.title == (
        f"rank 1 skipped all_reduce #3 at hang_gloo.py:{reduce} in step 3: its all_reduce #3 was made in step 4 "
        f"at hang_gloo.py:{reduce}"
    )
    assert finding.finding.detail.endswith(
        f"Now rank 1 waits in barrier #6 at hang_gloo.py:{barrier} while the others wait in all_reduce #6 "
        f"(sizes 10) at hang_gloo.py:{reduce}."
    )


def test_a_rank_in_an_endless_python_loop_is_missing_from_the_all_reduce() -> None:
    [finding] = rejudged("gloo-busy")
    busy, reduce = line_of("hang_gloo.py", "busy"), line_of("hang_gloo.py", "all_reduce")
    assert finding.finding.title == (
        f"rank 1 is not in all_reduce #3 that ranks 0, 2 wait in at hang_gloo.py:{reduce}: it is running Python at "
        f"hang_gloo.py:{busy} in step 3"
    )
    assert finding.groups[0].code == "spin += 1  # <- busy: rank 1 never leaves this loop"


def test_a_dataloader_worker_on_a_lock_held_at_fork_is_named_with_its_line() -> None:
    [finding] = rejudged("gloo-dataloader")
    waits, lock = line_of("hang_gloo.py", "dataloader: rank 1 waits here"), line_of("hang_gloo.py", "dataloader: the")
    assert finding.finding.id == "hang-rank-missing"
    assert f"it is waiting for its DataLoader's next batch at hang_gloo.py:{waits} in step 1" in finding.finding.title
    detail = finding.finding.detail
    assert re.search(rf"its DataLoader worker pid \d+ is blocked on a lock at hang_gloo\.py:{lock}\.", detail)
    assert finding.next_steps[0].startswith("a DataLoader worker waits on a lock: a lock held by another thread")


def test_a_rank_killed_while_its_peers_wait_is_named_after_the_job_ended() -> None:
    [finding] = rejudged("gloo-killed")
    reduce = line_of("hang_gloo.py", "all_reduce")
    document = recorded("gloo-killed")
    pid = next(r["pid"] for r in document["ranks"] if r["label"] == "rank 1")
    assert finding.finding.id == "hang-rank-died" and finding.culprits == ("rank 1",)
    assert finding.finding.title.startswith(
        f"rank 1 (pid {pid}, host vm) died while ranks 0, 2 waited in all_reduce #3 (sizes 10) at "
        f"hang_gloo.py:{reduce} (it then failed: RuntimeError: "
    )
    assert finding.finding.remediation == (
        "journalctl -k --since '-1h' | grep -i -e 'out of memory' -e 'killed process'",
    )


def test_jax_a_process_missing_from_the_all_gather_named_from_native_frames() -> None:
    [finding] = rejudged("jax-missing")
    sleep, gather = line_of("hang_jax.py", "sleep"), line_of("hang_jax.py", "allgather")
    assert finding.finding.title == (
        f"rank 1 is not in the all_gather that rank 0 waits in at hang_jax.py:{gather}: it is sleeping at "
        f"hang_jax.py:{sleep}"
    )
    waiting = next(r for r in ranks_from_json(recorded("jax-missing")) if r.label == "rank 0")
    assert any("AllGatherThunk" in f.function for f in waiting.threads[0].frames if f.native)


def test_torch_xla_a_step_that_never_finishes() -> None:
    [finding] = rejudged("xla-stuck")
    loop = line_of("hang_xla.py", "never")
    assert finding.finding.id == "hang-stuck"
    assert re.fullmatch(
        rf"pid \d+ made no progress for 5 s in step 4: running Python at hang_xla\.py:({loop - 1}|{loop})",
        finding.finding.title,
    )


def test_without_ptrace_faulthandler_still_names_the_line() -> None:
    document = recorded("nodump-regex")
    [finding] = rejudged("nodump-regex")
    assert finding.finding.title.endswith(f"running Python at hang_nodump.py:{line_of('hang_nodump.py', 'regex')}")
    assert [r["stacks_from"] for r in document["ranks"]] == ["faulthandler"]
    [note] = document["notes"]
    assert re.fullmatch(
        r"pid \d+: ptrace is not permitted: this process lacks CAP_SYS_PTRACE \(a container started without it\?\); "
        r"used faulthandler's dump through the hook instead",
        note,
    )


def test_hang_on_a_job_it_did_not_start_names_the_collective_from_the_stacks() -> None:
    [finding] = rejudged("pid-busy")
    busy, reduce = line_of("hang_gloo.py", "busy"), line_of("hang_gloo.py", "all_reduce")
    assert finding.finding.title == (
        f"rank 1 is not in the all_reduce that ranks 0, 2 wait in at hang_gloo.py:{reduce}: it is running Python "
        f"at hang_gloo.py:{busy}"
    )
    assert all(r["flight_recorder"] == [] and r["collectives"] == [] for r in recorded("pid-busy")["ranks"])


# ---- edges no real run shows -----------------------------------------------------------------------------------

WAITING = Activity("collective", "waiting in all_reduce", Location("/job/train.py", 20, "main"), op="all_reduce")


def collective(seq: int, op: str = "all_reduce", state: str = "completed", sizes: tuple[int, ...] = (4,),
               step: int | None = None, line: int = 20) -> Collective:  # fmt: skip
    return Collective("default", seq, op, state, "hook", (sizes,), "float32", Location("/job/train.py", line, "main"),
                      step)  # fmt: skip


def rank(number: int, activity: Activity = WAITING, history: tuple[Collective, ...] = (), status: str = "running",
         step: int | None = None) -> RankState:  # fmt: skip
    return RankState(f"rank {number}", number, "h1", 100 + number, status, activity, step, collectives=history)


def test_other_sizes_in_the_same_collective() -> None:
    done = (collective(1),)
    ranks = [rank(0, history=(*done, collective(2, state="started"))),
             rank(1, history=(*done, collective(2, state="started", sizes=(8,)))),
             rank(2, history=(*done, collective(2, state="started")))]  # fmt: skip
    [finding] = judge(ranks, Context(30.0), "/job")
    assert finding.finding.title == (
        "rank 1 called all_reduce #2 (sizes 8) at train.py:20 where ranks 0, 2 call all_reduce #2 (sizes 4) at "
        "train.py:20"
    )
    assert "other sizes" in finding.finding.detail


def test_a_rank_that_exited_while_the_others_wait() -> None:
    ranks = [rank(0, history=(collective(1, state="started"),)),
             rank(1, Activity("exited", "exited"), (), status="exited")]  # fmt: skip
    [finding] = judge(ranks, Context(30.0), "/job")
    assert finding.finding.id == "hang-rank-exited"
    assert finding.finding.title == (
        "rank 1 (pid 101) exited while rank 0 waits in all_reduce #1 (sizes 4) at train.py:20"
    )


def test_every_rank_here_waits_and_the_missing_ones_are_elsewhere() -> None:
    ranks = [rank(0, history=(collective(1, state="started"),)), rank(1, history=(collective(1, state="started"),))]
    [finding] = judge(ranks, Context(30.0, world_size=4), "/job")
    assert finding.finding.id == "hang-all-waiting"
    assert finding.finding.title == (
        "every rank seen here (ranks 0, 1) waits in all_reduce #1 (sizes 4) at train.py:20; ranks 2, 3 of 4 are not "
        "among them"
    )
    assert finding.next_steps[0] == "run `xladoctor hang --job LAUNCHER_PID` on the host of ranks 2, 3"


def test_ranks_waiting_to_join_for_one_still_importing_is_no_hang() -> None:
    joining = Activity("rendezvous", "waiting for the other ranks to join (init_process_group)",
                       Location("/job/train.py", 5, "main"), op="init_process_group")  # fmt: skip
    importing = Activity("import", "importing modules", Location("/job/train.py", 1, "<module>"))
    findings = judge([rank(0, joining), rank(1, joining), rank(2, importing)], Context(10.0), "/job")
    report = HangReport("stall", ("python",), "h1", tuple(findings), ())
    assert report.only_compiling
    assert findings[0].finding.title == ("rank 2 is importing modules at train.py:1: an import in progress, not a hang")
    assert findings[0].finding.detail.endswith("ranks 0, 1 wait for it in the init_process_group.")


def test_a_compile_on_every_rank_is_in_progress_and_a_sleeping_rank_is_stuck() -> None:
    compiling = Activity("compile", "compiling: torch.compile (Inductor)", Location("/job/train.py", 9, "step"))
    sleeping = Activity("sleep", "sleeping", Location("/job/train.py", 12, "step"))
    findings = judge([rank(0, compiling, step=1), rank(1, compiling, step=1)], Context(10.0), "/job")
    assert [(f.finding.id, f.finding.status) for f in findings] == [("hang-compile-in-progress", Status.OK)]
    [stuck] = judge([rank(0, sleeping, step=2)], Context(10.0), "/job")
    assert stuck.finding.title == "rank 0 made no progress for 10 s in step 2: sleeping at train.py:12"


def test_ranks_in_different_steps_are_said_apart() -> None:
    busy = Activity("python", "running Python", Location("/job/train.py", 30, "main"))
    ranks = [rank(0, busy, step=8), rank(1, busy, step=8), rank(2, busy, step=7)]
    findings = judge(ranks, Context(10.0), "/job")
    assert [f.finding.title for f in findings if f.finding.id == "hang-step-skew"] == [
        "rank 2 is in step 7; ranks 0, 1 are in step 8"
    ]


def test_no_rank_at_all() -> None:
    [finding] = judge([], Context(10.0))
    assert (finding.finding.id, finding.finding.status) == ("hang-stuck", Status.WARN)


@pytest.mark.parametrize("case", CASES)
def test_a_replayed_report_renders_again_and_validates(case: str) -> None:
    document = recorded(case)
    ranks = tuple(ranks_from_json(document))
    report = HangReport(document["trigger"], tuple(document["subject"]), document["host"],
                        tuple(rejudged(case)), ranks, document["stalled_s"], document["stall_after_s"],
                        document["cwd"], tuple(document["notes"]), document["created"],
                        document.get("took_s"))  # fmt: skip
    again = hang_document(report)
    jsonschema.validate(again, hang_schema())
    assert again["ranks"] == document["ranks"]
