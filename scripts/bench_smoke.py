"""Benchmark: a full diagnosis with the five smoke tests against one plain script running the same five.

    .venv/bin/python scripts/bench_smoke.py [--runs N] [--python TARGET]

A: `xladoctor check --python TARGET --json --smoke matmul,compile,triton,xla,tensorflow`: static checks,
   then each smoke test in its own child process, in parallel up to the usable cores.
B: `TARGET scripts/smoke_plain.py`: the same five workloads one after another in a single process.
Both run with PJRT_DEVICE=CPU and fresh compiler caches, alternately (A B A B ...) after one warm-up each,
so drift on the machine hits both. Prints min / median / max wall seconds, the median of the per-pair
ratios A/B, and the peak RSS of xladoctor's own process (read inside it: the frameworks live in children).
TARGET defaults to the test suite's `full-cpu` venv (torch 2.9.0, torch_xla 2.9.0, triton, tensorflow-cpu),
which is built on first use.
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
FIVE = "matmul,compile,triton,xla,tensorflow"
# xladoctor's own peak memory, read in its process at exit (wait4's figure would include the children)
SELF_RSS = (
    "import resource, sys\n"
    "from xladoctor.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stderr.write('SELF_MAXRSS_KIB=%d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    "sys.exit(code)\n"
)


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd="/tmp")
    return time.perf_counter() - started, done


def _xladoctor(python: str, env: dict[str, str]) -> tuple[float, float]:
    argv = [sys.executable, "-c", SELF_RSS, "check", "--python", python, "--json", "--smoke", FIVE]
    seconds, done = _timed(argv, env)
    report = json.loads(done.stdout)
    failed = [f"{r['name']}: {r['cause']}" for r in report["smoke"] if r["status"] != "ok"]
    if failed or len(report["smoke"]) < 5:
        sys.exit(f"xladoctor's smoke tests did not all pass, the comparison would be meaningless: {failed}")
    rss = next(line for line in done.stderr.splitlines() if line.startswith("SELF_MAXRSS_KIB="))
    return seconds, int(rss.split("=")[1]) / 1024


def _plain(python: str, env: dict[str, str]) -> float:
    seconds, done = _timed([python, str(ROOT / "scripts" / "smoke_plain.py")], env)
    if done.returncode != 0:
        sys.exit(f"the plain script failed: {done.stderr[-2000:]}")
    return seconds


def _row(name: str, values: list[float]) -> str:
    return f"  {name:44s} min {min(values):6.2f}  median {statistics.median(values):6.2f}  max {max(values):6.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", help="target interpreter (default: the full-cpu test venv)")
    args = parser.parse_args()
    python = args.python
    if python is None:
        sys.path.insert(0, str(ROOT / "tests"))
        import envs

        python = str(envs.python_of(envs.ensure_env("full-cpu")))
    env = {k: v for k, v in os.environ.items() if k not in ("TF_XLA_FLAGS", "XLA_FLAGS", "CXX")}
    env["PJRT_DEVICE"] = "CPU"
    _xladoctor(python, env), _plain(python, env)  # warm-up: page cache and .pyc files, not counted
    full, plain, rss = [], [], []
    for _ in range(args.runs):
        seconds, peak = _xladoctor(python, env)
        full.append(seconds)
        rss.append(peak)
        plain.append(_plain(python, env))
    ratios = [a / b for a, b in zip(full, plain, strict=True)]
    print(
        f"target: {python}; {args.runs} runs each, alternating, after one warm-up; wall seconds; {os.cpu_count()} CPUs"
    )
    print(_row(f"A xladoctor check --smoke {FIVE}", full))
    print(_row("B one plain process, same five workloads", plain))
    print(f"  median ratio A/B (per pair): {statistics.median(ratios):.2f}")
    print(f"  xladoctor's own process: peak RSS {max(rss):.1f} MB (median {statistics.median(rss):.1f} MB)")


if __name__ == "__main__":
    main()
