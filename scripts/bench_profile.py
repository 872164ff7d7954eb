"""Benchmark: what `xladoctor profile` adds to the wall time of a healthy program it watches (target: under 10%).

    .venv/bin/python scripts/bench_profile.py [--runs N] [--python TARGET] [--only compile|xla|gloo] [--stall-after S]

For each workload in scripts/workloads/ (a torch.compile MLP trained for 120 steps; a torch_xla MLP trained for 300
steps on PJRT_DEVICE=CPU, one torch_xla.sync() per step; two gloo ranks summing their gradients with an all_reduce
in each of 1500 steps, what `--stall-after` adds to every collective):
A: `xladoctor profile --format json -o FILE -- TARGET WORKLOAD`;  B: `TARGET WORKLOAD`; with --stall-after S,
C: `xladoctor profile --stall-after S ...` too, in the same rounds (A B C A B C ...): C/A is what the stall watch
costs until a stall. They run alternately after one warm-up each, with compiler caches of their own (warmed by
the warm-up, shared by all), so caches and drift on the machine hit them alike. Prints min / median / max wall
seconds, the median of the per-round ratios, and checks that the profile of the healthy workload has no warning
(a profile that found problems would measure something else).
TARGET defaults to the test suite's torch29-xla29 venv (torch 2.9.0, torch_xla 2.9.0), built on first use.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = {"compile": "compile_train.py", "xla": "xla_train.py", "gloo": "gloo_train.py"}


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds


def _profiled(python: str, workload: Path, env: dict[str, str], out: Path, stall_after: float | None = None) -> float:
    watch = ["--stall-after", f"{stall_after:g}"] if stall_after is not None else []
    argv = [sys.executable, "-m", "xladoctor", "profile", *watch, "--format", "json", "-o", str(out), "--", python]
    argv.append(str(workload))
    seconds = _timed(argv, env)
    report = json.loads(out.read_text())
    if report["summary"]["warn"] or report["summary"]["fail"] or report["summary"]["error"] or report["stalls"]:
        sys.exit(f"the healthy workload {workload.name} got findings: {report['findings']}")
    return seconds


def _row(name: str, values: list[float], unit: str = "s") -> str:
    return (
        f"  {name:44s} min {min(values):7.3f}  median {statistics.median(values):7.3f}  max {max(values):7.3f} {unit}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", help="target interpreter (default: the torch29-xla29 test venv)")
    parser.add_argument("--only", choices=sorted(WORKLOADS))
    parser.add_argument(
        "--stall-after",
        type=float,
        metavar="SECONDS",
        help="profile with the stall watch on (`profile --stall-after SECONDS`): what it costs until a stall",
    )
    args = parser.parse_args()
    python = args.python
    if python is None:
        sys.path.insert(0, str(ROOT / "tests"))
        import envs

        python = str(envs.python_of(envs.ensure_env("torch29-xla29")))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PT_XLA_DEBUG", "TORCH_LOGS", "TORCH_TRACE"))}
    env["PJRT_DEVICE"] = "CPU"
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for name, file in WORKLOADS.items():
        if args.only and name != args.only:
            continue
        workload = ROOT / "scripts" / "workloads" / file
        with tempfile.TemporaryDirectory() as scratch:
            out = Path(scratch) / "profile.json"
            # Inductor's and Triton's caches of their own, shared by A and B and warmed by the warm-up: a cache shared
            # with other processes of the machine turns hits into misses at random and drowns the difference
            env["TORCHINDUCTOR_CACHE_DIR"] = str(Path(scratch) / "inductor")
            env["TRITON_CACHE_DIR"] = str(Path(scratch) / "triton")
            _profiled(python, workload, env, out), _timed([python, str(workload)], env)  # warm-up, not counted
            profiled, bare, watched = [], [], []
            for _ in range(args.runs):
                profiled.append(_profiled(python, workload, env, out))
                bare.append(_timed([python, str(workload)], env))
                if args.stall_after is not None:  # C in the same rounds: the load of the machine hits all three
                    watched.append(_profiled(python, workload, env, out, args.stall_after))
        ratios = [a / b for a, b in zip(profiled, bare, strict=True)]
        print(f"{name}: {workload.name} ({args.runs} {'rounds' if watched else 'pairs'})")
        print(_row("A: xladoctor profile -- python WORKLOAD", profiled))
        print(_row("B: python WORKLOAD", bare))
        print(f"  ratio A/B median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
        if watched:
            print(_row(f"C: xladoctor profile --stall-after {args.stall_after:g} -- ...", watched))
            ratios = [c / b for c, b in zip(watched, bare, strict=True)]
            print(f"  ratio C/B median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
            ratios = [c / a for c, a in zip(watched, profiled, strict=True)]
            print(f"  ratio C/A median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
