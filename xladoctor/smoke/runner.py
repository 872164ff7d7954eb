"""Run the chosen smoke tests in parallel child processes, bounded by the cores this process may use."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from xladoctor.errors import UsageError
from xladoctor.facts import Facts
from xladoctor.facts.prerequisites import target_probed, unmet
from xladoctor.findings import Status
from xladoctor.smoke.catalog import SMOKE_NAMES, SMOKE_TESTS, SmokeTest
from xladoctor.smoke.context import SmokeContext
from xladoctor.smoke.model import SmokeResult


class SmokeSelectionError(UsageError):
    """--smoke named a test that does not exist."""


class Progress(Protocol):
    """Observer of a smoke run (a terminal spinner, a notebook bar); kept out of the core."""

    def started(self, name: str) -> None: ...
    def finished(self, name: str, results: Sequence[SmokeResult]) -> None: ...


class _Silent:
    def started(self, name: str) -> None:
        pass

    def finished(self, name: str, results: Sequence[SmokeResult]) -> None:
        pass


def select_smoke(names: Sequence[str] = ()) -> list[SmokeTest]:
    """The tests named (all when none are); unknown names raise SmokeSelectionError."""
    unknown = [n for n in names if n not in SMOKE_NAMES]
    if unknown:
        raise SmokeSelectionError(
            f"unknown smoke test {', '.join(repr(u) for u in unknown)}; valid names: {', '.join(SMOKE_NAMES)}"
        )
    return [t for t in SMOKE_TESTS if not names or t.name in names]


def usable_cores() -> int:
    """CPUs this process may run on (its affinity mask, which container CPU sets narrow)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _skip_reason(test: SmokeTest, facts: Facts) -> str | None:
    missing = unmet((target_probed(), *test.requires), facts)  # every smoke test runs in the target
    return missing.reason if missing is not None else None


def _run_one(test: SmokeTest, facts: Facts, timeout_s: float, progress: Progress) -> list[SmokeResult]:
    progress.started(test.name)
    scratch = Path(tempfile.mkdtemp(prefix=f"xladoctor-smoke-{test.name}-"))
    try:
        results = test.run(SmokeContext(facts, timeout_s, scratch))
    except Exception as exc:  # a bug in xladoctor's own smoke code: report it, never crash the run
        results = [SmokeResult(test.name, Status.ERROR, None, 0.0, cause=f"xladoctor bug: {type(exc).__name__}: {exc}")]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    progress.finished(test.name, results)
    return results


def run_smoke(
    facts: Facts,
    tests: Sequence[SmokeTest],
    timeout_s: float,
    progress: Progress | None = None,
    workers: int | None = None,
) -> tuple[SmokeResult, ...]:
    """Every chosen test's results, in catalog order; tests whose prerequisites are missing are skipped.

    Each runs in the interpreter the facts describe (facts.interpreter)."""
    observer = progress or _Silent()
    skipped = {
        t.name: [SmokeResult(t.name, Status.SKIP, None, 0.0, cause=r)] for t in tests if (r := _skip_reason(t, facts))
    }
    runnable = sorted((t for t in tests if t.name not in skipped), key=lambda t: -t.weight_s)  # longest first
    done: dict[str, list[SmokeResult]] = dict(skipped)
    if runnable:
        pool_size = max(1, min(len(runnable), workers or usable_cores()))
        with ThreadPoolExecutor(max_workers=pool_size) as pool:
            futures = {t.name: pool.submit(_run_one, t, facts, timeout_s, observer) for t in runnable}
            done.update({name: future.result() for name, future in futures.items()})
    return tuple(r for t in tests for r in done[t.name])
