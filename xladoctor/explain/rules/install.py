"""Installing: a resolver that cannot satisfy the requirements (pip, uv, conda), a wheel that does not exist for this
Python or platform, and a package that must be built from source and cannot be here."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from xladoctor.explain.records import Failure, file_name
from xladoctor.explain.rules import COMPILED_PARTS, GPU_CAPABILITY, Lead, rule
from xladoctor.fix import export, install, system_install
from xladoctor.matrix.failures import header_provider
from xladoctor.sanitize import scrubbed_head

PIP_RESOLVER = "https://pip.pypa.io/en/stable/topics/dependency-resolution/"

# What a failed build was building, in the installer's own words: pip's "Collecting X" before the step that failed
# ("Getting requirements to build wheel ... error", "Preparing metadata (setup.py) ... error"), its "Building wheel
# for X (setup.py) ... error", and its summaries after the build's output ("Failed building wheel for X", "Failed to
# build X"; pip 25.1's "Failed to build installable wheels for some pyproject.toml based projects" with the names
# after "╰─>" or in parentheses, pip/_internal/commands/install.py); uv's "Failed to build `X==1.0`" before it
# (crates/uv/src/commands/diagnostics.rs). Each says whether it comes before the build's error or after it.
_BUILT_BEFORE = re.compile(
    # pip's "Collecting X", or the source archive it took ("Using cached x-0.2.0.tar.gz") when the log starts there
    r"(?:Collecting (?P<collecting>[A-Za-z0-9][\w.-]{0,80})"
    r"|(?:Using cached|Downloading) (?P<archive>[A-Za-z0-9][\w.]{0,80}?)-\d[\w.+]{0,40}\.(?:tar\.gz|zip|tar\.bz2)\b)"
    r"[^\n]{0,300}\n(?:[ \t]+[^\n]{0,300}\n){0,8}?[ \t]+"
    r"(?:Getting requirements to build wheel|Preparing metadata \([\w.]{1,20}\)|Installing build dependencies)"
    r" \.\.\. error"
    r"|Building wheel for (?P<building>[A-Za-z0-9][\w.-]{0,80}) \([\w.]{1,20}\) \.\.\. error"
    r"|Failed to build `(?P<uv>[A-Za-z0-9][\w.-]{0,80}?)(?:==[^`\s]{1,80}| @ [^`\n]{1,300})?`"
)
_BUILT_AFTER = re.compile(
    r"Failed to build installable wheels for some pyproject\.toml based projects[ \t]*"
    r"(?:\((?P<listed>[^)\n]{1,300})\)|\n[^\n]{0,20}╰─>[ \t]*(?P<arrowed>[^\n]{1,300}))"
    # pip's legacy setup.py install (LegacyInstallFailure): "Encountered error while trying to install package."
    r"|Encountered error while trying to install package\.[ \t]*\n[^\n]{0,20}╰─>[ \t]*"
    r"(?P<legacy>[A-Za-z0-9][\w.-]{0,80})"
    r"|Failed (?:building wheel for|to build) (?!installable\b|one or more\b|the\b|some\b|an?\b|wheels?\b)"
    r"(?P<wheel>[A-Za-z0-9][\w.-]{0,80}?)\.?(?:[ \t]*$|[ \t]+(?:which|due|with)\b)",
    re.MULTILINE,
)
# Where the build's own sources lie: the folder pip unpacked them into (pip/_internal/req/req_install.py:
# pip-install-<random>/<name>_<32 hex digits>/setup.py), or a compiled source under site-packages
# (site-packages/deepspeed/ops/csrc/adam/x.cpp): read when the installer's words are not in the text
_BUILT_SOURCES = re.compile(
    r"pip-install-\w{4,16}[/\\](?P<unpacked>[A-Za-z0-9][\w.-]{0,80}?)_[0-9a-f]{32}[/\\]"
    r"|site-packages[/\\](?P<pkg>[A-Za-z_]\w{1,60})[/\\][^\s'\"]{0,200}?\.(?:cpp|cu|cc|c)\b"
    # a source distribution unpacked by hand and built from its folder: pytorch3d-0.7.5/pytorch3d/csrc/x.cu (the
    # package's own folder inside its name-version one, which a toolkit's cuda-12.1/include never has)
    r"|[/\\](?P<sdist>[A-Za-z][\w.]{0,60}?)-\d{1,4}(?:\.\d{1,6}){1,3}[/\\](?:(?P=sdist)-\d[\w.]{0,20}[/\\])?"
    r"(?P=sdist)[/\\]"
)
_NAME = re.compile(r"[A-Za-z0-9][\w.-]{0,80}")
_NOT_BUILT = ("torch", "nvidia")

# A build from a folder, a file or a URL (pip's "Processing ./x" and its pip-req-build- folder, a git clone, uv's
# "name @ file:///..."): a bare name given to pip again would fetch the index's package of that name instead
_DIRECT = re.compile(
    r"^[ \t]*Processing (?:\.{0,2}[/\\]|[A-Za-z]:\\|~)|pip-req-build-|Cloning (?:https?|git|ssh)://"
    r"| @ (?:file|git\+\w+|https?):",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Built:
    name: str
    line: int  # the log's line that named it
    before: bool  # the installer names it before the build's error (else in a summary after it)


def _names(found: re.Match[str]) -> list[str]:
    said = next(group for group in found.groups() if group)
    names = _NAME.findall(said)
    # a summary that lists several builds names none of them for sure
    return names[:1] if len(names) == 1 or found.lastgroup not in ("listed", "arrowed") else []


def builds_named(text: str, first_line: int = 1) -> list[Built]:
    """Each package the installer's words in `text` say it failed to build, with its line (`first_line`: the
    text's first line in the log)."""
    named: list[Built] = []
    for pattern, before in ((_BUILT_BEFORE, True), (_BUILT_AFTER, False)):
        for found in pattern.finditer(text):
            line = first_line + text.count("\n", 0, found.start())
            named += [Built(n, line, before) for n in _names(found) if n not in _NOT_BUILT]
    return named


def built_package(text: str) -> str:
    """The package a failed build was building, as the text names it: the installer's words first, then the
    folders its sources were built in; '' when it names none."""
    named = builds_named(text)
    if named:
        return min(named, key=lambda built: built.line).name
    return built_from_sources(text)


def built_from_sources(text: str) -> str:
    """The package whose sources the text's paths lie in, when a build's own lines show them; '' when none."""
    for found in _BUILT_SOURCES.finditer(text):
        name = found.group("unpacked") or found.group("pkg") or found.group("sdist")
        if name not in _NOT_BUILT:
            return name
    return ""


def built_near(line: int, named: Sequence[Built]) -> str:
    """Of the builds a log names, the one whose error is at `line`: the nearest named before it or in a summary
    after it (a log may hold several builds, each failing)."""
    before = [b for b in named if b.before and b.line <= line]
    after = [b for b in named if not b.before and b.line >= line]
    nearest = [
        *([max(before, key=lambda b: b.line)] if before else []),
        *([min(after, key=lambda b: b.line)] if after else []),
    ]
    return min(nearest, key=lambda b: abs(b.line - line)).name if nearest else ""


def built_from_a_source(text: str) -> bool:
    """The log shows a build from a folder, a file or a URL, not from the index."""
    return _DIRECT.search(text) is not None


def built_package_of(failure: Failure) -> str:
    """The package a failed build was building, as the failure's message or its frames' files name it."""
    return built_package("\n".join([failure.haystack, *(frame.file for frame in failure.frames)]))


def _building(failure: Failure) -> str:
    package = built_package_of(failure)
    return f" ({package} here)" if package else ""


CPP_EXTENSION = "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"


# pip's words for a requirement it found nothing to install for
_NOTHING_FOR = (
    # a title retyped from the message ("No Matching distribution found for ...") says the same
    r"(?:No (?i:matching) distribution found for|Could not find a version that satisfies the requirement) "
    r"(?P<requirement>[^\s(;]{1,200})"
)


def _package_of(requirement: str) -> str:
    return re.split(r"[<>=!~\[;]", requirement, maxsplit=1)[0]


@rule(
    "resolver-conflict",
    _NOTHING_FOR,
    source=PIP_RESOLVER,
    confidence=0.9,
)
def no_distribution(found: re.Match[str], failure: Failure) -> Lead:
    requirement = found.group("requirement")
    name = _package_of(requirement)
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
    ignored = re.search(
        r"Ignored the following versions that require a different python version: (?P<listed>[^\n]{1,300})",
        failure.haystack,
    )
    if ignored is not None:
        asked = re.search(r"==\s*([\w.+!-]+)", requirement)
        among = asked is not None and re.search(
            rf"(?<![\w.]){re.escape(asked.group(1))} Requires-Python", ignored.group(0)
        )
        why += (
            f" pip passed over releases for their Requires-Python ({scrubbed_head(ignored.group('listed'), 160)})"
            + (
                ": the version asked for needs another Python than this one; use a Python it supports, or a "
                "release made for this one."
                if among
                else "."
            )
        )
    return Lead(
        f"pip found nothing to install for {requirement}. {why}",
        {"package": name, "requirement": requirement},
        next=(
            f"python -m pip index versions {name}",
            "python -c 'import sys, platform; print(sys.version, platform.machine())'",
        ),
    )


# pip's resolver, after an install: "torchvision 0.16.0 requires torch==2.1.0, but you have torch 2.2.1 which is
# incompatible." (pip/_internal/commands/install.py, _warn_about_conflicts), one line for each broken requirement
_BROKEN_REQUIREMENT = re.compile(
    r"(?P<pkg>[\w.-]{1,80}) [\w.+!-]{1,40} requires (?P<req>[^\n]{1,120}?), but you(?: have|'ll have| will have) "
    r"(?P<have>[^\n]{1,120}?) which is incompatible"
)


