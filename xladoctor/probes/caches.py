"""Where the compilers keep their caches, and whether each place can be used: resolved the way each framework
resolves it, from the environment the diagnosed programs start with, without importing any of them.

- TorchInductor (torch/_inductor/runtime/cache_dir_utils.py): TORCHINDUCTOR_CACHE_DIR, else
  <tempfile.gettempdir()>/torchinductor_<getpass.getuser()>. getpass.getuser() reads LOGNAME, USER, LNAME and
  USERNAME, then the passwd entry of the UID, and raises (KeyError; OSError from Python 3.13) when a container
  runs as a UID with no entry; torch 2.13 falls back to "uid_<uid>" (pytorch/pytorch#184208).
- Triton (triton/knobs.py cache_knobs): TRITON_CACHE_DIR, else <TRITON_HOME or ~>/.triton/cache. With HOME
  unset and no passwd entry, os.path.expanduser("~/") stays "~/": a folder named "~" under the working directory.
- JAX's persistent compilation cache: JAX_COMPILATION_CACHE_DIR (off unless set).
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xladoctor.facts.system import is_network

DIR_TIMEOUT_S = 5.0
_USER_VARIABLES = ("LOGNAME", "USER", "LNAME", "USERNAME")  # getpass.getuser(), in its order


def _writable_dir(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def temp_dir(env: Mapping[str, str], cwd: str) -> str:
    """tempfile.gettempdir() for `env`: TMPDIR, TEMP, TMP, then /tmp, /var/tmp, /usr/tmp, the working directory;
    the first that is a writable folder (tempfile proves it by creating a file; write access is what that needs)."""
    candidates = [env[v] for v in ("TMPDIR", "TEMP", "TMP") if env.get(v)]
    candidates += ["/tmp", "/var/tmp", "/usr/tmp", cwd]
    return next((os.path.abspath(c) for c in candidates if _writable_dir(c)), os.path.abspath(cwd))


def _passwd_name(uid: int) -> str | None:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return None


def _home(env: Mapping[str, str], passwd_home: str | None) -> str | None:
    """os.path.expanduser("~") on POSIX: HOME, else the passwd entry's home; None when neither exists."""
    return env.get("HOME") or passwd_home


def _passwd_home(uid: int) -> str | None:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_dir
    except (ImportError, KeyError):
        return None


def _nearest_existing(path: str) -> str:
    current = os.path.abspath(path)
    while not os.path.exists(current) and os.path.dirname(current) != current:
        current = os.path.dirname(current)
    return current


Mount = tuple[str, str, bool, bool]  # mount point, filesystem type, read-only, noexec


def mounts(mountinfo: Path = Path("/proc/self/mountinfo")) -> list[Mount]:
    """(mount point, filesystem type, read-only, noexec) of every mount, longest mount point first."""
    found = []
    try:
        lines = mountinfo.read_text(errors="replace").splitlines()
    except OSError:
        return []
    for line in lines[:10000]:  # a pathological mount table stays bounded
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 6 or not tail:
            continue
        point = re.sub(r"\\(\d{3})", lambda m: chr(int(m.group(1), 8)), fields[4])  # "\040" is a space
        options = fields[5].split(",")
        found.append((point, tail[0], "ro" in options, "noexec" in options))
    return sorted(found, key=lambda m: len(m[0]), reverse=True)


def _mount_of(path: str, table: list[Mount]) -> tuple[str | None, bool, bool]:
    for point, fstype, read_only, noexec in table:
        if path == point or path.startswith(point.rstrip("/") + "/"):
            return fstype, read_only, noexec
    return None, False, False


def _free_inodes(path: str) -> int | None:
    try:
        stat = os.statvfs(path)
    except OSError:
        return None
    return stat.f_favail if stat.f_files else None  # filesystems without inode accounting report 0 files


def _can_create_in(folder: str) -> bool:
    """Create and remove an empty folder: os.access() says yes to root even on /proc and read-only mounts."""
    try:
        made = tempfile.mkdtemp(prefix=".xladoctor-probe-", dir=folder)
    except OSError:
        return False
    try:
        os.rmdir(made)
    except OSError:
        pass
    return True


