"""When the log decides nothing: what the environment's own static checks find.

A failure whose log names no cause may still have one in the environment that ran it (a driver older than the
build, two releases that do not pair, a variable set wrong): the log lacks it, the facts hold it. So when explain
has the facts of that environment and no family decided the cause, it runs `check`'s static checks on them (no
framework is imported: they read the facts) and names their failures beside the record that matters. A clean
result is said too: it points away from the environment, to the program or the framework.
"""

from __future__ import annotations

from dataclasses import dataclass

from xladoctor.facts import Facts

MOST = 3  # the failures named; `xladoctor check` shows them all


@dataclass(frozen=True)
class Checked:
    said: tuple[str, ...]  # the sentences for the verdict's "joined" lines
    failing: bool  # a check failed: the environment is a suspect


def environment_checked(facts: Facts) -> Checked:
    # the checks, the matrix and the pipeline's rendering are imported here: only the undecided path pays for them
    from xladoctor.diagnosis.pipeline import check_findings
    from xladoctor.diagnosis.registry import all_checks
    from xladoctor.findings import Status
    from xladoctor.matrix import load_matrix

    matrix = load_matrix()
    failed = [
        finding
        for item in all_checks()  # a check that needs a smoke test's result skips: the facts hold none
        for finding in check_findings(item, facts, matrix)
        if finding.status == Status.FAIL
    ]
    where = facts.interpreter or "this environment"
    if not failed:
        return Checked(
            (
                f"No static check of xladoctor check fails for {where} (its smoke tests were not run): look first at "
                "the program and the framework, not the installation.",
            ),
            False,
        )
    named = "; ".join(f"{f.title} [{f.id}]" for f in failed[:MOST])
    more = f" (and {len(failed) - MOST} more)" if len(failed) > MOST else ""
    return Checked(
        (
            f"Nothing in the log decides the cause, but checks of {where} fail: {named}{more}. Fix these first "
            "(xladoctor check gives the commands), then run the program again.",
        ),
        True,
    )
