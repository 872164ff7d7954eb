"""A name the log says a package lacks, looked up in the source the target interpreter has installed (the names
probe): confirmed absent, moved inside the package, or present (the log came from another release, or the name
comes with an optional dependency). Only for live facts: a --facts snapshot is of another machine."""

from __future__ import annotations

import dataclasses

from xladoctor.explain.engine import Explanation
from xladoctor.facts import Facts
from xladoctor.probes.names import NameFacts, probe_name

# the families whose verdict rests on what the installed release has (verdict.py's names)
_ASKED_OF = ("api-version-skew", "module-not-found", "version-mismatch")


def question(explanation: Explanation) -> tuple[str, str] | None:
    """The (module, name) the diagnosis says the installed package lacks, when it says so."""
    diagnosis = explanation.diagnosis
    if diagnosis is None or diagnosis.family not in _ASKED_OF:
        return None
    module, name = diagnosis.params.get("module"), diagnosis.params.get("name")
    if not (isinstance(module, str) and isinstance(name, str) and module and name):
        return None
    return module, name


def _importable(path: str) -> str:
    """A file of the package as the module to import from: 'transformers/cache_utils.py' is transformers.cache_utils."""
    dotted = path.replace("\\", "/").removesuffix(".py").removesuffix(".pyi").replace("/", ".")
    return dotted.removesuffix(".__init__")


def _private(path: str) -> bool:
    """A file under a private module (jax/_src/...): no place to tell anyone to import from."""
    return any(part.startswith("_") and part not in ("__init__.py", "__init__.pyi") for part in path.split("/"))


def said(facts: NameFacts) -> str:
    """What the installed source says of the name, in one sentence; "" when it says nothing decisive."""
    module, name = facts.module, facts.name
    release = f"{facts.distribution} {facts.version}" if facts.distribution and facts.version else module
    if not facts.found:
        return (
            f"{module.split('.')[0]} is not installed in this interpreter: is it the environment that wrote the log? "
            "(--python PATH)"
        )
    if facts.found != module:
        missing = module.split(".")[len(facts.found.split("."))]
        return f"{release} is installed here, and {facts.found} has no submodule {missing}."
    if facts.kind in ("compiled", "namespace"):
        what = "a compiled extension" if facts.kind == "compiled" else "a namespace package"
        return f"{module} here is {what}: which names it has cannot be read from its source."
    if facts.in_module:
        return (
            f"{release} here does have {name}: {module}'s own file defines or imports it. Either the log came from "
            f"another environment (another release of it), or {module} exports {name} only when an optional "
            f"dependency imports: `python -c 'from {module} import {name}'` here shows which."
        )
    public = [p for p in facts.defined_in if not _private(p)]
    if public and not facts.dynamic_exports:
        places = ", ".join(_importable(p) for p in public[:3])
        return (
            f"{release} here has no {name} in {module}, but defines it in {places}: it moved inside the package; "
            f"import it from there."
        )
    if facts.complete and facts.mentioned_count == 0:
        unread = (
            f" (its {facts.compiled_count} compiled extension{'s' if facts.compiled_count != 1 else ''} cannot be "
            "read, and no stub of them names it either)"
            if facts.compiled_count
            else ""
        )
        return (
            f"{release} here has no {name}: none of its {facts.files} source files mentions it{unread}. This release "
            "does not have it, as the log says."
        )
    return ""


def confirm_name(explanation: Explanation, environment: Facts, timeout_s: float) -> Explanation:
    """The explanation with what the target's installed source says of the name its diagnosis turns on; the release
    that ships the module is the target's facts' (the packages probe already read every distribution's files)."""
    asked = question(explanation)
    if asked is None or explanation.facts_target is None or explanation.diagnosis is None:
        return explanation
    facts = probe_name(explanation.facts_target, *asked, timeout_s=timeout_s)
    shipped = environment.providing(facts.found.split(".")[0]) if facts is not None and facts.found else None
    if facts is not None and shipped is not None:
        facts = dataclasses.replace(facts, distribution=shipped.name, version=shipped.version)
    sentence = said(facts) if facts is not None else ""
    if not sentence:
        return explanation
    diagnosis = explanation.diagnosis
    contradicted = diagnosis.contradicted or (facts is not None and not facts.found)
    joined = dataclasses.replace(diagnosis, joined=(*diagnosis.joined, sentence), contradicted=contradicted)
    return dataclasses.replace(explanation, diagnosis=joined)
