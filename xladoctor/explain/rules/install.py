"""Installing: a resolver that cannot satisfy the requirements (pip, uv, conda), a wheel that does not exist for this
Python or platform, and a package that must be built from source and cannot be here."""

from __future__ import annotations

import re

from xladoctor.explain.records import Failure
from xladoctor.explain.rules import Lead, rule
from xladoctor.fix import export, system_install

PIP_RESOLVER = "https://pip.pypa.io/en/stable/topics/dependency-resolution/"
CPP_EXTENSION = "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"


@rule(
    "resolver-conflict",
    r"(?:No matching distribution found for|Could not find a version that satisfies the requirement) "
    r"(?P<requirement>[^\s(]{1,200})",
    source=PIP_RESOLVER,
    confidence=0.9,
)
def no_distribution(found: re.Match[str], failure: Failure) -> Lead:
    requirement = found.group("requirement")
    name = re.split(r"[<>=!~\[;]", requirement, maxsplit=1)[0]
    versions = re.search(r"\(from versions: (?P<versions>[^)]{0,400})\)", failure.haystack)
    listing = versions.group("versions").strip() if versions else ""
    why = (
        f"The index has {name} only as {listing[-120:]}: none is built for this Python version and platform, or the "
        "version asked for is not among them."
        if listing and listing != "none"
        else f"The index has no release of {name} for this Python version and platform (or under that name): check "
        "the package's supported Pythons, the platform (Windows/macOS/aarch64), and the index URL (PyTorch's own "
        "builds live on download.pytorch.org)."
    )
    return Lead(
        f"pip found nothing to install for {requirement}. {why}",
        {"package": name, "requirement": requirement},
        next=(
            f"python -m pip index versions {name}",
            "python -c 'import sys, platform; print(sys.version, platform.machine())'",
        ),
    )


