"""From what the log holds to one verdict: the family rules' candidates and the catalogue's signatures side by side,
the root among them (verdict.root), joined with the environment's facts (join.py), rendered for its installer."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import cache, lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from xladoctor.explain import similar
from xladoctor.explain.checked import Checked, environment_checked
from xladoctor.explain.join import from_elsewhere, join
from xladoctor.explain.records import Failure, clean, is_warning
from xladoctor.explain.verdict import (
    Candidate,
    Diagnosis,
    attribute_guess,
    candidates,
    cut_import_guess,
    families,
    frameless_guess,
    lead_record,
    library_guess,
    likeness_guess,
    next_steps,
    refused_input_guess,
    root,
    warnings_alone,
)
from xladoctor.facts import Facts
from xladoctor.remedy.render import render_fix
from xladoctor.sanitize import scrubbed_head

if TYPE_CHECKING:
    from xladoctor.explain.engine import Explained

# A catalogue signature's rule name. Not "signature:": output redaction reads `signature:VALUE` as a credential
# (Azure's SAS `sig`/`signature`), and the name would print as "signature:<redacted>".
SIGNATURE_RULE = "catalogue:"
SPECIFIC_SIGNATURE = 0.93  # a signature written for one known failure: more exact than any family rule
GENERIC_SIGNATURE = 0.55
# a wrapper's signature ("BackendCompilerFailed: backend='inductor' raised:"): its words say the next line names the
# real error, so a rule that reads that error, on the same line or the next, comes first
FOLLOW_ON_SIGNATURE = 0.35


@lru_cache(maxsize=1)
def _signature_families() -> tuple[dict[str, str], dict[str, str]]:
    text = resources.files("xladoctor.compat_matrix").joinpath("failures", "signature-families.json").read_text("utf-8")
    doc = json.loads(text)
    return doc["categories"], doc["ids"]


def family_of_signature(signature_id: str, category: str) -> str | None:
    categories, ids = _signature_families()
    return ids.get(signature_id) or categories.get(category)


def _from_signature(match: Explained) -> Candidate | None:
    if match.role == "benign":
        return None
    family = family_of_signature(match.id, match.category)
    if family is None:
        return None
    line, text = match.evidence[0] if match.evidence else (0, "")
    failure = Failure("line", "", text, line, text, warning=is_warning(text))
    confidence = (
        FOLLOW_ON_SIGNATURE if match.role == "follow_on" else GENERIC_SIGNATURE if match.generic else SPECIFIC_SIGNATURE
    )
    verdict = families().get(family, {}).get("verdict", "unknown")
    return Candidate(
        family, verdict, match.cause, confidence, failure,
        f"{SIGNATURE_RULE}{match.id}", {}, None, (), match.source, match.note, match.remediation,
    )  # fmt: skip


def _merged(chosen: Candidate, found: Sequence[Candidate]) -> Candidate:
    """A signature and a family rule that read the same line as the same family: the signature's words (written
    for that exact failure), the rule's parameters."""
    same = [c for c in found if c is not chosen and c.family == chosen.family and c.failure.line == chosen.failure.line]
    if not same:
        return chosen
    other = same[0]
    if chosen.rule.startswith(SIGNATURE_RULE):
        return replace(chosen, params={**other.params, **chosen.params}, next=chosen.next or other.next)
    if other.rule.startswith(SIGNATURE_RULE) and other.confidence >= chosen.confidence:
        return replace(other, params={**chosen.params, **other.params}, next=other.next or chosen.next)
    return chosen


def _not_benign(records: Sequence[Failure], matches: Sequence[Explained]) -> list[Failure]:
    """The records that are not start-up noise a benign signature recognised (libdrm's missing amdgpu.ids, TF's
    factory registrations): such a line is never the record that matters, even when it is the log's last."""
    noise = [m for m in matches if m.role == "benign"]
    lines = {line for m in noise for line, _ in m.evidence}
    texts = {text.strip() for m in noise for _, text in m.evidence}
    return [r for r in records if r.line not in lines and r.text.strip() not in texts]


