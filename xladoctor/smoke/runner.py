"""Run the chosen smoke tests in parallel child processes, bounded by the cores this process may use."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from xladoctor.errors import UsageError, unknown_names
from xladoctor.facts import Facts
from xladoctor.facts.prerequisites import target_probed, unmet
from xladoctor.findings import Status
from xladoctor.proc import StopEvent, scratch_dir
from xladoctor.smoke.catalog import SMOKE_NAMES, SMOKE_TESTS, SmokeTest
from xladoctor.smoke.child import ScriptRun
from xladoctor.smoke.classify import crash_frame
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
        error = unknown_names("smoke test", unknown, SMOKE_NAMES)
        raise SmokeSelectionError(str(error), error.hint)
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


class _Hangs:
    """What the tests of one run learn about each other: a framework whose import hung in one test hangs in every
    other, so the others are stopped (or never started) instead of each burning its own timeout."""

    def __init__(self, tests: Sequence[SmokeTest]) -> None:
        self._lock = threading.Lock()
        self.hung: dict[str, str] = {}  # module -> the test in which importing it hung
        self.cancels = {t.name: StopEvent() for t in tests}  # set() wakes the test's wait on its child at once
        self._imports = {t.name: t.imports for t in tests}

    def blocker(self, test: SmokeTest) -> tuple[str, str] | None:
        """(module, test) when a module this test imports already hung elsewhere."""
        with self._lock:
            return next(((m, self.hung[m]) for m in test.imports if m in self.hung), None)

    def mark(self, modules: Iterable[str], where: str) -> None:
        with self._lock:
            for module in modules:
                self.hung.setdefault(module, where)
            for name, imports in self._imports.items():
                if name != where and any(m in self.hung for m in imports):
                    self.cancels[name].set()


def _hung_imports(test: SmokeTest, runs: Iterable[ScriptRun]) -> set[str]:
    """The modules a test hung importing: a run that timed out before its first record. faulthandler's dump
    names the file it hung in (torch/__init__.py line 290); without it every module the test imports is suspect."""
    for run in runs:
        if run.result.timed_out and not run.records:
            frame = crash_frame(run.result.stderr) or ""
            named = {m for m in test.imports if frame.startswith(f"{m}/")}
            return named or set(test.imports)
    return set()


def _moot(test: SmokeTest, module: str, where: str) -> list[SmokeResult]:
    cause = f"not run to the end: importing {module} hung in the {where} smoke test (see smoke-{where})"
    return [SmokeResult(test.name, Status.SKIP, None, 0.0, cause=cause)]


def _run_one(test: SmokeTest, facts: Facts, timeout_s: float, progress: Progress, hangs: _Hangs) -> list[SmokeResult]:
    blocked = hangs.blocker(test)
    if blocked is not None:
        return _moot(test, *blocked)
    progress.started(test.name)
    with scratch_dir(f"xladoctor-smoke-{test.name}-") as scratch:
        context = SmokeContext(test.name, facts, timeout_s, Path(scratch), cancel=hangs.cancels[test.name])
        try:
            results = test.run(context)
        except Exception as exc:  # a bug in xladoctor's own smoke code: report it, never crash the run
            error = f"xladoctor bug: {type(exc).__name__}: {exc}"
            results = [SmokeResult(test.name, Status.ERROR, None, 0.0, cause=error)]
    hung = _hung_imports(test, context.runs)
    if hung:
        hangs.mark(hung, test.name)
    elif context.cancel.is_set() and (blocked := hangs.blocker(test)) is not None:
        results = _moot(test, *blocked)
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

    Each runs in the interpreter the facts describe (facts.interpreter), in parallel up to the cores this process
    may use; a framework import that hangs stops every test that imports it, so the whole run takes one timeout."""
    observer = progress or _Silent()
    skipped = {
        t.name: [SmokeResult(t.name, Status.SKIP, None, 0.0, cause=r)] for t in tests if (r := _skip_reason(t, facts))
    }
    runnable = sorted((t for t in tests if t.name not in skipped), key=lambda t: -t.weight_s)  # longest first
    done: dict[str, list[SmokeResult]] = dict(skipped)
    if runnable:
        hangs = _Hangs(runnable)
        pool_size = max(1, min(len(runnable), workers or usable_cores()))
        with ThreadPoolExecutor(max_workers=pool_size) as pool:
            futures = {t.name: pool.submit(_run_one, t, facts, timeout_s, observer, hangs) for t in runnable}
            done.update({name: future.result() for name, future in futures.items()})
    return tuple(r for t in tests for r in done[t.name])
