"""Benchmark: `xladoctor compare --json DIR` on fleets of 16 to 4096 worker snapshots, for wall time and peak RSS.

    .venv/bin/python scripts/bench_compare.py [--sizes 16,256,1024,4096] [--fixture FILE] [--root CHECKOUT]
                                              [--runs 1] [--identical] [--outlier-every N] [--keep DIR]

Writes N snapshots in a temporary folder, made from one real snapshot (default
tests/facts/real-torch29-xla29-debug-switches.json) the way a fleet's workers differ: each has its own
`created_at`, probe timings, NVML timing, free disk bytes and free inodes (what two hosts of one image never
share), and a few are outliers: one worker in 256 (in N with `--outlier-every N`) has in turn torch_xla 2.8.0
(torch 2.8.0 where there is no torch_xla), PJRT_DEVICE=TPU or a full disk. `--identical` writes byte-identical
copies instead. Then it runs `python -m xladoctor compare --json DIR` as a whole process (from `--root`, a
checkout of the code to measure; default this one) and reads its wall time and CPU time (wait4), its own peak
RSS (VmHWM) and the size of its JSON. Each size is checked: the JSON names every worker and every outlier.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "facts" / "real-torch29-xla29-debug-switches.json"
GIB = 1 << 30


def _base(fixture: Path) -> dict[str, Any]:
    """The fixture as `xladoctor snapshot -o` writes it (validated, every key present, scrubbed)."""
    sys.path.insert(0, str(ROOT))
    from xladoctor.facts import load_facts

    return dict(json.loads(load_facts(fixture.read_text()).dumps()))


def _jitter(doc: dict[str, Any], index: int) -> None:
    """What differs between two hosts of one image: when and how fast they were probed, free disk and inodes."""
    doc["created_at"] = f"2026-12-01T11:{index // 3600 % 60:02d}:{index // 60 % 60:02d}+00:00"
    for number, probe in enumerate(doc.get("probes", [])):
        probe["duration_s"] = round(0.001 * ((index * 7 + number * 13) % 997), 3)
    system = doc.get("system") or {}
    for attempt in (system.get("nvidia") or {}).get("attempts", []):
        if attempt.get("duration_s") is not None:
            attempt["duration_s"] = round(0.1 + 0.001 * (index % 89), 3)
    resources = system.get("resources") or {}
    resources["disk_free"] = {path: 40 * GIB + index * 4096 for path in resources.get("disk_free", {})}
    for folder in (system.get("compile_caches") or {}).get("dirs", []):
        if folder.get("free_inodes") is not None:
            folder["free_inodes"] = 15_000_000 + index


def _outlier(doc: dict[str, Any], index: int, count: int, every: int) -> str | None:
    """Every `every`th worker (from the 4th) is an outlier of one kind, in turn: torch_xla, PJRT_DEVICE, a full disk."""
    if count < 4 or index % every != 3 % every:
        return None
    kind = ("package", "PJRT_DEVICE", "disk")[index // every % 3]
    if kind == "package":  # another torch_xla, or another torch where there is no torch_xla
        dist = next(d for name in ("torch-xla", "torch") for d in doc["distributions"] if d["name"] == name)
        dist["version"] = "2.8.0"
        kind = "torch_xla" if dist["name"] == "torch-xla" else "torch"
    elif kind == "PJRT_DEVICE":
        doc["env"]["PJRT_DEVICE"] = "TPU"
    else:
        resources = doc["system"]["resources"]
        resources["disk_free"] = {path: GIB // 2 for path in resources["disk_free"]}
    return kind


def write_fleet(base: dict[str, Any], folder: Path, count: int, identical: bool, every: int) -> dict[str, str]:
    """N snapshot files in `folder`; returns the outliers (label -> kind)."""
    outliers: dict[str, str] = {}
    same = json.dumps(base, indent=2) + "\n"
    for index in range(count):
        label = f"worker-{index:05d}.json"
        if identical:
            (folder / label).write_text(same)
            continue
        doc = copy.deepcopy(base)
        _jitter(doc, index)
        kind = _outlier(doc, index, count, every)
        if kind:
            outliers[label] = kind
        (folder / label).write_text(json.dumps(doc, indent=2) + "\n")
    return outliers


# Runs xladoctor and writes its own peak RSS (VmHWM) last on stderr: ru_maxrss from wait4 is no measure of the child,
# Linux carries the parent's high-water mark across the vfork+exec that subprocess uses (tests/conftest.py).
PEAK = """
import runpy, sys
sys.argv = ["xladoctor", *sys.argv[1:]]
try:
    runpy.run_module("xladoctor", run_name="__main__", alter_sys=True)
