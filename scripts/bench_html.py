"""Benchmark: the HTML fleet dashboard, `xladoctor compare --format html -o FILE DIR`, at 64 to 1024 workers: the
time to write it, its size, and how long a real headless Chromium takes to render it.

    .venv/bin/python scripts/bench_html.py [--sizes 64,256,1024] [--runs 3]

The fleet is tests/browser/reports.py's: copies of the real snapshot tests/facts/real-torch29-xla29.json with four
outliers (two with torch_xla 2.8.0, one with PJRT_DEVICE=CUDA, one with the H200 snapshot's driver and GPU). The
render time runs from the start of navigation to the second animation frame after the load event (parsed, styled,
laid out, painted); the median of `--runs` loads, each in a new tab, is printed. Needs chromium
(scripts/ensure_browser.sh).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]

from cdp import Browser, find_chromium  # noqa: E402  (tests/browser/cdp.py)
from reports import write_fleet  # noqa: E402  (tests/browser/reports.py)

RENDERED = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))))"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,256,1024")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    executable = find_chromium()
    if executable is None:
        print("chromium is not installed: bash scripts/ensure_browser.sh", file=sys.stderr)
        return 2
    browser = Browser(executable)
    print(f"{browser.version}; median of {args.runs} loads")
    print(f"{'workers':>8} {'write s':>8} {'size KB':>8} {'render ms':>10} {'load ms':>8}")
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            with tempfile.TemporaryDirectory(prefix="xladoctor-bench-html-") as scratch:
                folder = Path(scratch)
                snaps = folder / "snaps"
                write_fleet(snaps, size)
                page = folder / "fleet.html"
                started = time.perf_counter()
                ran = subprocess.run(
                    [sys.executable, "-m", "xladoctor", "compare", "--format", "html", "-o", str(page), str(snaps)],
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                )
                wrote = time.perf_counter() - started
                if ran.returncode not in (0, 1) or not page.exists():
                    print(ran.stderr, file=sys.stderr)
                    return 1
                rendered, loaded = [], []
                for _ in range(args.runs):
                    tab = browser.open(page.as_uri())
                    rendered.append(tab.evaluate(RENDERED))
                    loaded.append(tab.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd"))
                    tab.close()
                print(
                    f"{size:>8} {wrote:>8.2f} {page.stat().st_size / 1000:>8.0f} "
                    f"{statistics.median(rendered):>10.0f} {statistics.median(loaded):>8.0f}"
                )
    finally:
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
