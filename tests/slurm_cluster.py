"""A real Slurm on this host for the tests: munged, slurmctld and one slurmd per node (`slurmd -N NAME`, each on its
own port), all on 127.0.0.1, everything under one folder; stopped by pid file, never by name.

What it relies on was measured with Debian 12's slurm-wlm 22.05.8 and munge 0.5.15: `AuthInfo=socket=PATH` points
Slurm at a private munged (whose socket folder, and every folder above it, must be executable by all),
`CommunicationParameters=NoCtldInAddrAny,NoInAddrAny` keeps every listener on 127.0.0.1, and clients find the cluster
through SLURM_CONF. A prolog gets none of slurmd's environment but SLURM_CONF and the job's SLURM_* variables. The
packages are installed with apt-get when they are missing (root only).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd")
PACKAGES = ("slurm-wlm", "munge")


def why_slurm_cannot_run() -> str | None:
    """None when the daemons are there or can be installed here; else why not (a skip reason)."""
    if all(shutil.which(d) for d in DAEMONS):
        return None if os.geteuid() == 0 else "slurmd and its prolog run as root here; the tests are not root"
    if os.geteuid() != 0:
        return "slurm-wlm and munge are not installed and installing them with apt-get needs root"
    if shutil.which("apt-get") is None:
        return "slurm-wlm and munge are not installed and there is no apt-get to install them"
    return None


def install_slurm() -> None:
    """`apt-get install slurm-wlm munge` when a daemon is missing (once more after `apt-get update` on failure)."""
    if all(shutil.which(d) for d in DAEMONS):
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", *PACKAGES]
    done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        subprocess.run(["apt-get", "update"], env=env, capture_output=True, timeout=900)
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not all(shutil.which(d) for d in DAEMONS):
        raise RuntimeError(
            f"apt-get could not install {' '.join(PACKAGES)}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        )


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _conf(root: Path, nodes: Sequence[str], ports: Sequence[int], extra: Sequence[str]) -> str:
    ctld, slurmd, *node_ports = ports
    lines = [
        f"ClusterName=xd{os.getpid()}",
        "SlurmctldHost=localhost(127.0.0.1)",
        f"SlurmctldPort={ctld}",
        f"SlurmdPort={slurmd}",
        "CommunicationParameters=NoCtldInAddrAny,NoInAddrAny",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={root}/munge-sock/munge.socket",
        f"StateSaveLocation={root}/state",
        f"SlurmdSpoolDir={root}/spool/slurmd-%n",
        f"SlurmctldPidFile={root}/run/slurmctld.pid",
        f"SlurmdPidFile={root}/run/slurmd-%n.pid",
        f"SlurmctldLogFile={root}/log/slurmctld.log",
        f"SlurmdLogFile={root}/log/slurmd-%n.log",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "SwitchType=switch/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "ReturnToService=2",
        "SlurmdTimeout=30",
        "InactiveLimit=0",
        "KillWait=5",
        "MinJobAge=30",
        *extra,
    ]
    host = socket.gethostname().split(".")[0]
    for name, port in zip(nodes, node_ports, strict=True):
        lines.append(
            f"NodeName={name} NodeAddr=127.0.0.1 NodeHostname={host} Port={port} CPUs=1 RealMemory=512 State=UNKNOWN"
        )
    lines.append(f"PartitionName=debug Nodes={','.join(nodes)} Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


@dataclass
class SlurmCluster:
    root: Path
    nodes: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)  # what a client (srun, sinfo, scontrol) needs

    def run(
        self, *argv: str, timeout: float = 120, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, env={**self.env, **(env or {})}, cwd=self.root
        )

    def state(self, node: str) -> str:
        return self.run("sinfo", "-h", "-N", "-n", node, "-o", "%T").stdout.strip()

    def reason(self, node: str) -> str:
        """The node's whole reason (`sinfo -R` shows only 20 characters), "none" when it has none."""
        return self.run("sinfo", "-h", "-N", "-n", node, "-o", "%1000E").stdout.strip()

    def wait_state(self, node: str, wanted: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while (state := self.state(node)) != wanted and time.monotonic() < deadline:
            time.sleep(0.1)
        return state

    def resume(self, *nodes: str) -> None:
        for node in nodes:
            if self.state(node) != "idle":
                self.run("scontrol", "update", f"nodename={node}", "state=resume")
        for node in nodes:
            self.wait_state(node, "idle", 30)

    def log(self, name: str) -> str:
        path = self.root / "log" / name
        return path.read_text(errors="replace") if path.exists() else ""


def _ours(pid: int, root: Path) -> bool:
    """Whether a process belongs to this cluster: its command line or environment names our folder."""
    marker = str(root).encode()
    for part in ("cmdline", "environ"):
        with contextlib.suppress(OSError):
            if marker in Path(f"/proc/{pid}/{part}").read_bytes():
                return True
    return False


def _pid(path: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(path.read_text().strip())
    return None


def _stop(pids: list[int], timeout: float = 10) -> None:
    """SIGTERM, wait (all at once), then SIGKILL what is left."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    alive = list(pids)
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [p for p in alive if Path(f"/proc/{p}").exists() and b"Z" not in _status(p)]
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _status(pid: int) -> bytes:
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_bytes()
        return stat.rsplit(b")", 1)[1].split()[0]
    return b""


def leftovers(root: Path) -> list[int]:
    """Processes of this cluster still alive (slurmstepd and the daemons included)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid() and _ours(int(entry.name), root):
            if _status(int(entry.name)) != b"Z":
                found.append(int(entry.name))
    return found


@contextlib.contextmanager
def slurm_cluster(root: Path, nodes: Sequence[str], extra_conf: Sequence[str] = ()) -> Iterator[SlurmCluster]:
    """munged, slurmctld and a slurmd per node under `root` (slurm.conf there: `extra_conf` adds lines); every node
    idle when it yields; every process stopped when it returns."""
    for sub in ("munge", "munge-sock", "state", "spool", "log", "run"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    # munged refuses a socket folder that is not executable by all; the key stays private
    os.chmod(root, 0o755)
    os.chmod(root / "munge-sock", 0o755)
    os.chmod(root / "munge", 0o700)
    key, sock = root / "munge" / "munge.key", root / "munge-sock" / "munge.socket"
    conf = root / "slurm.conf"
    conf.write_text(_conf(root, nodes, free_ports(2 + len(nodes)), extra_conf))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    cluster = SlurmCluster(root, tuple(nodes), env)
    try:
        subprocess.run(["mungekey", "--create", f"--keyfile={key}", "--bits=1024"], check=True, capture_output=True)
        os.chmod(key, 0o400)
        subprocess.run(
            ["munged", f"--socket={sock}", f"--key-file={key}", f"--pid-file={root}/run/munged.pid",
             f"--log-file={root}/log/munged.log", f"--seed-file={root}/munge/munged.seed"],
            check=True, capture_output=True,
        )  # fmt: skip
        subprocess.run(["slurmctld", "-f", str(conf)], check=True, env=env, capture_output=True)
        for node in nodes:
            subprocess.run(["slurmd", "-f", str(conf), "-N", node], check=True, env=env, capture_output=True)
        for node in nodes:
            if cluster.wait_state(node, "idle", 60) != "idle":
                raise RuntimeError(
                    f"{node} is {cluster.state(node)!r}, not idle: {cluster.log(f'slurmd-{node}.log')[-3000:]}"
                )
        yield cluster
    finally:
        jobs = cluster.run("squeue", "-h", "-o", "%i", timeout=30).stdout.split()
        if jobs:
            cluster.run("scancel", *jobs, timeout=30)
        run = root / "run"
        daemons = [_pid(run / f"slurmd-{n}.pid") for n in nodes] + [_pid(run / "slurmctld.pid")]
        _stop([p for p in daemons if p is not None and _ours(p, root)])
        _stop(leftovers(root))  # slurmstepd of a job that did not end, a prolog still running
        munged = _pid(run / "munged.pid")
        if munged is not None and _ours(munged, root):
            _stop([munged])
