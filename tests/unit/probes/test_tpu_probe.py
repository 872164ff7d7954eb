"""The TPU lock probe against fake /proc and /dev trees: holders, /proc/locks, bounds, unreadable and garbage."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from xladoctor.probes import tpu as probe
from xladoctor.probes.resources import cgroup_cpu_limit
from xladoctor.probes.tpu import lock_pids, probe_tpu, tpu_devices


def fake_dev(root: Path, *names: str) -> Path:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    return root


def fake_process(proc: Path, pid: int, links: dict[str, str], comm: str = "python3") -> Path:
    """/proc/<pid> with fd/<n> -> target links (targets need not exist, as for device nodes) and a comm file."""
    folder = proc / str(pid)
    (folder / "fd").mkdir(parents=True)
    (folder / "comm").write_text(comm + "\n")
    for fd, target in links.items():
        (folder / "fd" / fd).symlink_to(target)
    return folder


def test_tpu_devices_are_accel_and_numbered_vfio_only(tmp_path: Path) -> None:
    dev = fake_dev(tmp_path, "accel0", "accel1", "vfio/0", "vfio/vfio", "nvidia0")
    assert tpu_devices(dev) == ["/dev/accel0", "/dev/accel1", "/dev/vfio/0"]
    assert tpu_devices(tmp_path / "missing") == []


def test_nothing_is_scanned_without_tpu_devices_or_lock_file(tmp_path: Path) -> None:
    facts = probe_tpu(tmp_path / "proc", tmp_path / "dev", tmp_path / "libtpu_lockfile")
    assert facts == {"uid": os.getuid(), "pid": os.getpid()}


def test_processes_holding_a_tpu_device_are_found(tmp_path: Path) -> None:
    proc, dev = tmp_path / "proc", fake_dev(tmp_path / "dev", "vfio/0", "vfio/1", "vfio/vfio")
    fake_process(proc, 4242, {"0": "/dev/null", "7": "/dev/vfio/0", "8": "/dev/vfio/1"}, comm="python3")
    fake_process(proc, 77, {"0": "/dev/pts/0", "3": "/dev/vfio/vfio"})  # the container node is no chip
    (proc / "self").mkdir()  # not a pid
    facts = probe_tpu(proc, dev, tmp_path / "libtpu_lockfile")
    uid = (proc / "4242").stat().st_uid
    assert facts["holders"] == [
        {"pid": 4242, "path": "/dev/vfio/0", "name": "python3", "uid": uid},
        {"pid": 4242, "path": "/dev/vfio/1", "name": "python3", "uid": uid},
    ]
    assert (facts["processes"], facts["unreadable"], facts["complete"]) == (2, 0, True)
    assert "lockfile" not in facts  # no lock file: nothing about it is recorded


def test_a_lock_file_is_described_and_its_holders_read_from_proc_locks(tmp_path: Path) -> None:
    lock = tmp_path / "libtpu_lockfile"
    lock.write_text("")
    st = lock.stat()
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "locks").write_text(
        f"1: POSIX  ADVISORY  WRITE 5150 {device} 0 EOF\n"
        f"1: -> POSIX  ADVISORY  WRITE 6160 {device} 0 EOF\n"  # a waiter holds nothing
        "2: FLOCK  ADVISORY  WRITE 7 00:1f:99 0 EOF\n"  # another file
        "garbage \x00\xff line\n"
    )
    fake_process(proc, 5150, {"4": str(lock)})
    facts = probe_tpu(proc, tmp_path / "dev", lock)
    assert facts["lockfile"] == str(lock)
    assert (facts["lock_uid"], facts["lock_writable"]) == (st.st_uid, True)
    assert (facts["locks_read"], facts["lock_pids"]) == (True, [5150])
    assert [(h["pid"], h["path"]) for h in facts["holders"]] == [(5150, str(lock))]


def test_a_real_lockf_lock_is_seen_in_the_real_proc_locks(tmp_path: Path) -> None:
    """What libtpu does (lockf on the file, held while the process lives), done by this test process."""
    lock = tmp_path / "libtpu_lockfile"
    with open(lock, "w") as handle:
        fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        facts = probe_tpu(lockfile=lock, dev=tmp_path / "nodev")
        assert os.getpid() in facts["lock_pids"]
        assert {"pid": os.getpid(), "path": str(lock)} in [{k: h[k] for k in ("pid", "path")} for h in facts["holders"]]
    after = probe_tpu(lockfile=lock, dev=tmp_path / "nodev")
    assert after["lock_pids"] == [] and after["lockfile"] == str(lock)  # the file stays, the lock went with the fd


def test_unreadable_processes_are_counted_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proc, dev = tmp_path / "proc", fake_dev(tmp_path / "dev", "accel0")
    fake_process(proc, 10, {"3": "/dev/accel0"})
    other = fake_process(proc, 11, {"3": "/dev/accel0"})
    real_scandir = os.scandir

    def scandir(path: str | Path) -> object:
        if Path(path) == other / "fd":  # another user's process, seen without root
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(probe.os, "scandir", scandir)
    facts = probe_tpu(proc, dev, tmp_path / "libtpu_lockfile")
    assert [h["pid"] for h in facts["holders"]] == [10]
    assert (facts["processes"], facts["unreadable"], facts["complete"]) == (2, 1, True)


def test_garbage_entries_and_vanished_processes_are_skipped(tmp_path: Path) -> None:
    proc, dev = tmp_path / "proc", fake_dev(tmp_path / "dev", "accel0")
    gone = proc / "12"
    gone.mkdir(parents=True)  # exited between listing /proc and reading its fd folder
    odd = fake_process(proc, 13, {})
    (odd / "fd" / "5").write_text("not a link")
    (odd / "comm").write_bytes(b"\xff\xfe")
    fake_process(proc, 14, {"1": "/dev/accel0"}, comm="")
    facts = probe_tpu(proc, dev, tmp_path / "libtpu_lockfile")
    assert [(h["pid"], h["name"]) for h in facts["holders"]] == [(14, None)]
    assert facts["unreadable"] == 0


def test_the_scan_stops_at_its_bounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proc, dev = tmp_path / "proc", fake_dev(tmp_path / "dev", "accel0")
    fake_process(proc, 20, {str(n): "/dev/null" for n in range(10)} | {"99": "/dev/accel0"})
    monkeypatch.setattr(probe, "MAX_FDS", 3)
    assert probe_tpu(proc, dev, tmp_path / "lock")["complete"] is False
    monkeypatch.setattr(probe, "MAX_FDS", 4096)
    for pid in range(30, 40):
        fake_process(proc, pid, {})
    monkeypatch.setattr(probe, "MAX_PROCESSES", 4)
    facts = probe_tpu(proc, dev, tmp_path / "lock")
    assert (facts["processes"], facts["complete"]) == (4, False)
    monkeypatch.setattr(probe, "MAX_PROCESSES", 32768)
    assert probe_tpu(proc, dev, tmp_path / "lock", deadline_s=-1)["complete"] is False


def test_proc_locks_lines_that_do_not_parse_are_ignored() -> None:
    assert lock_pids("", 0, 1) == []
    assert lock_pids("1: POSIX ADVISORY WRITE x 00:00:1 0 EOF\n1: POSIX\n\n", 0, 1) == []
    assert lock_pids("1: POSIX ADVISORY WRITE 9 00:00:1 0 EOF\n", os.makedev(0, 0), 1) == [9]


def test_cgroup_cpu_max_garbage_is_no_limit(tmp_path: Path) -> None:
    (tmp_path / "cpu.max").write_text("lots 100000\n")
    assert cgroup_cpu_limit(tmp_path) is None
    (tmp_path / "cpu.max").write_text("400000 0\n")
    assert cgroup_cpu_limit(tmp_path) is None
    (tmp_path / "cpu.max").write_text("400000\n")
    assert cgroup_cpu_limit(tmp_path) is None
