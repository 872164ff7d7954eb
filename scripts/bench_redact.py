"""Benchmark: scrubbing (control stripping + credential redaction) of hostile text, to show it is linear.

    .venv/bin/python scripts/bench_redact.py [--sizes 1 4 16] [--runs 3]

For each input of tests/faults/test_linear_time.py (long runs of letters, dashes, '@', ':', '/', '=', the literal
prefixes every rule starts on, escape sequences) and for realistic text (a planted log), scrubs 1, 4 and 16 MiB
and prints the best of N runs in seconds and in MiB/s. Linear time shows as a constant MiB/s across sizes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "faults")]

from planted import packed  # noqa: E402
from test_linear_time import HOSTILE  # noqa: E402

from xladoctor.sanitize import scrub  # noqa: E402

MIB = 1 << 20


def _best(text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        scrub(text)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 16], help="input sizes in MiB")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    inputs = {**HOSTILE, "planted log (every secret shape)": "\n".join(packed("RuntimeError:")) + "\n"}
    width = max(map(len, inputs))
    print(f"{'input':<{width}}  " + "  ".join(f"{f'{n} MiB':>17}" for n in args.sizes))
    worst = {n: 0.0 for n in args.sizes}
    for name, unit in inputs.items():
        cells = []
        for size in args.sizes:
            n = size * MIB
            seconds = _best((unit * (n // len(unit) + 1))[:n], args.runs)
            worst[size] = max(worst[size], seconds)
            cells.append(f"{seconds:7.3f} s {size / seconds:5.0f} MiB/s")
        print(f"{name:<{width}}  " + "  ".join(cells))
    print(f"{'slowest':<{width}}  " + "  ".join(f"{worst[n]:7.3f} s {n / worst[n]:5.0f} MiB/s" for n in args.sizes))


if __name__ == "__main__":
    main()
