"""Area `jax`: jax and jaxlib are released together and check each other's versions at import.

jax raises "jaxlib is version X, but this version of jax requires version >= Y" or "jaxlib version X
is newer than and incompatible with jax version Y" (jax/_src/lib/__init__.py). Since jax 0.4.30 its
metadata also declares `jaxlib >=min, <=jax`; for older releases jax/version.py's
`_minimum_jaxlib_version` (read as text, never imported) gives the lower bound.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from packaging.version import InvalidVersion, Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.requirements import requirement_on, satisfies
from xladoctor.facts.stack import COMPONENTS
from xladoctor.facts.versions import base_version
from xladoctor.findings import Outcome, Status
from xladoctor.fix import install

check = area("jax")

JAX_LIB_CHECK = "https://github.com/jax-ml/jax/blob/main/jax/_src/lib/__init__.py"
JAX_VERSIONING = "https://github.com/jax-ml/jax/blob/main/docs/jep/9419-jax-versioning.md"


def _minimum_from_version_file(jax: Distribution) -> str | None:
    if jax.self_declared is None or jax.self_declared.values is None:
        return None
    value = jax.self_declared.values.get("_minimum_jaxlib_version")
    return value if isinstance(value, str) else None


@check("jax-jaxlib-mismatch", "jax and jaxlib pairing")
def jax_jaxlib_pairing(
    python: PythonFacts, jax: Distribution, jaxlib: Distribution | None, distributions: Distributions
) -> Iterator[Outcome]:
    """jaxlib lies between jax's minimum and jax itself; CUDA plugins match jaxlib exactly."""
    jax_version = base_version(jax.version)
    pin = install(("jaxlib", f"=={jax_version}"))
    declared = requirement_on(jax, "jaxlib", python)
    minimum = _minimum_from_version_file(jax)
    evidence: dict[str, Any] = {
        "jax": jax.version,
        "jaxlib": jaxlib.version if jaxlib else None,
        "declared_by_jax": str(declared) if declared else None,
        "minimum_jaxlib": minimum,
    }
    if jaxlib is None:
        yield Outcome(
            Status.FAIL,
            f"jax {jax.version} is installed without jaxlib",
            detail="`import jax` fails without jaxlib, which holds the compiled XLA runtime.",
            evidence=evidence,
            fix=pin,
            refs=(JAX_VERSIONING,),
        )
        return
    try:
        too_new = Version(jaxlib.version) > Version(jax.version)
        too_old = minimum is not None and Version(jaxlib.version) < Version(minimum)
    except InvalidVersion:
        too_new = too_old = False
    if (declared is not None and not satisfies(declared, jaxlib.version)) or too_new or too_old:
        wanted = str(declared.specifier) if declared is not None else f">={minimum},<={jax_version}"
        yield Outcome(
            Status.FAIL,
            f"jaxlib {jaxlib.version} does not fit jax {jax.version} (needs jaxlib {wanted})",
            detail="jax refuses to import with this jaxlib. jax and jaxlib are released together; install "
            "the jaxlib of the same version.",
            evidence=evidence,
            fix=pin,
            refs=(JAX_LIB_CHECK, JAX_VERSIONING),
        )
        return
    plugins = [d for d in (distributions.installed(n) for n in COMPONENTS["jax-plugins"]) if d is not None]
    mismatched = [d for d in plugins if base_version(d.version) != base_version(jaxlib.version)]
    if mismatched:
        evidence["plugins"] = {d.name: d.version for d in plugins}
        yield Outcome(
            Status.FAIL,
            "JAX CUDA plugin versions differ from jaxlib "
            + jaxlib.version
            + ": "
            + ", ".join(f"{d.name} {d.version}" for d in mismatched),
            detail="The CUDA plugin is built with jaxlib and loaded by it; mismatched versions fail to "
            "register the GPU backend.",
            evidence=evidence,
            fix=install(*((d.name, f"=={base_version(jaxlib.version)}") for d in mismatched)),
            refs=(JAX_VERSIONING,),
        )
        return
    yield Outcome(Status.OK, f"jaxlib {jaxlib.version} fits jax {jax.version}", evidence=evidence)
