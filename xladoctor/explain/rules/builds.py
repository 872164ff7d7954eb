"""Building a package's native code failed: the compiler's own error, a build that needs a module it does not
declare, a wheel made for another platform."""

from __future__ import annotations

import re

from xladoctor.explain.platforms import platform_of_failure
from xladoctor.explain.records import Failure
from xladoctor.explain.rules import Lead, rule
from xladoctor.explain.rules.install import built_package_of
from xladoctor.fix import export, install, shell, system_install
from xladoctor.sanitize import scrubbed_head

# pip's words around a build's own output: a rule that reads that output outranks them
_ENVELOPES = (
    "subprocess-exited-with-error",
    "metadata-generation-failed",
    "Could not build wheels",
    "legacy-install-failure",
)


@rule(
    "build-failure",
    r"(?P<file>[\w./\\-]{1,200}\.(?:cpp|cu|cuh|cc|c|h|hpp))\(?:?\d+\)?:?\d*:? (?:fatal )?error:? (?P<what>[^\n]{3,200})"
    r"|Error compiling objects for extension|Could not build wheels for (?P<pkg>[\w.-]{1,80})"
    r"|metadata-generation-failed"
    r"|subprocess-exited-with-error|Command '\['ninja', '-v'[^\n]{0,40}returned non-zero exit|CppCompileError"
    # pip's envelope of a setup.py install (pip/_internal/exceptions.py, LegacyInstallFailure); a build's CMake step
    r"|legacy-install-failure|Command '\['cmake',[^\n]{0,600}?returned non-zero exit"
    r"|Compiler: cl is not found",
    source="https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py",
    confidence=0.65,
)
def compile_error(found: re.Match[str], failure: Failure) -> Lead:
    said = found.group(0)
    if "cl is not found" in said:
        return Lead(
            "torch.compile's C++ backend on Windows needs MSVC's compiler (cl.exe), which is not on PATH: run from a "
            "Visual Studio Developer prompt, or install the Build Tools.",
            {"tool": "cl"},
        )
    envelope = said.startswith(_ENVELOPES)
    package = found.group("pkg") or built_package_of(failure)
    whose = f"{package}'s compiled extension" if package else "a compiled package"
    return Lead(
        f"Building {whose} failed ({scrubbed_head(said, 160)}): the compiler, the CUDA toolkit or a header it needs "
        "does not fit this environment (a compiler older than the package's sources need, an nvcc of another CUDA "
        "than torch's). A prebuilt wheel for this Python, torch and CUDA, or a release of the package that has one, "
        "avoids the build.",
        {"package": package, "file": found.group("file") or ""},
        # pip's envelope ("This error originates from a subprocess"): the build's own output, quoted inside it,
        # holds the cause, and a rule that reads that output outranks it; alone, it still says a build failed
        confidence=0.55 if envelope else None,
    )


@rule(
    "build-failure",
    r"#error (?P<said>You need C\+\+(?P<std>\d{2}) to compile PyTorch|[^\n]{3,200})",
    source='https://github.com/pytorch/pytorch/blob/main/c10/util/C++17.h ("#error You need C++17 to compile '
    'PyTorch"); https://gcc.gnu.org/onlinedocs/cpp/Diagnostics.html (#error)',
    confidence=0.7,
)
def header_refuses_compiler(found: re.Match[str], failure: Failure) -> Lead:
    """A header's `#error`, printed by the compiler that read it: the header refused this compiler or its settings,
    which is what a build of an extension against the installed framework stopped on."""
    said, std = found.group("said").strip(), found.group("std")
    if std:
        return Lead(
            f"PyTorch's headers refuse this compiler ({said}): building an extension against the installed torch "
            f"needs a C++ compiler with C++{std} (gcc 9 or newer; the gcc torch was built with is safest), and this "
            "one is older or runs with an older -std. Install a newer gcc/g++ and point the build at it (CC, CXX), "
            "or install a prebuilt wheel of the package.",
            {"tool": "gcc", "standard": f"C++{std}", "variable": "CXX"},
            next=("gcc --version; g++ --version",),
        )
    return Lead(
        f"A header refused this build ({said}): the compiler, its settings or the library the header belongs to "
        "do not fit what the package being built needs. That line says what it wants.",
        {"tool": "compiler"},
        confidence=0.55,
        next=("gcc --version; nvcc --version",),
    )


