"""Benchmark: the static diagnosis against torch's own `collect_env`, as whole processes, in paired runs.

    .venv/bin/python scripts/bench_static.py [--pairs N] [--python TARGET]

Each round runs, in an order that rotates from round to round (so that drift on a busy machine hits every
command alike):
A `xladoctor check --no-smoke --json --python TARGET`: the static diagnosis (probes and checks, no smoke test);
B `TARGET -m torch.utils.collect_env`: what torch's issue template asks for, the yardstick of the budget;
C `xladoctor --help`: start-up alone, which must not import the diagnosis.
It prints min / median / max wall seconds of each, and the median of the per-round ratios A/B. TARGET defaults
to the test suite's `torch29-xla29` venv (tests/envs.py, built on first use). A benchmark, never a timed test:
read medians over many rounds, and expect noise on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# Bytecode is cached as after `pip install`, which compiles it: a shell's PYTHONDONTWRITEBYTECODE would make every
# run compile xladoctor's modules from source (a third of its time) and time what no installed copy does.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    # from /tmp: the xladoctor that runs is the installed one, and no checkout file lands on the target's sys.path
    done = subprocess.run(argv, capture_output=True, text=True, cwd="/tmp", env=ENV)
    return time.perf_counter() - started, done


def _check(python: str) -> float:
    seconds, done = _timed([sys.executable, "-m", "xladoctor", "check", "--no-smoke", "--json", "--python", python])
    if done.returncode not in (0, 1):  # 1: a check warned or failed, still a whole diagnosis
        sys.exit(f"xladoctor check exited {done.returncode}: {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    if report.get("smoke"):
        sys.exit("xladoctor check ran smoke tests: this benchmark is for the static diagnosis")
    return seconds


def _collect_env(python: str) -> float:
    seconds, done = _timed([python, "-m", "torch.utils.collect_env"])
    if done.returncode != 0:
        sys.exit(f"{python} -m torch.utils.collect_env exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds


def _help() -> float:
    seconds, done = _timed([sys.executable, "-m", "xladoctor", "--help"])
    if done.returncode != 0:
        sys.exit(f"xladoctor --help exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds


def _row(name: str, values: list[float]) -> str:
    return f"  {name:48s} min {min(values):6.3f}  median {statistics.median(values):6.3f}  max {max(values):6.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10, help="rounds of A, B and C (default 10)")
    parser.add_argument("--python", help="target interpreter, with torch installed (default: the torch29-xla29 venv)")
    args = parser.parse_args()
    python = args.python
    if python is None:
        sys.path.insert(0, str(ROOT / "tests"))
        import envs

        python = str(envs.python_of(envs.ensure_env("torch29-xla29")))
    runs = {"A": lambda: _check(python), "B": lambda: _collect_env(python), "C": _help}
    for run in runs.values():
        run()  # warm-up: page cache and .pyc files, not counted
    times: dict[str, list[float]] = {name: [] for name in runs}
    order = list(runs)
    for round_ in range(args.pairs):
        for name in order[round_ % len(order) :] + order[: round_ % len(order)]:
            times[name].append(runs[name]())
    ratios = [a / b for a, b in zip(times["A"], times["B"], strict=True)]
    print(f"target: {python}")
    print(
        f"{args.pairs} rounds, order rotating, after one warm-up each; wall seconds; {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f} at the end"
    )
    print(_row("A xladoctor check --no-smoke --json", times["A"]))
    print(_row("B python -m torch.utils.collect_env", times["B"]))
    print(_row("C xladoctor --help", times["C"]))
    print(f"  A/B: median of per-round ratios {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
