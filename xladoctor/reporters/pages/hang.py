"""`hang --format html` (and `profile --stall-after --format html` at a stall): the findings with their groups of
ranks and next steps, then each rank: what it does, its last collectives, its helpers, and its threads folded."""

from __future__ import annotations

from xladoctor.findings import SEVERITY
from xladoctor.profile.hang.model import Group, HangFinding, HangReport, RankState, ranks_text
from xladoctor.reporters.hang_report import COLLECTIVES_SHOWN, _collective, headline
from xladoctor.reporters.html import esc
from xladoctor.reporters.pages.page import page
from xladoctor.reporters.pages.parts import anchor, chips, commands, finding, fold, notes, table
from xladoctor.sanitize import one_line


def _group(group: Group, cwd: str | None) -> str:
    hosts = f" (host {', '.join(group.hosts)})" if group.hosts else ""
    where = f" at {group.location.short(cwd)}" if group.location else ""
    code = f" <code>{esc(group.code)}</code>" if group.code else ""
    return f"<li><b>{esc(ranks_text(group.ranks))}</b>{esc(hosts)}: {esc(group.doing)}{esc(where)}{code}</li>"


def _finding(item: HangFinding, index: int, cwd: str | None) -> str:
    groups = "".join(_group(g, cwd) for g in item.groups)
    extra = f'<ul class="quietlist">{groups}</ul>' if groups else ""
    after = commands(item.next_steps, "next:") if item.next_steps else ""
    return finding(item.finding, extra, anchor("f", index, item.finding.id), after=after)


def _threads(rank: RankState, cwd: str | None) -> str:
    rows = []
    for thread in rank.threads:
        for frame in thread.frames:
            place = frame.file.rsplit("/", 1)[-1] if frame.native else f"{frame.file}:{frame.line}"
            rows.append(
                (esc(thread.name or thread.ident), esc(frame.function), esc(place), "you" if frame.user else "")
            )
    return table(("thread", "function", "where", ""), rows, "frames") if rows else ""


def _rank(rank: RankState, cwd: str | None) -> str:
    where = f" at {rank.activity.location.short(cwd)}" if rank.activity.location else ""
    step = f", step {rank.step}" if rank.step is not None else ""
    lines = [f"<p>pid {rank.pid}, host {esc(rank.host)}{esc(step)}: {esc(rank.activity.summary)}{esc(where)}</p>"]
    if rank.activity.code:
        lines.append(f"<p><code>{esc(rank.activity.code)}</code></p>")
    history = rank.flight or rank.collectives
    if history:
        shown = ", ".join(_collective(c, cwd) for c in history[-COLLECTIVES_SHOWN:])
        source = "Flight Recorder" if rank.flight else "hook"
        lines.append(f"<p>last collectives ({source}): {esc(shown)}</p>")
    for helper in rank.helpers:
        hw = f" at {helper.activity.location.short(cwd)}" if helper.activity.location else ""
        lines.append(f"<p>{esc(helper.role)} pid {helper.pid}: {esc(helper.activity.summary)}{esc(hw)}</p>")
    lines.append(f'<p class="muted">stacks: {esc(rank.stacks_from or "none")}</p>')
    lines.append(fold("threads", _threads(rank, cwd)))
    return f'<section class="process" id="{anchor("r", rank.pid)}"><h3>{esc(rank.label)}</h3>{"".join(lines)}</section>'


def render_hang_html(report: HangReport) -> str:
    """The hang report as one self-contained HTML file."""
    title = headline(report)
    header = f"<h1>xladoctor hang</h1><p>{esc(one_line(title))}</p>"
    header += f'<p class="muted">host {esc(report.host)}, {esc(report.created)}</p>' + chips(report.summary)
    ordered = sorted(enumerate(report.findings), key=lambda p: (SEVERITY[p[1].finding.status], p[0]))
    body = ['<section id="findings"><h2>Findings</h2>', *(_finding(f, i, report.cwd) for i, f in ordered), "</section>"]
    body.append('<section id="ranks"><h2>Ranks</h2>')
    body.extend(_rank(r, report.cwd) for r in report.ranks)
    body.append("</section>")
    body.append(notes(report.notes))
    return page("hang", f"xladoctor hang: {one_line(title)}", header, "".join(body))
