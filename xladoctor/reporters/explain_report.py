"""Render an explanation: rich text for people, JSON (explain.schema.json) for machines."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from xladoctor import __version__
from xladoctor.explain.engine import Explained, Explanation
from xladoctor.explain.verdict import Diagnosis
from xladoctor.reporters.schemas import bundled_schema
from xladoctor.reporters.terminal import _line
from xladoctor.reporters.terminal import _text as _t
from xladoctor.sanitize import json_text, scrub_json

EXPLAIN_SCHEMA_VERSION = 1


def _document(explanation: Explanation) -> dict[str, Any]:
    return {
        "schema_version": EXPLAIN_SCHEMA_VERSION,
        "xladoctor_version": __version__,
        "input": {
            "name": explanation.name,
            "format": explanation.format,
            "bytes": explanation.bytes,
            "lines": explanation.lines,
            "skipped_bytes": explanation.skipped_bytes,
        },
        "facts_target": explanation.facts_target,
        "diagnosis": explanation.diagnosis.to_json() if explanation.diagnosis is not None else None,
        "records": explanation.records,
        "primary": explanation.primary,
        "matches": [m.to_json() for m in explanation.matches],
        "candidates": [{"line": n, "text": t} for n, t in explanation.candidates],
    }


def explanation_to_json(explanation: Explanation) -> dict[str, Any]:
    """The `explain --json` document, scrubbed (xladoctor.sanitize)."""
    scrubbed: dict[str, Any] = scrub_json(_document(explanation))
    return scrubbed


def render_explanation_json(explanation: Explanation) -> str:
    return json_text(_document(explanation))


def explain_schema() -> dict[str, Any]:
    """The published JSON Schema of `explain --json` (`xladoctor schema explain`)."""
    return bundled_schema("explain.schema.json")


def render_explanation_text(explanation: Explanation, console: Console, verbose: bool = False) -> None:
    size = f"{explanation.bytes / 1e6:.1f} MB" if explanation.bytes >= 1e6 else f"{explanation.bytes} bytes"
    console.print(
        f"[bold]xladoctor explain[/] {_line(explanation.name)} ({explanation.format}, "
        f"{explanation.lines} line{'' if explanation.lines == 1 else 's'}, {size})"
    )
    if explanation.skipped_bytes:
        console.print(
            f"[dim]{explanation.skipped_bytes / 1e6:.1f} MB in the middle of lines over 4 MiB were not searched "
            "(only the first 4 MiB and the end of such a line are)[/]"
        )
    if explanation.facts_target:
        console.print(f"[dim]fixes made exact with the facts of {_line(explanation.facts_target)}[/]")
    if explanation.diagnosis is not None:
        _diagnosis(console, explanation.diagnosis, verbose)
    if not explanation.failing():
        benign = [m for m in explanation.matches if m.role == "benign"]
        if benign:
            console.print("\n[bold]Only known-benign lines[/]: nothing here explains a failure.")
            _benign_lines(console, benign)
        else:
            console.print("\n[bold]No known signature[/] in this log.")
        if explanation.candidates:
            console.print("The lines that look most like the error:")
            for line_no, text in explanation.candidates:
                console.print(f"  [dim]{line_no}:[/] {_t(text)}")
        return
    ranked = explanation.ranked()
    if explanation.diagnosis is not None and not verbose:
        causes = [m for m in ranked if m.role != "benign"]
        if causes:  # the verdict above says what they mean; one line each, -v for the whole of each
            console.print("\n[dim]signatures of the catalogue in the log:[/]")
            for match in causes:
                times = f"seen {match.count} time{'s' if match.count != 1 else ''}, first at line {match.first_line}"
                console.print(f"  [dim]- {_t(match.id)} ({_t(match.category)}; {times})[/]")
        ranked = [m for m in ranked if m.role == "benign"]
    elif any(m.role != "benign" for m in ranked):
        console.print("\n[dim]signatures of the catalogue in the log:[/]")
    for match in ranked:
        if match.role == "benign":
            continue
        if match.id == explanation.primary:
            heading = "[bold red]✖ root cause[/]"
        elif match.role == "follow_on":
            heading = "[yellow]↳ follow-on[/]"
        else:
            heading = "[red]✖ also[/]"
        _match(console, match, heading, verbose)
    benign = [m for m in ranked if m.role == "benign"]
    if benign:
        console.print("\n[dim]known-benign (harmless start-up noise):[/]")
        _benign_lines(console, benign)


_VERDICT_WORDS = {
    "environment": "[bold red]environment[/]: the install, the drivers or the system's configuration",
    "not-environment": "[bold yellow]not the environment[/]: the program or its resources",
    "framework-bug": "[bold magenta]framework bug[/]: a defect or a gap of the framework",
    "unknown": "[bold]unknown[/]: what the log shows does not decide it",
}


def _diagnosis(console: Console, diagnosis: Diagnosis, verbose: bool) -> None:
    """The one verdict, first: its class, its cause, the record that decided it, the fix or what to run next."""
    guess = "" if diagnosis.decided else "a guess: "
    family = f" ({guess}{_t(diagnosis.family)}, {diagnosis.confidence:.0%} sure)" if diagnosis.family else ""
    console.print(f"\n[bold]Verdict:[/] {_VERDICT_WORDS[diagnosis.verdict]}{family}")
    console.print(f"    {_t(diagnosis.cause)}")
    if diagnosis.line:
        console.print(f"    [dim]> {diagnosis.line}: {_t(diagnosis.record)}[/]")
    if diagnosis.params.get("stack"):
        console.print(f"    [dim]raised through: {_t(str(diagnosis.params['stack']))}[/]")
    for said in diagnosis.joined:
        console.print(f"    [yellow]{'contradicts' if diagnosis.contradicted else 'here'}:[/] {_t(said)}")
    for command in diagnosis.remediation:
        console.print(f"    [cyan]$ {_t(command)}[/]")
    if diagnosis.next and (verbose or not diagnosis.remediation or diagnosis.verdict == "unknown"):
        console.print("    [dim]to find out more:[/]")
        for command in diagnosis.next:
            console.print(f"    [cyan]$ {_t(command)}[/]")
    if verbose:
        console.print(f"    [dim]decided by {_t(diagnosis.decided_by)}; source: {_t(diagnosis.source)}[/]")
        if diagnosis.others:
            console.print(f"    [dim]also seen: {_t(', '.join(diagnosis.others))}[/]")


def _match(console: Console, match: Explained, heading: str, verbose: bool) -> None:
    times = f"seen {match.count} time{'s' if match.count != 1 else ''}, first at line {match.first_line}"
    console.print(f"\n{heading} [bold]{_t(match.id)}[/] [dim]({_t(match.category)}; {times})[/]")
    console.print(f"    {_t(match.cause)}")
    for line_no, text in match.evidence if verbose else match.evidence[:1]:
        console.print(f"    [dim]> {line_no}: {_t(text)}[/]")
    for command in match.remediation:
        console.print(f"    [cyan]$ {_t(command)}[/]")
    if match.note:
        console.print(f"    [yellow]note:[/] {_t(match.note)}")
    console.print(f"    [dim]source: {_t(match.source)}[/]")


def _benign_lines(console: Console, matches: list[Explained]) -> None:
    for match in matches:
        times = f"{match.count} time{'s' if match.count != 1 else ''}, first at line {match.first_line}"
        console.print(f"  [dim]- {_t(match.id)} ({times})[/]")
