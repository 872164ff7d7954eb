"""Benchmark: `xladoctor compare --json` on a fleet of N worker snapshots read from a directory, a tar, a gzipped tar
and newline-delimited JSON on stdin, for wall time and peak RSS (the median of --runs runs).

    .venv/bin/python scripts/bench_compare.py [--sizes 4096,10000] [--shapes dir,tar,tgz,ndjson] [--runs 3]
                                              [--root CHECKOUT] [--fixtures A.json:90,B.json:7,C.json:3]
                                              [--outlier-every 256] [--identical] [--keep DIR]

The fleet is made from real snapshots in tests/facts/ the way the workers of a job differ:
- a few distinct environments: each worker is made from one of --fixtures, picked by weight (three real snapshots of
  one venv with other XLA settings by default, as node pools configured apart would be);
- what differs between two hosts of one image: when and how fast each was probed (`created_at`, probe and NVML
  timings), free disk, memory, shared memory and inodes, the probing process, and the variables that name the
  worker (TPU_WORKER_ID, CLOUD_TPU_TASK_ID, HOSTNAME_TPU_WORKER: its host name);
- outliers: one worker in 256 (--outlier-every) has in turn another torch_xla (torch where there is none),
  PJRT_DEVICE=TPU, or a full disk.
`--identical` writes byte-identical copies of the first fixture instead.

Each shape runs `python -m xladoctor compare --json INPUT` as a whole process from --root (a checkout of the code to
measure; default this one): the directory, fleet.tar, fleet.tgz, or `-` with the NDJSON file on stdin (one line per
worker, `{"label": NAME, "snapshot": {...}}`, so the workers keep their names). It reads the wall and CPU time
(wait4) and the child's own peak RSS (VmHWM, written by the child: ru_maxrss is no measure of a child, see
tests/conftest.py run_cli_peak_kib), and checks each report: it names every worker and every outlier. A shape the
measured checkout cannot read shows its exit status instead. This machine is shared: read medians, not single runs.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FACTS = ROOT / "tests" / "facts"
FIXTURES = "real-torch29-xla29-debug-switches.json:90,real-torch29-xla29.json:7,real-torch29-xla29-pjrt-cuda.json:3"
SHAPES = ("dir", "tar", "tgz", "ndjson")
GIB = 1 << 30


@dataclass(frozen=True)
class Fleet:
    """Where each shape of one fleet lies, and what each worker is (label -> (environment, outlier kind))."""

    folder: Path
    tar: Path
    tgz: Path
    ndjson: Path
    workers: dict[str, tuple[int, str | None]]


def _base(fixture: Path) -> dict[str, Any]:
    """The fixture as `xladoctor snapshot -o` writes it (validated, every key present, scrubbed)."""
    sys.path.insert(0, str(ROOT))
    from xladoctor.facts import load_facts

    return dict(json.loads(load_facts(fixture.read_text()).dumps()))


def _jitter(doc: dict[str, Any], index: int) -> None:
    """What differs between two hosts of one image: when and how fast they were probed, what is free, who they are."""
    doc["created_at"] = f"2026-12-01T11:{index // 3600 % 60:02d}:{index // 60 % 60:02d}+00:00"
    for number, probe in enumerate(doc.get("probes", [])):
        probe["duration_s"] = round(0.001 * ((index * 7 + number * 13) % 997), 3)
    doc["env"] = {
        **doc["env"],
        "CLOUD_TPU_TASK_ID": str(index),
        "HOSTNAME_TPU_WORKER": f"t1v-n-{index:08x}-w-{index}",
        "TPU_WORKER_ID": str(index),
    }
    system = doc.get("system") or {}
    for attempt in (system.get("nvidia") or {}).get("attempts", []):
        if attempt.get("duration_s") is not None:
            attempt["duration_s"] = round(0.1 + 0.001 * (index % 89), 3)
    resources = system.get("resources") or {}
    resources["disk_free"] = {path: 40 * GIB + index * 4096 for path in resources.get("disk_free", {})}
    if resources.get("memory_bytes") is not None:
        resources["memory_bytes"] = 64 * GIB - index * 4096
    if resources.get("shm_bytes") is not None:
        resources["shm_bytes"] = 32 * GIB - index * 4096
    for folder in (system.get("compile_caches") or {}).get("dirs", []):
        if folder.get("free_inodes") is not None:
            folder["free_inodes"] = 15_000_000 + index
    if system.get("tpu") is not None:
        system["tpu"].update(pid=1000 + index % 30000, processes=180 + index % 40)


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


def write_fleet(bases: list[tuple[dict[str, Any], int]], folder: Path, count: int, args: argparse.Namespace) -> Fleet:
    """N snapshot files in `folder`, then the same snapshots as a tar, a gzipped tar and NDJSON lines."""
    workers: dict[str, tuple[int, str | None]] = {}
    pick = random.Random(27)  # the same fleet on every run and every checkout
    weights = [weight for _, weight in bases]
    same = json.dumps(bases[0][0], indent=2) + "\n"
    snaps = folder / "snaps"
    snaps.mkdir(parents=True, exist_ok=True)
    ndjson = folder / "fleet.ndjson"
    with ndjson.open("w") as lines:
        for index in range(count):
            label = f"node-{index:05d}.json"
            if args.identical:
                text, environment, kind = same, 0, None
            else:
                environment = pick.choices(range(len(bases)), weights)[0]
                doc = copy.deepcopy(bases[environment][0])
                _jitter(doc, index)
                kind = _outlier(doc, index, count, args.outlier_every)
                text = json.dumps(doc, indent=2) + "\n"
            workers[label] = (environment, kind)
            (snaps / label).write_text(text)
            lines.write(json.dumps({"label": label, "snapshot": json.loads(text)}) + "\n")
    tar, tgz = folder / "fleet.tar", folder / "fleet.tgz"
    with tarfile.open(tar, "w") as plain:
        for label in workers:
            plain.add(snaps / label, arcname=label)
    with tar.open("rb") as source, gzip.open(tgz, "wb", compresslevel=6) as packed:
        shutil.copyfileobj(source, packed, 1 << 20)
    return Fleet(snaps, tar, tgz, ndjson, workers)


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


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    rss_mb: float
    code: int
    stdout: bytes
    stderr: bytes


def run_compare(root: Path, argument: str, stdin: Path | None) -> Run:
    """One whole `xladoctor compare --json ARGUMENT` process (stdin from a file for `-`)."""
    argv = [sys.executable, "-c", PEAK, "compare", "--json", argument]
    env = {**os.environ, "PYTHONPATH": str(root)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        source = stdin.open("rb") if stdin is not None else subprocess.DEVNULL
        try:
            started = time.perf_counter()
            proc = subprocess.Popen(argv, cwd=root, env=env, stdin=source, stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
        finally:
            if stdin is not None and not isinstance(source, int):
                source.close()
        proc.returncode = 0  # reaped by wait4
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    marker = stderr.rsplit(b"VMHWM_KIB=", 1)
    peak = int(marker[1].split()[0]) if len(marker) == 2 else 0
    return Run(wall, usage.ru_utime + usage.ru_stime, peak / 1024, os.waitstatus_to_exitcode(status), stdout, stderr)


def verify(stdout: bytes, fleet: Fleet) -> str:
    """The report names every worker, and each outlier as one; returns the fleet findings that are not ok."""
    doc = json.loads(stdout)
    labels = [w["label"] for w in doc["workers"]]
    if sorted(labels) != sorted(fleet.workers):
        raise SystemExit(f"compare reported {len(labels)} workers, not the {len(fleet.workers)} given")
    findings = {f["id"]: f for f in doc["findings"]}
    own = findings["fleet-worker-checks"]["evidence"]
    usual = {}  # per environment, a worker that is no outlier: what a full disk is compared with
    for label, (environment, kind) in fleet.workers.items():
        if kind is None:
            usual.setdefault(environment, label)
    for label, (environment, kind) in fleet.workers.items():
        if kind in ("torch_xla", "torch"):
            found = findings["fleet-package-skew"]["evidence"]["per_worker"][kind][label] == "2.8.0"
        elif kind == "PJRT_DEVICE":
            found = findings["fleet-env-skew"]["evidence"]["per_worker"]["PJRT_DEVICE"][label] == "TPU"
        elif kind == "disk":  # disk-space-low warns on that worker alone
            found = own[label]["warn"] == own[usual[environment]]["warn"] + 1
        else:
            continue
        if not found:
            raise SystemExit(f"{label} ({kind} outlier) is not reported as one")
    return ", ".join(f"{f['id'].removeprefix('fleet-')} {f['status']}" for f in doc["findings"] if f["status"] != "ok")


def _input(fleet: Fleet, shape: str) -> tuple[str, Path | None]:
    return {
        "dir": (str(fleet.folder), None),
        "tar": (str(fleet.tar), None),
        "tgz": (str(fleet.tgz), None),
        "ndjson": ("-", fleet.ndjson),
    }[shape]


def measure(root: Path, fleet: Fleet, shape: str, runs: int) -> str:
    """One row of the table: medians over `runs` runs, the spread of the wall time, and what the report said."""
    argument, stdin = _input(fleet, shape)
    results = [run_compare(root, argument, stdin) for _ in range(runs)]
    walls = [r.wall for r in results]
    last = results[-1]
    if last.code not in (0, 1):
        lines = last.stderr.decode("utf-8", "replace").splitlines()
        said = next((line for line in lines if line.startswith("xladoctor")), lines[0] if lines else "")
        return f"{shape:>7} {'-':>8} {'-':>13} {'-':>8} {'-':>12} {'-':>10} {'-':>8}  {last.code:>4}  {said[:90]}"
    summary = verify(last.stdout, fleet)
    wall = statistics.median(walls)
    spread = f"{min(walls):.1f}-{max(walls):.1f}"
    cpu = statistics.median(r.cpu for r in results)
    rss = statistics.median(r.rss_mb for r in results)
    count = len(fleet.workers)
    return (
        f"{shape:>7} {wall:>8.2f} {spread:>13} {cpu:>8.2f} {rss:>12.0f} {1000 * wall / count:>10.2f} "
        f"{len(last.stdout) >> 10:>8}  {last.code:>4}  {summary}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="4096,10000", help="comma-separated worker counts")
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated, of {', '.join(SHAPES)}")
    parser.add_argument("--runs", type=int, default=3, help="runs per size and shape (medians are shown)")
    parser.add_argument("--fixtures", default=FIXTURES, help="snapshots in tests/facts (or paths), each :WEIGHT")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose xladoctor is measured")
    parser.add_argument("--identical", action="store_true", help="byte-identical snapshots, no outliers")
    parser.add_argument("--outlier-every", type=int, default=256, help="one worker in this many is an outlier")
    parser.add_argument("--keep", type=Path, help="write the fleets here and keep them (for profiling)")
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    if unknown := set(shapes) - set(SHAPES):
        parser.error(f"unknown shapes: {', '.join(sorted(unknown))}")
    bases = []
    for item in args.fixtures.split(","):
        name, _, weight = item.partition(":")
        path = Path(name) if Path(name).is_file() else FACTS / name
        bases.append((_base(path), int(weight or 1)))
    kind = (
        "identical copies"
        if args.identical
        else f"{len(bases)} environments, per-host values, 1 outlier in {args.outlier_every}"
    )
    print(f"code: {args.root}; snapshots from {args.fixtures} ({kind}); medians of {args.runs} runs")
    print(
        f"{'workers':>8} {'shape':>7} {'wall s':>8} {'wall min-max':>13} {'cpu s':>8} {'peak RSS MB':>12} "
        f"{'ms/worker':>10} {'JSON KB':>8}  exit  not ok"
    )
    for count in (int(s) for s in args.sizes.split(",")):
        folder = Path(tempfile.mkdtemp(prefix=f"xd-fleet-{count}-")) if args.keep is None else args.keep / str(count)
        try:
            fleet = write_fleet(bases, folder, count, args)
            for shape in shapes:
                print(f"{count:>8} {measure(args.root, fleet, shape, args.runs)}", flush=True)
        finally:
            if args.keep is None:
                shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
