"""One dispatch from (report kind, format) to text, for every command: a new format is one case in `rendered`, and
mypy's `assert_never` fails the build where a format is left out.

Each kind names its renderers; they are imported when called, so a command loads only the reporter it prints with.
The CLI writes the text (cli/app.py `deliver`): reporters only render.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, NoReturn, TypeVar

from xladoctor.reporters import OutputFormat

if TYPE_CHECKING:  # rich and the reporters are imported when a report is rendered: `--help` stays light
    from rich.console import Console

    from xladoctor.collective.analysis import CollectiveReport
    from xladoctor.diagnosis.describe import Description
    from xladoctor.diagnosis.report import Report
    from xladoctor.explain.engine import Explanation
    from xladoctor.fleet.report import FleetReport
    from xladoctor.matrix import Relation
    from xladoctor.profile.hang.model import HangReport
    from xladoctor.profile.model import ProfileReport

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover - Python 3.10

    def assert_never(value: NoReturn) -> NoReturn:
        raise AssertionError(f"unhandled value: {value!r}")


R = TypeVar("R")


@dataclass(frozen=True)
class ReportKind(Generic[R]):
    """What a command prints, and how, in each format it has."""

    command: str
    text: Callable[[R, Console, bool], None]  # (report, console, verbose)
    json: Callable[[R], str]
    html: Callable[[R], str] | None = None
    junit: Callable[[R], str] | None = None
    prometheus: Callable[[R], str] | None = None
    npd: Callable[[R], str] | None = None

    @property
    def formats(self) -> tuple[OutputFormat, ...]:
        offered = {
            OutputFormat.HTML: self.html,
            OutputFormat.JUNIT: self.junit,
            OutputFormat.PROMETHEUS: self.prometheus,
            OutputFormat.NPD: self.npd,
        }
        return tuple(f for f in OutputFormat if offered.get(f, True) is not None)


class FormatNotOffered(ValueError):
    """A format this kind has no renderer for (the CLI refuses it before any work: cli/app.py `chosen_format`)."""


def _offered(renderer: Callable[[R], str] | None, kind: ReportKind[R], wanted: OutputFormat) -> Callable[[R], str]:
    if renderer is None:
        raise FormatNotOffered(f"--format {wanted.value} is not available for `{kind.command}`")
    return renderer


def rendered(kind: ReportKind[R], report: R, output_format: OutputFormat, verbose: bool = False) -> str:
    """The report as the text of a file (no colour codes)."""
    if output_format is OutputFormat.TEXT:
        from xladoctor.reporters.console import plain_text

        return plain_text(lambda console: kind.text(report, console, verbose))
    if output_format is OutputFormat.JSON:
        return kind.json(report)
    if output_format is OutputFormat.HTML:
        return _offered(kind.html, kind, output_format)(report)
    if output_format is OutputFormat.JUNIT:
        return _offered(kind.junit, kind, output_format)(report)
    if output_format is OutputFormat.PROMETHEUS:
        return _offered(kind.prometheus, kind, output_format)(report)
    if output_format is OutputFormat.NPD:
        return _offered(kind.npd, kind, output_format)(report)
    assert_never(output_format)


# --- the kinds ---------------------------------------------------------------------------------------------------


def check_kind(strict: bool = False) -> ReportKind[Report]:
    def text(report: Report, console: Console, verbose: bool) -> None:
        from xladoctor.reporters.terminal import render_text

        render_text(report, console, verbose=verbose)

    def json(report: Report) -> str:
        from xladoctor.reporters.json_report import render_json

        return render_json(report)

    def html(report: Report) -> str:
        from xladoctor.reporters.pages.check import render_check_html

        return render_check_html(report)

    def junit(report: Report) -> str:
        from xladoctor.reporters.junit import render_junit

        return render_junit(report, strict=strict)

    def prometheus(report: Report) -> str:
        from xladoctor.reporters.prometheus import render_prometheus

        return render_prometheus(report, strict=strict)

    def npd(report: Report) -> str:
        from xladoctor.reporters.problem_line import render_npd

        return render_npd(report, strict=strict)

    return ReportKind("check", text, json, html, junit, prometheus, npd)


def explain_kind() -> ReportKind[Explanation]:
    def text(explanation: Explanation, console: Console, verbose: bool) -> None:
        from xladoctor.reporters.explain_report import render_explanation_text

        render_explanation_text(explanation, console, verbose=verbose)

    def json(explanation: Explanation) -> str:
        from xladoctor.reporters.explain_report import render_explanation_json

        return render_explanation_json(explanation)

    def html(explanation: Explanation) -> str:
        from xladoctor.reporters.pages.explain import render_explain_html

        return render_explain_html(explanation)

    return ReportKind("explain", text, json, html)


def compare_kind(each: bool = False) -> ReportKind[FleetReport]:
    def text(fleet: FleetReport, console: Console, verbose: bool) -> None:
        from xladoctor.reporters.compare_report import render_compare_text

        render_compare_text(fleet, console, verbose=verbose, each=each)

    def json(fleet: FleetReport) -> str:
        from xladoctor.reporters.compare_report import render_compare_json

        return render_compare_json(fleet, each=each)

    def html(fleet: FleetReport) -> str:
        from xladoctor.reporters.pages.compare import render_compare_html

        return render_compare_html(fleet, each=each)

    return ReportKind("compare", text, json, html)


def profile_kind() -> ReportKind[ProfileReport]:
    def text(report: ProfileReport, console: Console, verbose: bool) -> None:
        from xladoctor.reporters.profile_report import render_profile_text

        render_profile_text(report, console, verbose=verbose)

    def json(report: ProfileReport) -> str:
        from xladoctor.reporters.profile_report import render_profile_json

        return render_profile_json(report)

    def html(report: ProfileReport) -> str:
        from xladoctor.reporters.pages.profile import render_profile_html

        return render_profile_html(report)

    return ReportKind("profile", text, json, html)


def collective_kind() -> ReportKind[CollectiveReport]:
    def text(report: CollectiveReport, console: Console, verbose: bool) -> None:
        from xladoctor.reporters.collective_report import render_collective_text

        render_collective_text(report, console, verbose=verbose)

    def json(report: CollectiveReport) -> str:
        from xladoctor.reporters.collective_report import render_collective_json

        return render_collective_json(report)

    def html(report: CollectiveReport) -> str:
        from xladoctor.reporters.pages.collective import render_collective_html

        return render_collective_html(report)

    return ReportKind("collective", text, json, html)


def hang_kind() -> ReportKind[HangReport]:
    def text(report: HangReport, console: Console, verbose: bool) -> None:
        from xladoctor.reporters.hang_report import render_hang_text

        render_hang_text(report, console, verbose=verbose)

    def json(report: HangReport) -> str:
        from xladoctor.reporters.hang_report import render_hang_json

        return render_hang_json(report)

    def html(report: HangReport) -> str:
        from xladoctor.reporters.pages.hang import render_hang_html

        return render_hang_html(report)

    return ReportKind("hang", text, json, html)


def matrix_kind() -> ReportKind[Sequence[Relation]]:
    def text(relations: Sequence[Relation], console: Console, verbose: bool) -> None:
        from xladoctor.reporters.matrix_text import render_matrix

        render_matrix(relations, console)

    def json(relations: Sequence[Relation]) -> str:
        from xladoctor.reporters.matrix_text import render_matrix_json

        return render_matrix_json(relations)

    return ReportKind("matrix", text, json)


def checks_kind() -> ReportKind[Sequence[Description]]:
    def text(descriptions: Sequence[Description], console: Console, verbose: bool) -> None:
        from xladoctor.reporters.checks_text import render_checks_text

        render_checks_text(descriptions, console, verbose)

    def json(descriptions: Sequence[Description]) -> str:
        from xladoctor.reporters.checks_text import render_checks_json

        return render_checks_json(descriptions)

    return ReportKind("checks", text, json)
