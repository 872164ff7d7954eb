"""Turn a smoke script's records and exit status into results with a root cause.

A crash is read three ways: the signal (SIGSEGV, SIGABRT, SIGKILL from the OOM killer), the Python frame
faulthandler printed (which import or call was running), and the known failure signatures, the same
table `xladoctor explain` uses, matched against the error and the last lines of output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from xladoctor.findings import Status
from xladoctor.fix import Fix
from xladoctor.matrix.signatures import find_signature
from xladoctor.proc import CommandResult
from xladoctor.smoke.child import ScriptRun
from xladoctor.smoke.model import SmokeResult

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<func>\S+)')
_SIGNAL_CAUSE = {
    "SIGSEGV": "crashed with a segmentation fault (SIGSEGV) in native code",
    "SIGABRT": "aborted (SIGABRT): native code hit a fatal check or error",
    "SIGKILL": "was killed with SIGKILL, which the kernel's out-of-memory killer sends",
    "SIGBUS": "crashed with a bus error (SIGBUS), often a full /dev/shm or a truncated file",
    "SIGILL": "hit an illegal instruction (SIGILL): a binary built for a newer CPU than this one",
}
_TAIL_LINES = 40


def tail(text: str, lines: int = _TAIL_LINES) -> list[str]:
    return [line for line in text.splitlines() if line.strip()][-lines:]


def _short_path(path: str) -> str:
    """'/venv/lib/python3.11/site-packages/torch/__init__.py' -> 'torch/__init__.py'."""
    for anchor in ("site-packages/", "dist-packages/"):
        if anchor in path:
            return path.split(anchor, 1)[1]
    return path


_STDLIB = re.compile(r"/lib/python3\.\d+/(?!(site|dist)-packages/)|^<frozen ")


def _is_smoke_script(path: str) -> bool:
    return path == "<string>" or path.rsplit("/", 1)[-1].startswith("xladoctor_smoke_")


def _frames(lines: list[str]) -> list[re.Match[str]]:
    return [
        m for m in (_FRAME.match(x.replace(", in ", " in ")) for x in lines) if m and not _is_smoke_script(m["file"])
    ]


def crash_frame(stderr: str) -> str | None:
    """Where it crashed or hung: the innermost frame outside the standard library (a package's code, or the
    import that was running), from faulthandler's dump (innermost first) or a traceback (innermost last)."""
    lines = stderr.splitlines()
    dump = next((i for i, line in enumerate(lines) if "most recent call first" in line), None)
    if dump is not None:
        block = []
        for line in lines[dump + 1 :]:
            if not _FRAME.match(line):
                break
            block.append(line)
        frames = _frames(block)
    else:
        frames = _frames(lines)[::-1]
    if not frames:
        return None
    chosen = next((f for f in frames if not _STDLIB.search(f["file"])), frames[0])
    return f"{_short_path(chosen['file'])} line {chosen['line']} ({chosen['func']})"


def _cause_of(result: CommandResult, timeout_s: float) -> str:
    if result.start_error is not None:
        return f"could not start the target interpreter: {result.start_error}"
    if result.timed_out:
        return f"hung: gave no result within {timeout_s:g} s and its process group was killed"
    signal_name = result.signal_name
    if signal_name is not None:
        return _SIGNAL_CAUSE.get(signal_name, f"was killed by {signal_name}")
    return f"exited with status {result.returncode} before reporting a result"


def diagnose(
    name: str, lines: Iterable[str], fallback: str, context: Mapping[str, str]
) -> tuple[str, tuple[str, ...], Fix | None, tuple[str, ...]]:
    """(cause, evidence, fix, refs) from a known signature in `lines`, else the fallback cause."""
    text = list(lines)
    match = find_signature(text)
    if match is None:
        # the callers put the likeliest lines first
        evidence = tuple(line for line in text if re.search(r"Error|error:|Fatal|FATAL|abort", line))[:3]
        return fallback, evidence or tuple(text[:3]), None, ()
    return match.cause(context), (match.line,), match.fix(context), (match.signature.source,)


def results_from_run(
    name: str,
    run: ScriptRun,
    timeout_s: float,
    context: Mapping[str, str],
) -> list[SmokeResult]:
    """One result per device the script reported, plus one for a crash that cut it short."""
    results: list[SmokeResult] = []
    share = run.result.duration_s / max(1, len(run.records))
    for record in run.records:
        if record.get("kind") != "result":
            continue
        per_record = float(record.get("elapsed_s") or share)
        if record.get("ok"):
            results.append(
                SmokeResult(
                    name,
                    Status.OK,
                    record.get("device"),
                    per_record,
                    verified=record.get("verified"),
                    metrics=record.get("metrics") or {},
                )
            )
            continue
        error = str(record.get("error") or "failed")
        # the error line first, then its traceback, then what the process printed: a compiler's own message
        # ("fatal error: Python.h: No such file or directory") reaches stderr, not the exception
        lines = [*error.splitlines(), *str(record.get("traceback") or "").splitlines(), *tail(run.result.stderr)]
        cause, evidence, fix, refs = diagnose(name, lines, error.splitlines()[0], context)
        results.append(
            SmokeResult(
                name,
                Status.FAIL,
                record.get("device"),
                per_record,
                cause=cause,
                evidence=evidence,
                metrics=record.get("metrics") or {},
                fix=fix,
                refs=refs,
            )
        )
    if run.result.ok and results:
        return results
    if run.result.ok:  # exit 0 but no result: the script itself is broken, or stdout was swallowed
        fallback = "finished without reporting a result"
    else:
        fallback = _cause_of(run.result, timeout_s)
        frame = crash_frame(run.result.stderr)
        if frame is not None:
            fallback += f"; it was in {frame}"
    lines = tail(run.result.stderr)[::-1] + tail(run.result.stdout, 10)[::-1]  # the last lines explain a crash
    cause, evidence, fix, refs = diagnose(name, lines, fallback, context)
    if cause != fallback and not run.result.ok:
        cause = f"{cause} (the process {fallback})"
    results.append(
        SmokeResult(name, Status.FAIL, None, run.result.duration_s, cause=cause, evidence=evidence, fix=fix, refs=refs)
    )
    return results