BUILD_ISOLATION = "https://pip.pypa.io/en/stable/reference/build-system/pyproject-toml/#build-isolation"

# A build's frames: pip's (its setuptools caller, its temporary folders), uv's build environments, setuptools' PEP 517
# backend, the package's setup.py
_BUILD_FRAME = re.compile(
    r"<pip-setuptools-caller>|[/\\]pip-(?:install|build-env|req-build)-|[/\\]builds-v\d+[/\\]"
    r"|(?:^|[/\\])setup\.py$|setuptools[/\\]build_meta\.py$"
)


@rule(
    "build-failure",
    r"No module named '(?P<module>[\w.]{1,200})'",
    source=BUILD_ISOLATION,
    confidence=0.95,
    on="exception",
)
def build_needs_module(found: re.Match[str], failure: Failure) -> Lead | None:
    """A package's build script imports a module (torch, most often) that pip's isolated build environment does not
    have: the frames are the build's (setup.py, pip's setuptools caller, a pip-install- folder)."""
    if not any(_BUILD_FRAME.search(frame.file) for frame in failure.frames) and not BUILD_BOX.search(failure.message):
        return None
    return isolated_build_lacks(found.group("module").split(".", 1)[0], built_package_of(failure))


# What pip and uv print around a build's own output, in the box they draw around it: an error inside it, or one whose
# frames do not show (pasted without them, or only "<string>" frames), is the build's. pip's subprocess block
# (pip/_internal/exceptions.py: "× Getting requirements to build wheel did not run successfully", "[end of output]",
# "note: This error originates from a subprocess"), uv's build errors (crates/uv-build-frontend/src/error.rs: "Failed
# to build `pkg`", "The build backend returned an error", "Call to `setuptools.build_meta.build_wheel` failed", "hint:
# This usually indicates a problem with the package or the build environment"). verdict.py reads the lines around a
# record with it too.
BUILD_BOX = re.compile(
    r"\[end of output\]|originates from a subprocess|metadata-generation-failed|did not run successfully"
    r"|doesn't declare it as a build dependency|The build backend returned an error"
    r"|\bFailed to build\b|Failed building wheel|Getting requirements to build|Call to `[\w.:]{1,100}` failed"
    r"|subprocess-exited-with-error|a problem with the package or the build environment"
)


# what a command names for the package whose build failed when the log does not say, or when it was built from a
# folder, a file or a URL, which a bare name would not reinstall (install.built_from_a_source); words, not "<...>",
# which a shell would read as a redirection
UNNAMED = "PACKAGE"
FROM_A_SOURCE = "PATH_OR_URL"


def package_argument(package: str, from_a_source: bool) -> str:
    """The package as a command's argument: its name when the log names it and it came from the index."""
    return FROM_A_SOURCE if from_a_source else package or UNNAMED


def isolated_build_lacks(module: str, package: str = "", from_a_source: bool = False) -> Lead:
    """`package`: the one being built, when the log names it (install.built_package), '' when it does not;
    `from_a_source`: the log shows a build from a folder, a file or a URL."""
    if module == "pkg_resources":
        return pkg_resources_removed(module, building=True, package=package, from_a_source=from_a_source)
    whose = f"{package}'s" if package else "The package's"
    name = package_argument(package, from_a_source)
    return Lead(
        f"{whose} build script imports {module}, which the isolated build environment the installer made for "
        f"it does not have (pip and uv build in a fresh environment, without the installed {module}). Install "
        f"{module} first, then build against it: pip install --no-build-isolation {name} (uv: uv pip install "
        f"--no-build-isolation {name}), or use a prebuilt wheel."
        + (" The log shows a build from a folder or a URL: give pip that path or URL again." if from_a_source else ""),
        {"module": module, "option": "--no-build-isolation", **({"package": package} if package else {})},
        next=(f"python -c 'import {module}; print({module}.__version__)'  # installed where the build can see it",),
    )


# setuptools 82.0.0 (2026-02-08) removed pkg_resources (setuptools NEWS.rst, "v82.0.0 Deprecations and Removals",
# pypa/setuptools#3085), and venvs from Python 3.12 on (and uv's) have no setuptools at all: the name goes missing both
# ways, and setuptools<82 answers both. A build (pip's isolated build environment takes the newest setuptools) needs
# the pin where pip builds, so the build runs against the interpreter's own setuptools.
SETUPTOOLS_WITH_PKG_RESOURCES = "<82"


