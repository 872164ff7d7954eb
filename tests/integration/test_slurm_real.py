"""deploy/slurm/ on a real Slurm: slurmctld and two slurmd (n1, n2) on this host, the shipped prolog as Prolog and
Epilog. A node whose stack fails is drained with the finding as its reason; a healthy one is left alone; the srun
recipe snapshots every node of an allocation and compares them; LBNL NHC drains through the shipped check.

Each node's settings file names the interpreter it checks: the cached `bare` venv passes, `torch213-xla29` (torch
2.13 beside a torch_xla built for torch 2.9) fails torch-xla-torch-mismatch, a real breakage, no fake.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from slurm_cluster import SlurmCluster, install_slurm, leftovers, slurm_cluster, why_slurm_cannot_run

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "slurm"
XLADOCTOR = Path(sys.executable).parent / "xladoctor"
NODES = ("n1", "n2")
TITLE = "torch_xla 2.9.0 is built for torch 2.9, but torch 2.13.0+cpu is installed"
REASON = f"xladoctor: torch-xla-torch-mismatch: {TITLE}"


@pytest.fixture(scope="module")
def venvs(real_env) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    return {"healthy": real_env("bare") / "bin" / "python", "broken": real_env("torch213-xla29") / "bin" / "python"}


@pytest.fixture(scope="module")
def cluster(venvs: dict[str, Path]) -> Iterator[SlurmCluster]:
    reason = why_slurm_cannot_run()
    if reason is not None:
        pytest.skip(reason)
    install_slurm()
    # not under pytest's tmp_path: munged wants every folder above its socket executable by all, and pytest's are 0700
    root = Path(tempfile.mkdtemp(prefix="xladoctor-slurm-"))
    try:
        yield from _cluster(root, venvs)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _cluster(root: Path, venvs: dict[str, Path]) -> Iterator[SlurmCluster]:
    prolog = DEPLOY / "xladoctor-prolog.sh"
    extra = (f"Prolog={prolog}", f"Epilog={prolog}", "PrologEpilogTimeout=120")
    configure(root, n1=venvs["healthy"], n2=venvs["healthy"])
    started = time.monotonic()
    with slurm_cluster(root, NODES, extra) as running:
        print(f"[slurm] up in {time.monotonic() - started:.1f}s")
        yield running
        stopping = time.monotonic()
    print(f"[slurm] down in {time.monotonic() - stopping:.1f}s")
    assert leftovers(root) == []


def configure(root: Path, **pythons: Path) -> None:
    """The prolog's settings beside slurm.conf (where it looks first, through the SLURM_CONF slurmd gives it): which
    xladoctor, and which interpreter each node checks (one file, a case on the node's name)."""
    cases = "".join(
        f"    {node}) XLADOCTOR_ARGS=(--python {shlex.quote(str(python))} --timeout 60) ;;\n"
        for node, python in pythons.items()
    )
    (root / "xladoctor-prolog.conf").write_text(
        f'XLADOCTOR={shlex.quote(str(XLADOCTOR))}\nXLADOCTOR_DEADLINE=100\ncase "$SLURMD_NODENAME" in\n{cases}esac\n'
    )


@pytest.fixture
def nodes(cluster: SlurmCluster, venvs: dict[str, Path]) -> SlurmCluster:
    """Both nodes healthy and idle at the start of each test."""
    configure(cluster.root, n1=venvs["healthy"], n2=venvs["healthy"])
    cluster.resume(*NODES)
    assert [cluster.state(n) for n in NODES] == ["idle", "idle"]
    return cluster


def test_a_failing_node_is_drained_with_its_finding_and_a_healthy_one_left_alone(
    nodes: SlurmCluster, venvs: dict[str, Path]
) -> None:
    started = time.monotonic()
    ran = nodes.run("srun", "-N2", "-n2", "--label", "printenv", "SLURMD_NODENAME")
    assert ran.returncode == 0, ran.stderr
    assert sorted(ran.stdout.splitlines()) == ["0: n1", "1: n2"]
    assert [nodes.wait_state(n, "idle") for n in NODES] == ["idle", "idle"]  # the epilogs are done
    print(f"[slurm] a job on two healthy nodes (prolog + epilog on each): {time.monotonic() - started:.1f}s")

    configure(nodes.root, n1=venvs["healthy"], n2=venvs["broken"])
    started = time.monotonic()
    ran = nodes.run("srun", "-N2", "-n2", "printenv", "SLURMD_NODENAME", timeout=60)
    assert ran.returncode != 0
    assert "n2: Job prolog failed" in ran.stderr or "Prolog failure on node n2" in ran.stderr, ran.stderr
    assert nodes.wait_state("n2", "drained") == "drained"
    print(f"[slurm] srun refused and n2 drained: {time.monotonic() - started:.1f}s")
    assert nodes.reason("n2") == REASON
    assert nodes.run("sinfo", "-R", "-h", "-o", "%20E|%N").stdout == "xladoctor: torch-xla|n2\n"
    assert nodes.wait_state("n1", "idle") == "idle" and nodes.reason("n1") == "none"
    # the drained node takes no job; the healthy one still does
    ran = nodes.run("srun", "-N1", "printenv", "SLURMD_NODENAME")
    assert (ran.returncode, ran.stdout) == (0, "n1\n"), ran.stderr
    # the whole report is in the node's slurmd log, where the prolog's output goes
    log = nodes.log("slurmd-n2.log")
    assert "torch-xla-torch-mismatch" in log and "xladoctor-prolog: drained n2 (job " in log


def test_an_epilog_drains_a_node_the_job_broke(nodes: SlurmCluster, venvs: dict[str, Path]) -> None:
    output = str(nodes.root / "epilog-job.out")  # the job's own output: a file of the test's, never the host's /dev
    submitted = nodes.run("sbatch", "--parsable", "-w", "n1", "-N1", "-o", output, "--wrap", "sleep 6")
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.strip()
    deadline = time.monotonic() + 60
    while nodes.run("squeue", "-h", "-j", job, "-o", "%T").stdout.strip() != "RUNNING":
        assert time.monotonic() < deadline, nodes.run("squeue", "-j", job).stdout
        time.sleep(0.2)
    configure(nodes.root, n1=venvs["broken"], n2=venvs["healthy"])  # n1 breaks while the job runs
    assert nodes.wait_state("n1", "drained", 90) == "drained"
    assert nodes.reason("n1") == REASON
    assert nodes.state("n2") == "idle" and nodes.reason("n2") == "none"
    assert f"xladoctor-prolog: drained n1 (job {job}, epilog_slurmd)" in nodes.log("slurmd-n1.log")


def test_the_srun_recipe_snapshots_every_node_and_compares_them(
    nodes: SlurmCluster, venvs: dict[str, Path], tmp_path: Path
) -> None:
    snaps = tmp_path / "snaps"
    started = time.monotonic()
    ran = nodes.run(
        "salloc", "-N2", str(DEPLOY / "xladoctor-compare-allocation.sh"), str(snaps), "--python", str(venvs["healthy"]),
        env={"XLADOCTOR": str(XLADOCTOR)},
    )  # fmt: skip
    print(f"[slurm] snapshot two nodes and compare: {time.monotonic() - started:.1f}s")
    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in snaps.iterdir()) == ["n1.json", "n2.json"]
    for name in ("n1.json", "n2.json"):
        facts = json.loads((snaps / name).read_text())
        assert facts["target"]["requested"] == str(venvs["healthy"])
    compared = subprocess.run(
        [str(XLADOCTOR), "compare", "--json", str(snaps)], capture_output=True, text=True, timeout=120
    )
    document = json.loads(compared.stdout)
    assert compared.returncode == 0 and [w["label"] for w in document["workers"]] == ["n1.json", "n2.json"]
    assert document["summary"]["fail"] == 0
    assert "2 workers" in ran.stdout, ran.stdout


