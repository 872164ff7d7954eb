"""Benchmark: `xladoctor explain` on a large synthetic log, for wall time and peak memory.

    .venv/bin/python scripts/bench_explain.py [--gigabytes 1.0] [--runs 3]

Writes a log of training-style lines (INFO, warnings, progress) with three real failure lines near the
end, in a temporary folder, then times `python -m xladoctor explain LOG --no-facts --json` as a whole
process and reads its peak RSS from wait4. The log is deleted afterwards.
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

LINES = (
    b"I1129 12:00:01.123456 12345 pjrt_computation_client.cc:123] Executing computation on device TPU:0\n",
    b"2026-11-29 12:00:01 INFO step 1234 loss=0.1234 lr=3e-4 throughput=1234.5 samples/s\n",
    b"W1129 12:00:02.000000 12345 warning.py:12] UserWarning: this overload is deprecated\n",
    b"epoch 3 batch 77/1000 | grad_norm 1.2345 | mem 12.3GiB | data 0.01s\n",
)
FAILURES = (
    b"F0000 00:00:1.0 12 parse_flags_from_env.cc:234] Unknown flag in TF_XLA_FLAGS: --tf_xla_bogus_flag=1\n",
    b"ImportError: /venv/lib/python3.11/site-packages/_XLAC.cpython-311-x86_64-linux-gnu.so: undefined symbol: "
    b"_ZN5torch8autograd10deleteNodeEPNS0_4NodeE\n",
    b"RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
    b"a driver from http://www.nvidia.com/Download/index.aspx\n",
)


def write_log(path: Path, size: int) -> None:
    block = b"".join(LINES) * 4096
    with path.open("wb") as out:
        written = 0
        while written < size:
            out.write(block)
            written += len(block)
        out.writelines(FAILURES)


def run_once(log: Path) -> tuple[float, float, float, list[str]]:
    """Wall seconds, CPU seconds (steadier on a shared machine), peak RSS in MB and the ids found."""
    argv = [sys.executable, "-m", "xladoctor", "explain", str(log), "--no-facts", "--json"]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped by wait4
    ids = [m["id"] for m in json.loads(out)["matches"]]
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="xladoctor-bench-explain-") as folder:
        log = Path(folder) / "train.log"
        write_log(log, int(args.gigabytes * 1e9))
        size = log.stat().st_size
        samples = [run_once(log) for _ in range(args.runs)]
    walls, cpus, peaks = [s[0] for s in samples], [s[1] for s in samples], [s[2] for s in samples]
    mib = size / (1 << 20)
    print(f"log: {size / 1e9:.2f} GB; {args.runs} runs of `xladoctor explain LOG --no-facts --json`")
    print(f"  found: {', '.join(samples[0][3])}")
    print(f"  wall s: min {min(walls):.2f}  median {statistics.median(walls):.2f}  max {max(walls):.2f}")
    print(f"  cpu s: min {min(cpus):.2f}  median {statistics.median(cpus):.2f}  max {max(cpus):.2f}")
    wall_ms, cpu_ms = statistics.median(walls) / mib * 1000, statistics.median(cpus) / mib * 1000
    print(f"  per MiB: wall {wall_ms:.1f} ms, cpu {cpu_ms:.1f} ms (hostile lines: scripts/bench_explain_hostile.py)")
    print(f"  peak RSS: {max(peaks):.1f} MB (the log is {size / 1e6:.0f} MB)")


if __name__ == "__main__":
    main()
