"""Benchmark: a static diagnosis against a bare interpreter start, as whole processes.

    .venv/bin/python scripts/bench_static.py [--runs N] [--python TARGET]

Times `python -c pass` and `python -m xladoctor check --python TARGET --json --no-smoke` (and `snapshot`) over N
runs after a warm-up each, and prints min / median / max wall time and the peak RSS of the process
tree (from wait4's rusage). Static diagnosis reads metadata only: no framework is imported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def _run_once(argv: list[str]) -> tuple[float, float]:
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped by wait4
    return time.perf_counter() - started, usage.ru_maxrss / 1024  # ru_maxrss is KiB on Linux


def measure(argv: list[str], runs: int) -> dict[str, float]:
    _run_once(argv)  # warm-up: page cache, .pyc files
    samples = [_run_once(argv) for _ in range(runs)]
    walls, rss = [s[0] for s in samples], [s[1] for s in samples]
    return {"min": min(walls), "median": statistics.median(walls), "max": max(walls), "rss_mb": max(rss)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--python", default=sys.executable, help="target interpreter to diagnose")
    args = parser.parse_args()
    cases = {
        "bare interpreter start (python -c pass)": [sys.executable, "-c", "pass"],
        "xladoctor check --json (static)": [
            sys.executable,
            "-m",
            "xladoctor",
            "check",
            "--python",
            args.python,
            "--json",
            "--no-smoke",
        ],
        "xladoctor snapshot": [sys.executable, "-m", "xladoctor", "snapshot", "--python", args.python],
    }
    results = {name: measure(argv, args.runs) for name, argv in cases.items()}
    print(f"target: {args.python}; {args.runs} runs each after one warm-up; wall seconds")
    for name, r in results.items():
        print(
            f"  {name:42s} min {r['min']:.3f}  median {r['median']:.3f}  max {r['max']:.3f}"
            f"  peak RSS {r['rss_mb']:.0f} MB"
        )
    base = results["bare interpreter start (python -c pass)"]["median"]
    check = results["xladoctor check --json (static)"]["median"]
    print(f"  static check / bare start: {check / base:.1f}x (medians)")


if __name__ == "__main__":
    main()
