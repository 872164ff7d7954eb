"""The log joined with the environment's facts (this interpreter's, --python's, --facts'): each cause checked
against what is installed, and said when the facts contradict the log (then the log came from another
environment, and the fix is for that one)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from xladoctor.explain.records import Failure
from xladoctor.explain.rules import size_in_bytes, version_range
from xladoctor.explain.rules.builds import SETUPTOOLS_WITH_PKG_RESOURCES
from xladoctor.explain.verdict import Candidate
from xladoctor.facts import Facts
from xladoctor.facts.builds import torch_cuda
from xladoctor.facts.model import Distribution
from xladoctor.facts.system import Gpu
from xladoctor.fix import Fix, install
from xladoctor.matrix import load_matrix
from xladoctor.matrix.failures import library_named

_FRAMEWORKS = frozenset({"torch", "torch-xla", "jax", "jaxlib", "tensorflow", "triton", "keras", "transformers"})
_PYTHON_IN_PATH = re.compile(r"[/\\]python(?P<version>3\.\d{1,2})[/\\](?:site|dist)-packages[/\\]")


@dataclass(frozen=True)
class Joined:
    said: tuple[str, ...]
    contradicted: bool
    # the fix the facts make instead of the rule's: a pin made exact, or an empty one when the facts show the rule's
    # cannot help (an allocation larger than the whole GPU); None keeps the rule's
    fix: Fix | None


def _lacks_the_module(installed: Distribution, module: str) -> bool:
    """An installed release that no longer ships the module the log missed (setuptools 82+ and pkg_resources), so
    the package being there confirms the log instead of contradicting it."""
    if module.split(".", 1)[0] != "pkg_resources" or canonicalize_name(installed.name) != "setuptools":
        return False
    try:
        return not SpecifierSet(SETUPTOOLS_WITH_PKG_RESOURCES).contains(Version(installed.version), prereleases=True)
    except InvalidVersion:
        return False


def _against_the_range(facts: Facts, package: str, want: str) -> tuple[str, bool]:
    """The installed release of `package` against the range a library's check asked for: outside it confirms the
    log; inside it, the log came from another environment (or the check read another interpreter's package)."""
    installed = facts.installed(package)
    specifier = version_range(want)
    if installed is None or specifier is None:
        return f"{package} is not installed in {facts.interpreter}.", False
    try:
        meets = specifier.contains(Version(installed.version), prereleases=True)
    except InvalidVersion:
        return f"Installed here: {installed.name} {installed.version}.", False
    if meets:
        return (
            f"{installed.name} {installed.version} is installed in {facts.interpreter}, within {want}: the log came "
            "from another environment (or the check read another interpreter's packages).",
            True,
        )
    return (
        f"{installed.name} {installed.version} is installed in {facts.interpreter}, outside {want}, as the log says.",
        False,
    )


def _pin_required(facts: Facts, package: str) -> str:
    """The specifier an installed distribution requires `package` at (torch's nvidia-* pins), or ''."""
    key = canonicalize_name(package)
    for dist in facts.distributions:
        for text in dist.requires:
            try:
                requirement = Requirement(text)
            except InvalidRequirement:
                continue
            if canonicalize_name(requirement.name) == key and requirement.specifier:
                return str(requirement.specifier)
    return ""


def _torch_archs(facts: Facts, torch: Distribution | None) -> tuple[str, set[int], set[int]]:
    """The architectures the installed torch carries, as a listing and as the numbers of its machine code (cubin) and
    of its PTX: read from its own fatbins when probed, else the matrix's row for its series and CUDA
    (compat_matrix/torch-cuda_arch.json, with its source)."""
    if torch is None:
        return "no torch", set(), set()
    archs = torch.cuda_archs or {}
    if archs.get("cubin"):
        cubins = {int(a) for a in archs["cubin"]}
        ptx = {int(a) for a in archs.get("ptx") or {}}
        return ", ".join(f"sm_{a}" for a in sorted(cubins)), cubins, ptx
    cuda = torch_cuda(facts)
    release = ".".join(torch.version.split("+")[0].split(".")[:2])
    for row in load_matrix().get("torch-cuda_arch").rows:
        if str(row["torch"]) == release and (cuda is None or str(row["cuda"]) == ".".join(cuda.split(".")[:2])):
            entries = str(row["arch_list"]).split(";")
            cubins = {int(a.replace(".", "").replace("+PTX", "")) for a in entries}
            ptx = {int(a.replace(".", "").replace("+PTX", "")) for a in entries if a.endswith("+PTX")}
            return ", ".join(f"sm_{a}" for a in sorted(cubins)), cubins, ptx
    return "an architecture list the matrix does not know", set(), set()


def _arch_verdict(capability: str | None, cubins: set[int], ptx: set[int]) -> str:
    """Which half of 'torch or an extension' the facts rule out: torch either has code this GPU runs or not (no
    list from the facts decides nothing). Machine code for sm_XY runs on GPUs of the same major version and a minor
    at or above Y (sm_86 on an sm_89 GPU); PTX for any lower architecture is compiled for the GPU when loaded (the
    CUDA C++ Programming Guide, "Binary Compatibility" and "PTX Compatibility")."""
    if not capability or not cubins or not re.fullmatch(r"\d{1,2}\.\d", capability):
        return ""
    major, minor = (int(p) for p in capability.split("."))
    gpu = major * 10 + minor
    arch = f"sm_{gpu}"
    runs = [c for c in cubins if c // 10 == major and c <= gpu] + [p for p in ptx if p <= gpu]
    if runs:
        via = f"sm_{max(runs)}'s" if max(runs) != gpu else "its own"
        return (
            f" torch has code this {arch} GPU runs ({via}): the kernel with none is another library's or an "
            f"extension's (the one that launched it), built for other GPUs. Rebuild it with "
            f"TORCH_CUDA_ARCH_LIST={capability}, or install a build of it made for this GPU."
        )
    return f" torch has no code this {arch} GPU runs: install a torch build whose list holds it."


def _meets(floor: str, gpu: Gpu) -> bool:
    """The GPU has at least the compute capability an error says it needs."""
    return gpu.compute_capability is not None and _series(str(gpu.compute_capability)) >= _series(floor)


def _against_the_floor(floor: str, gpu: Gpu) -> str:
    """This machine's GPU against the compute capability an error says it needs."""
    here = f"This machine's GPU is {gpu.name} (compute capability {gpu.compute_capability})"
    if not _meets(floor, gpu):
        return f"{here}, below the {floor} the error asks for: the error fits this machine."
    return f"{here}, which meets the {floor} the error asks for: the log came from another machine."


def _larger_than_the_gpu(allocation: str, capacity: str, gpus: Sequence[Gpu]) -> list[str]:
    """One allocation larger than the whole GPU: no allocator setting makes it fit (torch and XLA print binary
    units: GiB, and XLA's "400.00GiB"). The GPU is the log's own when it says its capacity (torch names the GPU it
    ran on); else the largest here, so that a smaller one of several never makes the claim."""
    asked = size_in_bytes(allocation)
    said_total = size_in_bytes(capacity) if capacity else None
    sized = [g for g in gpus if g.memory_mib]
    if asked is None or (said_total is None and not sized):
        return []
    if said_total is not None:
        total, which = said_total, "The GPU the log names"
    else:
        gpu = max(sized, key=lambda g: g.memory_mib or 0)
        total, which = (gpu.memory_mib or 0) * (1 << 20), f"This machine's largest GPU ({gpu.name})"
    if asked <= total:
        return []
    return [
        f"{which} holds {total / (1 << 30):.1f} GiB in all: the one allocation of {allocation} is larger than the "
        "whole GPU, so no allocator setting or other process explains it. A tensor far larger than meant (a shape "
        "or dtype mistake), or a model to split over several GPUs."
    ]


def _python_of_log(records: Sequence[Failure]) -> str | None:
    for record in records:
        for frame in record.frames:
            found = _PYTHON_IN_PATH.search(frame.file)
            if found:
                return found.group("version")
    return None


def _series(version: str, width: int = 2) -> tuple[int, ...]:
    """A version cut to `width` numbers: the table's rows are minor series ("0.12") or, for a package read release by
    release (jax), whole versions ("0.4.13"); the installed version is cut to the same width to be compared."""
    return tuple(int(p) for p in re.findall(r"\d+", version)[:width])


def _release_takes(facts: Facts, params: Mapping[str, object]) -> tuple[list[str], bool]:
    """A constructor's parameter history (api-history.json) against the installed release: confirmed when that
    release refuses the name, contradicted when it takes it (the log came from another environment)."""
    package, name, cls = str(params["package"]), str(params["name"]), str(params["class"])
    installed = facts.installed(package)
    if installed is None:
        return [f"{package} is not installed here: is this the environment that wrote the log? (--python PATH)"], True
    width = len(re.findall(r"\d+", str(params["first"]))) or 2
    here = _series(installed.version, width)
    last = _series(str(params["last"]), width)
    newest = last == _series(str(params.get("latest") or params["last"]), width)  # taken by the newest release read
    if _series(str(params["first"]), width) <= here and (here <= last or newest):
        return [
            f"{package} {installed.version} is installed here, and its {cls} takes {name}=: the log came from another "
            "environment (or the class is another of that name)."
        ], True
    return [f"{package} {installed.version} is installed here: its {cls} refuses {name}=, as the log says."], False


def _release_has(facts: Facts, params: Mapping[str, object]) -> tuple[list[str], bool]:
    """An attribute's history (attribute-history.json: the runs of series that had it, "4.36..4.48, 5.13..5.25")
    against the installed release: confirmed when that release lacks it, contradicted when it has it."""
    package, name, cls = str(params["package"]), str(params["name"]), str(params["class"])
    installed = facts.installed(package)
    if installed is None:
        return [f"{package} is not installed here: is this the environment that wrote the log? (--python PATH)"], True
    runs = [run.split("..") for run in str(params["had"]).split(", ")]
    width = len(re.findall(r"\d+", runs[0][0])) or 2
    here = _series(installed.version, width)
    if any(_series(first, width) <= here <= _series(last, width) for first, last in runs):
        return [
            f"{package} {installed.version} is installed here, and its {cls} has {name}: the log came from another "
            "environment (or the object is another class of that name)."
        ], True
    return [f"{package} {installed.version} is installed here: its {cls} lacks {name}, as the log says."], False


def _elsewhere(records: Sequence[Failure], facts: Facts) -> tuple[list[str], bool]:
    """What in the facts says the log came from another environment (another Python, its frameworks not installed
    here), and whether it is so far off that nothing more can be joined (its frameworks are not installed here)."""
    said: list[str] = []
    logged = _python_of_log(records)
    here = ".".join(facts.python.version.split(".")[:2]) if facts.python is not None else ""
    if logged and here and logged != here:
        said.append(
            f"The log's frames are from Python {logged}, but these facts are of Python {here}: it came from another "
            f"environment."
        )
    absent = sorted(
        {f.owner for r in records for f in r.frames if f.owner in _FRAMEWORKS and facts.installed(f.owner) is None}
    )
    if absent:
        said.append(
            f"The log's frames are in {', '.join(absent)}, which {'is' if len(absent) == 1 else 'are'} not installed "
            f"in "
            f"{facts.interpreter}: the log came from another environment. Give explain that one (--python PATH, or "
            "--facts of its snapshot) for fixes made for it."
        )
    return said, bool(absent)


def from_elsewhere(records: Sequence[Failure], facts: Facts) -> Joined | None:
    """The facts say the log came from another environment: what says so; None when nothing does."""
    if facts.python is None:
        return None
    said, _ = _elsewhere(records, facts)
    return Joined(tuple(said), True, None) if said else None


def join(candidate: Candidate, records: Sequence[Failure], facts: Facts | None) -> Joined:
    """What the facts add to a cause (`candidate`), confirm or contradict."""
    if facts is None or facts.python is None:
        return Joined((), False, None)
    said, off = _elsewhere(records, facts)
    contradicted = bool(said)
    fix: Fix | None = None
    if off:
        return Joined(tuple(said), True, None)
    params = candidate.params
    family = candidate.family
    if family == "missing-library" and params.get("library"):
        library = str(params["library"])
        found = library_named(library)
        if found is not None and found.wheel:
            installed = facts.installed(found.package)
            if installed is not None and found.library == library:
                said.append(
                    f"{found.package} {installed.version} is installed here, and it ships {library}: the log came from "
                    "another environment, or something else on the loader's path (LD_LIBRARY_PATH) shadows it."
                )
                contradicted = True
            elif found.library == library:
                spec = _pin_required(facts, found.package)
                if spec:
                    said.append(f"{found.package} is not installed here; the installed packages require it at {spec}.")
                    fix = install((found.package, spec))
                else:
                    said.append(
                        f"{found.package} is not installed here, and no installed package requires it: is this the "
                        "environment that wrote the log? (--python PATH names another one)"
                    )
    elif family == "module-not-found" and params.get("package"):
        installed = facts.installed(str(params["package"]))
        if installed is not None and _lacks_the_module(installed, str(params.get("module", ""))):
            said.append(
                f"{installed.name} {installed.version} is installed in {facts.interpreter}, a release without "
                f"{params['module']}: that is the cause, and the pin below replaces it."
            )
        elif installed is not None:
            said.append(
                f"{installed.name} {installed.version} is installed in {facts.interpreter}: the program ran in another "
                "interpreter (another venv or conda env), or a file of yours shadows the module."
            )
            contradicted = True
    elif family == "gpu-arch-unsupported" and params.get("floor") and facts.system is not None and facts.system.gpus:
        # a floor of compute capability the error names (a library's, TensorFlow's build's): this GPU against it
        floor, gpu = str(params["floor"]), facts.system.gpus[0]
        said.append(_against_the_floor(floor, gpu))
        contradicted = _meets(floor, gpu)
    elif family == "gpu-arch-unsupported" and facts.system is not None and facts.system.gpus:
        gpu = facts.system.gpus[0]
        torch = facts.installed("torch")
        listing, cubins, ptx = _torch_archs(facts, torch)
        said.append(
            f"This machine's GPU is {gpu.name} (compute capability {gpu.compute_capability}); the installed torch "
            f"{torch.version if torch else '?'} carries code for {listing}."
            + _arch_verdict(gpu.compute_capability, cubins, ptx)
        )
    elif family == "out-of-memory" and params.get("allocation") and facts.system is not None and facts.system.gpus:
        larger = _larger_than_the_gpu(str(params["allocation"]), str(params.get("total") or ""), facts.system.gpus)
        said.extend(larger)
        if larger:  # the allocator's settings cannot make it fit: their fix would only mislead
            return Joined(tuple(said), contradicted, Fix())
    elif family in ("cuda-driver-too-old", "accelerator-unavailable") and facts.system is not None:
        if params.get("component") == "ROCm":  # an AMD GPU's runtime: the NVIDIA summary says nothing of it
            return Joined(tuple(said), contradicted, fix)
        nvidia = facts.system.nvidia
        driver = nvidia.driver_version if nvidia is not None else None
        cuda = torch_cuda(facts)
        gpus = len(facts.system.gpus)
        said.append(
            f"Here: {gpus} NVIDIA GPU{'s' if gpus != 1 else ''}, driver {driver or 'none'}, torch built for CUDA "
            f"{cuda or 'none (a CPU build)'}."
        )
    elif family == "api-version-skew" and params.get("had") and params.get("class"):
        said_here, has = _release_has(facts, params)
        said.extend(said_here)
        contradicted = contradicted or has
    elif family == "api-version-skew" and params.get("first") and params.get("class"):
        said_here, takes = _release_takes(facts, params)
        said.extend(said_here)
        contradicted = contradicted or takes
    elif family == "version-mismatch" and params.get("package") and version_range(str(params.get("want", ""))):
        range_said, meets = _against_the_range(facts, str(params["package"]), str(params["want"]))
        said.append(range_said)
        contradicted = contradicted or meets
    elif family in ("version-mismatch", "api-version-skew", "undefined-symbol"):
        names = [str(params[k]) for k in ("package", "caller", "owner") if params.get(k)]
        versions = [f"{d.name} {d.version}" for n in names if (d := facts.installed(n.split(" ")[0])) is not None]
        if versions:
            said.append("Installed here: " + ", ".join(dict.fromkeys(versions)) + ".")
    return Joined(tuple(said), contradicted, fix)
