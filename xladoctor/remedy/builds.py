"""A plan keeps the build of what it replaces when it moves to another release: a torch installed from PyTorch's
CPU index (2.13.0+cpu) moves to another +cpu build, never to PyPI's default Linux wheel (a CUDA build that pulls
several GB of nvidia-* wheels a CPU machine cannot use).

PyTorch publishes each release's builds under a local version label on its own index
(https://download.pytorch.org/whl/<label>, pytorch.org/get-started/locally): `+cpu` for every release, and the
`+cuXYZ` builds of that release's CUDA versions. The matrix records one CUDA per release (the PyPI wheel's
nvidia-cuda-runtime pin), so a `+cuXYZ` label is kept only where that CUDA is the target release's; otherwise
the plan says which build to pick instead of guessing one that may not exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

from xladoctor.facts.model import Facts
from xladoctor.fix import Install, Step
from xladoctor.matrix import Matrix
from xladoctor.remedy.pins import Pins

# The distributions PyTorch builds per label on its index (torch, and the domain libraries released beside it).
LABELLED = ("torch", "torchvision", "torchaudio")
_LABEL = re.compile(r"\+(cpu|cu(\d+)|rocm[\d.]+|xpu)$")


def _key(name: str) -> str:
    return str(canonicalize_name(name.split("[", 1)[0]))


def label_of(version: str) -> str | None:
    """'cpu' for 2.13.0+cpu, 'cu128' for 2.9.0+cu128; None for a build without a label (PyPI's own)."""
    found = _LABEL.search(version)
    return found.group(1) if found else None


def _exact(spec: str) -> str | None:
    try:
        pins = [s.version for s in SpecifierSet(spec) if s.operator == "==" and "*" not in s.version]
    except InvalidSpecifier:
        return None
    return pins[0] if len(pins) == 1 and "+" not in pins[0] else None


def _cuda_of(release: str, matrix: Matrix) -> str | None:
    rows = matrix.get("torch-cuda").rows_where("torch", release)
    return str(rows[0]["cuda"]) if rows else None


def flavoured(key: str, spec: str, facts: Facts | None, matrix: Matrix) -> tuple[str, str | None]:
    """The specifier with the installed build's label when that build exists for the pinned release, and a note
    when a CUDA/ROCm label cannot be kept; the specifier as it is otherwise."""
    installed = facts.installed(key) if facts is not None and key in LABELLED else None
    if installed is None:
        return spec, None
    label, release = label_of(installed.version), _exact(spec)
    if label is None or release is None or release == installed.version.split("+", 1)[0]:
        return spec, None  # the same release without its label is a deliberate change of build (CPU -> CUDA)
    cuda = re.fullmatch(r"cu(\d+)", label)
    keep = label == "cpu"
    if cuda is not None and key == "torch":
        target = _cuda_of(release, matrix)
        keep = target is not None and target.replace(".", "") == cuda.group(1)
    if keep:
        return f"=={release}+{label}", None
    if cuda is None and not label.startswith(("rocm", "xpu")):
        return spec, None
    return spec, (
        f"{installed.name} {installed.version} is a +{label} build from download.pytorch.org; the plan pins "
        f"{key}=={release} (PyPI's build): to keep a +{label}-style build, pick {key}=={release}'s build for "
        "your CUDA/ROCm at https://download.pytorch.org/whl/ (pytorch.org/get-started/previous-versions)"
    )


def keep_flavour(pins: Pins, facts: Facts, matrix: Matrix) -> list[str]:
    """Give every exact pin of a labelled distribution the label of the build installed now (a pin with an index
    of its own chose its build already); notes where a CUDA label cannot be kept."""
    notes: list[str] = []
    for key in LABELLED:
        pin = pins.get(key)
        if pin is None or pin.index_url:
            continue
        spec, note = flavoured(key, pin.spec, facts, matrix)
        pins[key] = replace(pin, spec=spec)
        notes.extend([note] if note else [])
    return notes


def flavoured_steps(steps: Iterable[Step], facts: Facts | None, matrix: Matrix) -> list[Step]:
    """A finding's own steps with the same labels its plan gets, so its commands and the plan agree."""
    out: list[Step] = []
    for step in steps:
        if isinstance(step, Install) and not step.index_url:
            packages = tuple((n, flavoured(_key(n), s, facts, matrix)[0]) for n, s in step.packages)
            step = replace(step, packages=packages)
        out.append(step)
    return out