def _look(path: str, table: list[Mount]) -> dict[str, Any]:
    existing = _nearest_existing(path)
    fstype, read_only, noexec = _mount_of(os.path.realpath(existing), table)
    return {
        "exists": os.path.isdir(path),
        "not_a_folder": os.path.exists(path) and not os.path.isdir(path),
        "existing_parent": existing,
        "writable": os.path.isdir(existing) and _can_create_in(existing),
        "fs_type": fstype,
        "read_only": read_only,
        "noexec": noexec,
        "free_inodes": _free_inodes(existing),
    }


def describe_dir(
    owner: str,
    variable: str,
    path: str,
    source: str,
    table: list[Mount],
    timeout_s: float = DIR_TIMEOUT_S,
) -> dict[str, Any]:
    """What a cache folder looks like to this UID: there or creatable, writable, on which kind of filesystem.

    Every look at the filesystem runs in a daemon thread with a bound: a hung network mount (NFS with a dead
    server) blocks stat() in the kernel, and is itself the answer."""
    found: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: found.update(_look(path, table)), daemon=True)
    worker.start()
    worker.join(timeout_s)
    facts: dict[str, Any] = {"owner": owner, "variable": variable, "path": path, "source": source}
    if worker.is_alive() or not found:
        return {**facts, "unresponsive": True}
    return {**facts, **found}


def _base_candidates(env: Mapping[str, str], cwd: str, home: str | None) -> list[str]:
    """Where a cache that cannot stay can go: the temp folder, ~/.cache, /var/tmp."""
    return [temp_dir(env, cwd), *([os.path.join(home, ".cache")] if home else []), "/var/tmp"]


def _usable_base(folder: str, table: list[Mount]) -> bool:
    """Local, writable, and allowed to hold loadable kernels."""
    fstype, read_only, noexec = _mount_of(os.path.realpath(folder), table)
    return not (read_only or noexec or is_network(fstype)) and os.path.isdir(folder) and _can_create_in(folder)


def probe_cache_dirs(
    env: Mapping[str, str], mountinfo: Path = Path("/proc/self/mountinfo"), cwd: str | None = None
) -> dict[str, Any]:
    """The identity the caches are named after and every compile cache folder, judged for this UID."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    passwd = _passwd_name(uid) if uid is not None else None
    user_variable = next((v for v in _USER_VARIABLES if env.get(v)), None)
    home = _home(env, _passwd_home(uid) if uid is not None else None)
    here = cwd or os.getcwd()
    table = mounts(mountinfo)
    dirs = []
    user = env[user_variable] if user_variable else passwd or f"uid_{uid}"
    inductor = env.get("TORCHINDUCTOR_CACHE_DIR")
    default_inductor = os.path.join(temp_dir(env, here), "torchinductor_" + re.sub(r'[\\/:*?"<>|]', "_", user))
    dirs.append(
        describe_dir(
            "inductor", "TORCHINDUCTOR_CACHE_DIR", inductor or default_inductor, "env" if inductor else "default", table
        )
    )
    triton = env.get("TRITON_CACHE_DIR")
    triton_home = env.get("TRITON_HOME") or (home if home else os.path.join(here, "~"))
    default_triton = os.path.join(triton_home, ".triton", "cache")
    dirs.append(
        describe_dir("triton", "TRITON_CACHE_DIR", triton or default_triton, "env" if triton else "default", table)
    )
    if env.get("JAX_COMPILATION_CACHE_DIR"):
        dirs.append(describe_dir("jax", "JAX_COMPILATION_CACHE_DIR", env["JAX_COMPILATION_CACHE_DIR"], "env", table))
    local_base = next((b for b in _base_candidates(env, here, home) if _usable_base(b, table)), None)
    return {
        "uid": uid,
        "user": re.sub(r'[\\/:*?"<>|]', "_", user),
        "local_base": local_base,
        "passwd_entry": passwd is not None if uid is not None else None,
        "user_variable": user_variable,
        "home_set": bool(env.get("HOME")),
        "home": home,
        "home_writable": _writable_dir(home) if home else False,
        "dirs": dirs,
    }