def pkg_resources_removed(module: str, building: bool, package: str = "", from_a_source: bool = False) -> Lead:
    said = (
        f"No module named {module!r}: pkg_resources comes with setuptools, and setuptools 82.0.0 (February 2026) "
        "removed it; Python 3.12+ and uv venvs ship no setuptools at all. The code importing it needs setuptools "
        f"{SETUPTOOLS_WITH_PKG_RESOURCES} in the interpreter that ran it"
    )
    if building:
        return Lead(
            said + ": here a package's build imports it, and pip's isolated build environment takes the newest "
            "setuptools, so pin it and build without isolation.",
            {"module": module, "package": "setuptools"},
            install(("setuptools", SETUPTOOLS_WITH_PKG_RESOURCES), ("wheel", "")),
            next=(
                f"python -m pip install --no-build-isolation {package_argument(package, from_a_source)}  # the "
                f"package whose build failed, once the pin is in (uv: uv pip install --no-build-isolation "
                f"{package_argument(package, from_a_source)})",
            ),
        )
    return Lead(
        said + ".",
        {"module": module, "package": "setuptools"},
        install(("setuptools", SETUPTOOLS_WITH_PKG_RESOURCES)),
        next=("python -m pip show setuptools  # the version the interpreter that ran it has",),
    )


# uv names the module the build imported and the package that did not declare it
@rule(
    "build-failure",
    r"(?:that `?(?P<package>[A-Za-z0-9][\w.-]{0,100}?)(?:[@=][^`\s]{0,200})?`? )?"
    r"depends on `?(?P<module>[\w.-]{1,100})`?, but doesn't declare it as a build dependency",
    source="https://github.com/astral-sh/uv/blob/main/crates/uv-build-frontend/src/error.rs ('This error likely "
    "indicates that {package} depends on {module}, but doesn't declare it as a build dependency')",
    confidence=0.95,
)
def build_dependency_undeclared(found: re.Match[str], failure: Failure) -> Lead:
    return isolated_build_lacks(found.group("module"), found.group("package") or "")


@rule(
    "resolver-conflict",
    r"is not a supported wheel on this platform",
    source="https://packaging.python.org/en/latest/specifications/platform-compatibility-tags/",
    confidence=0.9,
)
def wrong_wheel(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The wheel is built for another Python version or platform (its tags do not match this interpreter): "
        "download the wheel whose cpXY and platform tags match `python -m pip debug --verbose`.",
        {"tag": "wheel tags"},
    )


@rule(
    "build-failure",
    r"error: can't find Rust compiler",
    # setuptools-rust (build_rust): a package with a Rust extension, built from source because no wheel was taken
    source="https://github.com/PyO3/setuptools-rust (build_rust: 'can't find Rust compiler'); "
    "https://www.rust-lang.org/tools/install",
    confidence=0.85,
)
def rust_compiler_missing(found: re.Match[str], failure: Failure) -> Lead:
    package = built_package_of(failure)
    which = f"{package}, a package with a Rust extension," if package else "A package with a Rust extension"
    return Lead(
        f"{which[0].upper()}{which[1:]} is being built from source, and no Rust compiler is installed: pip found no "
        "wheel of it for this Python and platform (a Python newer than its wheels, an uncommon platform, or a pip too "
        "old to take the wheel there is). Use a Python version it publishes wheels for, upgrade pip, or install the "
        "Rust toolchain (rustup) and build it.",
        {"package": package, "tool": "rustc"},
        next=("python -m pip --version", "python -c 'import sys, platform; print(sys.version, platform.machine())'"),
    )


