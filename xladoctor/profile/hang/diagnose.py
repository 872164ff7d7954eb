"""One hang diagnosis: read the ranks (gather), judge them (analysis), and hand back the report."""

from __future__ import annotations

import socket
import time
from collections.abc import Sequence
from datetime import datetime, timezone

from xladoctor.findings import SEVERITY, Status
from xladoctor.profile.hang.analysis import Context, judge
from xladoctor.profile.hang.confirm import confirm
from xladoctor.profile.hang.discover import Target
from xladoctor.profile.hang.gather import gather
from xladoctor.profile.hang.model import HangReport


def diagnose(
    targets: Sequence[Target],
    trigger: str,
    subject: tuple[str, ...],
    stalled_s: float | None = None,
    stall_after_s: float | None = None,
    cwd: str | None = None,
    native: bool = True,
    timeout_s: float = 20.0,
    confirm_s: float = 0.0,
) -> HangReport:
    """The report for these ranks now (a running job), or from their records alone (ranks that are gone).

    With `confirm_s`, a hang the first read finds is read again that many seconds later and reported only if the
    second read finds it too (see confirm.py): for a job whose stillness nothing has measured."""
    started = time.monotonic()
    states, notes = gather(targets, timeout_s, native)
    worlds = [t.world_size for t in targets if t.world_size is not None]
    context = Context(stalled_s, max(worlds) if worlds else None, post_mortem=trigger == "exit")
    found = judge(states, context, cwd)
    if confirm_s > 0 and any(f.finding.status is not Status.OK for f in found):
        time.sleep(confirm_s)
        again, notes_again = gather(targets, timeout_s, native)
        found, confirmed = confirm(states, found, again, judge(again, context, cwd), confirm_s)
        if any(r.status == "running" for r in again):  # else the job ended: the first read is its last picture
            states, notes = again, notes_again
        notes = [*notes, *confirmed]
    findings = sorted(found, key=lambda f: SEVERITY[f.finding.status])
    return HangReport(
        trigger=trigger,
        subject=subject,
        host=socket.gethostname(),
        findings=tuple(findings),
        ranks=tuple(states),
        stalled_s=stalled_s,
        stall_after_s=stall_after_s,
        cwd=cwd,
        notes=tuple(notes),
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        took_s=time.monotonic() - started,
    )
