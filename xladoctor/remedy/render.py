"""Write structured fixes as shell commands for the environment's installer: pip, `uv pip` or conda.

Every command is quoted for a POSIX shell (shlex.quote) so that paths with spaces or `$` paste safely.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import replace

from packaging.utils import canonicalize_name

from xladoctor.facts.installer import Installer, detect_installer
from xladoctor.facts.model import Facts
from xladoctor.fix import (
    PROJECT_NAME,
    Fix,
    Install,
    PrependPath,
    RemovePath,
    SetEnv,
    Shell,
    Step,
    SystemInstall,
    Uninstall,
    UnsetEnv,
)
from xladoctor.matrix import load_matrix
from xladoctor.remedy.builds import flavoured_steps

# conda-forge names of the distributions whose PyPI name differs (conda-forge feedstocks
# https://github.com/conda-forge/pytorch-cpu-feedstock builds the `pytorch` package).
CONDA_NAMES = {"torch": "pytorch"}
# PyTorch's local build labels live on its own index (pytorch.org/get-started/locally), not on PyPI.
PYTORCH_INDEX = "https://download.pytorch.org/whl/"
_PYTORCH_LABEL = re.compile(r"==[^+,]+\+(cpu|cu\d+|rocm[\d.]+|xpu)$")
_SYSTEM_INSTALL = {"apt": "sudo apt-get install -y", "dnf": "sudo dnf install -y"}


def package_key(name: str) -> str:
    """'torch_xla[tpu]' -> 'torch-xla': extras do not make a different distribution."""
    return str(canonicalize_name(name.split("[", 1)[0]))


def _quote(items: Iterable[str]) -> str:
    return " ".join(shlex.quote(i) for i in items)


def _label_indexes(packages: Iterable[tuple[str, str]]) -> str:
    """--extra-index-url for pins of PyTorch's local builds (torch==2.9.0+cpu lives on its CPU index)."""
    labels = sorted({m.group(1) for _, spec in packages if (m := _PYTORCH_LABEL.search(spec))})
    return "".join(f" --extra-index-url {PYTORCH_INDEX}{label}" for label in labels)


def _wheel_only(step: Install) -> bool:
    """Whether conda cannot install this step: a wheel index, extras, or NVIDIA's CUDA wheels (PyPI names that
    conda-forge packages differently), so pip of the conda environment installs it, as conda's docs allow."""
    return bool(step.index_url or step.find_links) or any(
        "[" in n or package_key(n).startswith("nvidia-") for n, _ in step.packages
    )


def _with_note(command: str, note: str | None) -> str:
    return f"{command}  # {note}" if note else command


# A Python the system manages (PEP 668) takes no pip install: the fix goes into a new venv beside it. $HOME stays
# unquoted-expandable in double quotes, so the command pastes in any POSIX shell.
MANAGED_VENV = '"$HOME/venvs/ml"'
MANAGED_VENV_PYTHON = '"$HOME/venvs/ml/bin/python"'
PEP_668 = "https://peps.python.org/pep-0668/"


class Target:
    """The interpreter a fix is for, and who installs into it."""

    def __init__(self, facts: Facts | None) -> None:
        self.installer: Installer = detect_installer(facts) if facts is not None else Installer("pip", "no facts")
        self.python = facts.interpreter if facts is not None else "python"
        self.prefix = facts.python.prefix if facts is not None and facts.python is not None else ""
        self.managed = self.installer.externally_managed
        self.tensorflow = _tensorflow_build(facts) if self.installer.kind != "conda" else None

    def pip(self) -> str:
        """How this interpreter's pip is started: `PY -m pip`; for a system-managed Python, the new venv's."""
        if self.managed:
            return f"{MANAGED_VENV_PYTHON} -m pip"
        return f"{shlex.quote(self.python)} -m pip"


# tensorflow-cpu, TensorFlow's CPU-only build on PyPI, ships the same `tensorflow` package as `tensorflow`: where it is
# installed and `tensorflow` is not, a pin of `tensorflow` would put a second copy over the first, so the pin names
# tensorflow-cpu (released beside each tensorflow). Other builds (tensorflow-macos, tf-nightly) stopped or number
# their releases otherwise, and conda packages TensorFlow its own way: their pins are left as written.
_TENSORFLOW_CPU = "tensorflow-cpu"


def _tensorflow_build(facts: Facts | None) -> str | None:
    if facts is None or facts.installed("tensorflow") is not None or facts.installed(_TENSORFLOW_CPU) is None:
        return None
    return _TENSORFLOW_CPU


def _named_for_the_build(steps: list[Step], build: str | None) -> list[Step]:
    """`tensorflow` pins renamed to the installed build's name, unless the fix itself removes that build; a pin
    with extras (tensorflow[and-cuda]) asks for the GPU build and keeps its name."""
    if build is None or any(isinstance(s, Uninstall) and build in map(package_key, s.packages) for s in steps):
        return steps
    return [
        replace(s, packages=tuple((build if n.lower() == "tensorflow" else n, v) for n, v in s.packages))
        if isinstance(s, Install)
        else s
        for s in steps
    ]


