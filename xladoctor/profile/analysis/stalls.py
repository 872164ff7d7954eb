"""The stalls `profile --stall-after` saw, as findings of the profile: each hang finding where the program was held
up, and each compile in progress that the watch did not report as a hang (once per place)."""

from __future__ import annotations

from collections.abc import Sequence

from xladoctor.profile.hang.model import HangFinding, HangReport
from xladoctor.profile.model import ProfileFinding


def _profile_finding(item: HangFinding) -> ProfileFinding:
    ranks = item.culprits or tuple(dict.fromkeys(r for g in item.groups for r in g.ranks))
    return ProfileFinding(item.finding, item.location, 1, (), ranks, item.next_steps)


def stall_findings(stalls: Sequence[HangReport], in_progress: Sequence[HangReport]) -> list[ProfileFinding]:
    found: dict[tuple[object, ...], ProfileFinding] = {}
    for report in stalls:
        for item in report.findings:
            found.setdefault((item.finding.id, item.finding.title), _profile_finding(item))
    for report in in_progress:  # a long compile is seen at every poll: once per rank and line
        for item in report.findings:
            where = item.location
            key = (item.finding.id, item.culprits, item.groups[0].ranks if item.groups else (),
                   (where.file, where.line) if where else None)  # fmt: skip
            found.setdefault(key, _profile_finding(item))
    return list(found.values())
