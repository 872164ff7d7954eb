"""Area `tpu`: the one libtpu that torch_xla, JAX and TensorFlow share in an environment.

libtpu (PyPI `libtpu`; `libtpu-nightly` before it) is the TPU runtime each framework loads, and each framework
release pins the libtpu it was built and tested with: torch_xla and JAX in their `tpu` extra (torch_xla setup.py at
v2.9.0: 'tpu': [f'libtpu=={_libtpu_version}', 'tpu-info']; jax 0.7.1: `libtpu==0.0.20.*; extra == "tpu"`),
tensorflow-tpu in its base requirements (2.18.0: `libtpu ==2.18.0`). The pins are read from each installed
distribution's own Requires-Dist, never from a table. A libtpu other than the pinned one fails at TPU start-up or
when a Pallas/Mosaic kernel was serialized by a newer framework ("Failed to deserialize the Mosaic module: INTERNAL:
Unsupported version: expected <= 7 but got 8", pytorch/xla#9614). One environment holds one libtpu, so two
frameworks whose pins exclude each other cannot share it. The pins are judged here and nowhere else
(unsatisfied-requirements leaves torch_xla's libtpu requirement to this check).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import Any

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.platform import Platform, count_tpu_chips
from xladoctor.facts.prerequisites import Prerequisite
from xladoctor.facts.requirements import applicable_requirements, requirement_on, satisfies
from xladoctor.facts.stack import COMPONENTS
from xladoctor.facts.system import TpuFacts, TpuHolder
from xladoctor.findings import Alternative, Outcome, Status
from xladoctor.fix import Fix, install, shell, uninstall

check = area("tpu")

TORCH_XLA_SETUP = "https://github.com/pytorch/xla/blob/v2.9.0/setup.py"
JAX_INSTALL = "https://docs.jax.dev/en/latest/installation.html"
MOSAIC_SKEW = "https://github.com/pytorch/xla/issues/9614"
# Google's TPU CI installs tensorflow-tpu with this link page: its libtpu 2.1x builds are not on PyPI.
TF_TPU_INSTALL = (
    "https://github.com/GoogleCloudPlatform/ml-auto-solutions/blob/7eda193b6f4c5447ad1aaf14657bbd7ebbfb555d/"
    "dags/solutions_team/configs/tensorflow/common.py"
)
TF_TPU_LINKS = "https://storage.googleapis.com/libtpu-tf-releases/index.html"
# libtpu-nightly builds (pinned by torch_xla 2.5/2.6 and jax <= 0.4.38) live on this page, not on PyPI; torch_xla's
# setup.py (v2.9.0) names it in its install comment for the tpu extra.
NIGHTLY_LINKS = "https://storage.googleapis.com/jax-releases/libtpu_releases.html"

LIBTPU = COMPONENTS["libtpu"]  # ("libtpu", "libtpu-nightly")
# distribution key -> what to install to get the libtpu it pins
FRAMEWORKS = {"torch-xla": "torch_xla[tpu]", "jax": "jax[tpu]", "tensorflow-tpu": "tensorflow-tpu"}
LABELS = {"torch-xla": "torch_xla"}
VENV_NAMES = {"torch-xla": "torch_xla-tpu", "jax": "jax-tpu", "tensorflow-tpu": "tensorflow-tpu"}


def _spec(req: Requirement) -> str:
    """'libtpu==0.0.21', without the marker it was declared under."""
    return f"{req.name}{req.specifier}"


def _label(dist: Distribution) -> str:
    return f"{LABELS.get(dist.key, dist.name)} {dist.version}"


def libtpu_pins(dist: Distribution, python: PythonFacts | None) -> dict[str, Requirement]:
    """What `dist` requires of each libtpu distribution, its `tpu` extra included (its own Requires-Dist)."""
    return {
        str(canonicalize_name(r.name)): r
        for r in applicable_requirements(dist, python, ("tpu",))
        if str(canonicalize_name(r.name)) in LIBTPU
    }


def _pallas_companion(jax: Distribution, distributions: Distributions, python: PythonFacts) -> bool:
    """jax installed as torch_xla's `pallas` extra asks (torch_xla 2.9: jax==0.7.1 beside its own libtpu 0.0.21):
    torch_xla traces Pallas kernels with it and runs them on its own TPU client, so jax's libtpu pin is not used."""
    xla = distributions.installed("torch_xla")
    if xla is None or requirement_on(xla, "jax", python) is not None:
        return False
    req = requirement_on(xla, "jax", python, ("pallas",))
    return req is not None and satisfies(req, jax.version)