def for_target(steps: Iterable[Step], target: Target) -> list[Step]:
    """The steps as they apply to this interpreter: on a system-managed Python (PEP 668) pip installs go into a new
    venv, created first, and nothing is uninstalled from the system's Python (the venv starts empty); a pin of
    tensorflow names the TensorFlow build installed (_named_for_the_build)."""
    steps = _named_for_the_build(list(steps), target.tensorflow)
    if not target.managed or not any(isinstance(s, (Install, Uninstall)) for s in steps):
        return steps
    venv = Shell(
        f"{shlex.quote(target.python)} -m venv {MANAGED_VENV}  # {target.python} is managed by the system "
        f"({PEP_668}): pip refuses to install into it; run your job with {MANAGED_VENV_PYTHON} (on Debian and "
        "Ubuntu, `sudo apt-get install python3-venv` first if venv is missing)"
    )
    return [venv, *(s for s in steps if not isinstance(s, Uninstall))]


def _uninstall(step: Uninstall, target: Target) -> str:
    kind = target.installer.kind
    if kind == "uv":
        return f"uv pip uninstall --python {shlex.quote(target.python)} {_quote(step.packages)}"
    if kind == "conda":
        names = [CONDA_NAMES.get(n, n) for n in step.packages]
        return f"conda remove -y -p {shlex.quote(target.prefix)} --force {_quote(names)}"
    return f"{target.pip()} uninstall -y {_quote(step.packages)}"


def _install(step: Install, target: Target) -> str:
    kind = target.installer.kind
    pins = [name + spec for name, spec in step.packages]
    index = f" --index-url {step.index_url}" if step.index_url else ""
    index += f" --find-links {step.find_links}" if step.find_links else ""
    extra = _label_indexes(step.packages)
    if kind == "conda" and not _wheel_only(step):
        conda_pins = [CONDA_NAMES.get(package_key(n), n.split("[", 1)[0]) + s for n, s in step.packages]
        flag = " --force-reinstall" if step.reinstall else ""
        return f"conda install -y -p {shlex.quote(target.prefix)} -c conda-forge{flag} {_quote(conda_pins)}"
    if kind == "uv":
        flags = " --upgrade" if step.upgrade else ""
        # --reinstall-package names what to reinstall; uv's --reinstall would reinstall every dependency too
        flags += "".join(
            f" --reinstall-package {shlex.quote(package_key(n))}" for n, _ in step.packages if step.reinstall
        )
        flags += " --no-deps" if step.no_deps else ""
        return f"uv pip install --python {shlex.quote(target.python)}{flags}{extra} {_quote(pins)}{index}"
    flags = (" -U" if step.upgrade else "") + (" --force-reinstall" if step.reinstall else "")
    flags += " --no-deps" if step.no_deps else ""
    return f"{target.pip()} install{flags}{extra} {_quote(pins)}{index}"


def render_step(step: Step, target: Target) -> str:
    """One step as one shell command line."""
    if isinstance(step, Install):
        return _with_note(_install(step, target), step.note)
    if isinstance(step, Uninstall):
        return _with_note(_uninstall(step, target), step.note)
    if isinstance(step, SetEnv):
        return _with_note(f"export {step.name}={shlex.quote(step.value)}", step.note)
    if isinstance(step, UnsetEnv):
        return _with_note(f"unset {step.name}", step.note)
    if isinstance(step, PrependPath):
        return _with_note(f"export {step.name}={shlex.quote(step.directory)}:${step.name}", step.note)
    if isinstance(step, SystemInstall):
        return _with_note(f"{_SYSTEM_INSTALL[step.manager]} {_quote(step.packages)}", step.note)
    if isinstance(step, RemovePath):
        return _with_note(f"rm -rf {shlex.quote(step.path)}", step.note)
    assert isinstance(step, Shell)
    return step.text


def _only_project_names(steps: Iterable[Step]) -> list[Step]:
    """The steps with every package that is no project name (fix.PROJECT_NAME) left out of pip's command line."""
    kept: list[Step] = []
    for step in steps:
        if isinstance(step, Install):
            packages = tuple((n, s) for n, s in step.packages if PROJECT_NAME.fullmatch(n))
            kept.extend([replace(step, packages=packages)] if packages else [])
        elif isinstance(step, Uninstall):
            names = tuple(n for n in step.packages if PROJECT_NAME.fullmatch(n))
            kept.extend([replace(step, packages=names)] if names else [])
        else:
            kept.append(step)
    return kept


def render_fix(fix: Fix, facts: Facts | None) -> tuple[str, ...]:
    """Shell commands for one fix, in order, for the installer `facts` shows (pip with `python` without facts)."""
    target = Target(facts)
    steps = flavoured_steps(_only_project_names(fix.steps), facts, load_matrix())
    return tuple(render_step(step, target) for step in for_target(steps, target))
