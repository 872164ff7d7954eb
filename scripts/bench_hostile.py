"""Benchmark: how long xladoctor takes on hostile environments, against the bound it promises.

    .venv/bin/python scripts/bench_hostile.py [--timeout SECONDS] [--runs N]

Builds fake environments (tests/faults/fakes.py) and times whole `python -m xladoctor` processes:
- nine tools on PATH that never answer `--version` (nvcc, the compilers, ninja, nvidia-smi), static check;
- a torch whose import hangs, four torch smoke tests on this machine's cores;
- a dist-info whose METADATA is a link to /dev/zero (time and peak memory);
- SIGTERM sent while smoke tests run: the time to exit with every child stopped.
The bound: every child process has --timeout; probes and tools run at once, so a static check takes about one
timeout (plus the bundled-ptxas probe's, at most min(timeout, 15 s)) plus start-up; smoke tests that share a
framework whose import hangs are stopped together, so they cost one timeout per framework, not one per test.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "faults"))

from fakes import HANGS, add_package, hanging_tools, make_venv  # noqa: E402

XLADOCTOR = [sys.executable, "-m", "xladoctor"]
TOOLS = ("nvcc", "cc", "gcc", "c++", "g++", "clang", "clang++", "ninja", "nvidia-smi")


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **env})
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - started, usage.ru_maxrss / 1024


def _interrupt_latency(argv: list[str], env: dict[str, str], tmp: Path) -> float:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **env})
    while not list(tmp.glob("xladoctor-smoke-*")):
        time.sleep(0.05)
    time.sleep(1.0)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    proc.wait()
    return time.perf_counter() - sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    t = args.timeout
    with tempfile.TemporaryDirectory(prefix="xladoctor-bench-") as folder:
        work = Path(folder)
        tools = hanging_tools(work / "bin", TOOLS)
        plain = make_venv(work / "plain")
        hung = make_venv(work / "hung")
        add_package(hung, "torch", "2.9.0", HANGS)
        add_package(hung, "triton", "3.5.0", "")
        add_package(hung, "torch_xla", "2.9.0", "")
        zero = make_venv(work / "zero")
        info = next((work / "zero" / "lib").glob("python3*/site-packages")) / "evil-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").symlink_to("/dev/zero")
        tmp = work / "tmp"
        tmp.mkdir()
        path = {"PATH": f"{tools}:{os.environ['PATH']}"}
        smoke = ["--smoke", "matmul,compile,triton,xla"]
        cases = {
            "static check, 9 hanging tools on PATH": (
                [*XLADOCTOR, "check", "--python", str(plain), "--no-smoke", "--timeout", str(t)],
                path,
                f"about {t:g} s + start-up",
            ),
            "4 smoke tests, torch import hangs": (
                [*XLADOCTOR, "check", "--python", str(hung), *smoke, "--timeout", str(t)],
                {},
                f"about {t:g} s (one wave) + the static part",
            ),
            "METADATA is a link to /dev/zero": (
                [*XLADOCTOR, "check", "--python", str(zero), "--no-smoke", "--timeout", str(t)],
                {},
                "start-up; bounded memory",
            ),
        }
        print(f"--timeout {t:g}; {args.runs} runs each; wall seconds (median, max) and peak RSS of the largest process")
        for name, (argv, env, bound) in cases.items():
            samples = [_timed(argv, env) for _ in range(args.runs)]
            walls = [s[0] for s in samples]
            print(
                f"  {name:40s} median {statistics.median(walls):6.2f}  max {max(walls):6.2f}"
                f"  peak {max(s[1] for s in samples):6.0f} MB   bound: {bound}"
            )
        argv = [*XLADOCTOR, "check", "--python", str(hung), *smoke, "--timeout", "120"]
        latencies = [_interrupt_latency(argv, {"TMPDIR": str(tmp)}, tmp) for _ in range(args.runs)]
        print(f"  {'SIGTERM during smoke tests: time to exit':40s} median {statistics.median(latencies):6.2f}"
              f"  max {max(latencies):6.2f}   bound: 1-2 s")  # fmt: skip


if __name__ == "__main__":
    main()
