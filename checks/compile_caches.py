"""Area `compile`: the folders torch.compile, Triton and JAX cache compiled kernels in can really be used.

Where each cache lives and why it can fail is in xladoctor/probes/caches.py. The failures users hit:
- a read-only or unwritable folder (a container with a read-only root, Apptainer's read-only HOME, a UID that
  does not own /tmp/torchinductor_<user> created by another user): the first compile raises PermissionError;
- a UID with no passwd entry and no USER/LOGNAME (docker run --user, OpenShift's random UIDs): torch before
  2.13 computes the Inductor cache name with getpass.getuser(), which raises KeyError "getpwuid(): uid not
  found" (pytorch/pytorch#140765, fixed for 2.13 by #184208); torch._inductor.codecache calls that at import in
  some releases, so only USER (read first by getpass) reliably avoids it;
- a network filesystem (NFS, Lustre, GPFS) shared by several nodes: concurrent compiles fail with "Stale file
  handle" or "Device or resource busy" on the cache's renames (pytorch/pytorch#173679; DeepSpeed warns about a
  Triton cache on NFS since deepspeedai/DeepSpeed#5323);
- no free inodes: every kernel is several small files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from packaging.version import InvalidVersion, Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, Distributions
from xladoctor.facts.prerequisites import Prerequisite
from xladoctor.facts.stack import COMPONENTS
from xladoctor.facts.system import CacheDir, CompileCacheFacts, is_network
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import Fix, export, shell

check = area("compile")

INDUCTOR_CACHE_DIR = "https://github.com/pytorch/pytorch/blob/v2.9.0/torch/_inductor/runtime/cache_dir_utils.py"
GETUSER_ISSUE = "https://github.com/pytorch/pytorch/issues/140765"
GETUSER_FIX = "https://github.com/pytorch/pytorch/pull/184208"
TRITON_KNOBS = "https://github.com/triton-lang/triton/blob/main/python/triton/knobs.py"
NFS_STALE = "https://github.com/pytorch/pytorch/issues/173679"
DEEPSPEED_NFS = "https://github.com/deepspeedai/DeepSpeed/pull/5323"
TRITON_HOME_FIX = "https://github.com/triton-lang/triton/pull/1364"
TRITON_CACHE_PY = "https://github.com/triton-lang/triton/blob/v3.1.0/python/triton/runtime/cache.py"
NOEXEC = "https://github.com/pytorch/pytorch/issues/91005"
GETPASS = "https://docs.python.org/3/library/getpass.html#getpass.getuser"
FIRST_TORCH_WITHOUT_GETUSER_FAILURE = Version("2.13")
MIN_FREE_INODES = 1000

_COMPILERS = Prerequisite(
    "installed:a-compiler-with-a-cache",
    lambda f: any(f.installed(n) is not None for n in ("torch", "jax", *COMPONENTS["triton"])),
    "none of torch, Triton or JAX is installed",
    ("distributions",),
)
_USED_BY = {"inductor": "torch.compile (TorchInductor)", "triton": "Triton", "jax": "JAX's persistent cache"}


def _relevant(distributions: Distributions, torch: Distribution | None, caches: CompileCacheFacts) -> list[CacheDir]:
    """The caches of what is installed: Inductor's with torch, Triton's with Triton, JAX's when it is set."""
    has_triton = any(distributions.installed(n) is not None for n in COMPONENTS["triton"])
    wanted = {"inductor": torch is not None, "triton": has_triton, "jax": True}
    return [d for d in caches.dirs if wanted.get(d.owner, False)]


def _move(folder: CacheDir, caches: CompileCacheFacts) -> Fix:
    """Point the variable at a local folder that works, or say how to find one."""
    if caches.local_base:
        return export(folder.variable, f"{caches.local_base.rstrip('/')}/{folder.owner}-cache-{caches.user}")
    return shell(
        f"df -hT /tmp /var/tmp  # find a local (not nfs/lustre), writable folder, then: export {folder.variable}="
        f"<that folder>/{folder.owner}-cache"
    )


def _problem(folder: CacheDir) -> tuple[Status, str] | None:
    where = f"{folder.path} ({folder.variable}" + (")" if folder.source == "env" else ", the default)")
    if folder.unresponsive:
        return Status.FAIL, f"{where} did not answer within the probe's bound: a hung network mount?"
    if folder.not_a_folder:
        return Status.FAIL, f"{where} is a file, not a folder"
    if folder.read_only:
        return Status.FAIL, f"{where} is on a read-only filesystem"
    if folder.noexec and folder.owner != "jax":
        return Status.FAIL, f"{where} is on a filesystem mounted noexec"
    if not folder.writable:
        verb = "written" if folder.exists else f"created (in {folder.existing_parent})"
        return Status.FAIL, f"{where} cannot be {verb} by this user"
    if folder.free_inodes is not None and folder.free_inodes < MIN_FREE_INODES:
        return Status.FAIL, f"{where} is on a filesystem with {folder.free_inodes} free inodes"
    if is_network(folder.fs_type) and folder.owner != "jax":  # JAX documents a shared persistent cache as intended
        return Status.WARN, f"{where} is on a network filesystem ({folder.fs_type})"
    return None


def _consequence(status: Status, folder: CacheDir) -> str:
    if status is Status.WARN:
        return (
            "on a filesystem shared between nodes, concurrent compiles fail with 'Stale file handle' or 'Device or "
            "resource busy' when they rename cache files. A local folder avoids it."
        )
    if folder.noexec:
        return (
            "compiled kernels are shared objects loaded from it, which a noexec mount refuses ('failed to map "
            "segment from shared object')."
        )
    return "the first compile fails (PermissionError, OSError) or every run recompiles."


