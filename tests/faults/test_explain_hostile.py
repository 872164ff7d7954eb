"""`xladoctor explain` in bounded time on lines built to make its patterns backtrack, and in bounded memory.

Coarse on purpose (the project has no fine timed tests): a guard against backtracking, not a measure of speed.
A MiB of the worst lines found takes about 3 s in-process on a quiet 2-core machine (2026-12; twice that with
another test run beside it); before the patterns were fenced (xladoctor/explain/hazards.py) one such line took 6 s
and a MiB of them 103 s. The bound sits between the two, far from both. The lines come from
scripts/bench_explain_hostile.py, which measures the seconds per MiB.
"""

from __future__ import annotations

import importlib.util
import io
import json
import time
from pathlib import Path
from types import ModuleType

from conftest import run_cli_peak_kib

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.scan import CHUNK_BYTES, WHOLE_LINE

SECONDS = 20.0  # for a MiB: far above what it takes (a busy machine included), far below what it took
BENCH = Path(__file__).resolve().parents[2] / "scripts" / "bench_explain_hostile.py"
XLAC = (
    "ImportError: /usr/local/lib/python3.10/dist-packages/_XLAC.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
    "_ZN2at6native12cpu_fallbackERKN3c1014OperatorHandleEPSt6vectorINS1_6IValueESaIS6_EEbNS1_11DispatchKeyE"
)


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_explain_hostile", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _timed(name: str, data: bytes):
    started = time.perf_counter()
    explanation = explain_stream(name, io.BytesIO(data), None)
    return explanation, time.perf_counter() - started


def test_a_mebibyte_of_the_worst_lines_takes_well_under_a_few_seconds() -> None:
    """Every signature's plain text buried in runs of every character its pattern repeats, in short lines
    (searched whole) and in lines longer than WHOLE_LINE (searched in windows)."""
    bench = _bench()
    lines = bench.short_lines() + bench.long_lines(size=WHOLE_LINE + 1000)
    data = ("\n".join(lines) + "\n").encode()
    mebibytes = len(data) / (1 << 20)  # grows with the number of signatures (2.5 MiB for 137)
    assert mebibytes >= 1
    explanation, seconds = _timed("hostile.log", data)
    assert explanation.lines == len(lines)
    assert seconds < SECONDS * mebibytes, f"{seconds:.1f} s for {mebibytes:.1f} MiB"


def test_the_same_lines_in_a_notebook_saved_on_one_line() -> None:
    bench = _bench()
    text = bench.notebook(bench.short_lines() + bench.long_lines(size=WHOLE_LINE + 1000))
    explanation, seconds = _timed("hostile.ipynb", text.encode())
    assert (explanation.format, explanation.lines) == ("notebook", 1)
    assert seconds < SECONDS, f"{seconds:.1f} s"


def test_the_line_that_took_six_seconds() -> None:
    """`'aaa…aaa' not found`: once 6 s for one 64 KB line (glibc-too-old-for-wheel's `\\S*lib\\w+`)."""
    line = "'" + "a" * 65_000 + "' not found"
    explanation, seconds = _timed("hostile.log", f"{line}\n".encode() * 16)
    assert seconds < SECONDS, f"{seconds:.1f} s"
    assert explanation.matches == () and explanation.lines == 16
    assert explanation.candidates[-1] == (16, "…" + line[-(120 + len("not found")) :])


def test_one_line_of_64_mib_is_read_in_bounded_memory_and_bounded_time(tmp_path: Path) -> None:
    """The head (first LONG_LINE_KEPT_BYTES) and the end of an overlong line are searched, its middle skipped and
    said: a 200 MB single-line log cost 20 s when every byte of it went through every signature's gate."""
    log = tmp_path / "one-line.log"
    with log.open("wb") as out:
        for i in range(64):  # no newline but the last; a failure early on and one in the middle
            out.write(b"y " * (CHUNK_BYTES // 2))
            if i in (1, 32):
                out.write(XLAC.encode())
        out.write(b" CUDA error: no kernel image is available for execution on the device\n")
    returncode, out, peak_kib = run_cli_peak_kib("explain", str(log), "--no-facts", "--json")
    assert returncode == 1
    document = json.loads(out)
    assert document["input"]["lines"] == 1
    assert document["input"]["skipped_bytes"] > 50 * CHUNK_BYTES
    found = {m["id"]: (m["count"], [e["line"] for e in m["evidence"]]) for m in document["matches"]}
    assert found["torch-xla-undefined-symbol"] == (1, [1])  # the early one; the middle one is not searched
    assert "cuda-no-kernel-image" in found  # the end of the line is
    assert peak_kib < 100 * 1024  # KiB: a 64 MiB line must not be held in memory
