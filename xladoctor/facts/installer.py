"""Who manages the packages of the target environment: pip, uv or conda (a derived view of the facts)."""

from __future__ import annotations

from dataclasses import dataclass

from xladoctor.facts.model import Facts


@dataclass(frozen=True)
class Installer:
    """Who manages packages in the target environment, and why we think so."""

    kind: str  # pip | uv | conda
    evidence: str


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
    return Installer("pip", f"{where}; {counts.get('pip', 0)} packages record pip as their INSTALLER")