@rule(
    "resolver-conflict",
    r"ResolutionImpossible|Cannot install (?P<what>[^`]{1,800}?) because these package versions have conflicting"
    r"|No solution found when resolving dependencies|UnsatisfiableError|PackagesNotFoundError"
    r"|Could not solve for environment specs|SolverProblemError|version solving failed"
    r"|(?:your|the) (?:project's )?requirements are unsatisfiable"
    r"|(?P<pkg>[\w.-]{1,80}) [\w.+!-]{1,40} requires (?P<req>[^\n,]{1,120}), but you(?: have|'ll have| will have) "
    r"(?P<have>[^\n]{1,120}?) which is incompatible",
    source=PIP_RESOLVER,
    confidence=0.85,
)
def conflicting_requirements(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("pkg"):
        pkg, req, have = found.group("pkg"), found.group("req"), found.group("have")
        return Lead(
            f"{pkg} requires {req}, but {have} is installed: the environment holds versions that do not fit together "
            f"(pip installed one package without moving the other). Install versions that agree: the {pkg} release "
            f"made for {have}, or {req}.",
            {"package": pkg, "requirement": req, "installed": have},
        )
    # uv and conda explain the conflict in the lines after: "Because torch==2.3.1 has no wheels ..." names it; a
    # log cut to uv's last words ("... your requirements are unsatisfiable") has the Because before them
    because = _BECAUSE.search(failure.haystack, found.end()) or _BECAUSE.search(failure.haystack)
    named = f" ({because.group('requirement')})" if because else ""
    return Lead(
        f"The installer cannot find versions that satisfy every requirement at once{named}: two packages (or a "
        "package and this Python, or an index without a matching wheel) pin incompatible versions of something. "
        "Read the lines after this one for the pair; relax one pin, or install the releases that were made together.",
        {"what": found.group("what") or "", "requirement": because.group("requirement") if because else ""},
    )


# uv: "Because torch==2.3.1 has no wheels ..."; conda/mamba: "- package pytorch-2.1.0 requires python >=3.11",
# "nothing provides requested pytorch-cuda 12.4"
_BECAUSE = re.compile(
    r"(?:Because (?:only )?|- package |nothing provides (?:requested )?)"
    r"(?P<requirement>[A-Za-z0-9][\w.-]{0,80}(?:[=<>!~]=?[\w.*+!-]{1,40})?)"
)


@rule(
    "resolver-conflict",
    r"Distribution `(?P<dist>[^`\s]{1,200})[^`\n]{0,300}` can't be installed because it doesn't have a source "
    r"distribution or wheel for the current platform"
    r"|(?P<pkg>[A-Za-z0-9][\w.-]{0,80})(?:==(?P<version>[\w.+!-]{1,40}))? has no (?:wheels with a matching "
    r"(?P<tag>Python ABI|Python implementation|Python version|platform) tag"
    r"|source distribution or wheel for the current platform)",
    source="https://docs.astral.sh/uv/reference/resolver-internals/ (uv's resolver errors name the wheel tags)",
    confidence=0.85,
)
def no_wheel_for_this_platform(found: re.Match[str], failure: Failure) -> Lead:
    """uv says which distribution has no wheel for this interpreter or platform, in its own words (pip's are
    no_distribution's and wrong_wheel's)."""
    requirement = found.group("dist") or found.group("pkg") or ""
    name = re.split(r"[<>=!~\[;@ ]", requirement, maxsplit=1)[0]
    tag = found.group("tag") or "platform"
    return Lead(
        f"uv found no wheel of {requirement} for this interpreter ({tag} tag) and no source to build: the release is "
        "not built for this Python version, OS or CPU (or the index serves other builds). Pick a release (or Python) "
        "that has a wheel here; `uv pip install --python-platform` and `--python-version` show what resolves.",
        {"package": name, "requirement": requirement, "tag": tag},
        next=(f"uv pip install --dry-run '{name}' -v",),
    )


@rule(
    "resolver-conflict",
    r"requires a different Python: (?P<have>[\d.]{1,12}) not in '(?P<want>[^']{1,80})'|Requires-Python "
    r"(?P<want2>[^\s]{1,80})",
    source="https://packaging.python.org/en/latest/specifications/core-metadata/#requires-python",
    confidence=0.9,
)
def wrong_python(found: re.Match[str], failure: Failure) -> Lead:
    want = found.group("want") or found.group("want2") or ""
    return Lead(
        f"This release needs Python {want}, but the interpreter is {found.group('have') or 'another'}: use a "
        "Python in that range (a new venv), or a release of the package that supports this Python.",
        {"python": found.group("have") or "", "requires_python": want},
    )


@rule(
    "build-failure",
    r"The detected CUDA version \((?P<nvcc>[\d.]+)\) mismatches the version that was used to compile\s+PyTorch "
    r"\((?P<torch>[\d.]+)\)",
    source=CPP_EXTENSION + " (CUDA_MISMATCH_MESSAGE)",
    confidence=0.95,
)
def nvcc_mismatch(found: re.Match[str], failure: Failure) -> Lead:
    nvcc, torch = found.group("nvcc"), found.group("torch")
    return Lead(
        f"Building a CUDA extension needs nvcc of the CUDA torch was built with: nvcc is {nvcc}, torch's CUDA is "
        f"{torch}. Point CUDA_HOME (and PATH) at a CUDA {torch.split('.')[0]}.x toolkit, or install a torch built "
        f"for CUDA {nvcc}; a prebuilt wheel of the extension avoids the build.",
        {"nvcc": nvcc, "torch_cuda": torch, "variable": "CUDA_HOME"},
        next=("nvcc --version; python -c 'import torch; print(torch.version.cuda)'",),
    )


@rule(
    "build-failure",
    r"CUDA_HOME environment variable is not set|No CUDA runtime is found, using CUDA_HOME|cannot find CUDA_HOME|nvcc "
    r"was not found",
    source=CPP_EXTENSION,
    confidence=0.9,
)
def no_cuda_home(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Building a CUDA extension needs the CUDA toolkit (nvcc), and none was found: install a toolkit of torch's "
        "CUDA and set CUDA_HOME, or install a prebuilt wheel of the package (matching torch and Python).",
        {"variable": "CUDA_HOME", "tool": "nvcc"},
        export("CUDA_HOME", "/usr/local/cuda", note="where the toolkit of torch's CUDA is installed"),
    )


@rule(
    "build-failure",
    r"Microsoft Visual C\+\+ 14\.0 or greater is required|error: Microsoft Visual C\+\+",
    source="https://wiki.python.org/moin/WindowsCompilers",
    confidence=0.95,
)
def msvc_missing(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The package has no wheel for this Python on Windows and must be compiled, which needs Microsoft's C++ Build "
        "Tools: install them, or use a Python version the package publishes wheels for.",
        {"tool": "Microsoft Visual C++ Build Tools"},
    )


@rule(
    "build-failure",
    r"fatal error: (?P<header>[\w/.+-]{1,120}\.h(?:pp)?): No such file or directory",
    source="https://gcc.gnu.org/onlinedocs/cpp/Search-Path.html",
    confidence=0.9,
)
def header_missing(found: re.Match[str], failure: Failure) -> Lead:
    header = found.group("header")
    if header == "Python.h":
        fix = system_install("apt", "python3-dev")
        what = "Python's development headers (python3.X-dev)"
    elif header.startswith(("cuda", "cublas", "cusparse", "cudnn", "nccl", "cuda_runtime")):
        fix = None
        what = "the CUDA toolkit's headers (CUDA_HOME)"
    else:
        fix = None
        what = "the development package that ships it"
    return Lead(
        f"Compiling needs {header}, which is not installed: install {what}, or a prebuilt wheel.",
        {"header": header},
        fix,
    )


@rule(
    "build-failure",
    r"unsupported GNU version! gcc versions later than (?P<gcc>\d+) are not supported|unsupported (?:GNU|clang) "
    r"version",
    source="https://docs.nvidia.com/cuda/cuda-installation-guide-linux/ (host compiler support)",
    confidence=0.9,
)
def host_compiler(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"nvcc refuses this host compiler (gcc later than {found.group('gcc') or 'its supported range'}): point it "
        "at a supported gcc (CC/CXX, or NVCC_CCBIN), or use a newer CUDA toolkit.",
        {"variable": "NVCC_CCBIN"},
    )


@rule(
    "build-failure",
    r"Ninja is required to load C\+\+ extensions|ninja: build stopped: subcommand failed",
    source=CPP_EXTENSION,
    confidence=0.7,
)
def ninja(found: re.Match[str], failure: Failure) -> Lead:
    if "required" in found.group(0):
        return Lead(
            "torch's C++ extension builder needs ninja, which is not installed: install the ninja package.",
            {"package": "ninja"},
        )
    return Lead(
        "A C++/CUDA compile step failed (ninja stopped): the first `error:` line above this one is the cause.",
        {},
        confidence=0.5,
    )


@rule(
    "build-failure",
    r"Failed building wheel for (?P<pkg>[\w.-]{1,80})|Failed to build (?:installable wheels for some pyproject\.toml "
    r"based projects \(?)?(?P<pkg2>[\w.-]{1,80})|error: command '(?P<cmd>[^']{1,200})' failed",
    source="https://pip.pypa.io/en/stable/reference/build-system/",
    confidence=0.6,
)
def wheel_build_failed(found: re.Match[str], failure: Failure) -> Lead:
    pkg = found.group("pkg") or found.group("pkg2") or ""
    return Lead(
        f"pip had to build {pkg or 'a package'} from source and the build failed: no wheel matches this Python, "
        "platform and torch. The first compiler or setup error above is the cause; a prebuilt wheel for this "
        "combination (or --no-build-isolation, when its build imports torch) avoids it.",
        {"package": pkg},
    )


@rule(
    "resolver-conflict",
    r"No version (?P<version>[\d.]+) of (?:the )?(?P<pkg>[\w.-]{1,80}) was found"
    r"|(?P<pkg2>tensorflow-gpu)[^\n]{0,60}(?:no longer|not) (?:supported|available)",
    source="https://pypi.org/project/tensorflow-gpu/ (tensorflow-gpu is no longer updated: tensorflow[and-cuda] "
    "replaces it)",
    confidence=0.7,
)
def no_such_version(found: re.Match[str], failure: Failure) -> Lead:
    pkg = found.group("pkg") or found.group("pkg2")
    gpu = pkg == "tensorflow-gpu"
    return Lead(
        f"No release {found.group('version') or ''} of {pkg} exists for this platform"
        + (
            ": tensorflow-gpu stopped at 2.12 and is no longer built; install tensorflow[and-cuda] (Linux/WSL2)."
            if gpu
            else "."
        ),
        {"package": pkg},
    )


@rule(
    "build-failure",
    r"(?i)(?:only supported on|requires?|needs?) CUDA (?P<need>\d+\.\d+)(?: and above| or (?:higher|newer|later)|\+)"
    r"[^\n]{0,200}?\bnvcc\b|\bnvcc\b[^\n]{0,120}?(?:version|-V)[^\n]{0,80}?(?:too old|not supported|unsupported|"
    r"must be|required|>=)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py (CUDA_HOME, the nvcc a build "
    "uses); a package's setup.py checks that nvcc's version",
    confidence=0.8,
)
def nvcc_too_old(found: re.Match[str], failure: Failure) -> Lead:
    """A package's build script refused the CUDA toolkit: it checks nvcc (the toolkit CUDA_HOME or PATH finds), not
    the CUDA version torch was built with, so a newer torch does not help."""
    need = found.group("need") or ""
    return Lead(
        "Building the package needs a newer CUDA toolkit than the nvcc it found"
        + (f" (CUDA {need} or newer)" if need else "")
        + ": the check is on nvcc, not on torch's CUDA. Install that toolkit and point CUDA_HOME (and PATH) at it, "
        "or install a prebuilt wheel of the package.",
        {"tool": "nvcc", "need": f"CUDA {need}" if need else "", "variable": "CUDA_HOME"},
        next=("nvcc --version; echo $CUDA_HOME; which nvcc",),
    )
