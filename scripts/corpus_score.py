"""Score `xladoctor explain` on the labelled corpus of real reports (tests/corpus/), both parts.

For each report its log is explained with no environment's facts (the corpus holds logs, not snapshots), and the
one verdict compared with the label the thread settled:
- first cause right: the family is the labelled one and, when the log itself names one of the label's subjects
  (the library, package or variable to change), the verdict names it too (a subject only the thread's discussion
  names, an app's own option, cannot be read from the log, so the family decides there);
- the verdict class (environment / not-environment / framework-bug / unknown): precision and recall per class;
- nothing found: no verdict, or "unknown" with no family; guessed: the last resort's guesses (a family without a
  decided cause: structure:refused-its-input, a library's check of the user's input; structure:raised-in-library,
  whose defect it is; structure:similar-report, the settled development report the log reads most like, each
  development report scored without itself), with how many were right;
- wrong blame: a not-environment report blamed on the environment.

    python scripts/corpus_score.py               # the scoreboard, evaluation part last
    python scripts/corpus_score.py --misses      # also each miss of the development part (never the evaluation's)
    python scripts/corpus_score.py --write       # rewrite the scoreboard in docs/explain.md (--readme: the same)
    python scripts/corpus_score.py --check       # exit 1 when docs/explain.md's scoreboard is stale (a test runs this)

The evaluation part is only scored: rules are written from the development part (see tests/corpus/README.md).
"""

from __future__ import annotations

import argparse
import io
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "corpus"))

import corpus  # noqa: E402

from xladoctor.explain import similar  # noqa: E402
from xladoctor.explain.engine import explain_stream  # noqa: E402
from xladoctor.explain.verdict import Diagnosis  # noqa: E402

PAGE = ROOT / "docs" / "explain.md"  # the scoreboard's page
BEGIN, END = "<!-- corpus-score -->", "<!-- /corpus-score -->"
README = ROOT / "README.md"  # carries the scoreboard's summary, written by this script too
SUMMARY_BEGIN, SUMMARY_END = "<!-- corpus-score-summary -->", "<!-- /corpus-score-summary -->"
CLASSES = ("environment", "not-environment", "framework-bug", "unknown")


@dataclass(frozen=True)
class Scored:
    report: corpus.Report
    diagnosis: Diagnosis | None

    @property
    def verdict(self) -> str:
        return self.diagnosis.verdict if self.diagnosis is not None else "unknown"

    @property
    def family(self) -> str | None:
        return self.diagnosis.family if self.diagnosis is not None else None

    @property
    def nothing(self) -> bool:
        return self.diagnosis is None or self.diagnosis.family is None

    @property
    def named(self) -> bool:
        """The verdict names a subject of the label that the log names (any of them), or the log names none."""
        log = self.report.log.lower()
        subjects = [s.lower() for s in self.report.subject if s and s.lower() in log]
        if not subjects or self.diagnosis is None:
            return not subjects
        said = " ".join(
            [
                self.diagnosis.cause,
                self.diagnosis.record,
                *map(str, self.diagnosis.params.values()),
                *self.diagnosis.remediation,
            ]
        ).lower()
        return any(s in said for s in subjects)

    @property
    def right(self) -> bool:
        return self.family == self.report.family and self.named

    @property
    def wrong_blame(self) -> bool:
        return self.report.verdict == "not-environment" and self.verdict == "environment"


def score(reports: list[corpus.Report]) -> list[Scored]:
    scored = []
    for report in reports:
        # a development report is in the index of explain's likeness guess (similar.py): it is scored without itself
        with similar.excluding(report.id):
            explanation = explain_stream(f"{report.id}.log", io.BytesIO(report.log.encode("utf-8")), None)
        scored.append(Scored(report, explanation.diagnosis))
    return scored


def _pct(n: int, m: int) -> str:
    return f"{100 * n / m:.0f}%" if m else "-"