def _unmet(pins: dict[str, Requirement], distributions: Distributions) -> str | None:
    """How the installed libtpu misses these pins, or None when it meets them."""
    installed = {name: d for name in LIBTPU if (d := distributions.installed(name)) is not None}
    named = [name for name in pins if name in installed]
    if not named:
        have = ", ".join(f"{d.name} {d.version}" for d in installed.values())
        wanted = " and ".join(_spec(pins[n]) for n in pins)
        return f"pins {wanted}, which is not installed ({have} is)"
    for name in named:
        if not satisfies(pins[name], installed[name].version):
            return f"pins {_spec(pins[name])}, but {installed[name].name} {installed[name].version} is installed"
    return None


def _candidates(specs: list[SpecifierSet]) -> list[Version]:
    found = []
    for spec in specs:
        for s in spec:
            try:
                found.append(Version(s.version.removesuffix(".*")))
            except InvalidVersion:
                continue
    return found


def cannot_share(a: SpecifierSet, b: SpecifierSet) -> bool:
    """Whether no version can meet both, decided only where that is certain: an exact pin (`==X`) or only
    `==X.*` prefixes on both sides; ranges that merely miss each other's bounds are not judged."""
    specs = [a, b]
    every = [s for spec in specs for s in spec]
    exact = [s for s in every if s.operator in ("==", "===") and not s.version.endswith(".*")]
    if not exact and not all(s.operator == "==" for s in every):
        return False
    pool = _candidates(specs)
    return not any(a.contains(v, prereleases=True) and b.contains(v, prereleases=True) for v in pool)


def _conflicts(judged: list[tuple[Distribution, dict[str, Requirement]]]) -> list[tuple[int, int, str]]:
    """Pairs (by index) whose pins on one libtpu distribution exclude each other."""
    found = []
    for i, (_, first) in enumerate(judged):
        for j in range(i + 1, len(judged)):
            second = judged[j][1]
            for name in sorted(set(first) & set(second)):
                if cannot_share(first[name].specifier, second[name].specifier):
                    found.append((i, j, name))
                    break
    return found


def _reinstall_own(dist: Distribution, pins: dict[str, Requirement]) -> Fix:
    """The framework's own `[tpu]` extra at its installed version: pip then puts in the libtpu it pins."""
    if dist.key == "tensorflow-tpu":
        links: str | None = TF_TPU_LINKS
    else:
        links = NIGHTLY_LINKS if "libtpu-nightly" in pins else None
    return install((FRAMEWORKS[dist.key], f"=={dist.version}"), find_links=links)


def _frameworks(distributions: Distributions, python: PythonFacts | None) -> list[Distribution]:
    return [d for d in (distributions.installed(k) for k in FRAMEWORKS) if d is not None and libtpu_pins(d, python)]


LIBTPU_AND_A_PIN = Prerequisite(
    "libtpu-and-a-framework",
    lambda f: any(f.installed(n) for n in LIBTPU) and bool(_frameworks(Distributions(f.distributions), f.python)),
    "libtpu, or a framework that pins it (torch_xla, jax, tensorflow-tpu), is not installed",
    ("distributions", "python.marker_env"),
)


@check("libtpu-pins", "The libtpu each TPU framework pins", requires=(LIBTPU_AND_A_PIN,))
def libtpu_pins_check(
    python: PythonFacts, distributions: Distributions, platform: Platform, interpreter: str
) -> Iterator[Outcome]:
    """Installed libtpu against every installed framework's own pin; two pins that exclude each other, once."""
    tpu_host = platform.accelerator == "tpu"
    status = Status.FAIL if tpu_host else Status.WARN
    where = "" if tpu_host else " (this host shows no TPU, so it matters only where the environment runs on one)"
    installed = {d.name: d.version for d in (distributions.installed(n) for n in LIBTPU) if d is not None}
    judged: list[tuple[Distribution, dict[str, Requirement]]] = []
    companions = []
    for dist in _frameworks(distributions, python):
        pins = libtpu_pins(dist, python)
        if dist.key == "jax" and _pallas_companion(dist, distributions, python) and _unmet(pins, distributions):
            companions.append(_label(dist))
            continue
        judged.append((dist, pins))
    evidence: dict[str, Any] = {
        "libtpu": installed,
        "pins": {_label(d): [_spec(r) for r in p.values()] for d, p in judged},
        "tpu_host": tpu_host,
        "pallas_companions": companions,
    }
    conflicts = _conflicts(judged)
    in_conflict = {i for i, j, _ in conflicts} | {j for i, j, _ in conflicts}
    problems = 0
    for i, j, name in conflicts:
        problems += 1
        yield _conflict(distributions, interpreter, judged[i], judged[j], name, status, where, evidence)
    for index, (dist, pins) in enumerate(judged):
        why = _unmet(pins, distributions)
        if why is None or index in in_conflict:
            continue
        problems += 1
        via = "" if dist.key == "tensorflow-tpu" else " (its `tpu` extra)"
        yield Outcome(
            status,
            f"{_label(dist)} {why}{via}",
            detail=f"libtpu is the TPU runtime {LABELS.get(dist.key, dist.name)} loads; with another release than the "
            'one it pins, TPU start-up or a Pallas/Mosaic kernel can fail ("Failed to deserialize the Mosaic '
            f"module\"){where}. Installing the framework's own {FRAMEWORKS[dist.key]} at its installed version "
            "puts back the libtpu it pins.",
            evidence={**evidence, "framework": _label(dist)},
            fix=_reinstall_own(dist, pins),
            refs=_refs(dist),
        )
    if problems == 0:
        names = ", ".join(_label(d) for d, _ in judged)
        also = f"; {', '.join(companions)} is torch_xla's Pallas companion (not judged)" if companions else ""
        have = ", ".join(f"{n} {v}" for n, v in installed.items())
        yield Outcome(Status.OK, f"{have} meets the libtpu pin of {names}{also}", evidence=evidence)