@rule(
    "resolver-conflict",
    r"ResolutionImpossible|Cannot install (?P<what>[^`]{1,800}?) because these package versions have conflicting"
    r"|No solution found when resolving dependencies|UnsatisfiableError|PackagesNotFoundError"
    r"|Could not solve for environment specs|SolverProblemError|version solving failed"
    r"|(?:your|the) (?:project's )?requirements are unsatisfiable|"
    + _BROKEN_REQUIREMENT.pattern
    # conda: a package the channel has, but not built for this platform (a CUDA sub-package of another release)
    + r"|InvalidSpec: The package \"(?P<spec>[^\"\n]{1,160})\" is not available for the specified platform",
    source=PIP_RESOLVER,
    confidence=0.85,
)
def conflicting_requirements(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("pkg"):
        pkg, req, have = found.group("pkg"), found.group("req"), found.group("have")
        # pip prints one such line for each requirement the install broke: every one is a pin to settle
        others = [
            f"{more.group('pkg')} requires {more.group('req')} (installed: {more.group('have')})"
            for more in _BROKEN_REQUIREMENT.finditer(failure.haystack)
            if more.group("pkg") != pkg or more.group("req") != req
        ]
        also = f" pip also reports: {'; '.join(dict.fromkeys(others[:5]))}." if others else ""
        return Lead(
            f"{pkg} requires {req}, but {have} is installed: the environment holds versions that do not fit together "
            f"(pip installed one package without moving the other). Install versions that agree: the {pkg} release "
            f"made for {have}, or {req}.{also}",
            {"package": pkg, "requirement": req, "installed": have},
        )
    if found.group("spec"):
        spec = found.group("spec")
        return Lead(
            f"conda's solution needs {spec}, which its channel does not have for this platform: an unpinned package "
            "(cuda=12.2 resolving sub-packages of a newer CUDA from the nvidia channel) moved on. Pin the version "
            "(and the channel label, -c nvidia/label/cuda-12.2.2) so every sub-package comes from one release.",
            {"package": spec.split("::")[-1].split("=")[0], "spec": spec},
            next=("conda search -c nvidia 'cuda-compiler' --info  # the builds the channel has for this platform",),
        )
    if "PackagesNotFoundError" in found.group(0) and (listed := _CONDA_LISTED.search(failure.haystack, found.end())):
        wanted = listed.group("requirement")
        builds = [m.group("requirement") for m in _listed(failure.haystack, listed) if m["build"]]
        if builds:
            return Lead(
                f"conda found none of the exact builds the environment file pins ({', '.join(builds[:3])}): the part "
                "after the second '=' is a build string, and a build exists only for the platform it was made on "
                "(an environment exported on linux-64 and created on win-64 or osx-arm64, or a channel that has "
                "since removed it). Export the file again with conda env export --from-history (only the packages "
                "asked for, with no builds and none of the platform's own, such as ld_impl_linux-64 or "
                "_libgcc_mutex), or remove the build strings and those platform packages by hand; or install the "
                "packages with pip on this platform.",
                {"requirement": builds[0], "package": builds[0].split("=")[0], "option": "--from-history"},
                next=("conda info  # this platform (win-64, osx-arm64, linux-64) and the channels",),
            )
        return Lead(
            f"conda found no {wanted} in the channels it searched for this platform: the package does not exist for "
            "this OS or CPU (no CUDA packages such as pytorch-cuda exist for macOS), or the channel that has it is "
            "not listed (-c pytorch -c nvidia, conda-forge). Check the platform, or drop that package.",
            {"requirement": wanted, "package": re.split(r"[=<>!~\s]", wanted, maxsplit=1)[0]},
            next=(f"conda search '{wanted}' --info", "conda info  # the platform and the channels"),
        )
    # uv and conda explain the conflict in the lines after: "Because torch==2.3.1 has no wheels ..." names it; a
    # log cut to uv's last words ("... your requirements are unsatisfiable") has the Because before them
    because = _BECAUSE.search(failure.haystack, found.end()) or _BECAUSE.search(failure.haystack)
    named = f" ({because.group('requirement')})" if because else ""
    if nothing := _CONDA_NOTHING.search(failure.haystack):
        named = f" (nothing provides {nothing.group('what')} needed by {nothing.group('by')})"
    if pair := _UV_PAIR.search(failure.haystack):
        first = pair.group("first") + (pair.group("first_spec") or "")
        named = f" ({first} and {pair.group('second')}{pair.group('second_spec') or ''}, as you require them)"
    causes = conflict_causes(failure.haystack)
    said = (
        f" The conflict, as the installer gives it: {'; '.join(causes)}. Relax the pin one of them names, or install "
        "the releases that were made together."
        if causes
        else " Read the lines after this one for the pair; relax one pin, or install the releases that were made "
        "together."
    )
    return Lead(
        f"The installer cannot find versions that satisfy every requirement at once{named}: two packages (or a "
        "package and this Python, or an index without a matching wheel) pin incompatible versions of something." + said,
        {"what": found.group("what") or "", "requirement": because.group("requirement") if because else ""},
    )


# conda's PackagesNotFoundError lists what it did not find, one "  - name=version" line each
# (and, in an exported environment file, its build: "  - pytorch==2.0.1=py3.10_cuda11.8_cudnn8.7.0_0"; a channel
# before it: "  - nvidia/label/cuda-12.1.0::cuda-toolkit"; a private name: "  - _libgcc_mutex==0.1=main")
_CONDA_LISTED = re.compile(
    r"^\s*- (?P<requirement>(?:[\w./-]{1,80}::)?[A-Za-z0-9_][\w.-]{0,80}(?:\[[^\]\n]{1,60}\])?"
    r"(?:[=<>!~]=?[\w.*+!-]{1,40})?(?P<build>=[\w.*+!-]{1,80})?)\s*$",
    re.M,
)


def _listed(text: str, first: re.Match[str]) -> list[re.Match[str]]:
    """The list's lines from `first` on, while they follow one another (a file pasted after the error is not it)."""
    found = [first]
    while (more := _CONDA_LISTED.match(text, found[-1].end() + 1)) is not None:
        found.append(more)
    return found


# uv: "Because torch==2.3.1 has no wheels ..."; conda/mamba: "- package pytorch-2.1.0 requires python >=3.11",
# "nothing provides requested pytorch-cuda 12.4"
_BECAUSE = re.compile(
    r"(?:Because (?!the current Python)(?:only )?(?:the following versions of )?|- package |nothing provides "
    r"(?:requested )?)"
    r"(?P<requirement>[A-Za-z0-9][\w.-]{0,80}(?:[=<>!~]=?[\w.*+!-]{1,40})?)"
)
# conda/mamba's solver: "nothing provides blas * mkl needed by pytorch-1.11.0.arm64-py_3.8_0" (a build that needs
# what no channel has for this platform), read whole: its spec has spaces
_CONDA_NOTHING = re.compile(r"nothing provides (?:requested )?(?P<what>[^\n]{1,80}?) needed by (?P<by>[^\s,]{1,120})")
# uv's last sentence names the pair it could not reconcile: "And because you require torch{sys_platform == 'linux'}
# ==2.7.1 and triton{...}==3.3.1, we can conclude that your requirements are unsatisfiable."
_MARKER = r"(?:\{[^}\n]{0,120}\})?"  # uv's environment marker after a name: torch{sys_platform == 'linux'}
_UV_PAIR = re.compile(
    r"because you require (?P<first>[A-Za-z0-9][\w.-]{0,80})" + _MARKER + r"(?P<first_spec>[=<>!~]=?[\w.*+!-]{1,40})?"
    r" and (?P<second>[A-Za-z0-9][\w.-]{0,80})" + _MARKER + r"(?P<second_spec>[=<>!~]=?[\w.*+!-]{1,40})?"
)


# pip's resolver lists the pins that clash under "The conflict is caused by:" ("torchvision 0.16.0 depends on
# torch==2.1.0", "The user requested torch==2.1.0"; pip/_internal/resolution/resolvelib/factory.py); uv says "because
# triton==3.3.1 depends on system:cuda==12.9"
_DEPENDS_ON = re.compile(
    r"^\s*(?:(?P<user>The user requested(?: \(constraint\))?)"
    r"|(?P<parent>[A-Za-z0-9][\w.-]{0,80} [\w.+!-]{1,40}) depends on) (?P<requirement>[^\n]{1,160}?)\s*$"
    r"|[Bb]ecause (?P<uv_parent>[A-Za-z0-9][\w.-]{0,80}" + _MARKER + r"[=<>!~]=?[\w.*+!-]{1,40}) depends on "
    r"(?P<uv_requirement>[\w:.-]{1,80}" + _MARKER + r"[=<>!~]=?[\w.*+!-]{1,40})"
    r"(?: and you require (?P<uv_user>[A-Za-z0-9][\w.-]{0,80}" + _MARKER + r"[=<>!~]=?[\w.*+!-]{1,40}))?",
    re.M,
)


# uv: "Because the current Python version (3.13.0) does not satisfy Python>=3.9,<3.13 and tensorflow==2.18.0 depends
# on Python>=3.9,<3.13, we can conclude that tensorflow==2.18.0 cannot be used."
_UV_PYTHON = re.compile(
    r"the current Python version \((?P<python>[\d.]{1,12})\) does not satisfy (?P<need>Python\S{1,60}?)"
    r"(?: and (?P<package>[A-Za-z0-9][\w.-]{0,80}==[\w.+!-]{1,40}) depends on Python|,? we can|\s|$)"
)


def conflict_causes(text: str, most: int = 6) -> list[str]:
    """The clashing pins the resolver printed, as "X 1.0 depends on Y==2" and "you asked for Y==1", first ones
    first, each once."""
    said: list[str] = []
    if python := _UV_PYTHON.search(text):
        needs = f"{python.group('package')} needs" if python.group("package") else "the requirements need"
        said.append(f"{needs} {python.group('need')} and this is Python {python.group('python')}")
    for found in _DEPENDS_ON.finditer(text):
        if found.group("user"):
            cause = f"you asked for {found.group('requirement')}"
        elif found.group("parent"):
            cause = f"{found.group('parent')} depends on {found.group('requirement')}"
        else:
            cause = f"{found.group('uv_parent')} depends on {found.group('uv_requirement')}"
            if found.group("uv_user"):
                cause += f", and you asked for {found.group('uv_user')}"
        if cause not in said:
            said.append(cause)
        if len(said) == most:
            break
    return said


@rule(
    "resolver-conflict",
    r"Distribution `(?P<dist>[^`\s]{1,200})[^`\n]{0,300}` can't be installed because it doesn't have a source "
    r"distribution or wheel for the current platform"
    r"|(?P<pkg>[A-Za-z][\w.-]{0,80}(?:[=<>!~]=?[\w.*+!-]{1,40}(?:,[=<>!~]=?[\w.*+!-]{1,40})*)?) has no "
    r"(?:wheels with a matching (?P<tag>Python ABI|Python implementation|Python version|platform) tag"
    r"|source distribution or wheel for the current platform)",
    source="https://docs.astral.sh/uv/reference/resolver-internals/ (uv's resolver errors name the wheel tags); "
    "PyPI's torch files: 2.2.2 has macosx_10_9_x86_64 wheels, 2.3.0 and later none for Intel Macs",
    # above conflicting_requirements' 0.85: the same uv report, read for which wheel is missing and where
    confidence=0.9,
)
def no_wheel_for_this_platform(found: re.Match[str], failure: Failure) -> Lead:
    """uv says which distribution has no wheel for this interpreter or platform, in its own words (pip's are
    no_distribution's and wrong_wheel's), with this machine's tag (resolving: "(e.g., `macosx_13_0_x86_64`)"; from a
    lock file: "hint: You're on macOS (`macosx_14_0_x86_64`)") and the platforms that have one."""
    requirement = found.group("dist") or found.group("pkg") or ""
    name = re.split(r"[<>=!~\[;@ ]", requirement, maxsplit=1)[0]
    tag = found.group("tag") or "platform"
    after = failure.haystack[found.end() : found.end() + 2000]
    example = re.match(r"\s*\(e\.g\.,?\s*`(?P<tag>[\w.]{1,80})`\)", after) or re.search(
        r"You're on \w{1,20} \(`(?P<tag>[\w.]{1,80})`\)", after
    )
    here = example.group("tag") if example else ""
    # uv wraps its hints at any space: the words between are matched across line breaks
    offered = re.search(
        r"Wheels\s+are\s+available\s+for\s+`(?P<package>[\w.-]{1,80})`\s+\((?P<version>v[\w.+!-]{1,40})\)\s+on\s+the"
        r"\s+following\s+platforms?:\s*(?P<platforms>(?:`[\w.]{1,80}`[,\s]*(?:and\s+)?){1,12})"
        r"|only\s+has\s+wheels\s+for\s+the\s+following\s+platforms?:\s*(?P<only>(?:`[\w.]{1,80}`[,\s]*(?:and\s+)?){1,12})",
        after,
    )
    elsewhere = ""
    if offered and (offered.group("only") or offered.group("package").lower() == name.lower()):
        platforms = ", ".join(re.findall(r"`([\w.]{1,80})`", offered.group("platforms") or offered.group("only")))
        version = f" {offered.group('version')}" if offered.group("version") else ""
        elsewhere = f" uv lists wheels of {name}{version} for {platforms} only."
    params = {"package": name, "requirement": requirement, "tag": here or tag}
    if name == "torch" and re.fullmatch(r"macosx_\d+_\d+_x86_64", here):
        return Lead(
            f"No wheel of {requirement} for this Mac's tag, {here}: PyTorch publishes no Intel-Mac (macOS x86_64) "
            f"wheels after torch 2.2.2, so nothing newer installs on an x86_64 Python on macOS.{elsewhere} On an "
            "Apple silicon Mac this Python is an x86_64 build running under Rosetta: install an arm64 Python and make "
            "the environment again. On an Intel Mac, torch stops at 2.2.2 (for Python 3.12 or older, with numpy<2), "
            "or is built from source.",
            params,
            next=("sysctl -in hw.optional.arm64  # 1: an Apple silicon Mac, even from an x86_64 (Rosetta) shell",),
        )
    where = f" (this machine's tag: {here})" if here else ""
    return Lead(
        f"uv found no wheel of {requirement} for this interpreter ({tag} tag){where} and no source to build: the "
        f"release is not built for this Python version, OS or CPU (or the index serves other builds).{elsewhere} Pick "
        "a release (or Python) that has a wheel here; `uv pip install --python-platform` and `--python-version` show "
        "what resolves.",
        params,
        next=(f"uv pip install --dry-run '{name}' -v",),
    )


@rule(
    "resolver-conflict",
    r"(?:Package '(?P<package>[\w.-]{1,80})' )?requires a different Python: (?P<have>[\d.]{1,12}) not in "
    r"'(?P<want>[^']{1,80})'|(?P<version>\d[\w.]{0,30}) Requires-Python (?P<want2>[^\s;]{1,80})",
    source="https://packaging.python.org/en/latest/specifications/core-metadata/#requires-python",
    confidence=0.9,
)
def wrong_python(found: re.Match[str], failure: Failure) -> Lead:
    want = found.group("want") or found.group("want2") or ""
    have = found.group("have")
    # pip: "Could not find a version that satisfies the requirement numpy==1.21.2" names the package of the
    # versions it ignored for their Requires-Python
    wanted = re.search(_NOTHING_FOR, failure.haystack)
    package = found.group("package") or (_package_of(wanted.group("requirement")) if wanted else "")
    release = f"{package} {found.group('version')}" if package and found.group("version") else package or "This release"
    return Lead(
        f"{release} needs Python {want}, but the interpreter is "
        + (f"Python {have}" if have else "another")
        + ": use a Python in that range (a new venv), or a release of the package that supports this Python.",
        {"python": have or "", "requires_python": want, "package": package},
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
    said = " ".join(found.group(0).split())  # the message as one line: torch breaks it before "PyTorch"
    return Lead(
        f"Building a CUDA extension{_building(failure)} needs nvcc of the CUDA torch was built with: nvcc is {nvcc}, "
        f"torch's CUDA is {torch} ({said}). Point CUDA_HOME (and PATH) at a CUDA {torch.split('.')[0]}.x toolkit, or "
        f"install a torch built for CUDA {nvcc}; a prebuilt wheel of the extension avoids the build.",
        {"nvcc": nvcc, "torch_cuda": torch, "variable": "CUDA_HOME"},
        next=("nvcc --version; python -c 'import torch; print(torch.version.cuda)'",),
    )


# DeepSpeed's own check before it JIT-builds an op (ops/op_builder/builder.py, assert_no_cuda_mismatch): two installed
# things that do not pair, as versions_checks.py's releases_disagree reads the whole message; here also the `raise`
# line a traceback shows when the message itself was not pasted
@rule(
    "version-mismatch",
    r"DeepSpeed Op Builder: Installed CUDA version (?:(?P<nvcc>\d+\.\d+)|\{sys_cuda_version\}) does not match the"
    r"(?: version torch was compiled with (?P<torch>\d+\.\d+))?",
    source="https://github.com/deepspeedai/DeepSpeed/blob/master/op_builder/builder.py (assert_no_cuda_mismatch)",
    confidence=0.9,
)
def deepspeed_op_cuda_mismatch(found: re.Match[str], failure: Failure) -> Lead:
    nvcc, torch = found.group("nvcc") or "", found.group("torch") or ""
    versions = f" (the toolkit's {nvcc}, torch's {torch})" if nvcc and torch else ""
    return Lead(
        "DeepSpeed builds its CUDA ops (FusedAdam, CPUAdam, ...) on first use with the CUDA toolkit it finds "
        f"(CUDA_HOME, nvcc), and refuses when that toolkit's CUDA is not the one torch was built with{versions} (minor "
        "differences it knows to be safe pass). Point CUDA_HOME at a toolkit of torch's CUDA, or install a torch "
        "built for the toolkit's CUDA. DS_SKIP_CUDA_CHECK=1 skips the check (within one major version the build "
        "usually works; across major versions it may fail or the op misbehave).",
        {"nvcc": nvcc, "torch_cuda": torch, "variable": "CUDA_HOME", "package": "deepspeed"},
        next=("nvcc --version; echo $CUDA_HOME; python -c 'import torch; print(torch.version.cuda)'", "ds_report"),
    )


@rule(
    "bad-configuration",
    r"Unknown CUDA arch \((?P<arch>[^)\n]{1,40})\) or GPU not supported",
    source=CPP_EXTENSION + " (_get_cuda_arch_flags: each arch of TORCH_CUDA_ARCH_LIST, or of the GPUs seen when it is "
    "unset, must be one this torch release knows)",
    confidence=0.85,
)
def arch_list_unknown_to_torch(found: re.Match[str], failure: Failure) -> Lead:
    """torch's extension builder checks every architecture it is to compile for against the list its release
    knows. The list comes from TORCH_CUDA_ARCH_LIST when set (images and CI set it for GPUs the build machine lacks),
    else from the GPUs present: an arch newer than the installed torch (9.0 for torch 1.13, 12.0 before 2.7)."""
    arch = found.group("arch")
    known = arch.split("+", 1)[0]
    return Lead(
        f"Building a CUDA extension{_building(failure)} stopped before nvcc ran: the installed torch does not know "
        f"CUDA architecture {arch}. The architectures come from TORCH_CUDA_ARCH_LIST when it is set, else from this "
        "machine's GPUs. Set TORCH_CUDA_ARCH_LIST to your GPUs' compute capabilities among those this torch knows "
        f"(an older one with +PTX also runs on a newer GPU), or upgrade torch to a release that knows {known}.",
        {"variable": "TORCH_CUDA_ARCH_LIST", "arch": arch},
        # no export here: the right list is this machine's GPUs', which the log does not say
        next=(
            'echo "$TORCH_CUDA_ARCH_LIST"  # set? then it is the list',
            GPU_CAPABILITY + "  # your GPU's (8, 6) is 8.6",
            "python -c 'import torch; print(torch.__version__, torch.cuda.get_arch_list())'",
        ),
    )


@rule(
    "build-failure",
    r"CUDA_HOME environment variable is not set|No CUDA runtime is found, using CUDA_HOME|cannot find CUDA_HOME|nvcc "
    r"was not found"
    # DeepSpeed's op builder (op_builder/builder.py, installed_cuda_version) asks torch's CUDA_HOME at install and at
    # import alike
    r"|(?P<deepspeed>CUDA_HOME does not exist, unable to compile CUDA op)"
    # apex's setup.py check (flash-attn's setup.py had it too in 2023, and other extensions copy it), read from the
    # traceback's last line when the paste stops before its message ("... was requested, but nvcc was not found")
    r"|raise_if_cuda_home_none\(",
    source=CPP_EXTENSION + "; https://github.com/deepspeedai/DeepSpeed/blob/master/op_builder/builder.py; "
    "https://github.com/NVIDIA/apex/blob/master/setup.py (raise_if_cuda_home_none; flash-attn's setup.py in "
    "Dao-AILab/flash-attention#447)",
    confidence=0.9,
)
def no_cuda_home(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("deepspeed"):
        return Lead(
            "DeepSpeed's op builder looked for the CUDA toolkit (nvcc, through torch's CUDA_HOME) and found none: it "
            "checks at install and when deepspeed is imported (transformers and accelerate import it when it is "
            "installed). Install the toolkit of torch's CUDA (conda: cuda-nvcc of that version; or NVIDIA's "
            "toolkit) and set CUDA_HOME to it; or, when you do not use DeepSpeed, uninstall it.",
            {"variable": "CUDA_HOME", "tool": "nvcc", "package": "deepspeed"},
            export("CUDA_HOME", "/usr/local/cuda", note="where the toolkit of torch's CUDA is installed"),
            next=(
                "python -c 'import torch; print(torch.version.cuda)'  # the toolkit version to install",
                "which nvcc",
            ),
        )
    return Lead(
        f"Building a CUDA extension{_building(failure)} needs the CUDA toolkit (nvcc), and none was found: install a "
        "toolkit of torch's CUDA and set CUDA_HOME, or install a prebuilt wheel of the package (matching torch and "
        "Python).",
        {"variable": "CUDA_HOME", "tool": "nvcc"},
        export("CUDA_HOME", "/usr/local/cuda", note="where the toolkit of torch's CUDA is installed"),
    )


# torch's JIT extension builder (cpp_extension.py, _run_ninja_build) ends a failed compile with this one line; the
# compiler's own first error is above it when the paste has it, and another rule reads that line first.
@rule(
    "build-failure",
    r"Error building extension '(?P<extension>[\w.-]{1,100})'",
    source=CPP_EXTENSION + " (_run_ninja_build)",
    confidence=0.7,
)
def extension_build_failed(found: re.Match[str], failure: Failure) -> Lead:
    extension = found.group("extension")
    return Lead(
        f"torch compiled the C++/CUDA extension {extension} at run time and the compiler failed. The first `error:` "
        "of the compiler's output above this line names why; the usual ones are an nvcc of another CUDA than "
        "torch's, a host compiler too new for that nvcc, a missing header, or no CUDA_HOME. Run it again with the "
        "whole output, or install a prebuilt wheel of the package that brings the extension.",
        {"extension": extension, "variable": "CUDA_HOME"},
        verdict="unknown",  # the extension may be the user's own code (load_inline): its compile errors are theirs
        next=(
            "nvcc --version; gcc --version; python -c 'import torch; print(torch.version.cuda)'",
            "MAX_JOBS=1 python ...  # one compile at a time: the first error is then the last lines printed",
        ),
    )


@rule(
    "build-failure",
    r"Microsoft Visual C\+\+ 14\.0 or greater is required|error: Microsoft Visual C\+\+"
    # torch's C++ extension builder asks Windows where cl.exe is before it writes its ninja file
    r"|Command '\['where', 'cl'\]' returned non-zero exit status",
    source="https://wiki.python.org/moin/WindowsCompilers; https://github.com/pytorch/pytorch/blob/main/torch/utils/"
    "cpp_extension.py (_write_ninja_file: where cl)",
    confidence=0.95,
)
def msvc_missing(found: re.Match[str], failure: Failure) -> Lead:
    if "where" in found.group(0):
        return Lead(
            "Building a C++/CUDA extension on Windows needs Microsoft's C++ compiler (cl.exe) on PATH, and `where cl` "
            "found none: install Visual Studio's Build Tools (Desktop development with C++) and run from the \"x64 "
            'Native Tools Command Prompt" (or after vcvars64.bat), or install a prebuilt wheel of the package.',
            {"tool": "cl.exe (MSVC)"},
            next=("where cl",),
        )
    return Lead(
        "The package has no wheel for this Python on Windows and must be compiled, which needs Microsoft's C++ Build "
        "Tools: install them, or use a Python version the package publishes wheels for.",
        {"tool": "Microsoft Visual C++ Build Tools"},
    )


@rule(
    "build-failure",
    r"Command '\['which', '(?P<cxx>c\+\+|g\+\+|gcc|cc|clang\+\+)'\]' returned non-zero exit status",
    # torch/utils/cpp_extension.py asked `which c++` (check_compiler_abi_compatibility, older torch) before it built
    source="https://github.com/pytorch/pytorch/blob/v1.13.0/torch/utils/cpp_extension.py (which c++); "
    "https://github.com/isaac-sim/IsaacGymEnvs/issues/68 (maintainer: install build-essential)",
    confidence=0.9,
)
def cxx_compiler_missing(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"A C++ extension was to be compiled (a package's JIT-built op, torch.utils.cpp_extension.load), and "
        f"`which {found.group('cxx')}` found no C++ compiler: install one (build-essential on Debian/Ubuntu, the Xcode "
        "command line tools on macOS), or set CXX to the compiler to use.",
        {"tool": found.group("cxx")},
        system_install("apt", "build-essential"),
    )


@rule(
    "module-not-found",
    r"NameError: name '(?P<name>\w{0,60}(?:_cuda\w{0,20}|_cpp|_ext|_C|_kernels?|_cuda_core))' is not defined",
    source="https://docs.python.org/3/library/exceptions.html#NameError (a name bound only by an import that failed "
    "and was caught)",
    confidence=0.7,
)
def extension_never_imported(found: re.Match[str], failure: Failure) -> Lead:
    """Research code imports its compiled kernels inside try/except and goes on without them: the NameError comes
    later, where the kernel is first used."""
    name = found.group("name")
    raiser = failure.last_frame
    if name == "_C" and raiser is not None and raiser.owner == "torch":
        # torch's own compiled core (torch/__init__.py binds _C early): its import failed before this line
        return Lead(
            "torch's own import failed partway: `_C` is torch's compiled core, bound at the start of "
            "torch/__init__.py. Most often torch was imported a second time after a first import failed in the same "
            "interpreter or notebook kernel (restart it: the first error is the one to read), or a file or folder "
            "named torch in the working directory shadows the package; otherwise the install is broken: reinstall "
            "torch.",
            {"module": "torch._C", "package": "torch"},
            verdict="environment",
            next=("python -c 'import torch'  # in a fresh interpreter, from another folder: the first error",),
        )
    if name == "_C":
        # `_C` is the name a package gives the extension its own setup.py compiles (torch.utils.cpp_extension's
        # convention; GroundingDINO imports it in a try/except and goes on): not another package to install, but
        # this one's build that left it out
        return _built_without_its_extension()
    return Lead(
        f"{name} looks like a compiled extension module that was never imported: its import failed earlier and the "
        f"code went on without it (a try/except around the import). Build and install the package that provides it "
        f"(often a kernels folder of the project, installed with pip install . or python setup.py install), then run "
        f"`python -c 'import {name}'` to see the real error.",
        {"module": name},
        next=(f"python -c 'import {name}'",),
    )


@rule(
    "build-failure",
    r"Failed to load custom C\+\+ ops\. Running on CPU mode [Oo]nly",
    source="https://github.com/IDEA-Research/GroundingDINO/blob/main/groundingdino/models/GroundingDINO/"
    "ms_deform_attn.py (the import of its _C extension failed; setup.py builds it without CUDA when CUDA_HOME is "
    "unset or no GPU is visible at build time)",
    confidence=0.7,
)
def custom_ops_not_built(found: re.Match[str], failure: Failure) -> Lead:
    """GroundingDINO (and the many projects that vendor it) warns and goes on without its compiled _C extension;
    the GPU path then fails later (`name '_C' is not defined`). The extension was built without CUDA."""
    return _built_without_its_extension()


def _built_without_its_extension() -> Lead:
    return Lead(
        "The package's compiled extension (_C, its custom CUDA ops) did not load: it was built without CUDA (CUDA_HOME "
        "unset, or no GPU visible while `pip install` / `setup.py` ran) or not built at all. Set CUDA_HOME to the CUDA "
        "toolkit that matches torch's CUDA and reinstall the package from its source folder (pip install "
        "--no-build-isolation -e . there), on a machine that sees the GPU.",
        {"variable": "CUDA_HOME", "extension": "_C"},
        family="build-failure",
        verdict="environment",
        next=("python -c 'import torch; from torch.utils.cpp_extension import CUDA_HOME; print(torch.version.cuda, "
              "CUDA_HOME)'",),
    )  # fmt: skip


@rule(
    "module-not-found",
    r"Couldn't find appropriate backend to handle uri (?P<uri>[^\n]{1,200}?) and format (?P<format>\w{1,10})?",
    source="https://github.com/pytorch/audio/blob/main/src/torchaudio/_backend/utils.py (get_load_func)",
    confidence=0.9,
)
def torchaudio_no_backend(found: re.Match[str], failure: Failure) -> Lead:
    fmt = (found.group("format") or "").lower()
    if fmt in ("", "none"):  # no format given: the file's extension says it
        extension = re.search(r"\.(\w{2,5})['\"]?\s*$", found.group("uri"))
        fmt = extension.group(1).lower() if extension else ""
    if fmt and fmt not in ("wav", "flac", "ogg"):
        # a compressed format (mp3, m4a, mp4, webm, opus): FFmpeg's libraries are torchaudio's decoder for them
        return Lead(
            f"torchaudio found no backend that can read this {fmt} (it loaded none of FFmpeg's libraries, soundfile or "
            "sox): for compressed formats its backend is FFmpeg's shared libraries (libavcodec, libavformat, a version "
            "torchaudio supports). Install FFmpeg on the host or in the conda env (soundfile with libsndfile 1.1 or "
            "newer also reads mp3).",
            {"library": "ffmpeg", "format": fmt, "module": "torchaudio"},
            verdict="environment",
            family="missing-library",
            next=("python -c 'import torchaudio; print(torchaudio.list_audio_backends())'",),
        )
    return Lead(
        "torchaudio has no audio I/O backend that can read this file: none of soundfile, sox or ffmpeg is available "
        "to it. Install soundfile (pip) for wav/flac, or FFmpeg's shared libraries for other formats.",
        {"package": "soundfile", "module": "torchaudio"},
        install(("soundfile", "")),
        next=("python -c 'import torchaudio; print(torchaudio.list_audio_backends())'",),
    )


# The C++ standard library's own headers (no .h): when the compiler cannot open one of these, the compiler's
# environment is what is missing, not a package (https://en.cppreference.com/w/cpp/header).
_STANDARD_HEADERS = frozenset(
    "algorithm array atomic cassert cmath cstddef cstdint cstdio cstdlib cstring functional iostream limits map memory "
    "mutex new optional string tuple type_traits unordered_map utility vector".split()
)


@rule(
    "build-failure",
    r"(?P<header>[\w/.+-]{1,120}\.(?:h|hpp|hh|hxx|cuh))\W{0,3}: (?:No such file or directory"
    # glibc's strerror(ENOENT) in the locales build logs come in most (its po files: zh_CN, de, es, fr, ja, ru)
    r"|没有那个文件或目录|Datei oder Verzeichnis nicht gefunden|No existe el archivo o el directorio"
    r"|Aucun fichier ou dossier de ce type|そのようなファイルやディレクトリはありません|Нет такого файла или каталога)"
    # MSVC's words for the same (C1083), with or without the .h: https://learn.microsoft.com/en-us/cpp/error-messages/compiler-errors-1/fatal-error-c1083
    r"|fatal error C1083: Cannot open include file: '(?P<msvc>[\w/.+-]{1,120})'",
    source="https://gcc.gnu.org/onlinedocs/cpp/Search-Path.html; compat_matrix/failures/system-headers.json (who "
    "installs a header)",
    confidence=0.9,
)
def header_missing(found: re.Match[str], failure: Failure) -> Lead:
    header = found.group("header") or found.group("msvc")
    if header in _STANDARD_HEADERS and found.group("msvc"):
        return Lead(
            f"MSVC cannot open <{header}>, a header of the C++ standard library itself: the compiler runs without its "
            "own environment (INCLUDE, LIB). Build from the 'x64 Native Tools Command Prompt for VS' (or after "
            "running vcvars64.bat), with the 'Desktop development with C++' workload installed.",
            {"header": header, "tool": "MSVC"},
            next=(
                '"C:\\Program Files\\Microsoft Visual Studio\\2022\\BuildTools\\VC\\Auxiliary\\Build\\vcvars64.bat"',
                "echo %INCLUDE%",
            ),  # fmt: skip
        )
    if header in _STANDARD_HEADERS:
        return Lead(
            f"The compiler cannot open <{header}>, a header of the C++ standard library: the C++ compiler or its "
            "standard library is not installed (g++, libstdc++-dev), or a C compiler was used for C++.",
            {"header": header, "tool": "g++"},
            system_install("apt", "g++"),
        )
    if header == "Python.h":
        fix = system_install("apt", "python3-dev")
        what = "Python's development headers (python3.X-dev)"
    elif header.startswith(("cuda", "cublas", "cusparse", "cudnn", "nccl", "cuda_runtime")):
        fix = None
        what = "the CUDA toolkit's headers (CUDA_HOME)"
    elif (known := header_provider(header)) is not None:
        fix = system_install("apt", known.apt)
        what = f"{known.provider} ({known.apt} on Debian and Ubuntu; your system's package of it elsewhere)"
    else:
        fix = None
        what = "the development package that ships it"
    return Lead(
        f"Compiling needs {header}, which is not installed: install {what}, or a prebuilt wheel.",
        {"header": header},
        fix,
    )


# c10/util/C++17.h refuses an older language standard with "#error C++17 or later compatible compiler is required to
# use PyTorch." (torch 2.1 and later; C++14 before): an extension whose setup.py passes -std=c++14 to cxx or nvcc.
@rule(
    "build-failure",
    r"#error [\\\"]{0,2}C\+\+(?P<std>\d\d) or later compatible compiler is required to use (?P<what>PyTorch|ATen|c10)",
    source="https://github.com/pytorch/pytorch/blob/main/c10/util/C%2B%2B17.h",
    confidence=0.95,
)
def cxx_standard_too_old(found: re.Match[str], failure: Failure) -> Lead:
    std = found.group("std")
    return Lead(
        f"torch's headers need C++{std}, and this build compiles with an older standard: the extension's setup.py "
        f"(or CMakeLists) passes an older -std= to the compiler or to nvcc. Change it to -std=c++{std} in both the "
        "cxx and the nvcc flags (torch.utils.cpp_extension adds the right one when the package does not set its own).",
        {"flag": f"-std=c++{std}", "file": "setup.py"},
        next=("grep -rn -- '-std=' setup.py CMakeLists.txt 2>/dev/null",),
    )


@rule(
    "build-failure",
    r"unsupported GNU version! gcc versions later than (?P<gcc>\d+) are not supported|unsupported (?:GNU|clang) "
    r"version"
    # torch's extension builder checks the host compiler against its table for the CUDA toolkit first
    # (cpp_extension.py, _check_cuda_version and CUDA_GCC_VERSIONS / CUDA_CLANG_VERSIONS); older releases gave the
    # top inclusively ("by CUDA 11.7 (11.5.0) ... (>=6.0.0, <=11.5.0)"), newer ones exclusively ("(>=6.0.0, <14.0)").
    # The compiler is named as found: x86_64-linux-gnu-g++, a conda toolchain's full path.
    r"|The current installed version of (?P<compiler>[^\s()]{0,200}?(?:g\+\+|gcc|c\+\+|clang\+\+|clang)) "
    r"\((?P<have>[\d.]{1,20})\) is greater than the maximum required version by CUDA "
    r"(?P<cuda>\d{1,3}(?:\.\d{1,3}){0,2})"
    r"(?: \((?P<max>[\d.]{1,20})\))?"
    r"(?:[^\n(]{0,120}\(>=[\d.]{1,20}, ?(?P<op><=?)(?P<bound>[\d.]{1,20})\))?",
    source="https://docs.nvidia.com/cuda/cuda-installation-guide-linux/ (host compiler support); "
    + CPP_EXTENSION
    + " (_check_cuda_version)",
    confidence=0.9,
)
def host_compiler(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("compiler"):
        return _host_compiler_too_new(found)
    return Lead(
        f"nvcc refuses this host compiler (gcc later than {found.group('gcc') or 'its supported range'}): point it "
        "at a supported gcc (CC/CXX, or NVCC_CCBIN), or use a newer CUDA toolkit.",
        {"variable": "NVCC_CCBIN"},
    )


def _host_compiler_too_new(found: re.Match[str]) -> Lead:
    """torch's own check of the host compiler against the CUDA toolkit nvcc is from: the newest version it allows,
    read from the bound it prints (inclusive in older releases, exclusive in newer ones)."""
    compiler = scrubbed_head(found.group("compiler"), 200)
    name = compiler.replace("\\", "/").rsplit("/", 1)[-1]
    have, cuda = found.group("have"), found.group("cuda")
    newest = found.group("max") or (found.group("bound") if found.group("op") == "<=" else "")
    if newest:
        major = newest.split(".")[0]
        allowed = f"up to {newest}"
    elif found.group("bound"):  # "<14.0": the newest major allowed is the one below
        major = str(int(found.group("bound").split(".")[0]) - 1)
        allowed = f"below {found.group('bound')}"
    else:
        major, allowed = "", "an older one"
    clang = "clang" in name
    if clang:
        point = (
            f"Install clang {major} (or use gcc) and point the build at it (CC and CXX)"
            if major
            else ("Point the build at an older clang, or at gcc (CC and CXX)")
        )
    else:
        point = (
            f"Install gcc {major} and point the build at it (CC=gcc-{major} CXX=g++-{major}; conda-forge's "
            f"gxx_linux-64={major} where the system has none)"
            if major
            else "Install an older gcc and point the build at it (CC and CXX)"
        )
    return Lead(
        f"The host compiler is {name} {have}, newer than CUDA {cuda}'s nvcc supports ({allowed}): torch's extension "
        f"builder stopped before compiling. {point}, or use a CUDA toolkit new enough for {name} {have} (and a torch "
        "built for it).",
        {"compiler": f"{name} {have}", "cuda": cuda, "supported": allowed, "variable": "CXX"},
        next=(
            ("ls /usr/bin/clang* 2>/dev/null  # the clang versions installed",)
            if clang
            else (f"ls /usr/bin/g++-* /usr/bin/gcc-* 2>/dev/null  # a gcc {major or 'of an older major'} installed?",)
        ),
    )


@rule(
    "build-failure",
    r"Ninja is required to load C\+\+ extensions|ninja: build stopped: subcommand failed"
    # DeepSpeed's op builder (deepspeed/ops/op_builder/builder.py, jit_load)
    r"|Unable to JIT load the \w{1,80} op due to ninja not being installed",
    source=CPP_EXTENSION + "; https://github.com/deepspeedai/DeepSpeed/blob/master/op_builder/builder.py (jit_load)",
    confidence=0.7,
)
def ninja(found: re.Match[str], failure: Failure) -> Lead:
    if "required" in found.group(0) or "not being installed" in found.group(0):
        return Lead(
            "torch's C++ extension builder (DeepSpeed's op builder uses it) needs ninja, which is not installed: "
            "install the ninja package.",
            {"package": "ninja"},
            install(("ninja", "")),
        )
    return Lead(
        "A C++/CUDA compile step failed (ninja stopped): the first `error:` line above this one is the cause.",
        {},
        confidence=0.5,
    )


# DeepSpeed's JIT op builder compiles for the visible GPUs' architectures (deepspeed/ops/op_builder/builder.py,
# compute_capability_args): with none visible, or CUDA already initialised in a forked process, it asks for the list
@rule(
    "build-failure",
    r"DeepSpeed JIT builder for '(?P<op>\w{1,80})' (?:found no CUDA devices|cannot probe CUDA device capabilities)",
    source="https://github.com/deepspeedai/DeepSpeed/blob/master/op_builder/builder.py (compute_capability_args: "
    "'Set TORCH_CUDA_ARCH_LIST')",
    confidence=0.85,
)
def deepspeed_builder_sees_no_gpu(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"DeepSpeed compiles its {found.group('op')} op for the architectures of the GPUs it sees, and it sees none "
        "here (a build without GPUs, CUDA_VISIBLE_DEVICES hiding them, or a forked process where CUDA was already "
        "initialised): set TORCH_CUDA_ARCH_LIST to the compute capabilities to build for (the GPUs the job will run "
        'on, e.g. "8.0;9.0"), or build where the GPUs are visible.',
        {"op": found.group("op"), "variable": "TORCH_CUDA_ARCH_LIST"},
        next=("nvidia-smi --query-gpu=name,compute_cap --format=csv  # the architectures to list",),
    )


@rule(
    "build-failure",
    r"Failed building wheel for (?P<pkg>[\w.-]{1,80})|Failed to build (?:installable wheels for some pyproject\.toml "
    r"based projects \(?)?(?P<pkg2>[\w.-]{1,80})|error: command '(?P<cmd>[^']{1,200})' failed"
    # pip before 21.3 (pip/_internal/utils/subprocess.py): "Command errored out with exit status 1: python setup.py
    # egg_info Check the logs for full command output."
    r"|Command errored out with exit status \d+: [^\n]{0,300}?setup\.py['\"]?[^\n]{0,300}? (?:egg_info|bdist_wheel"
    r"|install|develop|build_ext)\b",
    source="https://pip.pypa.io/en/stable/reference/build-system/; https://github.com/pypa/pip/blob/20.3/src/pip/"
    "_internal/utils/subprocess.py ('Command errored out with exit status')",
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


@rule(
    "build-failure",
    r"nvcc fatal\s*:\s*Unknown option '?(?P<option>-{1,2}[\w-]{1,80})'?",
    # torch/utils/cpp_extension.py passes flags of the nvcc of torch's own CUDA (--generate-dependencies-with-compile
    # for ninja's header dependencies, among others): an older nvcc does not know them
    source=CPP_EXTENSION + " (the nvcc flags of _write_ninja_file_and_compile_objects); "
    "https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/ (the options of each release)",
    confidence=0.8,
)
def nvcc_unknown_option(found: re.Match[str], failure: Failure) -> Lead:
    option = found.group("option")
    if re.match(r"-(?:f|W|m|O\d|pthread|std=)", option):  # gcc's own flags: nvcc takes them only via -Xcompiler
        return Lead(
            f"nvcc was given {option}, a flag of the host C++ compiler: the build passes it to nvcc without "
            "-Xcompiler (the package's setup.py, or NVCC_FLAGS/CFLAGS set in the environment). Check those "
            "variables; otherwise it is the package's build script to report.",
            {"tool": "nvcc", "option": option},
            verdict="unknown",
            next=("env | grep -E 'NVCC_FLAGS|CFLAGS|CXXFLAGS|TORCH_NVCC_FLAGS'",),
        )
    return Lead(
        f"The nvcc that builds the extension does not know the option {option}: it is older than the build expects "
        "(torch's cpp_extension passes the flags of the CUDA torch was built with). Point CUDA_HOME (and PATH) at a "
        "CUDA toolkit of torch's CUDA major version, or install a prebuilt wheel of the package.",
        {"tool": "nvcc", "option": option, "variable": "CUDA_HOME"},
        next=("nvcc --version; echo $CUDA_HOME; python -c 'import torch; print(torch.version.cuda)'",),
    )


@rule(
    "resolver-conflict",
    r"The [\"'](?P<old>[\w.-]{1,80})[\"'] (?:package has been removed|PyPI package is deprecated)[\s\S]{0,400}?"
    r"(?:Please install|use) [\"'](?P<new>[\w.\[\]-]{1,80})[\"']"
    r"|Downloading (?P<stub>tensorflow-gpu)-2\.(?:1[2-9]|[2-9]\d)[\w.]*\.tar\.gz",
    # PyPI placeholders whose only release fails on install with this text: tensorflow-gpu since 2.12 (Dec 2022; its
    # sdist is all pip downloads of it, and its setup.py raises), sklearn (scikit-learn's brownout, 2023)
    source="https://pypi.org/project/tensorflow-gpu/ ; https://github.com/scikit-learn/sklearn-pypi-package",
    confidence=0.95,
)
def placeholder_package(found: re.Match[str], failure: Failure) -> Lead:
    old, new = (found.group("old"), found.group("new")) if found.group("old") else (found.group("stub"), "tensorflow")
    return Lead(
        f"The package {old} is a placeholder on PyPI that refuses to install; {new} replaces it. Replace {old} with "
        f"{new} in the requirements (requirements.txt, environment.yml, setup.py) that name it.",
        {"package": old, "replacement": new},
        next=(f"grep -rn -- '{old}' requirements*.txt environment*.yml setup.py pyproject.toml 2>/dev/null",),
    )


# A shell that cannot find a program, in each shell's words: bash ("bash: line 1: X: command not found"), zsh
# ("zsh: command not found: X"), dash ("sh: 1: X: not found"), cmd.exe ("'X' is not recognized as an internal or
# external command"), PowerShell ("The term 'X' is not recognized as the name of a cmdlet" / "as a name of a cmdlet"
# in 7.x), env(1) running a shebang ("/usr/bin/env: 'python': No such file or directory"), and Python's subprocess
# starting a tool that is not there (FileNotFoundError: [Errno 2] ...: 'nvcc'; only the tools below: any other
# bare name may be the user's own file).
_PROGRAM = r"[A-Za-z0-9][\w.+-]{0,59}"  # (a name of "_" or "__" is a shell function's: __vsc_prompt_cmd, __git_ps1)
# an option (with its =value up to the shell's words: a URL's or a path's colons are the value's), as no program is
# named; a backslash ends it, so that bash's "\r" of a CRLF script is read as its own
_OPTION = r"--?[A-Za-z][\w.-]{0,59}(?:=[^\s'\\]{0,200}?)?"
_LAST_OPTION = r"--?[A-Za-z][\w.-]{0,59}(?:=\S{0,200})?"  # zsh's: the option ends its line
# The tools whose absence is not a PATH slip: a CUDA/ROCm toolkit or driver that is missing, or a compiler.
_TOOLKIT = {"nvcc": "the CUDA toolkit", "ptxas": "the CUDA toolkit", "hipcc": "ROCm's HIP SDK"}
_DRIVER = {"nvidia-smi": "NVIDIA's driver", "rocm-smi": "ROCm", "amd-smi": "ROCm"}
_COMPILER = ("gcc", "g++", "cc", "c++", "cl", "cl.exe", "clang", "clang++", "ninja", "make", "cmake")


@rule(
    "bad-configuration",
    # an option run as a command: the line of a script before it does not end with its backslash (bash, bash with a
    # CR after it as "$'--fp16\r'", zsh, dash's "train.sh: 7: --lr: not found", cmd.exe)
    rf"(?:(?P<script>[^\s:]{{1,200}}): line (?P<line>\d{{1,6}}): )?"
    rf"\$?'?(?P<option>{_OPTION})(?P<cr>\\r)?'?: command not found"
    # zsh names the script and its line without spaces ("./train.sh:5: command not found: --lr"), or "zsh:1:"
    rf"|(?:(?P<script_zsh>[^\s:]{{1,200}}):(?P<line_zsh>\d{{1,6}}): )?command not found: (?P<option_zsh>{_LAST_OPTION})"
    rf"|(?P<script_dash>[^\s:]{{1,200}}): (?P<line_dash>\d{{1,6}}): (?P<option_dash>{_OPTION}): not found"
    rf"|'(?P<option_cmd>{_OPTION})' is not recognized as an internal or external command"
    # a script saved with Windows line ends: bash shows each command's CR ("$'python\r'", a blank line's "$'\r'")
    r"|(?:(?P<crlf_script>[^\s:]{1,200}): line \d{1,6}: )?\$'(?P<crlf>[^'\n]{0,80})\\r': command not found"
    rf"|zsh(?::\d{{1,6}})?: command not found: (?P<zsh>{_PROGRAM})"
    rf"|[^\s:]{{1,200}}:\d{{1,6}}: command not found: (?P<zsh_script>{_PROGRAM})"
    rf"|(?<![\w.+-])(?!zsh: command)(?P<bash>{_PROGRAM}): command not found"
    rf"|\bsh: \d+: (?P<dash>{_PROGRAM}): not found"
    rf"|'(?P<cmd>{_PROGRAM})' is not recognized as an internal or external command"
    rf"|The term '(?P<ps>{_PROGRAM})' is not recognized as (?:the|a) name of a cmdlet"
    rf"|/usr/bin/env: '?(?P<env>{_PROGRAM})'?: No such file or directory"
    r"|FileNotFoundError: \[(?:Errno 2|WinError 2)\][^\n']{0,80}'(?P<tool>nvcc|ptxas|hipcc|nvidia-smi|rocm-smi|amd-smi"
    r"|gcc|g\+\+|cc|c\+\+|cl|clang|clang\+\+|ninja|make|cmake)'",
    source="https://www.gnu.org/software/bash/manual/bash.html#Command-Search-and-Execution (and cmd.exe, "
    "PowerShell's CommandNotFoundException, env(1), Python's subprocess FileNotFoundError)",
    confidence=0.85,
)
def program_not_found(found: re.Match[str], failure: Failure) -> Lead:
    """A program the job ran is not on PATH: a console script of a package installed into another environment (or
    not at all), or a toolkit, driver tool or compiler that is not installed."""
    if any(found.group(group) for group in ("option", "option_zsh", "option_dash", "option_cmd")):
        return _option_run_as_a_command(found)
    if found.group("crlf") is not None:
        script = found.group("crlf_script")
        script = None if script is None or _is_a_shell(script) else script
        return Lead(
            "The shell script has Windows line ends (CR LF): bash reads each line's CR as part of the command "
            f"({scrubbed_head(found.group(0), 80)}), so nothing it runs is named as written. Convert the script "
            "to LF line ends (dos2unix, or your editor's setting), or check it out with git's core.autocrlf=false.",
            {"fix": "dos2unix"},
            family="user-code-error",
            verdict="not-environment",
            next=(f"file -- {shlex.quote(script) if script else 'SCRIPT'}  # 'with CRLF line terminators' if it has",),
        )
    program = next(value for value in found.groupdict().values() if value)
    base = program.lower().removesuffix(".exe")
    where = "`where " + program + "`" if found.group("cmd") or found.group("ps") else "`command -v " + program + "`"
    if base in _TOOLKIT:
        return Lead(
            f"{program} is not on PATH: {_TOOLKIT[base]} is not installed, or its bin folder is not on PATH. Building "
            "a GPU extension needs it: install the toolkit of the framework's CUDA (or ROCm), point CUDA_HOME (or "
            "ROCM_PATH) at it and put its bin on PATH, or install a prebuilt wheel instead.",
            {"program": program, "variable": "CUDA_HOME" if base != "hipcc" else "ROCM_PATH"},
            family="build-failure",
            next=(f"{where}; ls /usr/local/cuda*/bin/{base} 2>/dev/null",),
        )
    if base in _DRIVER:
        return Lead(
            f"{program} is not on PATH: {_DRIVER[base]} is not installed on this machine, or this container was "
            "started without the GPU runtime (docker run --gpus all, or the device plugin on Kubernetes), which is "
            "what brings the driver's tools in.",
            {"program": program},
            family="accelerator-unavailable",
            next=(where, "ls /dev/nvidia* /dev/kfd 2>/dev/null"),
        )
    if base in _COMPILER:
        return Lead(
            f"{program} is not installed (or not on PATH), and the build needs it: install a C/C++ toolchain "
            "(build-essential on Debian/Ubuntu, Xcode's command line tools on macOS, Visual Studio's Build Tools on "
            "Windows; ninja and cmake from PyPI), or install a prebuilt wheel instead.",
            {"program": program},
            family="build-failure",
            next=(where,),
        )
    if base in ("python", "python3", "pip", "pip3"):
        return Lead(
            f"The shell cannot find {program}: no Python environment that has it is active (activate the venv or "
            "conda env), or the system names it otherwise (Debian and Ubuntu have only python3: `python3 -m pip`, "
            "or apt's python-is-python3).",
            {"program": program, "variable": "PATH"},
            next=(where, "command -v python3"),
        )
    return Lead(
        f"The shell cannot find {program}: the command is not on PATH. When it is a package's console script "
        f"({program} is installed by a Python package), the environment it was installed into is not the active one "
        "(activate the venv or conda env, or add its bin/ or Scripts\\ folder to PATH), or it is not installed; "
        f"`python -m` with the package's module runs it without PATH.",
        {"program": program, "variable": "PATH"},
        next=(where, f"python -m pip show -f {program}"),
    )


def _option_run_as_a_command(found: re.Match[str]) -> Lead:
    """No program is named like an option: `--dataset: command not found` is an argument of the command above it,
    left on a line of its own because the script's line before it does not end with a backslash (or has a space or a
    CR of a Windows editor after it, which bash shows as `$'--fp16\\r'`), so the shell ended the command there."""
    option = (
        found.group("option") or found.group("option_zsh") or found.group("option_dash") or found.group("option_cmd")
    )
    script = found.group("script") or found.group("script_dash") or found.group("script_zsh")
    line = found.group("line") or found.group("line_dash") or found.group("line_zsh")
    if script is not None and _is_a_shell(script):
        script = None  # bash -c, a login shell (-bash) or a script piped in: the shell's own name, no file
    where = f"the line before line {line} of {script}" if script and line else "the line before it"
    carriage = (
        " The script has Windows line ends (CR LF): the CR after each backslash hides it from the shell; convert it "
        "(dos2unix, or your editor's LF line ends)."
        if found.group("cr")
        else ""
    )
    continuation = "^" if found.group("option_cmd") else "\\"  # cmd.exe's continuation, and the POSIX shells'
    return Lead(
        f"The shell ran the option {option} as a command: {where} does not end with {continuation} (or "
        "has a space or a Windows line end after it), so the command stopped there and its later arguments were run "
        f"on their own; the command itself then ran without them. End every continued line with `{continuation}` "
        f"and nothing after it.{carriage}",
        {"option": option, **({"script": script} if script else {})},
        family="user-code-error",
        verdict="not-environment",
        next=(f"grep -n -v '\\\\$' -- {shlex.quote(script)}  # the lines that end with no backslash",)
        if script
        else (),
    )


# Shells, as a script's name in their messages is theirs when they ran commands given them (bash -c '...')
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})


def _is_a_shell(script: str) -> bool:
    """The name a shell's message gives is the shell's own (a path to it, a login shell's "-bash", Git Bash's
    bash.exe), not a script's; a name that starts with "-" is none grep could be given either."""
    name = file_name(script).lstrip("-").lower().removesuffix(".exe")
    return name in _SHELLS or script.startswith("-")


@rule(
    "build-failure",
    r"^error: \[WinError 2\] The system cannot find the file specified",
    # setuptools' "error: ..." line for an OSError while it ran a build tool (spawn of nvcc, cl.exe or ninja)
    source="https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499- (ERROR_FILE_NOT_FOUND); "
    "https://github.com/pypa/setuptools (the 'error: ' line of a failed build step)",
    confidence=0.7,
    flags=re.MULTILINE,
)
def windows_build_tool_missing(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The build could not start a program it runs (WinError 2: file not found): on Windows usually nvcc (the "
        "CUDA toolkit is not installed, or CUDA_HOME/CUDA_PATH points where it is not), cl.exe (run from the x64 "
        "Native Tools prompt of Visual Studio's Build Tools) or ninja. Install the missing one, or a prebuilt wheel.",
        {"variable": "CUDA_HOME", "tool": "nvcc, cl.exe or ninja"},
        next=("where nvcc cl ninja", "echo %CUDA_HOME% %CUDA_PATH%"),
    )


@rule(
    "resolver-conflict",
    r"failed to solve: process \"(?P<command>[^\"\n]{0,600}?\b"
    r"(?P<installer>pip3?|conda|mamba|micromamba|uv|apt-get|apt)\b[^\"\n]{0,40}?\binstall\b[^\"\n]{0,600})\" "
    r"did not complete successfully: exit code: (?P<code>\d{1,3})",
    source="https://github.com/moby/buildkit (a RUN step whose command exited non-zero: 'failed to solve: process "
    "... did not complete successfully')",
    confidence=0.5,
)
def image_install_step_failed(found: re.Match[str], failure: Failure) -> Lead:
    """docker build stops at a RUN step and prints only its command: when that command installs packages, the
    installer refused (a pin that no longer resolves, a package gone from its channel). Its own message is in the
    step's output above, which BuildKit folds away unless asked."""
    installer = found.group("installer")
    return Lead(
        f"A RUN step of the Dockerfile that installs packages with {installer} failed (exit code "
        f"{found.group('code')}): the installer could not satisfy the step's pins (a version or channel that moved "
        "on since the Dockerfile was written). Its own error is in the step's output: rebuild with --progress=plain "
        "and read the installer's message, then pin what it names.",
        {"installer": installer, "file": "Dockerfile"},
        next=("docker build --progress=plain --no-cache .  # the step's full output",),
    )


# The CUDA libraries a build links by -l name, and where a toolkit keeps them
_CUDA_LINKED = frozenset(
    {"cudart", "cuda", "cublas", "cublasLt", "cudnn", "curand", "cufft", "cusparse", "cusolver", "nvrtc"}
)


@rule(
    "build-failure",
    r"\bld(?:\.\w+)?: (?:cannot find|error: unable to find library) -l(?P<library>[\w+.-]{1,80})",
    # GNU ld's words ("ld: cannot find -lcudart"), and LLVM lld's ("ld.lld: error: unable to find library -lcudart"),
    # when no lib<name>.so/.a is on the link path
    source="https://sourceware.org/git/?p=binutils-gdb.git;a=blob;f=ld/ldfile.c (cannot find -l); "
    "https://github.com/llvm/llvm-project/blob/main/lld/ELF/Driver.cpp (unable to find library -l)",
    confidence=0.85,
)
def linker_cannot_find(found: re.Match[str], failure: Failure) -> Lead:
    library = found.group("library")
    cuda = library in _CUDA_LINKED
    where = (
        "the CUDA toolkit's library folder is not on the link path: set LIBRARY_PATH to $CUDA_HOME/lib64 (for -lcuda, "
        "the driver's stub in $CUDA_HOME/lib64/stubs), or install the toolkit whose nvcc the build uses"
        if cuda
        else f"install the development package of lib{library} (its .so or .a), or add its folder to LIBRARY_PATH"
    )
    return Lead(
        f"Building{_building(failure)} failed at the link step: the linker found no lib{library} (-l{library}): "
        f"{where}.",
        {"library": f"lib{library}"},
        next=("echo $CUDA_HOME $LIBRARY_PATH", f"ldconfig -p | grep -F lib{library}."),
    )


@rule(
    "module-not-found",
    r"Could not find package\s+(?P<module>[\w.]{1,80})\.\s+Install\s+(?P<dist>[\w.-]{1,80})\s+using\s+'"
    r"(?P<command>[^']{5,600})'",
    source="https://github.com/NVIDIA/TransformerEngine/blob/main/transformer_engine/common/__init__.py (the "
    "framework extension a PyPI install of the core lacks, and the extra that brings it)",
    confidence=0.85,
)
def framework_extension_not_installed(found: re.Match[str], failure: Failure) -> Lead:
    """Transformer Engine is split into a core wheel and one extension per framework (transformer_engine_torch,
    transformer_engine_jax); `pip install transformer-engine` brings the core alone, and the extension comes with
    the extra of that framework, built from source against the installed torch or jax."""
    module, dist = found.group("module"), found.group("dist")
    extra = re.search(r"\[\s*(?P<extra>\w+)\s*\]", found.group("command"))
    wanted = f"{dist}[{extra.group('extra')}]" if extra else dist
    return Lead(
        f"{module} is not installed: {dist} was installed without its framework extension, which the extra "
        f"brings ({wanted}). Install it at the version of the installed {dist}: python -m pip install "
        f"--no-build-isolation '{wanted}==VERSION' (VERSION from `pip show {dist}`; it builds against the installed "
        "framework, so install that first).",
        {"module": module, "package": dist, "extra": wanted},
        next=(f"python -m pip show {dist}",),
    )


# The compiled half of a package that ships its CUDA/C++ ops as one extension module beside the Python code
# (mmcv/ext_loader.py imports "mmcv._ext"; detectron2, GroundingDINO and pytorch3d import "<package>._C"): missing
# when the package was installed without building it (mmcv-lite, or mmcv 2.x from PyPI's source distribution with
# no compiler), or when the program runs inside the package's source folder, whose unbuilt copy shadows the install.
# The same missing module reads "cannot import name '_C' from 'groundingdino'" when the package's __init__ imports it
# as `from . import _C` (GroundingDINO, sam2; nerfacc and gsplat name theirs csrc).
@rule(
    "module-not-found",
    r"No module named '(?P<package>(?!torch\b|torch_xla\b)\w{2,60})\.(?P<ext>_C|_ext)'"
    r"|cannot import name '(?P<ext2>"
    + "|".join(COMPILED_PARTS)
    + r")' from '(?P<package2>(?!torch'|torch_xla')\w{2,60})'",
    source="https://github.com/open-mmlab/mmcv/blob/main/mmcv/utils/ext_loader.py; "
    "https://mmcv.readthedocs.io/en/latest/get_started/installation.html (mmcv vs mmcv-lite); "
    "https://github.com/IDEA-Research/GroundingDINO/blob/main/groundingdino/models/GroundingDINO/ms_deform_attn.py "
    "(`from groundingdino import _C`)",
    confidence=0.85,
)
def compiled_extension_missing(found: re.Match[str], failure: Failure) -> Lead:
    package, ext = found.group("package") or found.group("package2"), found.group("ext") or found.group("ext2")
    mmcv = package == "mmcv"
    return Lead(
        f"{package} is installed without its compiled extension ({package}.{ext}): it was installed without building "
        "its C++/CUDA ops"
        + (" (mmcv-lite, or mmcv built with no compiler; mmcv 1.x names the full build mmcv-full)" if mmcv else "")
        + f", or the program runs inside {package}'s source folder, whose unbuilt copy shadows the installed one. "
        f"Install a build of {package} with its ops for this torch and CUDA (a prebuilt wheel from the project's "
        "own index, or build it where nvcc and torch are present), or run from another folder.",
        {"package": "mmcv-full" if mmcv else package, "module": f"{package}.{ext}"},
        next=(f"python -c 'import {package}, os; print(os.path.dirname({package}.__file__))'",),
    )


# pip replacing a framework while installing something else: "Installing collected packages: torch, xformers" and
# "Successfully uninstalled torch-2.4.1" (pip's req_uninstall.py). The package asked for pins another release of it.
_FRAMEWORKS_SWAPPED = r"torch|torchvision|torchaudio|jax|jaxlib|tensorflow|triton"


@rule(
    "resolver-conflict",
    rf"Successfully uninstalled (?P<framework>{_FRAMEWORKS_SWAPPED})-(?P<old>\d+\.\d+[\w.+]*)",
    source="https://github.com/pypa/pip/blob/main/src/pip/_internal/req/req_uninstall.py (Successfully "
    "uninstalled); " + PIP_RESOLVER + "; settled so in https://github.com/facebookresearch/xformers/issues/1146",
    confidence=0.55,  # below a specific family's: a later error that names its own cause comes first
)
def framework_swapped_by_install(found: re.Match[str], failure: Failure) -> Lead:
    framework, old = found.group("framework"), found.group("old")
    return Lead(
        f"pip removed {framework} {old} while installing another package: a package of this install requires "
        f"another release of {framework} (an extension built against one torch, such as xformers or flash-attn, "
        f"pins it exactly), so pip swapped it, and a CUDA or CPU build may have come in its place. Install the "
        f"release of that package made for {framework} {old} (its changelog or wheel metadata names it), or pin "
        f"{framework}=={old} in the same command to make pip say which requirement conflicts.",
        {"package": framework, "version": old},
        next=(f"python -m pip show {framework} | head -3", "python -m pip check"),
    )


# The installer and the shell around it refusing before anything of the stack ran: what to change is the set-up.
@rule(
    "bad-configuration",
    r"Run 'conda init' before 'conda activate'",
    source="https://docs.conda.io/projects/conda/en/latest/commands/init.html (conda activate needs the shell "
    "function conda init installs)",
    confidence=0.9,
)
def conda_not_initialised(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "This shell has not loaded conda's shell function, so `conda activate` cannot change the environment (and "
        "what runs next runs in whichever Python is first on PATH). Run `conda init` for this shell once and open a "
        'new one; in a script or a container, load it first: source "$(conda info --base)/etc/profile.d/conda.sh".',
        {"tool": "conda", "command": "conda init"},
        next=('source "$(conda info --base)/etc/profile.d/conda.sh" && conda activate ENV_NAME',),
    )


@rule(
    "bad-configuration",
    r"error: externally-managed-environment",
    source="https://peps.python.org/pep-0668/ (a distribution's Python marked EXTERNALLY-MANAGED); "
    "https://github.com/pypa/pip/blob/main/src/pip/_internal/exceptions.py (ExternallyManagedEnvironment)",
    confidence=0.9,
)
def externally_managed(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "pip refused to install into the operating system's Python (PEP 668: the distribution manages its "
        "packages, and pip would break them). Install into a virtual environment of your own instead (python3 -m "
        "venv .venv, then .venv/bin/python -m pip install ...), or with pipx for a command-line tool. Not with "
        "--break-system-packages: that is what the refusal protects against.",
        {"tool": "pip", "option": "venv"},
        next=("python3 -m venv .venv && .venv/bin/python -m pip install --upgrade pip",),
    )


@rule(
    "bad-configuration",
    r"CERTIFICATE_VERIFY_FAILED|SSLCertVerificationError",
    source="https://pip.pypa.io/en/stable/topics/https-certificates/ (pip's certificate bundle and --cert)",
    confidence=0.9,  # a warning's (pip's "Could not fetch URL") still explains the resolver's failure after it
)
def certificate_not_trusted(found: re.Match[str], failure: Failure) -> Lead | None:
    if "Retrying (Retry(" in failure.text and "CERTIFICATE_VERIFY_FAILED" not in failure.message.split("\n", 1)[-1]:
        return None  # pip trying again, which may well succeed: its last word on the URL says whether it did
    return Lead(
        "The HTTPS connection was refused because the server's certificate does not chain to a certificate "
        "authority this Python trusts: most often a network that inspects TLS (a corporate proxy) whose own CA is "
        "not in the bundle pip and Python use; on macOS, a python.org install whose 'Install Certificates' step was "
        "not run. Point pip at the network's CA (pip config set global.cert /path/to/ca.pem, or PIP_CERT; "
        "REQUESTS_CA_BUNDLE or SSL_CERT_FILE for Python code) rather than turning verification off.",
        {"option": "global.cert", "variable": "PIP_CERT"},
        next=(
            "python -m pip config list  # a cert, index or proxy already set",
            'python -c "import ssl; print(ssl.get_default_verify_paths())"  # the bundle Python trusts',
        ),
    )