def _nhc() -> tuple[Path, Path, Path] | None:
    """(driver, common.nhc, helpers folder) of an installed LBNL NHC, or of a checkout named by XLADOCTOR_TEST_NHC."""
    checkout = os.environ.get("XLADOCTOR_TEST_NHC")
    if checkout:
        base = Path(checkout)
        return base / "nhc", base / "scripts" / "common.nhc", base / "helpers"
    driver = shutil.which("nhc")
    if driver:
        return Path(driver), Path("/etc/nhc/scripts/common.nhc"), Path("/usr/libexec/nhc")
    return None


def test_nhc_drains_through_the_shipped_check_and_resumes_when_it_passes(
    nodes: SlurmCluster, venvs: dict[str, Path], tmp_path: Path
) -> None:
    found = _nhc()
    if found is None:
        pytest.skip(
            "LBNL NHC is not installed (Debian 12 does not package it): install it from github.com/mej/nhc, or set "
            "XLADOCTOR_TEST_NHC to a checkout of it"
        )
    driver, common, helpers = found
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    shutil.copy(common, scripts / "common.nhc")
    shutil.copy(DEPLOY / "xladoctor.nhc", scripts / "xladoctor.nhc")
    marks = tmp_path / "helpers"  # a checkout's helpers are not executable until `make install` sets their mode
    shutil.copytree(helpers, marks)
    for helper in marks.iterdir():
        helper.chmod(0o755)

    def nhc(python: Path) -> subprocess.CompletedProcess[str]:
        conf = tmp_path / "nhc.conf"
        conf.write_text(f"* || check_xladoctor_node --python {python} --timeout 60\n")
        return nodes.run(
            "bash", str(driver), "-c", str(conf), "-l", str(tmp_path / "nhc.log"), "-t", "120", "NHC_RM=slurm",
            "HOSTNAME=n2", f"INCDIR={scripts}", f"HELPERDIR={marks}", env={"XLADOCTOR_NHC_BIN": str(XLADOCTOR)},
        )  # fmt: skip

    started = time.monotonic()
    ran = nhc(venvs["broken"])
    print(f"[slurm] NHC run that drains: {time.monotonic() - started:.1f}s")
    assert ran.returncode != 0
    assert nodes.wait_state("n2", "drained") == "drained"
    assert nodes.reason("n2") == f"NHC: check_xladoctor_node: torch-xla-torch-mismatch: {TITLE}"
    assert nodes.state("n1") == "idle"
    ran = nhc(venvs["healthy"])
    assert ran.returncode == 0, (tmp_path / "nhc.log").read_text()
    assert nodes.wait_state("n2", "idle") == "idle" and nodes.reason("n2") == "none"  # NHC resumes what it drained