def _refs(dist: Distribution) -> tuple[str, ...]:
    own = {"torch-xla": TORCH_XLA_SETUP, "jax": JAX_INSTALL, "tensorflow-tpu": TF_TPU_INSTALL}[dist.key]
    return (own, MOSAIC_SKEW)


def _conflict(
    distributions: Distributions,
    interpreter: str,
    first: tuple[Distribution, dict[str, Requirement]],
    second: tuple[Distribution, dict[str, Requirement]],
    name: str,
    status: Status,
    where: str,
    evidence: dict[str, Any],
) -> Outcome:
    """Two frameworks whose libtpu pins exclude each other: one finding, a separate environment for one of them."""
    # move out the one the installed libtpu does not serve (the second when neither is served)
    unmet_first, unmet_second = _unmet(first[1], distributions), _unmet(second[1], distributions)
    keep, move = (second, first) if unmet_first and not unmet_second else (first, second)
    (kept, kept_pins), (moved, _) = keep, move
    folder = f"~/venvs/{VENV_NAMES[moved.key]}"
    links = f" (with --find-links {TF_TPU_LINKS})" if moved.key == "tensorflow-tpu" else ""
    python = shlex.quote(interpreter)
    return Outcome(
        status,
        f"{_label(first[0])} and {_label(second[0])} cannot share one environment: they pin "
        f"{_spec(first[1][name])} and {_spec(second[1][name])}",
        detail=f"One environment holds one {name}, and no release meets both pins, so one framework always runs on "
        f"a libtpu it was not built with (TPU start-up or Pallas/Mosaic kernels fail){where}. Give "
        f"{LABELS.get(moved.key, moved.name)} its own virtual environment: the command makes one with this Python; "
        f"install `{FRAMEWORKS[moved.key]}=={moved.version}` there with that environment's own pip{links}, and run its "
        f"programs with {folder}/bin/python.",
        evidence={**evidence, "conflict": [_label(first[0]), _label(second[0])], "keep": _label(kept)},
        fix=shell(f"{python} -m venv {folder}  # a separate environment for {LABELS.get(moved.key, moved.name)}"),
        refs=tuple(dict.fromkeys((*_refs(first[0]), *_refs(second[0])))),
        alternatives=(
            Alternative(
                f"{LABELS.get(moved.key, moved.name)} is not needed in this environment (it now lives in its own)",
                uninstall(moved.name)
                + (_reinstall_own(kept, kept_pins) if _unmet(kept_pins, distributions) else Fix()),
            ),
        ),
    )


# openxla/xla xla/stream_executor/tpu/tpu_initialize_util.cc `TryAcquireTpuLock`: open(/tmp/libtpu_lockfile,
# O_CREAT | O_RDWR) then lockf(F_TLOCK) held for the process's life; a failed open is "The TPU is already in use by
# another process probably owned by another user ... run "$ sudo rm /tmp/libtpu_lockfile"", a held lock "The TPU is
# already in use by process with pid N". The file is unlinked at a normal exit only.
TPU_LOCK_SOURCE = (
    "https://github.com/openxla/xla/blob/0eb7f507c92a881c6666fbae286618cc65951686/"
    "xla/stream_executor/tpu/tpu_initialize_util.cc"
)
STALE_LOCK_ISSUE = "https://github.com/jax-ml/jax/issues/10192"
# Google's TPU CI removes it the same way before a run (CMD_REMOVE_LIBTPU_LOCKFILE).
TPU_CI_REMOVE = TF_TPU_INSTALL


