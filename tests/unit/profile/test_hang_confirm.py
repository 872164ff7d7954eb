"""`hang` on a job nobody watched reads it twice: a hang stands only when the second read finds it again with the
waiting ranks where they were. The second read is a real recorded stall (tests/hang/pid-busy.json, `hang --job` on
hang_gloo.py busy); the first is the start-up a CI run once caught instead (rank 1 still in init_process_group,
rank 0 already building its model)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from xladoctor.findings import Status
from xladoctor.profile.hang.analysis import Context, judge
from xladoctor.profile.hang.confirm import confirm, moved
from xladoctor.profile.hang.model import Activity, Collective, RankState
from xladoctor.profile.hang.replay import ranks_from_json
from xladoctor.profile.model import Location

HANG = Path(__file__).parents[2] / "hang"
STUCK = ranks_from_json(json.loads((HANG / "pid-busy.json").read_text()))
CWD = str(Path(STUCK[0].activity.location.file).parent) if STUCK[0].activity.location else None
PROGRAM = STUCK[0].activity.location.file if STUCK[0].activity.location else ""
CONTEXT = Context()


def _at(rank: RankState, kind: str, summary: str, line: int, op: str = "") -> RankState:
    activity = Activity(kind, summary, Location(PROGRAM, line, "main"), op=op)
    return dataclasses.replace(rank, activity=activity)


def _starting() -> list[RankState]:
    """The job's first second, as the failing CI run read it."""
    joining = ("rendezvous", "waiting for the other ranks to join (init_process_group)", 32, "init_process_group")
    return [_at(STUCK[0], "python", "running Python", 35), _at(STUCK[1], *joining), _at(STUCK[2], *joining)]


def _twice(first: list[RankState], second: list[RankState]) -> tuple[list[str], list[str], list[Status]]:
    found, notes = confirm(first, judge(first, CONTEXT, CWD), second, judge(second, CONTEXT, CWD), 5.0)
    return [f.finding.id for f in found], notes, [f.finding.status for f in found]


def test_a_start_up_caught_in_one_read_is_not_reported_as_a_hang() -> None:
    first = _starting()
    [thought] = judge(first, CONTEXT, CWD)
    assert thought.finding.status is Status.FAIL and thought.culprits == ("rank 0",)  # one read alone is fooled
    found, notes = confirm(first, [thought], STUCK, judge(STUCK, CONTEXT, CWD), 5.0)
    [moving] = found
    assert (moving.finding.id, moving.finding.status) == ("hang-job-moving", Status.OK)
    assert moving.finding.title == (
        "the job moved between two reads 5 s apart: ranks 0, 1, 2 are no longer where the first read found them"
    )
    assert thought.finding.title in moving.finding.detail
    assert moving.finding.evidence["moved"] == ["rank 0", "rank 1", "rank 2"]
    assert notes == []


def test_the_same_stall_read_twice_is_confirmed() -> None:
    ids, notes, statuses = _twice(list(STUCK), list(STUCK))
    assert (ids, statuses) == (["hang-rank-missing"], [Status.FAIL])
    assert notes == ["confirmed by a second read 5 s after the first"]


def test_the_rank_blamed_may_move_but_the_ranks_it_holds_up_may_not() -> None:
    elsewhere = [STUCK[0], _at(STUCK[1], "python", "running Python", 52), STUCK[2]]
    assert [r.label for r in moved(STUCK, elsewhere)] == ["rank 1"]
    assert _twice(list(STUCK), elsewhere)[0] == ["hang-rank-missing"]
    left = [_at(STUCK[0], "python", "running Python", 60), STUCK[1], _at(STUCK[2], "python", "running Python", 60)]
    ids, _, statuses = _twice(list(STUCK), left)
    assert (ids, statuses) == (["hang-job-moving"], [Status.OK])


def test_ranks_all_in_an_all_reduce_whose_number_moved_are_a_job_at_work() -> None:
    def in_all_reduce(number: int, seq: int) -> RankState:
        record = Collective("default", seq, "all_reduce", "started", "hook", ((4,),), "float32",
                            Location(PROGRAM, 59, "main"))  # fmt: skip
        waiting = Activity("collective", "waiting in all_reduce", Location(PROGRAM, 59, "main"), op="all_reduce")
        return RankState(f"rank {number}", number, "h1", 100 + number, "running", waiting, collectives=(record,))

    before, after = [in_all_reduce(0, 5), in_all_reduce(1, 5)], [in_all_reduce(0, 9), in_all_reduce(1, 9)]
    assert judge(before, CONTEXT, CWD)[0].finding.id == "hang-all-waiting"
    assert _twice(before, after)[0] == ["hang-job-moving"]
    assert _twice(before, list(before))[0] == ["hang-all-waiting"]


def test_a_job_that_ended_between_the_reads_keeps_the_first_reads_findings() -> None:
    gone = [dataclasses.replace(r, status="exited", activity=Activity("exited", "exited")) for r in STUCK]
    found, notes = confirm(STUCK, judge(STUCK, CONTEXT, CWD), gone, judge(gone, CONTEXT, CWD), 5.0)
    assert [f.finding.id for f in found] == ["hang-rank-missing"]
    assert notes == ["the job ended within 5 s of the first read; its findings are reported"]