def table(name: str, scored: list[Scored]) -> list[str]:
    """The scoreboard of one part, as Markdown lines."""
    lines = [
        f"**{name}** ({len(scored)} reports)",
        "",
        "| framework | reports | first cause right | nothing found |",
        "| --- | --- | --- | --- |",
    ]
    by_framework: dict[str, list[Scored]] = defaultdict(list)
    for item in scored:
        by_framework[item.report.framework].append(item)
    for framework in sorted(by_framework):
        items = by_framework[framework]
        right, nothing = sum(i.right for i in items), sum(i.nothing for i in items)
        lines.append(f"| {framework} | {len(items)} | {right} ({_pct(right, len(items))}) | {nothing} |")
    lines += [
        "",
        "| verdict class | labelled | said | precision | recall | first cause right |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for kind in CLASSES:
        labelled = [i for i in scored if i.report.verdict == kind]
        said = [i for i in scored if i.verdict == kind]
        both = sum(1 for i in said if i.report.verdict == kind)
        right = sum(i.right for i in labelled)
        lines.append(
            f"| {kind} | {len(labelled)} | {len(said)} | {_pct(both, len(said))} | {_pct(both, len(labelled))} | "
            f"{right} ({_pct(right, len(labelled))}) |"
        )
    right = sum(i.right for i in scored)
    blame = sum(i.wrong_blame for i in scored)
    not_env = [i for i in scored if i.report.verdict == "not-environment"]
    named = sum(1 for i in not_env if i.verdict == "not-environment")
    nothing = sum(i.nothing for i in scored)
    guessed = [i for i in scored if i.diagnosis is not None and i.family is not None and not i.diagnosis.decided]
    lines += [
        "",
        f"first cause right: {right}/{len(scored)} ({_pct(right, len(scored))}); nothing found: {nothing}; "
        f"guessed: {len(guessed)} ({sum(i.right for i in guessed)} right); "
        f"wrong blame of the environment: {blame} of {len(not_env)} not-environment reports, "
        f"{named} ({_pct(named, len(not_env))}) of them named for what they are",
    ]
    return lines


def scoreboard() -> tuple[list[str], list[Scored], list[Scored]]:
    development = score(corpus.part("development"))
    evaluation = score(corpus.part("evaluation"))
    lines = [*table("Development part", development), "", *table("Evaluation part", evaluation)]
    right = sum(i.right for i in evaluation)
    lines += ["", f"first cause right: {right}/{len(evaluation)} ({_pct(right, len(evaluation))})"]
    return lines, development, evaluation


def _page_block(lines: list[str]) -> str:
    return "\n".join([BEGIN, *lines, END])


def _summary_block(development: list[Scored], evaluation: list[Scored]) -> str:
    right, dev_right = sum(i.right for i in evaluation), sum(i.right for i in development)
    blamed = [i for i in evaluation if i.report.verdict == "not-environment"]
    line = (
        f"`explain` is scored on {len(development) + len(evaluation):,} real public reports: on the part no rule was "
        f"written from, **first cause right: {right}/{len(evaluation)} ({_pct(right, len(evaluation))})**, the "
        f"environment wrongly blamed for {sum(i.wrong_blame for i in blamed)} of {len(blamed)} reports that are not "
        f"environment problems; {dev_right}/{len(development)} on the part rules are written from. The scoreboard, "
        "per framework and verdict class: [explain.md](docs/explain.md#it-is-scored-on-real-reports)."
    )
    return "\n".join([SUMMARY_BEGIN, line, SUMMARY_END])


def _with_block(text: str, begin: str, end: str, block: str) -> str | None:
    """The text with its begin ... end block replaced by `block`; None when it has no such block."""
    start, stop = text.find(begin), text.find(end)
    return text[:start] + block + text[stop + len(end) :] if 0 <= start <= stop else None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the development part's misses")
    parser.add_argument(
        "--write", "--readme", action="store_true", help="rewrite the scoreboard in docs/explain.md and README.md"
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when either scoreboard is stale")
    args = parser.parse_args(argv)
    lines, development, evaluation = scoreboard()
    if args.misses:
        for item in development:
            if not item.right:
                d = item.diagnosis
                print(
                    f"MISS {item.report.id}: want {item.report.family}/{item.report.verdict} "
                    f"{list(item.report.subject)}; "
                    f"got {item.family}/{item.verdict} by {d.decided_by if d else '-'}: {(d.cause if d else '')[:160]}"
                )
    blocks = (
        (PAGE, BEGIN, END, _page_block(lines)),
        (README, SUMMARY_BEGIN, SUMMARY_END, _summary_block(development, evaluation)),
    )
    for path, begin, end, block in blocks:
        name, text = path.relative_to(ROOT), path.read_text(encoding="utf-8")
        made = _with_block(text, begin, end, block)
        if made is None:
            print(f"{name} has no {begin} ... {end} block", file=sys.stderr)
            return 2
        if args.write and made != text:
            path.write_text(made, encoding="utf-8")
        elif args.check and made != text:
            print(f"{name}'s corpus scoreboard is stale: run python scripts/corpus_score.py --write", file=sys.stderr)
            return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