@rule(
    "build-failure",
    r"the configured Python interpreter version \((?P<python>\d+\.\d+)\) is newer than PyO3's maximum supported "
    r"version \((?P<max>\d+\.\d+)\)",
    # PyO3's build script (pyo3-build-config), when a package's Rust extension is built for a newer Python than
    # its PyO3 release knows
    source="https://github.com/PyO3/pyo3/blob/main/pyo3-ffi/build.rs (ensure_python_version, "
    "PYO3_USE_ABI3_FORWARD_COMPATIBILITY); settled in https://github.com/huggingface/tokenizers/issues/1657",
    confidence=0.9,
)
def pyo3_older_than_python(found: re.Match[str], failure: Failure) -> Lead:
    python, newest = found.group("python"), found.group("max")
    package = built_package_of(failure)
    which = package or "A package with a Rust extension"
    return Lead(
        f"{which} is being built from source for Python {python} (pip found no wheel of it for this Python), and the "
        f"PyO3 it is built with supports Python up to {newest}. Use a Python of {newest} or older for this release, "
        f"or a release of {package or 'the package'} that publishes wheels for Python {python}. "
        "PYO3_USE_ABI3_FORWARD_COMPATIBILITY=1 makes the build go on against the stable ABI, untested.",
        {"package": package, "python": python, "supported": newest, "binding": "PyO3"},
        next=(
            'python -m pip download --only-binary=:all: --no-deps -d "$(mktemp -d)" '
            + (package or "PACKAGE")
            + "  # a wheel for this Python?",
        ),
    )


@rule(
    "build-failure",
    r"No such file or directory: '(?P<tool>cmake|ninja)'"
    # dlib's setup.py and others of its kind
    r"|(?P<cmake_needed>CMake) must be installed to build",
    source="https://cmake.org/download/ (CMake also ships as a PyPI package); https://pypi.org/project/cmake/",
    confidence=0.7,
)
def build_tool_missing(found: re.Match[str], failure: Failure) -> Lead:
    tool = found.group("tool") or "cmake"
    return Lead(
        f"A package's build runs {tool}, and {tool} is not installed (or not on PATH): install it (python -m pip "
        f"install {tool}, or the system's package) and build again; or use a Python and platform the package "
        "publishes wheels for, which need no build.",
        {"tool": tool, "package": built_package_of(failure)},
        next=(f"command -v {tool}",),
    )


_WINDOWS_BUILD = re.compile(r"NMake Makefiles|Visual Studio \d\d|MSBuild|\bcl\.exe\b|[A-Za-z]:\\")
_MAC_BUILD = re.compile(r"macosx-\d|/Users/|/opt/homebrew/|\.dylib\b|Xcode|xcrun")
# a Debian or Ubuntu system's own words: its compiler triplet, Python's dist-packages, apt
_DEBIAN = re.compile(r"x86_64-linux-gnu|aarch64-linux-gnu|/dist-packages/|\bapt(?:-get)?\b|[Uu]buntu|[Dd]ebian")


def _build_platform(failure: Failure, said: str) -> str:
    """'windows', 'macos', 'debian' or '' (not known) for a build's log; the command the error names is left out
    (/usr/bin/clang is on a Mac as on Linux)."""
    text = failure.haystack.replace(said, " ")
    platform = platform_of_failure(failure)
    if platform == "windows" or _WINDOWS_BUILD.search(text):
        return "windows"
    if platform == "macos" or _MAC_BUILD.search(text):
        return "macos"
    return "debian" if _DEBIAN.search(text) else ""


