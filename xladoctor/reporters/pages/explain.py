"""`explain --format html`: the root cause first, the other causes and follow-ons after it, each with its evidence
lines, the fix with a copy button and its source; the known-benign lines folded; or the lines that look most like
the error when no signature matched."""

from __future__ import annotations

from xladoctor.explain.engine import Explained, Explanation
from xladoctor.explain.verdict import Diagnosis
from xladoctor.findings import Status
from xladoctor.reporters.html import esc
from xladoctor.reporters.pages.page import page
from xladoctor.reporters.pages.parts import anchor, commands, fold, mark, notes, refs
from xladoctor.sanitize import one_line

_HEADINGS = {"primary": "root cause", "cause": "also", "follow_on": "follow-on"}


def _times(match: Explained) -> str:
    return f"seen {match.count} time{'s' if match.count != 1 else ''}, first at line {match.first_line}"


def _lines(lines: tuple[tuple[int, str], ...]) -> str:
    return "\n".join(f"{number}: {text}" for number, text in lines)


def _match(match: Explained, primary: bool) -> str:
    role = "primary" if primary else match.role
    status = Status.FAIL if role in ("primary", "cause") else Status.WARN
    first, rest = match.evidence[:1], match.evidence[1:]
    lines = f"{len(rest)} more evidence line{'s' if len(rest) != 1 else ''}"
    more = fold(lines, f'<pre class="evidence-line">{esc(_lines(rest))}</pre>' if rest else "", print_open=True)
    return (
        f'<article class="finding s-{status.value} role-{esc(role)}" id="{anchor("m", match.id)}">'
        f"<h3>{mark(status)} {esc(_HEADINGS[role])}: {esc(match.id)} "
        f'<span class="fid">({esc(match.category)}; {esc(_times(match))})</span></h3>'
        f'<p class="detail">{esc(match.cause)}</p>'
        f'<pre class="evidence-line">{esc(_lines(first))}</pre>{more}'
        f"{commands(match.remediation, 'fix' if match.remediation else '')}{notes([match.note] if match.note else [])}"
        f"{refs([match.source])}</article>"
    )


_VERDICTS = {
    "environment": "environment: the install, the drivers or the system's configuration",
    "not-environment": "not the environment: the program or its resources",
    "framework-bug": "framework bug: a defect or a gap of the framework",
    "unknown": "unknown: what the log shows does not decide it",
}


def _diagnosis(diagnosis: Diagnosis) -> str:
    status = Status.FAIL if diagnosis.verdict == "environment" else Status.WARN
    family = f" ({diagnosis.family}, {diagnosis.confidence:.0%} sure)" if diagnosis.family else ""
    record = (
        f'<pre class="evidence-line">{esc(f"{diagnosis.line}: {diagnosis.record}")}</pre>' if diagnosis.line else ""
    )
    joined = notes(list(diagnosis.joined))
    nexts = commands(diagnosis.next, "to find out more") if diagnosis.next else ""
    return (
        f'<section id="verdict"><h2>Verdict</h2><article class="finding s-{status.value}" id="{anchor("root-cause")}">'
        f"<h3>{mark(status)} {esc(_VERDICTS[diagnosis.verdict])}{esc(family)}</h3>"
        f'<p class="detail">{esc(diagnosis.cause)}</p>{record}{joined}'
        f"{commands(diagnosis.remediation, 'fix' if diagnosis.remediation else '')}{nexts}"
        f"{refs([diagnosis.source] if diagnosis.source else [])}</article></section>"
    )


def _benign(matches: list[Explained]) -> str:
    if not matches:
        return ""
    items = "".join(f"<li><code>{esc(m.id)}</code> ({esc(_times(m))}): {esc(m.cause)}</li>" for m in matches)
    summary = f"{len(matches)} known-benign signature{'s' if len(matches) != 1 else ''} (harmless start-up noise)"
    return f'<section id="benign">{fold(summary, f"<ul>{items}</ul>", print_open=True)}</section>'


def render_explain_html(explanation: Explanation) -> str:
    """The explanation as one self-contained HTML file."""
    size = f"{explanation.bytes / 1e6:.1f} MB" if explanation.bytes >= 1e6 else f"{explanation.bytes} bytes"
    lines = f"{explanation.lines} line{'' if explanation.lines == 1 else 's'}"
    target = (
        f"<p>fixes made exact with the facts of <code>{esc(one_line(explanation.facts_target))}</code></p>"
        if explanation.facts_target
        else "<p>fixes written without the facts of the environment that wrote the log</p>"
    )
    header = f"<h1>xladoctor explain: {esc(one_line(explanation.name))}</h1>"
    header += f"<p>{esc(explanation.format)}, {lines}, {size}</p>"
    ranked = explanation.ranked()
    benign = [m for m in ranked if m.role == "benign"]
    body = [_diagnosis(explanation.diagnosis)] if explanation.diagnosis is not None else []
    if explanation.failing() and any(m.role != "benign" for m in ranked):
        body.append('<section id="causes"><h2>Signatures of the catalogue</h2>')
        body.extend(_match(m, m.id == explanation.primary) for m in ranked if m.role != "benign")
        body.append("</section>")
    elif explanation.diagnosis is None:
        said = "Only known-benign lines: nothing here explains a failure." if benign else "No known signature."
        body.append(f'<section id="causes"><h2>What went wrong</h2><p><b>{said}</b></p>')
        if explanation.candidates:
            body.append("<p>The lines that look most like the error:</p>")
            body.append(f'<pre class="evidence-line">{esc(_lines(explanation.candidates))}</pre>')
        body.append("</section>")
    body.append(_benign(benign))
    return page("explain", f"xladoctor explain: {one_line(explanation.name)}", header + target, "".join(body))