finally:
    peak = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))
    sys.stderr.write("\\nVMHWM_KIB=" + peak + "\\n")
"""


def run_compare(root: Path, folder: Path) -> tuple[float, float, float, int, bytes]:
    """Wall seconds, CPU seconds, peak RSS (MB) of the whole process, its exit status and its stdout."""
    argv = [sys.executable, "-c", PEAK, "compare", "--json", str(folder)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=root, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = 0  # reaped by wait4
        out.seek(0)
        err.seek(0)
        stdout, peak = out.read(), err.read().rsplit(b"VMHWM_KIB=", 1)[-1].split()[0]
    return wall, usage.ru_utime + usage.ru_stime, int(peak) / 1024, os.waitstatus_to_exitcode(status), stdout


def verify(stdout: bytes, count: int, outliers: dict[str, str]) -> str:
    """The report names every worker, and each skew finding names its outliers; returns a one-line summary."""
    doc = json.loads(stdout)
    if len(doc["workers"]) != count:
        raise SystemExit(f"compare reported {len(doc['workers'])} workers, not {count}")
    findings = {f["id"]: f for f in doc["findings"]}
    own = findings["fleet-worker-checks"]["evidence"]
    for label, kind in outliers.items():
        if kind in ("torch_xla", "torch"):
            found = findings["fleet-package-skew"]["evidence"]["per_worker"][kind][label] == "2.8.0"
        elif kind == "PJRT_DEVICE":
            found = findings["fleet-env-skew"]["evidence"]["per_worker"]["PJRT_DEVICE"][label] == "TPU"
        else:  # disk-space-low warns on that worker alone
            found = own[label]["warn"] == own["worker-00000.json"]["warn"] + 1
        if not found:
            raise SystemExit(f"{label} ({kind} outlier) is not reported as one")
    return ", ".join(f"{f['id'].removeprefix('fleet-')} {f['status']}" for f in doc["findings"] if f["status"] != "ok")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="16,256,1024,4096", help="comma-separated worker counts")
    parser.add_argument("--fixture", type=Path, default=FIXTURE, help="the real snapshot every worker is made from")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose xladoctor is measured")
    parser.add_argument("--runs", type=int, default=1, help="runs per size (the best wall time is shown)")
    parser.add_argument("--identical", action="store_true", help="byte-identical snapshots, no outliers")
    parser.add_argument("--outlier-every", type=int, default=256, help="one worker in this many is an outlier")
    parser.add_argument("--keep", type=Path, help="write the snapshots here and keep them (for profiling)")
    args = parser.parse_args()
    base = _base(args.fixture)
    sizes = [int(s) for s in args.sizes.split(",")]
    kind = (
        "identical copies" if args.identical else f"per-host timings and free space, 1 outlier in {args.outlier_every}"
    )
    print(f"code: {args.root}; snapshots: {args.fixture.name} ({len(json.dumps(base, indent=2)) >> 10} KB), {kind}")
    print(
        f"{'workers':>8} {'wall s':>8} {'cpu s':>8} {'peak RSS MB':>12} {'ms/worker':>10} {'JSON KB':>8}  exit  not ok"
    )
    for count in sizes:
        folder = Path(tempfile.mkdtemp(prefix=f"xd-fleet-{count}-")) if args.keep is None else args.keep / str(count)
        folder.mkdir(parents=True, exist_ok=True)
        try:
            outliers = write_fleet(base, folder, count, args.identical, args.outlier_every)
            best: tuple[float, float, float, int, bytes] | None = None
            for _ in range(args.runs):
                result = run_compare(args.root, folder)
                best = result if best is None or result[0] < best[0] else best
            assert best is not None
            wall, cpu, rss, code, stdout = best
            summary = verify(stdout, count, outliers) if code in (0, 1) else "(no report)"
            print(
                f"{count:>8} {wall:>8.2f} {cpu:>8.2f} {rss:>12.0f} {1000 * wall / count:>10.2f} {len(stdout) >> 10:>8}"
                f"  {code:>4}  {summary}"
            )
        finally:
            if args.keep is None:
                shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