# setuptools' spawn (setuptools/_distutils/spawn.py: "command {cmd!r} failed: {reason}") when the compiler a build
# runs is not there at all, and CMake's own words when it finds no compiler for a language the project enables
@rule(
    "build-failure",
    r"error: command '(?:[^'\n]{0,200}[/\\])?(?P<cc>gcc|g\+\+|cc|c\+\+|clang|clang\+\+|cl|cl\.exe|nvcc|"
    r"x86_64-linux-gnu-gcc|aarch64-linux-gnu-gcc)' failed: No such file or directory"
    r"|No CMAKE_(?P<cmake>CUDA|CXX|C)_COMPILER could be found|CMAKE_(?P<unset>CXX|C)_COMPILER not set",
    source="https://github.com/pypa/setuptools/blob/main/setuptools/_distutils/spawn.py (spawn); "
    "https://cmake.org/cmake/help/latest/variable/CMAKE_LANG_COMPILER.html; "
    "https://cmake.org/cmake/help/latest/envvar/CUDACXX.html",
    confidence=0.85,
)
def compiler_not_installed(found: re.Match[str], failure: Failure) -> Lead:
    package = built_package_of(failure)
    which = f"{package}'s build" if package else "A package's build"
    platform = _build_platform(failure, found.group(0))
    if found.group("cmake") == "CUDA" or found.group("cc") == "nvcc":
        windows = platform == "windows"
        return Lead(
            f"{which} compiles CUDA code and found no nvcc: the CUDA toolkit (not the driver, and not the CUDA "
            "libraries a framework's wheels bring) is not installed, or not where the build looks. Install a CUDA "
            "toolkit (of the CUDA your torch was built with, when the package builds against torch) and point the "
            + (
                "build at it (CUDA_PATH, or CUDACXX set to its bin\\nvcc.exe for CMake)"
                if windows
                else "build at it (CUDA_HOME, or CUDACXX=/usr/local/cuda/bin/nvcc for CMake)"
            )
            + "; or use a prebuilt wheel, which needs no toolkit.",
            {"package": package, "tool": "nvcc", "variable": "CUDACXX" if found.group("cmake") else "CUDA_HOME"},
            # a command every shell runs alike where the platform is not known
            next=("where nvcc & echo %CUDA_PATH%  # cmd",)
            if windows
            else ('command -v nvcc; echo "CUDA_HOME=$CUDA_HOME CUDACXX=$CUDACXX"',)
            if platform
            else ("nvcc --version",),
        )
    language = found.group("cmake") or found.group("unset")
    tool = found.group("cc") or ("C compiler" if language == "C" else "C++ compiler")
    if tool in ("cl", "cl.exe"):
        platform = "windows"
    elif tool.endswith("-linux-gnu-gcc"):  # the Debian/Ubuntu compiler triplet's own name
        platform = "debian"
    how = {
        "windows": "install Microsoft's C++ Build Tools (the 'Desktop development with C++' workload) and build from "
        "a Developer prompt",
        "macos": "install Apple's command line tools (xcode-select --install)",
        "debian": "install build-essential",
    }.get(
        platform,
        "install one (build-essential on Debian/Ubuntu, gcc-c++ on Fedora, the Xcode command line tools on macOS)",
    )
    fix = (
        system_install("apt", "build-essential")
        if platform == "debian"
        else shell("xcode-select --install")
        if platform == "macos"
        else None
    )
    return Lead(
        f"{which} needs a C/C++ compiler ({tool}), and none is installed or on PATH: {how}; or use a Python and "
        "platform the package publishes wheels for, which need no compiler.",
        {"package": package, "tool": tool},
        fix,
        next=() if platform == "windows" else ("cc --version  # a C compiler on PATH?",),
    )


# GCC's driver (and nvcc's, for cicc and ptxas) when the kernel's OOM killer ended a compiler process: a build that
# runs as many compile jobs as cores, each holding gigabytes (CUDA templates), on a machine with less memory
@rule(
    "build-failure",
    r"Killed signal terminated program (?P<program>cc1plus|cc1)"
    # nvcc's own words for a subprocess killed so (cicc compiles the device code, ptxas assembles it)
    r"|'(?P<nvcc_program>cicc|ptxas|cudafe\+\+|cc1plus)' died due to signal 9",
    source="https://github.com/Dao-AILab/flash-attention#installation-and-features (MAX_JOBS limits the parallel "
    "compile jobs that exhaust RAM); https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py "
    "(_get_num_workers: MAX_JOBS)",
    confidence=0.9,
)
def compiler_killed_for_memory(found: re.Match[str], failure: Failure) -> Lead:
    package = built_package_of(failure)
    program = found.group("program") or found.group("nvcc_program")
    return Lead(
        f"The build{' of ' + package if package else ''} ran out of memory: the kernel killed a compiler process "
        f"({program}), most often because the build runs one compile job per core and each CUDA or "
        "C++ file takes gigabytes. Limit the parallel jobs with MAX_JOBS (2 to 4; ninja and torch's extension "
        "builder read it) and build again, or add memory or swap.",
        {"package": package, "variable": "MAX_JOBS", "program": program},
        export("MAX_JOBS", "2"),
        next=("free -g; nproc  # memory and cores: about 4 GB a job for CUDA sources",),
    )


