"""Benchmark: `xladoctor explain` on hostile input, in seconds per MiB: lines built to make patterns backtrack.

    .venv/bin/python scripts/bench_explain_hostile.py [--mebibytes 4] [--runs 3]

Each family below is written to a log of about --mebibytes MiB and explained by a whole process
(`python -m xladoctor explain LOG --no-facts --json`); the median wall time over --runs, per MiB, and the peak
RSS are printed. The lines are built from the signatures themselves: every plain text a signature's matches
must contain (explain/literals.py), buried in runs of the characters its pattern repeats (FILLERS). For the
1 GB training log, run scripts/bench_explain.py. tests/faults/test_explain_hostile.py explains 1 MiB of the
same lines in-process as a coarse guard.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# Runs that patterns of the kind `\S*lib\w+`, `.+?`, `[^:]*` or `(?:\.\d+)*` once spent seconds on.
FILLERS = (
    "a", " ", "'", '"', "/a", "lib", "lib.so.", "_", ".", "1", "1.", "Found ", "_XLAC.", "Error ", "not found ",
    "\\", "\t", "/usr/lib/libstdc++.so.6 ", "libcudnn", "-", ":", "(",
)  # fmt: skip
SHORT = 600  # characters of a line searched whole
LONG = 70_000  # characters of a line searched in windows and read in pieces (over 64 KiB)


def literals() -> list[str]:
    """Every plain text some signature's matches must contain (see xladoctor/explain/literals.py)."""
    from xladoctor.explain.literals import required_literals
    from xladoctor.matrix.signatures import load_signatures

    return sorted({lit for s in load_signatures() for lit in required_literals(s.pattern) or ()})


def _buried(filler: str, literal: str, size: int) -> str:
    unit = filler * max(1, 40 // len(filler)) + literal
    return (unit * (size // len(unit) + 1))[:size]


def short_lines() -> list[str]:
    """Every literal buried in runs of every filler, one short line each."""
    return [_buried(f, lit, SHORT) for lit in literals() for f in FILLERS]


def long_lines(size: int = LONG) -> list[str]:
    """For every filler, one line of `size` holding every literal many times, buried in runs of it; and the
    plain runs that end in an error text (`'aaa…aaa' not found`)."""
    texts = literals()
    found = []
    for filler in FILLERS:
        unit = "".join(filler * max(1, 40 // len(filler)) + lit for lit in texts)
        found.append((unit * (size // len(unit) + 1))[:size])
        found.append("'" + filler * (size // len(filler)) + "' not found")
    return found


def one_line(lines: list[str]) -> list[str]:
    """All of them as one line: read in 64 KiB pieces, each searched across its joins."""
    return [" ".join(lines)]


def notebook(lines: list[str]) -> str:
    """A notebook saved on one line (minified) whose one output holds the lines, as Kaggle and some tools save."""
    output = {"name": "stderr", "output_type": "stream", "text": [line + "\n" for line in lines]}
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [output], "source": ["train()"]}
    doc = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(doc, separators=(",", ":"))


FAMILIES: dict[str, tuple[str, Callable[[], list[str]]]] = {
    "short lines": ("log", short_lines),
    "long lines": ("log", long_lines),
    "one line": ("log", lambda: one_line(short_lines() + long_lines())),
    "notebook": ("ipynb", lambda: [notebook(short_lines() + long_lines())]),
}


def hostile_log(family: str, size: int) -> bytes:
    """About `size` bytes (at least one round) of a family's lines, as a log (or a notebook) file holds them."""
    _, make = FAMILIES[family]
    block = ("\n".join(make()) + "\n").encode()
    return block * max(1, round(size / len(block)))


def run_once(log: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (steadier on a shared machine) and peak RSS in MB of one whole process."""
    argv = [sys.executable, "-m", "xladoctor", "explain", str(log), "--no-facts", "--json"]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped by wait4
    json.loads(out)  # a whole report came out
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mebibytes", type=float, default=4.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.runs} runs of `xladoctor explain LOG --no-facts --json` per family; {len(literals())} literals")
    with tempfile.TemporaryDirectory(prefix="xladoctor-bench-hostile-") as folder:
        for family, (suffix, _) in FAMILIES.items():
            log = Path(folder) / f"hostile.{suffix}"
            log.write_bytes(hostile_log(family, int(args.mebibytes * (1 << 20))))
            mib = log.stat().st_size / (1 << 20)
            samples = [run_once(log) for _ in range(args.runs)]
            wall, cpu = statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)
            peak = max(s[2] for s in samples)
            print(
                f"  {family:12s} {mib:5.1f} MiB  wall {wall / mib:6.3f} s/MiB  cpu {cpu / mib:6.3f} s/MiB  "
                f"(median {wall:.2f} s)  peak RSS {peak:.1f} MB"
            )


if __name__ == "__main__":
    main()
