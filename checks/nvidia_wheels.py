"""Area `libraries`: NVIDIA's CUDA library wheels (nvidia-*) that the frameworks share in one environment.

Every nvidia-nccl-cuXX wheel installs the same file, nvidia/nccl/lib/libnccl.so.2 (their RECORDs; research r2 2.2),
and an environment holds one version of each distribution, so two frameworks whose pins on one library no version
satisfies cannot both get theirs. Judged from metadata only (xladoctor/facts/nvidia_wheels.py).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from typing import Any

from packaging.requirements import Requirement

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.nvidia_wheels import NCCL, Conflict, Need, Wheels, bounds_first, cuda_family
from xladoctor.findings import Outcome, Status
from xladoctor.fix import Fix, install, reinstall_exactly, shell, uninstall

check = area("libraries")

TORCH_NCCL_ISSUE = "https://github.com/pytorch/pytorch/issues/186591"  # cu12 + cu13 NCCL: "Uninstall the ... cu12"
RETURNN_NCCL_ISSUE = "https://github.com/rwth-i6/returnn/issues/1802"  # cu11 + cu12 NCCL: undefined symbol ncclMemFree
JAX_CUDNN_ISSUE = "https://github.com/jax-ml/jax/issues/29315"  # torch's cuDNN 9.5.1 under jax built with 9.8.0
TORCH_JAX_RESOLVER = "https://github.com/rdyro/torch2jax/issues/29"  # `jax[cuda]==0.6.0 torch`: no solution
# Which framework stays when two cannot share: torch first (its pins are base requirements, which the
# unsatisfied-requirements check keeps), then TensorFlow, then JAX.
_KEEP_ORDER = ("torch", "tensorflow", "jax")


def _nccl_family(dist: Distribution) -> int:
    match = NCCL.match(dist.key)
    return int(match.group(1)) if match else 0


def _root(wheels: Wheels, need: Need) -> tuple[Distribution, str]:
    """The distribution a user installed to get this requirement (jax for jax-cuda12-plugin), and what to ask for."""
    root, extra = wheels.root_of(need.requirer, need.extra)
    if root.key == need.requirer.key:
        extra = need.extra  # tensorflow[and-cuda]: the extra that brought these pins
    name = f"{root.name}[{extra}]" if extra else root.name
    return root, f"{name}=={root.version}"


def _rank(wheels: Wheels, need: Need) -> int:
    key = _root(wheels, need)[0].key
    return _KEEP_ORDER.index(key) if key in _KEEP_ORDER else len(_KEEP_ORDER)


def _venv_step(interpreter: str, python: PythonFacts, root: Distribution, wanted: str, stays: str) -> Fix:
    """A separate environment for `root`: the remedy that breaks neither framework (it creates, installs nothing)."""
    prefix = python.prefix.rstrip("/")
    sibling = python.env_kind in ("venv", "conda") and prefix not in ("", "/usr")
    path = (
        os.path.join(os.path.dirname(prefix), f"{os.path.basename(prefix)}-{root.key}")
        if sibling
        else (f"/opt/venv-{root.key}")
    )
    return shell(
        f"{shlex.quote(interpreter)} -m venv {shlex.quote(path)}  # a separate environment for {root.name} "
        f"(any folder you can write): install {wanted} there with its own python; {stays} stays here"
    )


def _exact(req: Requirement) -> str | None:
    """The specifier when it pins one version (==V), else None."""
    specs = list(req.specifier)
    single = len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version
    return str(req.specifier) if single else None


@check("nccl-wheels", "One NCCL wheel (nvidia-nccl-cu*) in the environment")
def nccl_wheels(python: PythonFacts, distributions: Distributions, interpreter: str) -> Iterator[Outcome]:
    """Two NCCL wheels overwrite one libnccl.so.2: the last installed wins, and uninstalling either deletes it."""
    index = Wheels(distributions, python)
    wheels = [d for k, d in sorted(index.by_key.items()) if k.startswith("nvidia-")]
    nccl = [d for d in wheels if NCCL.match(d.key)]
    evidence: dict[str, Any] = {"nccl_wheels": {d.name: d.version for d in nccl}}
    if len(nccl) < 2:
        yield _one_nccl(index, nccl, wheels, evidence)
        return
    needs = [n for n in index.needs() if NCCL.match(n.library)]
    torch_pin = next((n for n in needs if n.requirer.key == "torch"), None)
    required = [d for d in nccl if any(n.library == d.key for n in needs)]
    keep_key = torch_pin.library if torch_pin else max(required or nccl, key=_nccl_family).key
    keep = next(d for d in nccl if d.key == keep_key)
    others = [d for d in nccl if d.key != keep.key]
    stranded = [n for n in needs if n.library != keep.key]  # requirements on a wheel that goes
    evidence.update(
        keep=keep.name,
        required_by={d.name: [n.label for n in needs if n.library == d.key] for d in nccl},
        same_files=sorted(set(keep.shared_libs).intersection(*(d.shared_libs for d in others))),
    )
    fix = Fix()
    for key in dict.fromkeys(_root(index, n)[0].key for n in stranded):
        need = next(n for n in stranded if _root(index, n)[0].key == key)
        fix += _venv_step(interpreter, python, *_root(index, need), keep.name)
    pin = _exact(torch_pin.requirement) if torch_pin else None
    fix += uninstall(*(d.name for d in others)) + reinstall_exactly((keep.name, pin or f"=={keep.version}"))
    why = f"{torch_pin.label} pins {keep.name}{torch_pin.requirement.specifier}" if torch_pin else f"{keep.name} stays"
    moved = "; ".join(f"{n.label} requires {n.requirement.name}{n.requirement.specifier}" for n in stranded)
    yield Outcome(
        Status.FAIL,
        " and ".join(f"{d.name} {d.version}" for d in nccl) + " are both installed: they write the same libnccl.so.2",
        detail="Every nvidia-nccl-cuXX wheel installs nvidia/nccl/lib/libnccl.so.2, so the one installed last "
        "replaced the other's file, and uninstalling either deletes it for both. A framework that loads the other "
        "build fails at import with 'undefined symbol: nccl...' (ncclCommResume, ncclMemFree) or 'libnccl.so.2: "
        f"cannot open shared object file'. Remove the ones nothing needs, then reinstall the one that stays ({why})."
        + (f" {moved}: that one gets its own environment." if moved else ""),
        evidence=evidence,
        fix=fix,
        refs=(TORCH_NCCL_ISSUE, RETURNN_NCCL_ISSUE),
    )


def _one_nccl(index: Wheels, nccl: list[Distribution], wheels: list[Distribution], evidence: dict[str, Any]) -> Outcome:
    """At most one NCCL. CUDA libraries of another family beside torch's are said honestly: disk, not a crash
    (cu12 libraries live in nvidia/<lib>/lib, CUDA 13's in nvidia/cu13/lib, with other sonames; research r2 2.4)."""
    title = f"One NCCL wheel is installed: {nccl[0].name} {nccl[0].version}" if nccl else "No NCCL wheel is installed"
    families = index.torch_families()
    if len(families) != 1:
        return Outcome(Status.OK, title, evidence=evidence)
    [family] = families
    foreign = [d for d in wheels if cuda_family(d.key) not in (None, family)]
    if not foreign:
        return Outcome(Status.OK, title, evidence=evidence)
    users = index.required_by([d.key for d in foreign])
    unused = [d.name for d in foreign if not users.get(d.key)]
    evidence.update(torch_cuda_family=family, other_family={d.name: users.get(d.key, []) for d in foreign})
    title += (
        f"; {len(foreign)} library wheel(s) of another CUDA family sit beside torch's CUDA {family} ones, in other "
        "folders with other sonames, so they replace none of torch's libraries"
        + (
            " (nothing installed requires them: they only take disk space)"
            if len(unused) == len(foreign)
            else f" ({len(unused)} that nothing installed requires only take disk space)"
            if unused
            else ""
        )
    )
    return Outcome(Status.OK, title, evidence=evidence)


@check("shared-cuda-libraries", "nvidia-* libraries that two packages pin apart")
def shared_cuda_libraries(python: PythonFacts, distributions: Distributions, interpreter: str) -> Iterator[Outcome]:
    """torch 2.7 pins nvidia-cudnn-cu12==9.5.1.17, jax 0.6's CUDA plugin wants >=9.8,<10: one environment holds one."""
    index = Wheels(distributions, python)
    needs = index.needs()
    found = index.conflicts(needs)
    if not found:
        libraries = sorted({n.library for n in needs})
        yield Outcome(
            Status.OK,
            f"The {len(libraries)} nvidia-* libraries the installed packages require have a version that fits them all"
            if libraries
            else "No installed package requires nvidia-* libraries",
            evidence={"libraries": libraries},
        )
        return
    pairs: dict[tuple[str, str], list[Conflict]] = {}
    for item in found:
        first, second = sorted((item.first, item.second), key=lambda n: (_rank(index, n), n.requirer.key))
        pairs.setdefault((first.requirer.key, second.requirer.key), []).append(
            Conflict(item.library, first, second, item.installed)
        )
    for items in pairs.values():
        yield _conflict(index, python, interpreter, items)


def _conflict(index: Wheels, python: PythonFacts, interpreter: str, items: list[Conflict]) -> Outcome:
    """One finding per pair of requirers: every library they pin apart in the evidence, one environment split."""
    keeper, mover = items[0].first, items[0].second
    root, wanted = _root(index, mover)
    if len(items) == 1:
        [item] = items
        title = (
            f"{keeper.label} requires {item.library}{bounds_first(keeper.requirement.specifier)} and {mover.label} "
            f"{bounds_first(mover.requirement.specifier)}: no version satisfies both"
        )
    else:
        shown = [
            (c.library, bounds_first(c.first.requirement.specifier), bounds_first(c.second.requirement.specifier))
            for c in items[:3]
        ]
        listing = ", ".join(f"{lib} ({a} vs {b})" for lib, a, b in shown)
        listing += f" and {len(items) - 3} more" if len(items) > 3 else ""
        title = f"{keeper.label} and {mover.label} require {len(items)} nvidia-* libraries at versions apart: {listing}"
    evidence = {
        "conflicts": [
            {
                "library": c.library,
                "installed": c.installed,
                c.first.label: bounds_first(c.first.requirement.specifier),
                c.second.label: bounds_first(c.second.requirement.specifier),
            }
            for c in items
        ],
        "stays": keeper.label,
        "moves": wanted,
    }
    # keep the environment right for the one that stays: its pins, where the installed version misses them
    repins = [
        (c.library, bounds_first(c.first.requirement.specifier))
        for c in items
        if c.installed is None or not c.first.requirement.specifier.contains(c.installed, prereleases=True)
    ]
    fix = _venv_step(interpreter, python, root, wanted, keeper.label) + install(*repins)
    return Outcome(
        Status.FAIL,
        title,
        detail="An environment holds one version of each distribution, so one of them runs with a CUDA library it was "
        "not built for: XLA (JAX, TensorFlow) refuses a cuDNN older than it was built with ('Loaded runtime CuDNN "
        "library: 9.5.1 but source was compiled with: 9.8.0', then 'DNN library initialization failed'), torch one "
        "of another major or an older minor ('cuDNN version incompatibility'), and a resolver asked for both "
        "answers 'no solution'. Installing either one's pin breaks the other, so the fix is a separate environment "
        f"for {root.name}" + (", with this one set back to the pins of the one that stays" if repins else "") + ".",
        evidence=evidence,
        fix=fix,
        refs=(JAX_CUDNN_ISSUE, TORCH_JAX_RESOLVER),
    )