def _who(holders: tuple[TpuHolder, ...], pids: list[int]) -> str:
    """'pid 1234 (python3, uid 1000)' for each pid, named from what the scan saw."""
    named = {h.pid: h for h in holders}
    parts = []
    for pid in pids:
        h = named.get(pid)
        about = ", ".join(
            x for x in ((h.name if h else None), (f"uid {h.uid}" if h and h.uid is not None else None)) if x
        )
        parts.append(f"pid {pid}" + (f" ({about})" if about else ""))
    return ", ".join(parts)


@check("tpu-lock", "Who holds the TPU: libtpu's lock file and open TPU devices")
def tpu_lock(tpu: TpuFacts, devices: tuple[str, ...]) -> Iterator[Outcome]:
    """One process owns the TPU; a lock file left by a crash blocks only a user who cannot open it."""
    chips = count_tpu_chips(devices)
    tpu_host = chips > 0
    own = tpu.pid
    pids = sorted({h.pid for h in tpu.holders if h.pid != own} | {p for p in tpu.lock_pids if p != own})
    evidence: dict[str, Any] = {
        "lockfile": tpu.lockfile,
        "lock_uid": tpu.lock_uid,
        "lock_writable": tpu.lock_writable,
        "lock_pids": list(tpu.lock_pids),
        "holders": [{"pid": h.pid, "path": h.path, "name": h.name, "uid": h.uid} for h in tpu.holders],
        "processes_scanned": tpu.processes,
        "processes_unreadable": tpu.unreadable,
        "scan_complete": tpu.complete,
        "tpu_chips": chips,
    }
    if pids:
        who = _who(tpu.holders, pids)
        listing = ",".join(str(p) for p in pids)
        yield Outcome(
            Status.FAIL if tpu_host else Status.WARN,
            f"The TPU is already in use by {who}: a new TPU program here fails until it exits",
            detail="libtpu lets one process own the TPU (a lock on /tmp/libtpu_lockfile held for the process's "
            f"life); the next one stops with 'The TPU is already in use by process with pid {pids[0]}' (newer "
            "runtimes: 'open(/dev/vfio/0): Device or resource busy'). Look at what it is first: stop it only if it "
            "is a leftover (a crashed notebook kernel, a job that hangs after it finished).",
            evidence=evidence,
            fix=shell(f"ps -o pid,user,etime,args -p {listing}  # what holds the TPU"),
            refs=(TPU_LOCK_SOURCE,),
            alternatives=(
                Alternative(
                    f"{'these processes are' if len(pids) > 1 else 'the process is'} a leftover of an earlier run",
                    shell(f"kill {' '.join(str(p) for p in pids)}"),
                ),
            ),
        )
        return
    if tpu.lockfile is None:
        seen = f" among the {tpu.processes} processes this user may inspect" if tpu.processes else ""
        title = (
            f"No process holds the TPU{seen}, and libtpu's lock file is absent"
            if tpu_host
            else ("No TPU here and no libtpu lock file")
        )
        yield Outcome(Status.OK, title, evidence=evidence)
        return
    if tpu.lock_writable is not False:
        yield Outcome(
            Status.OK,
            f"{tpu.lockfile} is left from an earlier run, but no process holds it and this user can open it: "
            "libtpu takes it over",
            evidence=evidence,
        )
        return
    # Another user's file that this user cannot open: libtpu stops before it looks at the lock.
    certain = tpu.locks_read  # /proc/locks names every lock holder, whoever owns it
    owner = f"uid {tpu.lock_uid}" if tpu.lock_uid is not None else "another user"
    remove = shell(f"sudo rm -f {shlex.quote(tpu.lockfile)}  # owned by {owner}; no process holds it")
    look = shell(f"sudo lsof -w {shlex.quote(tpu.lockfile)} /dev/accel* /dev/vfio/*  # who has it open, if anyone")
    yield Outcome(
        Status.FAIL if tpu_host else Status.WARN,
        f"A stale {tpu.lockfile} owned by {owner} blocks libtpu for this user",
        detail="No process holds it (no lock on it in /proc/locks, no TPU device open), but libtpu opens the file "
        "for writing before it takes the TPU and cannot open another user's: it stops with 'The TPU is already in "
        "use by another process probably owned by another user'. A run as root (sudo python ...) that crashed "
        "leaves it. Remove it"
        + ("." if certain else " once `lsof` shows no process on it (this user could not read every process's locks)."),
        evidence=evidence,
        fix=remove if certain else look,
        refs=(TPU_LOCK_SOURCE, STALE_LOCK_ISSUE, TPU_CI_REMOVE),
        alternatives=() if certain else (Alternative("lsof shows no process on it", remove),),
    )
