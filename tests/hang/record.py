"""Record the hang fixtures: real stalls of the planted programs, as the hang report's JSON (its `ranks` are what
the gather read: threads, collectives, Flight Recorder entries). tests/unit/test_hang_analysis.py judges them again.

    .venv/bin/python tests/hang/record.py [CASE...]

Each case runs `xladoctor profile --stall-after 5 --stall-action stop --format json -o FILE -- ...` in a real venv
(tests/envs.py), or `xladoctor hang --job PID` on a job xladoctor did not start, and keeps the first stall.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
PROGRAMS = ROOT / "tests" / "integration" / "programs"
sys.path.insert(0, str(ROOT / "tests"))

import envs  # noqa: E402

TORCH = "torch213-xla29"
GLOO = {f"gloo-{mode}": mode for mode in ("mismatch", "skip", "busy", "dataloader", "killed")}
CASES = (*GLOO, "jax-missing", "xla-stuck", "nodump-regex", "pid-busy")


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _env(name: str) -> dict[str, str]:
    python = envs.python_of(envs.ensure_env(name))
    return {**os.environ, "PATH": f"{python.parent}{os.pathsep}{os.environ['PATH']}"}


def _profiled(command: list[str], env: dict[str, str], out: Path, prefix: list[str] | None = None) -> dict[str, object]:
    argv = [*(prefix or []), sys.executable, "-m", "xladoctor", "profile", "--stall-after", "5", "--stall-action",
            "stop", "--format", "json", "-o", str(out), "--", *command]  # fmt: skip
    subprocess.run(argv, env=env, cwd=PROGRAMS, capture_output=True, timeout=300)
    document = json.loads(out.read_text())
    stalls = document["stalls"]
    assert stalls, f"{command}: no stall was reported"
    return dict(stalls[0])


def record(case: str, folder: Path) -> dict[str, object]:
    out = folder / f"{case}.json"
    if case in GLOO:
        command = ["torchrun", "--nproc-per-node", "3", "--master-port", str(_port()), "hang_gloo.py", GLOO[case]]
        return _profiled(command, _env(TORCH), out)
    if case == "jax-missing":
        return _profiled(["python", "hang_jax.py", "launch", str(_port())], _env("jax-cpu"), out)
    if case == "xla-stuck":
        return _profiled(["python", "hang_xla.py"], _env("torch29-xla29"), out)
    if case == "nodump-regex":
        prefix = ["setpriv", "--inh-caps=-sys_ptrace", "--bounding-set=-sys_ptrace", "--"]
        return _profiled(["python", "hang_nodump.py", "regex"], _env("bare"), out, prefix)
    if case == "pid-busy":
        env = _env(TORCH)
        command = ["torchrun", "--nproc-per-node", "3", "--master-port", str(_port()), "hang_gloo.py", "busy"]
        job = subprocess.Popen(command, env=env, cwd=PROGRAMS, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(15)
            ran = subprocess.run([sys.executable, "-m", "xladoctor", "hang", "--job", str(job.pid), "--json"],
                                 capture_output=True, text=True, timeout=120)  # fmt: skip
            return dict(json.loads(ran.stdout))
        finally:
            job.terminate()
            job.wait(30)
    raise SystemExit(f"unknown case {case}; known: {', '.join(CASES)}")


def main() -> None:
    cases = sys.argv[1:] or list(CASES)
    with tempfile.TemporaryDirectory() as scratch:
        for case in cases:
            document = record(case, Path(scratch))
            (HERE / f"{case}.json").write_text(json.dumps(document, indent=1) + "\n")
            print(f"{case}: {[f['id'] for f in document['findings']]}")  # type: ignore[index,union-attr]


if __name__ == "__main__":
    main()