def _getuser_fails(torch: Distribution | None, caches: CompileCacheFacts) -> bool:
    if torch is None or caches.user_variable or caches.passwd_entry is not False:
        return False
    try:
        return Version(torch.version).release[:2] < FIRST_TORCH_WITHOUT_GETUSER_FAILURE.release
    except InvalidVersion:
        return True


def _triton_without_home(
    distributions: Distributions, env: Mapping[str, str], caches: CompileCacheFacts, folders: list[CacheDir]
) -> Outcome | None:
    """Triton's default cache hangs off the home folder; without HOME (and, but for triton <= 2.0, without a passwd
    home) each release fails differently: triton <= 2.0 KeyError: 'HOME'; 2.1-3.3 Path.home() raises "Could not
    determine home directory."; 3.4+ (TRITON_HOME, os.path.expanduser) quietly uses a folder named '~' under the
    working directory."""
    triton = next((d for d in folders if d.owner == "triton" and d.source == "default"), None)
    dist = next((d for d in (distributions.installed(n) for n in COMPONENTS["triton"]) if d is not None), None)
    if triton is None or dist is None or caches.home_set or env.get("TRITON_HOME"):
        return None
    release = _release(dist.version)
    evidence = {"triton": dist.version, "home_set": False, "passwd_home": caches.home, "uid": caches.uid}
    if release is not None and release <= (2, 0):
        title = f"HOME is unset: triton {dist.version} fails at its first compile with KeyError: 'HOME'"
        return Outcome(Status.FAIL, title, evidence=evidence, fix=_move(triton, caches), refs=(TRITON_HOME_FIX,))
    if caches.home is not None:
        return None  # the passwd entry's home folder stands in for HOME
    if release is not None and release < (3, 4):
        title = (
            f"HOME is unset and UID {caches.uid} has no home folder: triton {dist.version} fails at its first "
            "compile with RuntimeError: Could not determine home directory."
        )
        return Outcome(Status.FAIL, title, evidence=evidence, fix=_move(triton, caches), refs=(TRITON_CACHE_PY,))
    return Outcome(
        Status.WARN,
        f"HOME is unset and UID {caches.uid} has no home folder: Triton caches in a folder named '~' under the "
        "working directory",
        detail="triton/knobs.py takes TRITON_HOME or os.path.expanduser('~/'), which stays '~/' without HOME or a "
        "passwd entry; each working directory gets its own cache, so kernels are recompiled.",
        evidence=evidence,
        fix=_move(triton, caches),
        refs=(TRITON_KNOBS,),
    )


def _release(version: str) -> tuple[int, ...] | None:
    try:
        return Version(version).release[:2]
    except InvalidVersion:
        return None


@check("compile-cache-dirs", "Folders the compilers cache kernels in", requires=(_COMPILERS,), env=("TRITON_HOME",))
def compile_cache_dirs(
    compile_caches: CompileCacheFacts | None,
    distributions: Distributions,
    torch: Distribution | None,
    env: Mapping[str, str],
) -> Iterator[Outcome]:
    """Each compile cache folder in use can be created and written, on a local filesystem with inodes to spare;
    the user the Inductor cache is named after exists."""
    # skipped here rather than by the input's prerequisite: the skip has always carried no evidence
    caches = compile_caches
    if caches is None:
        raise Skip("the compile cache folders were not probed (a snapshot from an older xladoctor)")
    folders = _relevant(distributions, torch, caches)
    evidence = {
        "uid": caches.uid,
        "passwd_entry": caches.passwd_entry,
        "user_variable": caches.user_variable,
        "home_set": caches.home_set,
        "folders": {d.owner: {"path": d.path, "source": d.source, "fs_type": d.fs_type} for d in folders},
    }
    problems = 0
    if _getuser_fails(torch, caches):
        problems += 1
        assert torch is not None  # _getuser_fails says so
        yield Outcome(
            Status.FAIL,
            f"torch.compile fails for UID {caches.uid}: it has no passwd entry and USER is unset, so torch "
            f"{torch.version} cannot name its Inductor cache",
            detail="getpass.getuser() raises KeyError: 'getpwuid(): uid not found' (OSError on Python 3.13) inside "
            "torch._inductor; containers run with --user or OpenShift's random UIDs hit it. torch 2.13 falls back "
            "to uid_<uid>. getpass reads USER before the passwd database, so setting it is enough.",
            evidence=evidence,
            fix=export("USER", f"uid_{caches.uid}"),
            refs=(GETUSER_ISSUE, GETUSER_FIX, GETPASS),
        )
    for folder in folders:
        found = _problem(folder)
        if found is None:
            continue
        status, title = found
        problems += 1
        user = _USED_BY.get(folder.owner, folder.owner)
        detail = f"{user} writes every compiled kernel here; " + _consequence(status, folder)
        yield Outcome(
            status,
            title,
            detail=detail,
            evidence={**evidence, "folder": folder.__dict__},
            fix=_move(folder, caches),
            refs=(INDUCTOR_CACHE_DIR, TRITON_KNOBS)
            + ((NFS_STALE, DEEPSPEED_NFS) if status is Status.WARN else ())
            + ((NOEXEC,) if folder.noexec else ()),
        )
    triton_home = _triton_without_home(distributions, env, caches, folders)
    if triton_home is not None:
        problems += 1
        yield triton_home
    if problems == 0:
        listed = ", ".join(f"{d.owner} {d.path}" for d in folders)
        title = f"Compile caches can be written: {listed}" if folders else "No compile cache folder is in use"
        yield Outcome(Status.OK, title, evidence=evidence)
