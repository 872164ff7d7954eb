"""Who manages the packages of the target environment: pip, uv or conda (a derived view of the facts)."""

from __future__ import annotations

from dataclasses import dataclass

from xladoctor.facts.model import Distribution, Facts, PythonFacts


@dataclass(frozen=True)
class Installer:
    """Who manages packages in the target environment, and why we think so."""

    kind: str  # pip | uv | conda
    evidence: str
    externally_managed: str | None = None  # PEP 668 marker: the system owns this Python, pip refuses to install


def detect_installer(facts: Facts) -> Installer:
    """Pick the installer from pyvenv.cfg, conda-meta and the dists' INSTALLER files."""
    python = facts.python
    if python is None:
        return Installer("pip", "target not probed; pip is the default")
    cfg = python.pyvenv_cfg or {}
    if "uv" in cfg:
        return Installer("uv", f"pyvenv.cfg was written by uv {cfg['uv']} (a uv venv has no pip)")
    counts: dict[str, int] = {}
    for dist in facts.distributions:
        if dist.installer:
            counts[dist.installer.lower()] = counts.get(dist.installer.lower(), 0) + 1
    if python.conda_meta and counts.get("conda", 0) > counts.get("pip", 0):
        return Installer("conda", f"conda environment; {counts.get('conda', 0)} packages installed by conda")
    if counts.get("uv", 0) > counts.get("pip", 0):
        return Installer("uv", f"{counts['uv']} packages record uv as their INSTALLER")
    where = "conda environment, packages installed by pip" if python.conda_meta else python.env_kind
    if python.externally_managed:
        return Installer(
            "pip",
            f"{where}, managed by the system ({python.externally_managed}, PEP 668): pip refuses to install into "
            "it, so fixes go into a venv",
            python.externally_managed,
        )
    return Installer("pip", f"{where}; {counts.get('pip', 0)} packages record pip as their INSTALLER")


# INSTALLER values that name a Python installer; anything else (Fedora's `rpm`) or none at all in a dist-packages
# folder (Debian and Ubuntu write no INSTALLER) is the system's package manager.
PYTHON_INSTALLERS = frozenset({"pip", "uv", "conda", "poetry", "pdm", "pipenv", "hatch", "pipx", "mamba", "pixi"})


def system_packaged(dist: Distribution, python: PythonFacts | None) -> bool:
    """Whether the system's package manager (apt, dnf) installed `dist`: its files are that packager's business,
    and pip must not touch them."""
    installer = (dist.installer or "").lower()
    if installer:
        return installer not in PYTHON_INSTALLERS
    if "/dist-packages" in dist.location:
        return python is None or python.env_kind == "system"
    return bool(python and python.externally_managed and dist.location.startswith(("/usr/lib", "/usr/lib64")))
