"""The pieces every HTML report is built of: marks, summary chips, command blocks with a copy button, findings.

Each returns HTML in which every string from a report went through `esc` (scrubbed, then escaped).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from itertools import groupby

from xladoctor.diagnosis.report import ordered
from xladoctor.findings import SEVERITY, Finding, Status
from xladoctor.reporters.html import esc
from xladoctor.sanitize import json_text, scrub

MARKS = {Status.OK: "✔", Status.WARN: "!", Status.FAIL: "✖", Status.SKIP: "-", Status.ERROR: "?"}
_NOT_ID = re.compile(r"[^A-Za-z0-9_-]+")


def anchor(*parts: object) -> str:
    """An element id of safe characters only, `f-torch-xla-torch-mismatch`, from scrubbed text (an id made of a
    report string is a report string too: a device name could hold a credential)."""
    return _NOT_ID.sub("-", scrub("-".join(str(p) for p in parts))).strip("-") or "x"


def mark(status: Status) -> str:
    return f'<span class="mark" title="{status.value}" aria-label="{status.value}">{MARKS[status]}</span>'


def chips(summary: Mapping[str, int]) -> str:
    """The counts that are not zero, worst first, one chip each: `1 fail` `2 warn` `30 ok`."""
    items = [
        f'<li class="s-{s.value}">{summary.get(s.value, 0)} {s.value}</li>'
        for s in sorted(SEVERITY, key=SEVERITY.__getitem__)
        if summary.get(s.value, 0)
    ]
    return '<ul class="chips" aria-label="summary">' + "".join(items) + "</ul>"


def commands(lines: Iterable[str], label: str = "") -> str:
    """Commands to paste, in order, with a copy button (shown by the page's script; the text stays selectable)."""
    shown = [esc(line) for line in lines]
    if not shown:
        return ""
    caption = f'<p class="label">{esc(label)}</p>' if label else ""
    return (
        f'{caption}<div class="cmds"><pre>{chr(10).join(shown)}</pre>'
        '<button type="button" class="copy" hidden>Copy</button></div>'
    )


def text_block(text: str, css: str = "detail") -> str:
    """Text of several lines, kept as lines."""
    return f'<p class="{css}">{esc(text)}</p>' if text else ""


def notes(items: Iterable[str], word: str = "note") -> str:
    return "".join(f'<p class="note"><b>{esc(word)}:</b> {esc(t)}</p>' for t in items)


_URL = re.compile(r"https?://[^\s<>\"'()\[\]]+[^\s<>\"'()\[\].,;:!?]")


def linked(text: str) -> str:
    """Scrubbed, escaped text whose http(s) URLs are links (a link loads nothing until it is followed)."""
    clean = scrub(text)
    parts, start = [], 0
    for match in _URL.finditer(clean):
        url = esc(match.group())
        parts += [esc(clean[start : match.start()]), f'<a href="{url}" rel="noreferrer">{url}</a>']
        start = match.end()
    return "".join([*parts, esc(clean[start:])])


def refs(links: Iterable[str]) -> str:
    """Upstream references, their URLs as links."""
    parts = [linked(ref) for ref in links]
    return f'<p class="refs">see: {" · ".join(parts)}</p>' if parts else ""


def _folded(item: Finding, problem: bool) -> str:
    """What a finding keeps folded: why (for one that is not a problem), the evidence, the references."""
    return ("" if problem else text_block(item.detail)) + evidence_block(item.evidence) + refs(item.refs)


def evidence_block(value: Mapping[str, object]) -> str:
    return f'<p class="label">evidence</p><pre>{esc(json_text(dict(value)))}</pre>' if value else ""


def is_problem(item: Finding) -> bool:
    return item.status in (Status.FAIL, Status.ERROR, Status.WARN)


def finding(item: Finding, extra: str = "", fid: str | None = None, area: bool = False, after: str = "") -> str:
    """One finding in full: mark, title and id, `extra` (HTML: a location, a count), the detail, `after` (HTML: a
    change to make in code) and the commands (and alternatives) for a problem; evidence and references folded."""
    problem = is_problem(item)
    body = [text_block(item.detail), after] if problem else []
    if problem:
        body.append(commands(item.remediation, "fix" if item.remediation else ""))
        for alternative in item.alternatives:
            body.append(commands(alternative.commands, f"only if {alternative.when}:"))
    where = f'<span class="fid">{esc(item.area)} · </span>' if area else ""
    return (
        f'<article class="finding s-{item.status.value}" id="{fid or anchor("f", item.id)}">'
        f'<h3>{mark(item.status)} {where}{esc(item.title)} <code class="fid">{esc(item.id)}</code></h3>'
        f"{extra}{''.join(body)}{fold('details', _folded(item, problem))}</article>"
    )


def finding_row(item: Finding, fid: str, card: str | None = None) -> str:
    """One finding on one line (its details folded); a problem's row links to its card (`card`: its id)."""
    line = f'{mark(item.status)} {esc(item.title)} <code class="fid">{esc(item.id)}</code>'
    if card:
        return f'<li class="s-{item.status.value}" id="{fid}"><a href="#{card}">{line}</a></li>'
    folded = _folded(item, is_problem(item))
    if not folded:
        return f'<li class="s-{item.status.value}" id="{fid}">{line}</li>'
    return f'<li class="s-{item.status.value}" id="{fid}"><details><summary>{line}</summary>{folded}</details></li>'


def fold(summary: str, inner: str, print_open: bool = False) -> str:
    """A <details> block (`summary` is HTML); `print_open`: opened when printed, as content the page must show."""
    if not inner:
        return ""
    css = ' class="print-open"' if print_open else ""
    return f"<details{css}><summary>{summary}</summary>{inner}</details>"


def problems(findings: Iterable[Finding], prefix: str = "f") -> str:
    """The findings that failed, errored or warned, in full, worst first: what a reader came for."""
    found = [f for f in ordered(findings) if is_problem(f)]
    if not found:
        return ""
    cards = "".join(finding(f, fid=anchor(prefix, "card", f.id), area=True) for f in found)
    return f'<section id="{anchor(prefix, "problems")}"><h2>Needs attention</h2>{cards}</section>'


def findings_by_area(findings: Iterable[Finding], heading: str = "h2", prefix: str = "f") -> str:
    """Every finding, one line each, grouped by area and worst first; a problem's line links to its card (see
    `problems`); each area's skipped checks folded at its end. `prefix` starts each element id (several reports
    on one page each need their own)."""
    parts = []
    by_area = sorted(findings, key=lambda f: f.area)
    for area, group in groupby(by_area, key=lambda f: f.area):
        items = ordered(group)
        shown = [f for f in items if f.status is not Status.SKIP]
        skipped = [f for f in items if f.status is Status.SKIP]
        parts.append(f'<section class="area" id="{anchor(prefix, "area", area)}"><{heading}>{esc(area)}</{heading}>')
        rows = [
            finding_row(f, anchor(prefix, f.id), anchor(prefix, "card", f.id) if is_problem(f) else None) for f in shown
        ]
        if skipped:
            folded = "".join(finding_row(f, anchor(prefix, f.id)) for f in skipped)
            rows.append(f"<li>{fold(f'{len(skipped)} skipped', f'<ul class=quietlist>{folded}</ul>', True)}</li>")
        parts.append(f'<ul class="quietlist">{"".join(rows)}</ul></section>')
    return "".join(parts)


def table(head: Iterable[str], rows: Iterable[Iterable[str]], css: str = "", numeric: Iterable[int] = ()) -> str:
    """A table of already-escaped cells, in a wrapper that scrolls sideways on a narrow screen."""
    right = set(numeric)
    th = "".join(f'<th{" class=num" if i in right else ""} scope="col">{h}</th>' for i, h in enumerate(head))
    body = "".join(
        "<tr>" + "".join(f"<td{' class=num' if i in right else ''}>{c}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f'<div class="scroll"><table class="{css}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'
