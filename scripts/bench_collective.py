"""Benchmark: a healthy two-rank gloo run of `xladoctor collective` against a bare torchrun all_reduce script.

    .venv/bin/python scripts/bench_collective.py [--runs N] [--python TARGET]

A: `xladoctor collective --python TARGET --backend gloo --json`: the snapshot of TARGET, then TARGET's torchrun
   with two ranks that say hello, run all_reduce, all_gather, broadcast and a barrier (4 MiB, 5 timed iterations
   each, checked), gather every record and the snapshot to rank 0; then the analysis and the fleet comparison.
B: `TARGET -m torch.distributed.run --standalone --nproc-per-node 2 tests/collective/programs/allreduce_job.py`:
   two ranks, init_process_group("gloo"), one all_reduce, destroy.
Whole-process wall time, alternately (A B A B ...) after one warm-up each, so drift on the machine hits both.
Prints min / median / max seconds and the median of the per-pair ratios A/B. TARGET defaults to the test suite's
torch29-xla29 venv (torch 2.9.0), built on first use.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JOB = ROOT / "tests" / "collective" / "programs" / "allreduce_job.py"


def _timed(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd="/tmp", env=dict(os.environ))
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} ... exited {done.returncode}:\n{done.stderr[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", help="target interpreter (default: the torch29-xla29 test venv)")
    args = parser.parse_args()
    python = args.python
    if python is None:
        sys.path.insert(0, str(ROOT / "tests"))
        from envs import ensure_env, python_of

        python = str(python_of(ensure_env("torch29-xla29")))
    doctor = [sys.executable, "-m", "xladoctor", "collective", "--python", python, "--backend", "gloo", "--json"]
    bare = [python, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", str(JOB)]
    _timed(doctor)
    _timed(bare)
    a_times, b_times = [], []
    for _ in range(args.runs):
        a_times.append(_timed(doctor))
        b_times.append(_timed(bare))
    ratios = [a / b for a, b in zip(a_times, b_times, strict=True)]
    for name, times in (("xladoctor collective", a_times), ("bare torchrun all_reduce", b_times)):
        print(f"{name:26} min {min(times):6.2f} s  median {statistics.median(times):6.2f} s  max {max(times):6.2f} s")
    print(f"ratio (median of pairs)    {statistics.median(ratios):.2f}   ({args.runs} runs each, {python})")


if __name__ == "__main__":
    main()