def diagnose(
    records: Sequence[Failure], matches: Sequence[Explained], facts: Facts | None, tail: str = ""
) -> Diagnosis | None:
    """The one verdict of a log, or None when nothing in it failed; `tail`, the log's end, is what the last resort
    compares with the settled reports it knows."""
    found = candidates(records)
    found += [c for c in (_from_signature(m) for m in matches) if c is not None]
    # an observation (a state the log shows) gives way to an exception the log goes on to: that one failed
    found = [c for c in found if not (c.observation and _failed_after(c.failure.line, records, tail))]
    chosen = root(found, records)
    checked: Checked | None = None  # the environment's own checks: run only when no family decided
    if chosen is None:
        lead = lead_record(_not_benign(records, matches))
        if lead is None or lead.warning:
            return None
        likeliest = cache(lambda: similar.likeliest(tail) if tail else None)  # once, for both likeness guesses
        chosen = (
            refused_input_guess(lead) or library_guess(lead) or cut_import_guess(lead, tail)
            or likeness_guess(lead, tail, likeliest())
            or frameless_guess(lead)
            or attribute_guess(lead)
            or likeness_guess(lead, tail, likeliest(), faint=True)
        )  # fmt: skip
        # the environment's own checks, when its facts are at hand and the log is of that environment
        elsewhere = from_elsewhere(records, facts) if facts is not None else None
        checked = environment_checked(facts) if facts is not None and elsewhere is None else None
        if chosen is None:
            return Diagnosis(
                "unknown", None,
                "No family or signature decides this failure. The record that matters is the last error: "
                f"{scrubbed_head(lead.text, 300)}",
                0.2, lead.line, lead.text, "structure:last-error", _stack(lead),
                next=_checks_first(next_steps(lead), checked),
                joined=checked.said if checked is not None else elsewhere.said if elsewhere is not None else (),
                contradicted=elsewhere is not None,
            )  # fmt: skip
    chosen = _merged(chosen, found)
    joined = join(chosen, records, facts)
    if chosen.remediation and joined.fix is None:
        remediation = chosen.remediation
    else:
        fix = joined.fix if joined.fix is not None else chosen.fix
        remediation = render_fix(fix, facts) if fix is not None else ()
    others = tuple(dict.fromkeys(c.family for c in found if c.family != chosen.family and not c.failure.warning))
    confidence = chosen.confidence * (0.85 if others and chosen.confidence < 0.9 else 1.0)
    if joined.contradicted:
        confidence *= 0.8
    cause = chosen.cause + (f" Note: {chosen.note}" if chosen.note else "")
    steps = _checks_first(chosen.next or next_steps(chosen.failure), checked)
    # a signature reads the line; the traceback that line ends, when there is one, says whose code raised it
    framed = next((r for r in records if r.line == chosen.failure.line and r.frames), chosen.failure)
    params = {**_stack(framed), **chosen.params}
    return Diagnosis(
        chosen.verdict, chosen.family, cause, confidence, chosen.failure.line, scrubbed_head(chosen.failure.text, 500),
        chosen.rule, params, tuple(remediation), steps, chosen.source,
        joined.said + (checked.said if checked is not None else ()), joined.contradicted, others,
    )  # fmt: skip


def warnings_diagnosis(text: str) -> Diagnosis | None:
    """The verdict of a log of warnings alone (`text`, the whole log), or None: see verdict.warnings_alone."""
    chosen = warnings_alone(text)
    if chosen is None:
        return None
    return Diagnosis(
        chosen.verdict, chosen.family, chosen.cause, chosen.confidence, chosen.failure.line,
        scrubbed_head(chosen.failure.text, 500), chosen.rule, dict(chosen.params), (), chosen.next, chosen.source,
    )  # fmt: skip


def _failed_after(line: int, records: Sequence[Failure], tail: str) -> bool:
    """An exception after `line` that the program did not go on from: one with a traceback, or an exception's line
    with none ("XlaRuntimeError: RESOURCE_EXHAUSTED: ..." as jax ends a run) after which the log's end shows no
    more work (launchers' exit lines may follow). One the program went on from (an upload retried, more frames
    rendered) is a handled error."""
    return any(
        (r.kind == "exception" or (r.type and not _went_on_after(r, tail))) and not r.warning and r.line > line
        for r in records
    )


# A line of a program at work: a retry, a count of steps, epochs, iterations, batches or frames, a progress bar
_AT_WORK = re.compile(
    r"(?i)\b(?:retry(?:ing)?|resum(?:e|ing)|continu(?:e|ing)|proceeding)\b"
    r"|\b(?:epoch|step|iter(?:ation)?|batch|frame)\s*[:#=]?\s*\d|\d{1,3}%\|"
)


def _went_on_after(record: Failure, tail: str) -> bool:
    """The log's end shows work after the record's line, or does not hold that line at all (so much came after)."""
    lines = [text for text in tail.splitlines() if text.strip()]
    at = next((i for i in range(len(lines) - 1, -1, -1) if clean(lines[i]).strip() == record.text.strip()), None)
    return at is None or any(_AT_WORK.search(text) for text in lines[at + 1 :])


def _stack(failure: Failure) -> dict[str, str]:
    """Whose code raised it, through whose: the packages of its frames, for the reader to weigh."""
    return {"stack": " -> ".join(failure.packages)} if failure.packages else {}


def _checks_first(steps: tuple[str, ...], checked: Checked | None) -> tuple[str, ...]:
    """What to run next when no family decided and the environment's checks ran: their failures first, when there
    are some; `xladoctor check` no more when none failed (it has just run)."""
    if checked is None:
        return steps
    rest = tuple(s for s in steps if not s.startswith("xladoctor check"))  # its static checks have just run
    if not checked.failing:
        return rest or steps
    return ("xladoctor check  # the failing checks above, with the commands that fix them", *rest)
