"""The compile cache probe: folders resolved as each framework resolves them, judged by really creating a folder,
on the filesystem /proc/self/mountinfo names, within a time bound."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from xladoctor.probes import caches
from xladoctor.probes.caches import describe_dir, mounts, probe_cache_dirs, temp_dir

MOUNTINFO = """\
22 1 0:21 / / rw,relatime shared:1 - overlay overlay rw,lowerdir=/x
35 22 0:33 / /home rw,relatime shared:5 - nfs4 fs1:/export/home rw,vers=4.2
36 35 0:34 / /home/ada/My\\040Data ro,relatime shared:6 - ext4 /dev/sdb1 ro
37 22 0:35 / /proc rw,nosuid - proc proc rw
38 22 0:36 / /tmp rw,nosuid,nodev,noexec - tmpfs tmpfs rw
garbage line without a separator
"""


def test_mountinfo_is_read_longest_mount_first_with_escapes_and_read_only_flags(tmp_path: Path) -> None:
    table = tmp_path / "mountinfo"
    table.write_text(MOUNTINFO)
    found = mounts(table)
    assert found[0] == ("/home/ada/My Data", "ext4", True, False)
    assert ("/home", "nfs4", False, False) in found and ("/", "overlay", False, False) in found
    assert ("/tmp", "tmpfs", False, True) in found
    assert mounts(tmp_path / "missing") == []


def test_a_folder_under_an_nfs_mount_is_on_nfs(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    table = [(str(tmp_path), "nfs4", False, False), ("/", "ext4", False, False)]
    found = describe_dir("triton", "TRITON_CACHE_DIR", str(folder), "env", table)
    assert (found["fs_type"], found["exists"], found["existing_parent"]) == ("nfs4", False, str(tmp_path))
    assert found["writable"] is True


def test_proc_is_not_writable_even_for_root() -> None:
    """os.access() says yes to root on /proc; creating a folder there fails, and that is what the probe tries."""
    found = describe_dir("triton", "TRITON_CACHE_DIR", "/proc/xladoctor-cache", "env", mounts())
    assert found["writable"] is False and found["existing_parent"] == "/proc"


def test_a_file_where_the_folder_should_be(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("")
    found = describe_dir("inductor", "TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "cache"), "env", [])
    assert found["not_a_folder"] is True and found["exists"] is False


def test_a_folder_that_hangs_is_reported_within_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caches, "_look", lambda path, table: time.sleep(30) or {})
    started = time.monotonic()
    found = describe_dir("triton", "TRITON_CACHE_DIR", "/mnt/dead-nfs/cache", "env", [], timeout_s=0.5)
    assert found["unresponsive"] is True and time.monotonic() - started < 5


def test_temp_dir_follows_tmpdir_and_skips_what_cannot_be_written(tmp_path: Path) -> None:
    assert temp_dir({"TMPDIR": str(tmp_path)}, "/") == str(tmp_path)
    assert temp_dir({"TMPDIR": str(tmp_path / "missing")}, "/") == "/tmp"


def test_the_folders_follow_the_variables(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "TMPDIR": str(tmp_path), "USER": "ada", "JAX_COMPILATION_CACHE_DIR": "/proc/j"}
    found = probe_cache_dirs(env, cwd=str(tmp_path))
    folders = {d["owner"]: d for d in found["dirs"]}
    assert folders["inductor"]["path"] == f"{tmp_path}/torchinductor_ada"
    assert folders["triton"]["path"] == f"{tmp_path}/.triton/cache"
    assert folders["jax"]["writable"] is False
    assert (found["user"], found["user_variable"], found["local_base"]) == ("ada", "USER", str(tmp_path))
    moved = probe_cache_dirs({**env, "TRITON_HOME": "/opt/t", "TORCHINDUCTOR_CACHE_DIR": "/x"}, cwd=str(tmp_path))
    folders = {d["owner"]: d for d in moved["dirs"]}
    assert (folders["triton"]["path"], folders["inductor"]["source"]) == ("/opt/t/.triton/cache", "env")
    assert os.path.isdir(tmp_path) and not list(tmp_path.glob(".xladoctor-probe-*"))  # the probe cleans up