# setuptools before 70.1 took bdist_wheel from the separate `wheel` package (setuptools 70.1 has its own): a pip or
# a setup.py call that builds a wheel in an environment without it
@rule(
    "build-failure",
    r"error: invalid command 'bdist_wheel'",
    source="https://setuptools.pypa.io/en/latest/history.html (v70.1.0: bdist_wheel moved into setuptools); "
    "https://github.com/pypa/wheel",
    confidence=0.85,
)
def wheel_package_missing(found: re.Match[str], failure: Failure) -> Lead:
    package = built_package_of(failure)
    return Lead(
        f"Building {package or 'a package'} as a wheel needs the bdist_wheel command, which setuptools older than "
        "70.1 takes from the `wheel` package, not installed here: install wheel (and a newer setuptools and pip), "
        "then build again.",
        {"package": package, "tool": "wheel"},
        install(("pip", ""), ("setuptools", ""), ("wheel", ""), upgrade=True),
    )


# Apple's clang has no OpenMP runtime: a build asking for -fopenmp (or linking -lomp) stops on a Mac unless libomp
# is installed and named to the compiler
@rule(
    "build-failure",
    r"clang(?:\+\+)?: error: unsupported option '-fopenmp'|ld: library not found for -lomp\b",
    source="https://scikit-learn.org/stable/developers/advanced_installation.html (macOS: the compilers of Xcode do "
    "not support OpenMP; brew install libomp); https://formulae.brew.sh/formula/libomp",
    confidence=0.85,
)
def apple_clang_without_openmp(found: re.Match[str], failure: Failure) -> Lead:
    package = built_package_of(failure)
    return Lead(
        f"{package + ' is' if package else 'A package is'} being compiled with OpenMP on macOS, and Apple's clang "
        "has no OpenMP runtime (libomp): install it with Homebrew and point the compiler at it "
        '(CPPFLAGS="-Xpreprocessor -fopenmp -I$(brew --prefix libomp)/include", '
        'LDFLAGS="-L$(brew --prefix libomp)/lib -lomp"), or use a prebuilt wheel of the package for this Mac.',
        {"package": package, "library": "libomp", "tool": "clang"},
        shell("brew install libomp"),
    )


# Inductor on Windows checks the C++ compiler it was given (torch._inductor.config.cpp.cxx, from CXX, cl by default)
# before its first build: torch/_inductor/cpp_builder.py's check_compiler_exist_windows and check_mingw_win32_flavor
# raise "Compiler: {compiler} is not found." (as InvalidCxxCompiler(compiler) in torch/_inductor/exc.py on the
# releases that have it). MSVC's cl is on PATH only in a Visual Studio developer prompt; another name is CXX's.
@rule(
    "build-failure",
    r"(?<!\w)Compiler: (?P<compiler>[^\n]{1,260}?) is not found\.",
    source="https://github.com/pytorch/pytorch/blob/main/torch/_inductor/cpp_builder.py (check_compiler_exist_windows, "
    "check_mingw_win32_flavor: 'Compiler: {compiler} is not found.'); torch/_inductor/exc.py (InvalidCxxCompiler)",
    confidence=0.85,
)
def inductor_compiler_not_found(found: re.Match[str], failure: Failure) -> Lead | None:
    seen = " ".join([failure.haystack, failure.type, *(f.file for f in failure.frames)]).lower()
    if not any(word in seen for word in ("inductor", "torch", "cpp_builder", "backendcompilerfailed", "cxxcompiler")):
        return None  # a configure log's "-- Compiler: gfortran is not found.": not torch's check
    compiler = found.group("compiler").strip().strip("'\"")
    if re.search(r"(?:^|[\\/])cl(?:\.exe)?$", compiler, re.IGNORECASE):
        return Lead(
            "torch.compile's Inductor backend builds C++ with MSVC's cl.exe, and cl is not on PATH: it is there only "
            'in a Visual Studio developer prompt. Install the Visual Studio Build Tools with the "Desktop development '
            'with C++" workload, then run Python from the "x64 Native Tools Command Prompt" (or call vcvars64.bat '
            "first).",
            {"compiler": "cl", "tool": "MSVC"},
            next=("where.exe cl",),
        )
    return Lead(
        f"torch.compile's Inductor backend (on Windows) was told to build C++ with {compiler}, and Windows cannot "
        "start it: the CXX variable (torch._inductor.config.cpp.cxx) names a compiler that is not there or not on "
        "PATH. Point CXX at the compiler's real path, or clear it to build with MSVC's cl from a Visual Studio "
        "developer prompt.",
        {"compiler": compiler, "variable": "CXX"},
        next=("echo %CXX%", "where.exe cl"),
    )
