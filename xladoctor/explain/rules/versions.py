"""Versions that do not fit together: a module that is not installed, a module or attribute a library expects that
the installed version of another no longer (or not yet) has, a pickle or checkpoint of another release. The calls
written for another release are versions_calls.py's; the checks libraries make of their own pairings,
versions_checks.py's."""

from __future__ import annotations

import re
import sys

from xladoctor.explain.platforms import unbuilt_here
from xladoctor.explain.records import IMPORT_ALIASES, Failure, Frame, host_of
from xladoctor.explain.rules import (
    COMPILED_PARTS,
    DISTRIBUTION_OF,
    KNOWN_IMPORTS,
    LOCAL_TOPS,
    Lead,
    distribution_named,
    installable,
    rule,
    under_torch_compile,
    yours,
)
from xladoctor.explain.rules.builds import pkg_resources_removed
from xladoctor.fix import Fix, export, install
from xladoctor.matrix.failures import (
    AttributeHistory,
    ReleaseRuns,
    attribute_history,
    module_history,
)
from xladoctor.sanitize import scrubbed_head

# CPython Lib/importlib/_bootstrap.py: "No module named %r"; Python/import.c: "cannot import name %R from %R"
IMPORTLIB = "https://github.com/python/cpython/blob/main/Lib/importlib/_bootstrap.py"
# CPython Objects/moduleobject.c: "module '%U' has no attribute '%U'"
MODULEOBJECT = "https://github.com/python/cpython/blob/main/Objects/moduleobject.c"


def top_of(module: str) -> str:
    return module.split(".", 1)[0]


# "No module named 'a.b'": Python names the first part it could not import, so `a` was imported and lacks `b` (a
# release without that submodule), except where `a` is a namespace several distributions share (google.protobuf is
# missing protobuf) or a folder of the user's project run from another working directory (models.common).
_NAMESPACE_TOPS = frozenset({"google", "nvidia", "mpl_toolkits", "azure", "backports", "zope", "ruamel", "jaraco"})
# A top-level package that is a namespace by design and one distribution's: "cannot import name 'X' from 'cuda'
# (unknown location)" is an API of that distribution, not a build that failed (cuda-python's cuda.bindings and
# cuda.core share the `cuda` namespace, https://nvidia.github.io/cuda-python/)
_OWN_NAMESPACES = frozenset({"cuda"})


def _is_submodule_of_installed(module: str) -> bool:
    top = top_of(module)
    if top in _NAMESPACE_TOPS:
        # google.protobuf.internal.builder: google.protobuf, a distribution's part of the namespace, was imported
        parts = module.split(".")
        return len(parts) > 2 and installable(".".join(parts[:2])) is not None
    return "." in module and top not in LOCAL_TOPS and module not in DISTRIBUTION_OF


# Frames that only pass a call on: torch.nn.Module.__call__'s dispatch. A call's arguments are wrong where they were
# written, the frame before these (`resnet(x, temb, scale=s)` in diffusers -> _call_impl -> forward()).
_PASSING_ON = frozenset({"_call_impl", "_wrapped_call_impl"})


def calling_package(failure: Failure) -> str | None:
    """The package whose code made the failing call (None: the user's), past the frames that only pass it on."""
    frames = list(failure.frames)
    while len(frames) > 1 and (
        (frames[-1].owner == "torch" and frames[-1].function in _PASSING_ON) or _FORWARDS.search(frames[-1].code)
    ):
        frames.pop()
    return frames[-1].owner if frames else None


# A call that hands on the arguments it was given, unchanged (a decorator's or a wrapper's `f(*args, **kwargs)`):
# what they lack or hold too many of came from the frame above.
_FORWARDS = re.compile(r"\(\s*\*\w{1,30}\s*(?:,\s*\*\*\w{1,30}\s*)?\)|\(\s*\*\*\w{1,30}\s*\)")


def other_parties(failure: Failure, caller: str) -> str:
    """The other packages whose code is in the stack: a method called on `self` runs the override of the subclass a
    package above defined (DeepSpeed's elastic agent under torch's), so each of them may be the side to move."""
    others = list(dict.fromkeys(f.owner for f in failure.frames if f.owner and f.owner not in (caller, "python")))
    if not others:
        return ""
    return f"; the stack also runs code of {', '.join(others[:3])}, whose subclass or wrapper may be the other side"


def callee_package(call: str) -> str:
    """The package a called name starts with ('torch.nn.functional.pad' -> torch); '' when it starts with a class
    or a bare function (`Trainer.get_batch_samples`, `forward`): Python's message does not name the module."""
    top = top_of(call)
    return top if "." in call and top.islower() else ""


# Import names a misspelling is measured against: the frameworks and the packages people install beside them. A
# name one or two letters from one of them, and itself none of them, is a typo in the import, not a missing package
# ("lightening" for lightning); the cut-off is difflib's ratio, high enough that torchaudio is not torchvision, and
# only an edit inside the name counts.


def _misspelt(top: str) -> str | None:
    if top in KNOWN_IMPORTS or len(top) < 5:
        return None
    import difflib  # only for a name that is not a known one

    close = difflib.get_close_matches(top, KNOWN_IMPORTS, n=1, cutoff=0.88)
    if not close or close[0].startswith(top) or top.startswith(close[0]):
        return None  # a name that extends a known one is often a package of its own (tensorboardX): not a typo
    return close[0]


# a pasted message whose closing quote was lost (Markdown's backtick, the line's end) still names the whole module
_END_QUOTE = r"(?:'|(?=[`\s]|$))"


# importlib's words when the first part of a dotted name was found as a plain module, not a package
# (importlib/_bootstrap.py, _find_and_load_unlocked: "No module named 'jax.experimental'; 'jax' is not a package"):
# a file of that name (jax.py, often the script itself) is imported instead of the installed package
@rule(
    "user-code-error",
    r"No module named '(?P<module>[\w.]{1,200})'; '(?P<top>[\w.]{1,100})' is not a package",
    source=IMPORTLIB + " (importlib/_bootstrap.py, _find_and_load_unlocked)",
    confidence=0.92,
)
def module_shadowed_by_a_file(found: re.Match[str], failure: Failure) -> Lead:
    return _shadowed(found.group("top"))


def _compiled_part_missing(module: str, top: str) -> Lead:
    return Lead(
        f"{module} is the compiled part of {top}: it is missing from this install (a broken or interrupted "
        f"install, or Python importing the {top} source folder instead of the installed package).",
        {"module": module, "package": top},
        install((top, ""), reinstall=True),
        family="module-not-found",
    )


def _shadowed(top: str) -> Lead:
    return Lead(
        f"Python imported a file of yours named {top}.py (or a folder {top} without the package's modules: the "
        f"script itself, when it is named {top}.py, or a file next to it or in the working directory) instead of "
        f"the installed {top} package. Rename that file (and delete its __pycache__). Not an environment problem.",
        {"module": top, "file": f"{top}.py"},
        verdict="not-environment",
        next=(f'python -c "import {top}; print({top}.__file__)"  # the file Python takes for {top}',),
    )


@rule("module-not-found", r"No module named '(?P<module>[\w.]{1,200})" + _END_QUOTE, source=IMPORTLIB, confidence=0.9)
def no_module_named(found: re.Match[str], failure: Failure) -> Lead | None:
    module = found.group("module")
    if re.search(r"'; '[\w.]{1,100}' is not a package", failure.haystack):
        return None  # a file named like the package (module_shadowed_by_a_file)
    top = top_of(module)
    compiled = module.startswith(("torch._C", "torch_xla._XLAC")) or module.endswith("._C")
    if _is_submodule_of_installed(module) and not compiled:
        return None  # a submodule an installed package lacks: api-version-skew (submodule_gone) reads it
    if top in LOCAL_TOPS and "." in module and _host_with_folder(failure, top) is not None:
        return None  # a module of the application the traceback runs in (submodule_gone reads it)
    if module in ("torch._C", "torch_xla._XLAC") or module.endswith("._C"):
        return _compiled_part_missing(module, top)
    if top == "expecttest" and under_torch_compile(failure):
        return _test_helper_at_run_time(module)
    removed = _REMOVED_STDLIB.get(top)
    if removed is not None and "." not in module:
        return _removed_from_python(module, removed, failure)
    if top in _BUILT_WITH:
        return _python_built_without(top)
    typo = _misspelt(top)
    if typo is not None:
        return Lead(
            f"No module named {module!r}: the import misspells {typo!r} (no package is named {top!r}). Not an "
            f"environment problem: correct the import in your code to {typo}.",
            {"module": module, "meant": typo},
            verdict="not-environment",
            family="user-code-error",
            confidence=0.8,
        )
    package = distribution_named(module)
    unbuilt = unbuilt_here(top, failure)
    if unbuilt is not None:
        return Lead(
            f"No module named {module!r}, and on {unbuilt.name} it is not a matter of installing it: {unbuilt.said}",
            {"module": module, "package": unbuilt.instead or package, "platform": unbuilt.platform},
            install((unbuilt.instead, "")) if unbuilt.instead else None,
            next=('python -c "import torch; print(torch.__version__)"',),
        )
    building = any(w in failure.message for w in ("build wheel", "Getting requirements", "setup.py", "pyproject"))
    if building and top == "torch":
        return Lead(
            "pip builds the package in an isolated environment without torch, so its setup.py cannot import torch: "
            "build it against the installed torch with --no-build-isolation.",
            {"module": module, "package": "torch"},
            # a comment: the package's name is to fill in, and pasted as is it would install PyPI's namesake
            next=("# python -m pip install --no-build-isolation NAME  (NAME: the package being built)",),
        )
    if top.startswith("_"):
        # a private module: the compiled part of a package or of Python itself, never a project of its own on PyPI
        return Lead(
            f"No module named {module!r}: a private module (its leading underscore), the compiled part of a package "
            "or of Python itself, is missing: the package that owns it is broken, half-installed or built for "
            "another Python. The frame above the import names that package; reinstall it.",
            {"module": module},
            next=("python -c 'import sys; print(sys.executable)'  # the interpreter that ran it",),
        )
    if top == "pkg_resources":
        return pkg_resources_removed(module, building)
    if top in LOCAL_TOPS:
        return _project_folder(module, top)
    if top in _NAMESPACE_TOPS and "." not in module:
        return _no_known_distribution(module, top)  # `backports` alone: a namespace many distributions share
    if top == "nvidia" and module.split(".")[1:2] and module.split(".")[1] in _NVIDIA_LIBRARY_WHEELS:
        return _nvidia_wheel_missing(module)
    known = installable(module)
    if known is None:
        return _no_known_distribution(module, top)
    return Lead(
        f"No module named {module!r}: {known} is not installed in the interpreter that ran this, or it was "
        "installed into another one (another venv, conda env, or the system Python).",
        {"module": module, "package": known},
        install((known, "")),
        next=("python -c 'import sys; print(sys.executable)'  # the interpreter that ran it",),
    )


_INTERPRETER = "python -c 'import sys; print(sys.executable)'  # the interpreter that ran it"


def _project_folder(module: str, top: str) -> Lead:
    """`utils`, `models`, `src`: a folder of the project being run, never a distribution to install (PyPI's
    `utils` is somebody else's project)."""
    if "." in module:
        # Python names the first part it could not import: a `utils` was imported, and it lacks the rest
        said = (
            f"a {top} was imported without {module.split('.', 1)[1]}: either another folder or an installed package "
            f"named {top} comes first on sys.path, or the project's own {top} lacks that module (an older checkout, "
            "a file not there)."
        )
        look = f'python -c "import {top}; print({top}.__file__)"  # run in the folder of the failing script'
    else:
        said = f"Python found no {top} on sys.path."
        look = 'echo "$PYTHONPATH"'
    return Lead(
        f"No module named {module!r}: {top} is a folder of the project you run, not a package to install, and "
        f"{said} For `python path/to/script.py` Python looks first in the script's own folder (not the working "
        f"directory), then PYTHONPATH and site-packages: set PYTHONPATH to the project's folder that holds {top}/, "
        f"run the script as a module from there (`python -m scripts.train` for scripts/train.py), or `pip install "
        f"-e .` where the project has a pyproject.toml or setup.py. Do not `pip install {top}`: that is another "
        "project.",
        {"module": module, "folder": top, "variable": "PYTHONPATH"},
        verdict="environment",
        confidence=0.75,
        next=(look,),
    )


# The NVIDIA library wheels a framework's CUDA 12 build depends on (nvidia-cudnn-cu12 installs nvidia/cudnn;
# compat_matrix/failures/libraries.json lists their files); other CUDA majors have wheels of other names and layouts
_NVIDIA_LIBRARY_WHEELS = frozenset({
    "cublas", "cuda_cupti", "cuda_nvrtc", "cuda_runtime", "cudnn", "cufft", "cufile", "curand", "cusolver",
    "cusparse", "cusparselt", "nccl", "nvjitlink", "nvshmem", "nvtx", "cuda_nvcc",
})  # fmt: skip


def _nvidia_wheel_missing(module: str) -> Lead:
    """nvidia.cudnn, nvidia.cublas: the NVIDIA library wheels of a framework's CUDA 12 build."""
    part = module.split(".")[1]
    name = part.replace("_", "-")
    return Lead(
        f"No module named {module!r}: the NVIDIA library wheel that installs it is missing: nvidia-{name}-cu12 for a "
        "framework built for CUDA 12 (a build for another CUDA major version needs that version's wheel, where "
        "NVIDIA publishes one). The framework's CUDA build names the one it needs: reinstall that build and let it "
        "bring its own NVIDIA wheels rather than installing one by hand.",
        {"module": module, "package": f"nvidia-{name}-cu12"},
        next=("python -m pip list 2>/dev/null | grep -i -E '^(torch|jax|jaxlib|tensorflow|nvidia-)'",),
    )


def _no_known_distribution(module: str, top: str) -> Lead:
    """A module no distribution xladoctor knows ships: which package provides it is the project's to say, and a
    PyPI project named like the import may be another (a guessed name is what typosquats wait for)."""
    parts = module.split(".")
    if top in _NAMESPACE_TOPS and len(parts) > 1:
        # mpl_toolkits.basemap, google.cloud.storage: a distribution of its own in a shared namespace, whose
        # requirement names its last part (basemap, google-cloud-storage)
        top, needle = module, parts[-1]
    else:
        needle = top
    spelled = re.sub(r"[-_.]", "[-_.]", needle)  # a requirement spells diff_gaussian_rasterization with dashes too
    return Lead(
        f"No module named {module!r}: nothing that provides {top} is installed in the interpreter that ran this (or "
        "it went into another one: another venv, conda env, or the system Python). xladoctor knows no distribution "
        f"that ships a module named {top}, so it guesses no install command: the project's requirements or README "
        f"name the package that provides {top} (an import's name is not always its package's: cv2 is "
        "opencv-python), or say to build it from the project's own source (a git submodule, an extension in its "
        f"folder). A PyPI project named {top} may be somebody else's: check it is the one meant before installing.",
        {"module": module, "package": top},
        confidence=0.8,
        next=(
            f"grep -rniE -- '{spelled}' requirements*.txt pyproject.toml setup.py setup.cfg README.md 2>/dev/null",
            _INTERPRETER,
        ),
    )


def _test_helper_at_run_time(module: str) -> Lead:
    """expecttest is PyTorch's test-only dependency (its requirements.txt, not the wheel's Requires-Dist): imported
    by torch.compile's own code, torch's compiler reached torch.testing._internal, a regression of that build."""
    return Lead(
        f"No module named {module!r}, imported under torch.compile: expecttest is a test-only dependency of PyTorch "
        "(torch/testing/_internal imports it; torch's wheel does not require it), so the compiler should never import "
        "it. A torch build whose compiler does (a nightly's, pytorch#100002) has a regression: pip install "
        "expecttest works around it, and a newer build fixes it.",
        {"module": module, "package": "torch"},
        install(("expecttest", "")),
        family="framework-internal-error",
        verdict="framework-bug",
        confidence=0.6,
        next=("python -c 'import torch; print(torch.__version__)'",),
    )


# Standard-library modules a Python release removed (What's New in Python 3.10, 3.12 and 3.13; PEP 594, PEP 632):
# code that imports one was written for an older Python. Never a pip install of the name: no such project is the
# module (a name on PyPI may be anyone's), except setuptools, which ships a distutils of its own.
_REMOVED_STDLIB = {
    **dict.fromkeys(("parser", "symbol", "formatter"), "3.10"),
    **dict.fromkeys(("distutils", "imp", "asynchat", "asyncore", "smtpd"), "3.12"),
    **dict.fromkeys(
        ("aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "mailcap", "msilib", "nis", "nntplib",
         "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib", "lib2to3"),
        "3.13",
    ),
}  # fmt: skip
WHATS_NEW = "https://docs.python.org/3/whatsnew/"


# The standard library's C modules a Python builds only when the system library is there at its build (CPython's
# devguide, "Install dependencies": the Debian/Ubuntu packages a source build needs); pyenv and other source builds
# without them make a Python that lacks the module. tkinter is also packaged apart by Linux distributions.
_BUILT_WITH = {
    "_lzma": "liblzma-dev", "lzma": "liblzma-dev", "_bz2": "libbz2-dev", "bz2": "libbz2-dev",
    "_sqlite3": "libsqlite3-dev", "sqlite3": "libsqlite3-dev", "_ctypes": "libffi-dev", "ctypes": "libffi-dev",
    "_ssl": "libssl-dev", "ssl": "libssl-dev", "_hashlib": "libssl-dev", "readline": "libreadline-dev",
    "_curses": "libncurses-dev", "curses": "libncurses-dev", "zlib": "zlib1g-dev", "_uuid": "uuid-dev",
    "_dbm": "libgdbm-compat-dev", "_gdbm": "libgdbm-dev", "_tkinter": "tk-dev", "tkinter": "tk-dev",
}  # fmt: skip
DEVGUIDE_DEPENDENCIES = "https://devguide.python.org/getting-started/setup-building/#install-dependencies"


def _python_built_without(module: str) -> Lead:
    package = _BUILT_WITH[module]
    tk = package == "tk-dev"
    return Lead(
        f"{module} is part of Python's standard library, but this Python was built without it: its build did not "
        f"find the system library it needs ({package} on Debian and Ubuntu), as pyenv and other source builds do when "
        "it is missing. Install that package (the list: " + DEVGUIDE_DEPENDENCIES + ") and build this Python again "
        "(pyenv install --force VERSION), or use a "
        "Python that has it (the system's, conda's, python.org's)."
        + (" A distribution's own Python gets tkinter from its python3-tk package." if tk else "")
        + " Not something pip can install.",
        {"module": module, "package": package},
        family="missing-library",
        next=(
            f"python -c 'import {module}'  # fails in this interpreter",
            "python -c 'import sys; print(sys.executable)'  # which Python it is (pyenv's live under ~/.pyenv)",
        ),
    )


def _removed_from_python(module: str, release: str, failure: Failure) -> Lead:
    frame = failure.last_frame
    whose = frame.owner if frame is not None and frame.owner not in (None, "python") else "the code"
    if module == "distutils":
        return Lead(
            f"distutils left the standard library in Python 3.12 (PEP 632), and {whose} still imports it: setuptools "
            "provides a distutils of its own, so installing setuptools in this interpreter (new venvs of 3.12 have "
            f"none) fixes most such imports; else use Python 3.11 or a release of {whose} that no longer needs it.",
            {"module": module, "package": "setuptools", "python": release},
            install(("setuptools", "")),
            next=("python --version",),
        )
    return Lead(
        f"{module} was removed from Python's standard library in Python {release}, and {whose} still imports it: "
        f"it was written for an older Python. Use a Python older than {release} for it (a new venv or conda env), or "
        f"a release of {whose} that no longer imports {module}. Do not pip install '{module}': no project of that "
        "name is the module.",
        {"module": module, "python": release, "package": whose if whose != "the code" else ""},
        family="version-mismatch",
        next=("python --version",),
    )


def _where(failure: Failure) -> str:
    frame = failure.last_frame
    return f" ({frame.owner or frame.short()})" if frame is not None else ""


# Module attributes a release removed, with the release notes that say so: named to say which release to use
_REMOVED_ATTRIBUTES = {
    # TensorFlow 2.16.1's release notes: "The tf.estimator API is removed. To continue using tf.estimator, you will
    # need to use TF 2.15 or an earlier version." TF 2.15's wheels are for Python 3.9 to 3.11 (PyPI).
    ("tensorflow", "estimator"): ("2.16", "tensorflow<2.16", "TensorFlow 2.15 has wheels for Python 3.9 to 3.11 only"),
    # TensorFlow 2.0's: tf.contrib deprecated, its parts migrated to core or to addons/io, or removed entirely; no
    # TensorFlow 1 wheel installs on a Python of today, so no pin is given
    ("tensorflow", "contrib"): ("2.0", "", "TensorFlow 1.x has no wheels for Python 3.8 or newer"),
}


_USUAL_ALIAS = {"tensorflow": "tf", "numpy": "np"}  # `import tensorflow as tf`: the spelling most code uses


def _as_written(module: str, name: str, failure: Failure) -> str:
    """How the code spells module.name when it uses an import alias (tf.estimator, np.float): the words a reader
    searches their code for."""
    if not name:
        return ""
    aliases = [alias for alias, target in _IMPORT_ALIASES.items() if target == module]
    for alias in aliases:
        if re.search(rf"(?<![\w.]){re.escape(alias)}\.{re.escape(name)}\b", failure.code_shown):
            return f"{alias}.{name}"
    return ""


# transformers imports a model's own code (trust_remote_code=True) as the package transformers_modules
# (records._APP): its authors wrote it against the transformers of its day
REMOTE_CODE = "transformers_modules"


def _remote_code_note(caller: str | None, package: str = "") -> str:
    """What to do when the code that uses a missing API is a model's own (`package`: whose API it is, when known)."""
    if caller != REMOTE_CODE:
        return ""
    whose = package or "the library it calls"
    return (
        " That code is the model's own, downloaded with trust_remote_code=True (transformers_modules), not a package "
        f"to install: install the {whose} release its model card names, or load the model without "
        "trust_remote_code, with transformers' own implementation of it where the installed transformers has one."
    )


def _api_skew_lead(module: str, top: str, failure: Failure, name: str = "") -> Lead:
    caller = failure.library
    frame = failure.last_frame
    if caller in NAMESPACE_TOPS and frame is not None:
        # a namespace package's file: its part is the project (pyannote/core/... is pyannote.core's)
        part = namespace_part(caller, frame.file)
        caller = f"{caller}.{part}" if part else caller
    who = f"{caller} " if caller and caller not in ("python", top) else "The calling code "
    what = f"{module}.{name}" if name else module
    if top in sys.stdlib_module_names:
        # the standard library changes with Python itself: there is no release of it to install
        library = caller if caller not in (None, "python", top) else ""
        return Lead(
            f"{who}uses {what}, which this Python's standard library does not have: it was written for another "
            "Python (one that still had it, or one that added it); use the Python version it was written for (a new "
            f"venv or conda env), or a release of {library or 'the code'} made for this Python. If the name is an old "
            f"and common one, look for a file of yours named {top}.py next to the script: it hides the standard one.",
            {"module": module, "name": name, "package": library, "caller": caller or ""},
            verdict="environment",
            confidence=0.85,
            next=("python --version", f"python -c 'import {top}; print({top}.__file__)'  # the module Python found"),
        )
    written = _as_written(module, name, failure)
    what += f" ({written} in the code)" if written else ""
    removed = _REMOVED_ATTRIBUTES.get((module, name))
    if removed is not None:
        release, pin, limit = removed
        usual = _USUAL_ALIAS.get(module, "")
        if usual and not written:  # the spelling the code most likely uses (import tensorflow as tf)
            what += f" ({usual}.{name})"
        return Lead(
            f"{who}uses {what}, which {top} removed in {release}: the code was written for an older {top}. "
            + (f"Install {pin} for it ({limit}), or port the code" if pin else f"Port the code ({limit})")
            + " to the API that replaced it.",
            {"module": module, "name": name, "package": top, "removed": release, "written": written},
            install((top, pin[len(top) :])) if pin else None,
            verdict="environment",
            confidence=0.9,
            next=(f"python -m pip show {top}",),
        )
    # a name after the module may be a function or a class: the table knows modules only, so it speaks of the name
    # only where some release had a module of that path
    gone = _module_history_lead(f"{module}.{name}" if name else module, who, what, caller, not name)
    if gone is not None:
        return gone
    distribution = DISTRIBUTION_OF.get(top)
    installed = f"{top} (of {distribution})" if distribution and distribution != top else top
    # pip knows the distribution, not the import name (pip show cv2 finds nothing); its extras are no name to show
    shown = re.sub(r"\[[^\]]*\]", "", distribution or top)
    return Lead(
        f"{who}uses {what}, which the installed {installed} does not have: it was written for another release of {top} "
        f"(an API that was removed, renamed or not yet added). Install the {shown} release it was written for, or a "
        f"{'release of ' + caller if caller and caller not in ('python', top) else 'version of the code'} made for "
        f"the installed {top}." + _remote_code_note(caller, top),
        {"module": module, "name": name, "package": distribution or top, "caller": caller or ""},
        verdict="environment",
        confidence=0.85,
        next=(f"python -m pip show {shown} {_shown_caller(caller, failure)}".strip(),),
    )


def _shown_caller(caller: str | None, failure: Failure) -> str:
    """The caller's distribution as pip knows it: a namespace package's part (pyannote.core), else the library."""
    if caller and "." in caller and top_of(caller) in NAMESPACE_TOPS:
        return caller
    return failure.installed_library or ""


# Frameworks whose release cannot be changed alone: a pin of just that package breaks its companions (torchvision and
# torchaudio of torch's release and CUDA build; jaxlib and jax's CUDA plugin of jax's release), so no command is given.
_NOT_ALONE = {
    "torch": "with the torchvision and torchaudio of its release and the same CUDA build (pytorch.org's selector "
    "gives the command)",
    "jax": "with the jaxlib and jax CUDA plugin of the same release (jax[cuda12]==X installs them together)",
    "tensorflow": "with the Keras and CUDA libraries its release names (tensorflow[and-cuda]==X installs them)",
}


def _pin(package: str, spec: str, note: str | None = None) -> tuple[Fix | None, str]:
    """The install step for `package` at `spec`, or the words that replace it for a framework that cannot move alone,
    or where pinning cannot work (Keras 2 beside TensorFlow 2.16 or newer)."""
    if package in _NOT_ALONE:
        return None, f" Install that {package} {_NOT_ALONE[package]}."
    below = re.search(r"<(\d[\w.]*)", spec)
    instead = instead_of_pinning(package, below.group(1)) if below else None
    if instead is not None:
        return instead[1], instead[0]
    return install((package, spec), note=note), ""


def _while_it_was_there(history: ReleaseRuns, has: str, writer: str) -> tuple[str, Fix | None]:
    """What an API some releases had means, and the install that brings one of them: `has` says what has it ("X's
    Cache has get_max_length in transformers"), `writer` who was written for it ("your code at run.py:3")."""
    package, first, last, after = history.package, history.first, history.last, history.after
    if len(history.had) > 1:
        # it went and came back: which side the installed release is on, the log does not say
        runs = ", ".join(a if a == b else f"{a} to {b}" for a, b in history.had)
        return (
            f"{has} {runs}, and not in the others: {writer} was written for one of those releases, and the "
            f"one installed is another. Install a release that has it (`pip show {package}` tells which one is "
            "installed).",
            None,
        )
    if history.removed and not history.added:
        told = (
            f"{has} up to {last} and not from {after} on: {writer} was written for an older {package} than the one "
            f"installed. Install the release it was written for ({package}<{after}), or move the code to what the "
            f"installed {package} offers instead (its release notes say)."
        )
        fix, words = _pin(package, f"<{after}", "or update the code that uses it, as above")
    elif history.added and not history.removed:
        told = (
            f"{has} from {first} on: {writer} was written for a newer {package} than the one installed. Upgrade it "
            f"({package}>={first})."
        )
        fix, words = _pin(package, f">={first}")
    else:
        told = (
            f"{has} only from {first} to {last}: {writer} was written for those releases, and the one installed is "
            f"older or newer. Install one of them ({package}>={first},<{after})."
        )
        fix, words = _pin(package, f">={first},<{after}")
    return told + words, fix


def _module_history_lead(path: str, who: str, what: str, caller: str | None, a_module: bool) -> Lead | None:
    """A module path the releases of its library had only for a while (attribute-history.json's modules, read from
    the wheels): the releases that had it, and the pin. None where the table does not know the library, or every
    release read has the module (then it is no release question: the install is broken or another thing shadows it),
    or `path` is not said to be a module (`a_module`: "No module named") and no release had a module of that path."""
    history = module_history(path)
    if history is None or history.always or not (a_module or history.had):
        return None
    package, read = history.package, f"{history.series[0]} .. {history.series[-1]}"
    fix: Fix | None = None
    if not history.had:
        told = (
            f"{who}uses {what}, and no release of {package} read ({read}) has {path}: the code was written for a "
            f"{package} older than {history.series[0]}, or for something else of that name. Port it to the API the "
            f"installed {package} has (its release notes say what replaced {path})."
        )
    else:
        told, fix = _while_it_was_there(history, f"{who}uses {what}, which is in {package}", "the code")
    return Lead(
        told + _remote_code_note(caller, package),
        {"module": path, "package": package, "caller": caller or "", "first": history.first, "last": history.last},
        fix,
        verdict="environment",
        confidence=0.9,
        next=(f"python -m pip show {package}",),
    )


@rule(
    "api-version-skew",
    r"No module named '(?P<module>(?P<top>[\w]{1,80})\. ?[\w.]{1,200})" + _END_QUOTE,  # "'triton. common'": as pasted
    source=IMPORTLIB,
    confidence=0.8,
)
def submodule_gone(found: re.Match[str], failure: Failure) -> Lead | None:
    top = found.group("top")
    module = found.group("module").replace(" ", "")
    if f"'; '{top}' is not a package" in failure.haystack:
        return None  # a file named like the package (module_shadowed_by_a_file)
    if re.fullmatch(_NEWER_COMFYUI_MODULES, top) and _in_comfyui(failure):
        return None  # a module of ComfyUI itself, no package: comfyui_module_of_a_newer_release
    host = _host_with_folder(failure, top) if top in LOCAL_TOPS else None
    if host is not None:
        return _host_lacks(module, host, failure)
    if not _is_submodule_of_installed(module) or module.startswith(("torch._C", "torch_xla._XLAC")):
        return None
    if module.endswith(("._C", "._ext")):
        return None  # a package's compiled extension (detectron2._C, mmcv._ext): a build without it, read elsewhere
    return _api_skew_lead(module, released_as(module), failure)


def _host_with_folder(failure: Failure, top: str) -> str | None:
    """The application (the webui, ComfyUI) whose own folder `top` the traceback's frames show ("modules" of
    stable-diffusion-webui/modules/scripts.py): a module of it, not a folder of the user's."""
    folder = re.compile(rf"(?:^|[/\\])(stable-diffusion-webui[\w-]{{0,40}}|ComfyUI)[/\\]{re.escape(top)}[/\\]")
    return next((found.group(1) for frame in failure.frames if (found := folder.search(frame.file))), None)


def _host_lacks(module: str, host: str, failure: Failure) -> Lead:
    """A plug-in imports a module of its host application that the installed release of the host does not have."""
    plugin = next((f.owner for f in reversed(failure.frames) if f.owner and host_of(f.file)), None)
    who = f"{plugin} (a plug-in of {host})" if plugin else f"Code that runs in {host}"
    return Lead(
        f"{who} imports {module}, a module of {host} itself that the installed {host} does not have: it was written "
        f"for another release of {host} (most often a newer one). Update {host}"
        + (f", or install the {plugin} release made for this {host}." if plugin else ".")
        + f" A {host} checkout that does not update (local changes, a detached branch) stays old: check its release.",
        {"module": module, "host": host, "package": host} | ({"caller": plugin} if plugin else {}),
        verdict="environment",
        confidence=0.85,
        next=(f"git log -1 --format='%h %cd'  # in the folder of {host}: the release it runs",),
    )


# ComfyUI's own top-level modules that later releases added (node_helpers, comfy_execution, comfy_api, comfy_config):
# a custom node that imports one was written for a newer ComfyUI than the one it runs in. The older ones (nodes,
# folder_paths, comfy) are left out: missing, they say the node runs outside ComfyUI, not in an old one.
_NEWER_COMFYUI_MODULES = r"node_helpers|comfy_execution|comfy_api(?:_nodes)?|comfy_config"


@rule(
    "api-version-skew",
    rf"No module named '(?P<module>(?:{_NEWER_COMFYUI_MODULES})(?:\.[\w.]{{1,200}})?)'",
    source="https://github.com/comfyanonymous/ComfyUI (node_helpers.py, comfy_execution/, comfy_api/, comfy_config/ "
    "at the top of the repository); " + IMPORTLIB,
    confidence=0.85,
)
def comfyui_module_of_a_newer_release(found: re.Match[str], failure: Failure) -> Lead | None:
    if not _in_comfyui(failure):
        return None  # the log does not show ComfyUI: a module of the same name elsewhere
    return _host_lacks(found.group("module"), "ComfyUI", failure)


def _in_comfyui(failure: Failure) -> bool:
    """The record shows ComfyUI: its custom-node loader's words, or frames in its folders."""
    return bool(re.search(r"custom_nodes|ComfyUI", failure.code_shown)) or any(
        host_of(frame.file) == "ComfyUI" or "ComfyUI" in frame.file for frame in failure.frames
    )


# CPython's words for an attribute asked of a module still running its own import (Objects/moduleobject.c,
# module_getattro: "partially initialized module 'X' has no attribute 'Y' (most likely due to a circular import)"):
# a package imported under its own name from inside itself, most often a script or file named like the package
@rule(
    "user-code-error",
    r"partially initialized module '(?P<module>[\w.]{1,200})' (?:has no attribute '(?P<name>\w{1,200})'|from '[^'\n]"
    r"{1,300}' has no attribute)",
    source=MODULEOBJECT + " (module_getattro: 'most likely due to a circular import')",
    confidence=0.85,
)
def circular_import(found: re.Match[str], failure: Failure) -> Lead:
    top = top_of(found.group("module"))
    lead = _shadowed(top)
    return Lead(
        f"The module {found.group('module')} was asked for a name while it was still being imported (a circular "
        f"import). When {top} is an installed package, the usual cause is " + lead.cause[0].lower() + lead.cause[1:],
        lead.params,
        verdict="not-environment",
        next=lead.next,
    )


@rule(
    "api-version-skew",
    r"module '(?P<module>[\w.]{1,200})' has no attribute '(?P<name>\w{1,200})'",
    source=MODULEOBJECT,
    confidence=0.85,
)
def module_has_no_attribute(found: re.Match[str], failure: Failure) -> Lead | None:
    module, name = found.group("module"), found.group("name")
    if "partially initialized module" in failure.message or "most likely due to a circular import" in failure.message:
        return None
    if ".csrc" in module and top_of(module) not in ("torch", "torch_xla", "jax", "jaxlib", "tensorflow"):
        # a package's compiled kernels, bound as <package>...csrc: one missing is a build that left it out
        return Lead(
            f"{module} is {top_of(module)}'s compiled extension, and it has no {name}: the extension was not built, or "
            "built without that kernel (a wheel or source install that skipped the CUDA build: no nvcc, a CUDA_HOME "
            f"unset at install time). Build {top_of(module)} from source with its CUDA extension (pip install "
            "--no-build-isolation, from its repository), or install a wheel that ships the kernels.",
            {"module": module, "name": name, "package": top_of(module)},
            family="build-failure",
            next=("which nvcc && nvcc --version; echo $CUDA_HOME",),
        )
    own = _own_module(failure, module)
    if own is not None:
        return _inconsistent_release(own, module, name)
    return _api_skew_lead(module, released_as(module), failure, name)


def _own_module(failure: Failure, module: str) -> str | None:
    """The package (or application) whose own code asked one of its own modules for a name: the frame that looked
    it up (past __getattr__) is of the distribution that `module` is a part of, or of the application whose folder
    holds it. None for a use across packages."""
    accessor = _accessor(failure)
    if accessor is None or accessor.owner in (None, "python"):
        return None
    top = top_of(module)
    if top in NAMESPACE_TOPS and not _same_namespace_part(module, accessor.file):
        return None  # pyannote.core reading pyannote.audio: two distributions that share a namespace's name
    if accessor.owner.replace("-", "_").lower() == top.lower():
        return accessor.owner
    return accessor.owner if top in LOCAL_TOPS and _host_with_folder(failure, top) == accessor.owner else None


# Namespace packages: one top-level name, several distributions under it (pyannote.core and pyannote.audio,
# google.protobuf and google.cloud.*, nvidia.cudnn and nvidia.cublas), each released on its own
NAMESPACE_TOPS = frozenset({"pyannote", "google", "nvidia", "azure", "zope", "sphinxcontrib"})


def released_as(module: str) -> str:
    """The project a module is released in, as far as its name says: its top-level package, or for a namespace
    package its part (pyannote.audio, google.protobuf -> protobuf), never the namespace's bare name."""
    top = top_of(module)
    parts = module.split(".")
    if top not in NAMESPACE_TOPS or len(parts) < 2:
        return top
    part = ".".join(parts[:2])
    return DISTRIBUTION_OF.get(part, part)


def namespace_part(top: str, file: str) -> str | None:
    """The part of namespace `top` a file lies in (core for .../pyannote/core/utils/helper.py)."""
    found = re.search(rf"[/\\]{re.escape(top)}[/\\](?P<part>\w+)[/\\]", file)
    return found.group("part") if found else None


def _same_namespace_part(module: str, file: str) -> bool:
    """The file is of the namespace's part `module` belongs to (pyannote/audio/... for pyannote.audio.pipelines)."""
    parts = module.split(".")
    return len(parts) >= 2 and namespace_part(parts[0], file) == parts[1]


def _inconsistent_release(owner: str, module: str, name: str) -> Lead:
    """One release's modules disagree with each other: they ship together, so no install of another package makes
    them fit; the release itself is defective (or a checkout was updated in part)."""
    return Lead(
        f"{owner}'s own code uses {module}.{name}, and {owner}'s own {module} does not have it: two parts of one "
        f"release that do not agree, a defect of that {owner} release (a name moved or removed in one file and still "
        f"used in another), not of the packages around it. Update {owner} to the release that fixes it (or go back "
        "to the previous one); a checkout updated in part (local changes that stopped a pull) does the same: "
        "update it whole.",
        {"module": module, "name": name, "package": owner},
        verdict="framework-bug",
        family="framework-internal-error",
        confidence=0.75,
        next=(f"python -m pip show {owner}  # or, for a checkout: git status; git log -1",),
    )


@rule(
    "api-version-skew",
    r"cannot import name '(?P<name>\w{1,200})' from '(?P<module>[\w.]{1,200})'?",
    source=IMPORTLIB,
    confidence=0.85,
)
def cannot_import_name(found: re.Match[str], failure: Failure) -> Lead | None:
    module, name = found.group("module"), found.group("name")
    if "circular import" in failure.message:
        return Lead(
            f"{module} imported itself while loading (a circular import): a file of yours named like a package "
            f"({top_of(module)}.py in the working folder) shadows the installed one.",
            {"module": module, "name": name},
            verdict="not-environment",
            confidence=0.6,
        )
    if name in COMPILED_PARTS and "." not in module:
        if module in ("torch", "torch_xla"):
            return _compiled_part_missing(f"{module}.{name}", module)
        return None  # a package's compiled half that its install lacks (install.compiled_extension_missing)
    namespace = module in _OWN_NAMESPACES  # a folder without __init__.py by design: no failed build to read into it
    unlocated = f"from '{module}' (unknown location)" in failure.haystack
    # (a module path with a private part is itself compiled, torch._C._autograd: its own names are an API)
    compiled_parent = any(part.startswith("_") for part in module.split("."))
    # (and of a project's own folder: an installed framework's folder of that name is an API of its release)
    project = top_of(module) not in KNOWN_IMPORTS and top_of(module) not in DISTRIBUTION_OF
    extension = _EXTENSION_NAME.search(name) is not None and not compiled_parent
    if "." in module and project and unlocated and not namespace and extension:
        # a compiled extension of a project's folder (pcdet's iou3d_nms_cuda, a repository's ops/ built with
        # `python setup.py develop`): its folder has no __init__.py and no built module in it
        return Lead(
            f"{name} is a compiled extension that was never built into {module} (Python finds {module} only as a "
            "folder, '(unknown location)', with no module of that name in it): the project's build step (python "
            "setup.py develop / build_ext --inplace, or pip install -e . in the folder with its setup.py) did not "
            "run or failed. Run it and read its output for the first error (a CUDA or Python the extension does not "
            "support, no nvcc).",
            {"module": f"{module}.{name}", "name": name},
            family="build-failure",
            next=(f"python -c 'import {module}; print({module}.__path__)'  # the folder Python found",),
        )
    if "." not in module and not namespace and unlocated:
        # importlib says "unknown location" for a namespace package: a folder of that name with no __init__.py
        return Lead(
            f"{module} is found only as a folder with no __init__.py (Python says '(unknown location)'): the package "
            "itself is not installed, or its build did not finish (a compiled extension that failed to build leaves "
            f"its source folder alone), or a folder named {module} in the working directory shadows it. Reinstall "
            f"{module} and read its build's output for the first error.",
            {"module": module, "name": name, "package": module},
            family="build-failure",
            next=(f"python -c 'import {module}; print({module}.__path__)'  # the folder Python found",),
        )
    return _api_skew_lead(module, released_as(module), failure, name)


# How a compiled extension module is named (iou3d_nms_cuda, roi_align_cpp, deform_conv_cuda, _ext, _C)
_EXTENSION_NAME = re.compile(r"_(?:cuda|cpp|ext)$|^_C$")


# records.IMPORT_ALIASES: a call through one is a call into that package. (Lightning's pl and L, read for
# api-history.json's classes, are _ALIASES below.)
_IMPORT_ALIASES = IMPORT_ALIASES


# The aliases the docs of api-history.json's packages import them as (`import pytorch_lightning as pl`, `import
# lightning as L`), read on the call line.
_ALIASES = {"pytorch-lightning": re.compile(r"\bpl\.\w+\("), "lightning": re.compile(r"(?<![\w.])L\.\w+\(")}


def log_names(package: str, failure: Failure) -> bool:
    alias = _ALIASES.get(package)
    if alias is not None and any(alias.search(f.code) for f in failure.frames):
        return True
    text = (failure.message + " " + " ".join(f"{f.file} {f.code}" for f in failure.frames)).lower()
    # the import name, as a word of its own: "lightning" is not found in "pytorch_lightning"
    return re.search(rf"(?<![\w.]){re.escape(package.replace('-', '_'))}\b", text) is not None


def instead_of_pinning(package: str, after: str, name: str = "") -> tuple[str, Fix] | None:
    """What to do where pinning the older release cannot work: TensorFlow 2.16 and newer require Keras 3, so keras<3
    cannot be installed beside them; Keras 2 lives on as tf-keras, which tf.keras becomes with TF_USE_LEGACY_KERAS=1.
    `name`: the refused keyword, when dropping it is the other way out."""
    if package != "keras" or after.split(".")[0] != "3":
        return None
    return (
        " With TensorFlow 2.16 or newer, which needs Keras 3, keep Keras 2 as tf-keras instead: install the "
        "tf-keras of the installed TensorFlow's release (tf-keras==2.16.* for TensorFlow 2.16: a newer one "
        "would pull a newer TensorFlow) and set TF_USE_LEGACY_KERAS=1 before TensorFlow is imported.",
        # no install step: which tf-keras depends on the TensorFlow installed, which the log does not say
        export(
            "TF_USE_LEGACY_KERAS",
            "1",
            note="after installing that tf-keras" + (f"; or drop {name}= instead" if name else ""),
        ),
    )


@rule(
    "version-mismatch",
    r"(?i:mmcv)==(?P<version>[\w.+]{1,40}) is used but incompatible",
    # the check OpenMMLab's libraries run on import (mmdet/__init__.py, mmseg's, mmpose's...): an assert that mmcv
    # lies in the range each release names ("Please install mmcv>=2.0.0rc4, <2.2.0.")
    source="https://github.com/open-mmlab/mmdetection/blob/main/mmdet/__init__.py (mmcv_minimum_version, "
    "mmcv_maximum_version)",
    confidence=0.85,
)
def mmcv_outside_the_range(found: re.Match[str], failure: Failure) -> Lead:
    version = found.group("version")
    asked = re.search(r"Please install mmcv(?P<range>[^\n.]{0,60}(?:\.\d[\w.]*)*)", failure.haystack)
    wanted = f" (it asks for mmcv{asked.group('range').strip()})" if asked else ""
    return Lead(
        f"mmcv {version} is installed, and the OpenMMLab library that imports it (mmdet, mmseg, mmpose...) accepts "
        f"only a range of mmcv{wanted}: the two releases do not pair. Install the mmcv its release names, built for "
        "the installed torch and CUDA (mmcv's wheels are made per torch and CUDA: its install page gives the index "
        "URL), or a release of that library made for this mmcv; where no mmcv of its range is built for the "
        "installed torch, an older torch is the way.",
        {"package": "mmcv", "version": version},
        next=("python -m pip show mmcv mmdet torch 2>/dev/null | grep -E '^(Name|Version)'",),
    )


@rule(
    "version-mismatch",
    r"compiled using NumPy 1\.x cannot be run in\s+NumPy (?P<numpy>2[\d.]*)",
    source="https://github.com/numpy/numpy/blob/main/numpy/_core/_multiarray_umath.py",
    confidence=0.95,
)
def numpy2_abi(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"A compiled extension was built against NumPy 1.x, but NumPy {found.group('numpy')} is installed: it may "
        "crash or fail to import. Install numpy<2, or releases of the extensions built for NumPy 2.",
        {"package": "numpy", "numpy": found.group("numpy")},
        install(("numpy", "<2")),
    )


@rule(
    "version-mismatch",
    r"numpy\.dtype size changed, may indicate binary incompatibility",
    source="https://github.com/numpy/numpy/issues/18709",
    confidence=0.9,
)
def numpy_dtype_size(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "A compiled extension was built against another NumPy than the one installed (numpy.dtype size changed): "
        "install a NumPy of the series it was built for, or rebuild/upgrade the extension.",
        {"package": "numpy"},
    )


@rule(
    "version-mismatch",
    r"jaxlib(?: version)? (?P<jaxlib>[\d.]+\w*) is (?:newer than and incompatible with|too old for|older "
    r"than)[^\n]{0,60}jax(?: version)? (?P<jax>[\d.]+\w*)|(?:incompatible|mismatch)[^\n]{0,40}jaxlib[^\n]{0,80}",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/lib/__init__.py (check_jaxlib_version)",
    confidence=0.9,
)
def jax_jaxlib(found: re.Match[str], failure: Failure) -> Lead:
    jax = found.group("jax") or ""
    return Lead(
        "jax and jaxlib must be of the same release, and this jaxlib is not the one this jax was made for: "
        "install them together.",
        {"package": "jaxlib", "jax": jax},
        install(("jax", f"=={jax}" if jax else ""), ("jaxlib", f"=={jax}" if jax else "")),
    )


@rule(
    "version-mismatch",
    r"Detected that PyTorch and torchvision were compiled with different CUDA (?:major )?versions",
    source="https://github.com/pytorch/vision/blob/main/torchvision/extension.py",
    confidence=0.95,
)
def torchvision_cuda(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "torch and torchvision come from builds for different CUDA versions: install the torchvision release "
        "built with the installed torch (same index, same +cuXYZ).",
        {"package": "torchvision"},
    )


def cpu_torch_under_a_gpu_build(built: str, have: str, package: str) -> Lead | None:
    """A package built for a CUDA or ROCm torch ("1.13.1+cu117") that finds a CPU-only torch ("2.1.2+cpu"): the torch
    is what cannot run on the GPU, and the package's build is the lesser matter. The family stays the pair's
    (version-mismatch), as the threads settled it."""
    if not (have.endswith("+cpu") and re.search(r"\+(?:cu|rocm)\d", built)):
        return None
    return Lead(
        f"The installed torch is a CPU-only build ({have}), while {package} was built for torch {built}: the pair "
        "does not fit, and nothing here can use the GPU. Install a CUDA build of torch (from "
        f"download.pytorch.org/whl/cuXYZ for your driver's CUDA), then {package}'s release made for it.",
        {"package": "torch", "have": have, "built": built, "beside": package},
        verdict="environment",
        next=("python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())'",),
    )


@rule(
    "version-mismatch",
    r"(?:xFormers was built for|built for|compiled (?:for|with|against|using)):?\s*(?P<want>(?:PyTorch|torch|CUDA"
    r"|Python|python|NumPy|numpy)\s?[\d.]+[\w.+]*)[^\n]{0,120}?\(?you have (?P<have>[\w.+ ]{1,40})\)?",
    source="https://github.com/facebookresearch/xformers/blob/main/xformers/_cpp_lib.py ('xFormers was built for')",
    confidence=0.85,
)
def built_for_other(found: re.Match[str], failure: Failure) -> Lead:
    built = found.group("want").split()[-1]
    if found.group("want").lower().startswith(("pytorch", "torch")) and (
        cpu_only := cpu_torch_under_a_gpu_build(
            built, found.group("have").strip(), "xformers" if "xFormers" in found.group(0) else "the compiled package"
        )
    ):
        return cpu_only
    return Lead(
        f"A compiled package was built for {found.group('want')}, but {found.group('have').strip()} is installed: "
        "install its build for the installed version, or the version it was built for.",
        {"want": found.group("want"), "have": found.group("have").strip()},
    )


@rule(
    "version-mismatch",
    r"Could not run '(?P<op>torchvision::\w{1,60})' with arguments from the '(?P<backend>\w{1,40})' backend",
    source="https://github.com/pytorch/vision/issues/3058 (torchvision ops missing for the backend: a torchvision "
    "build that does not match torch)",
    confidence=0.85,
)
def torchvision_ops(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"torchvision's {found.group('op')} has no {found.group('backend')} kernel: the installed torchvision was "
        "built for another torch (or without CUDA). Install the torchvision release made for the installed torch, "
        "from the same index.",
        {"op": found.group("op"), "package": "torchvision"},
    )


@rule(
    "api-version-skew",
    r"(?P<api>(?P<top>[A-Za-z_]\w{1,60})\.[\w.]{1,200}) (?:was|has been|is) (?:removed|deprecated)(?: (?:in|since|as "
    r"of) (?:\w+ )?v?(?P<version>[\d.]{1,12}\w*))?",
    source="https://docs.jax.dev/en/latest/api_compatibility.html (deprecations raise AttributeError naming the "
    "removal)",
    confidence=0.85,
)
def api_removed(found: re.Match[str], failure: Failure) -> Lead:
    api, top = found.group("api"), found.group("top")
    version = found.group("version")
    return Lead(
        f"{api} is gone from the installed {top}"
        + (f" (removed in {version})" if version else "")
        + f": the code that uses it{_where(failure)} was written for an older {top}. Install the {top} release it "
        f"was written for (or older than the removal), or a release of the calling code made for the installed {top}.",
        {"api": api, "package": top, "version": version or ""},
        verdict="environment",
    )


# JAX's changelog: jax.experimental.host_callback deprecated in 0.4.26 (March 2024); from 0.4.34 its calls run on
# io_callback, and its APIs raise NotImplementedError from 0.4.35; importing it is an ImportError from 0.8.0 (the
# notes of 0.4.34 and 0.7.1). With the PJRT C API (jax's CUDA and TPU plugins) the legacy one never ran.
@rule(
    "api-version-skew",
    r"host_callback functionality isn't supported with (?:the )?PJRT C API",
    source="https://docs.jax.dev/en/latest/changelog.html (jax 0.4.26: host_callback deprecated; 0.4.34/0.4.35; "
    "0.7.1: ImportError from 0.8.0); settled in https://github.com/thomaspinder/GPJax/issues/479 (GPJax moved to "
    "jax.debug.callback)",
    confidence=0.85,
)
def host_callback_retired(found: re.Match[str], failure: Failure) -> Lead:
    caller = failure.installed_library
    caller = caller if caller and caller != "jax" else ""
    who = caller or "The code that calls it"
    return Lead(
        f"{who} uses jax.experimental.host_callback, which JAX deprecated in 0.4.26 and which does not run with the "
        "PJRT C API of jax's CUDA and TPU plugins (its calls raise from jax 0.4.35; it is gone in 0.8.0). It was "
        f"written for an older jax: upgrade {caller or 'that code'} to a release that uses jax.debug.callback or "
        "jax.experimental.io_callback, or move the calls there yourself.",
        {"api": "jax.experimental.host_callback", "package": caller or "jax", "replacement": "jax.debug.callback"},
        install((caller, ""), upgrade=True) if caller else None,
        verdict="environment",
        next=("python -m pip show jax jaxlib" + (f" {caller}" if caller else ""),),
    )


# diffusers' deprecate() (src/diffusers/utils/deprecation_utils.py) raises, instead of warning, once the installed
# release reaches the one a deprecation named for the removal: the calling code still uses what that release dropped
@rule(
    "api-version-skew",
    r"The deprecation tuple \('(?P<what>[^'\n]{1,100})', '(?P<removal>[\w.]{1,20})', [^\n]{0,600}?should be removed "
    r"since (?P<package>[\w-]{1,40})' version (?P<installed>[\w.+]{1,30}) is >=",
    source="https://github.com/huggingface/diffusers/blob/main/src/diffusers/utils/deprecation_utils.py (deprecate); "
    "settled as diffusers too new for the calling code in https://github.com/modelscope/facechain/issues/508",
    confidence=0.85,
)
def deprecation_window_ended(found: re.Match[str], failure: Failure) -> Lead:
    what, removal, package, installed = (found.group(k) for k in ("what", "removal", "package", "installed"))
    return Lead(
        f"{what} is past its deprecation in the installed {package} {installed}: {package} said it goes in "
        f"{removal}, and from that release on, using it raises instead of warning. The code that uses it"
        f"{_where(failure)} was written for an older {package}. Install a {package} older than {removal}, or a "
        f"release of the calling code made for {package} {installed}.",
        {"api": what, "package": package, "version": removal, "installed": installed},
        install((package, f"<{removal}")),
        verdict="environment",
    )


# api_removed's kin for a name that is no module path (a hook, a method, an endpoint: "Support for
# `training_epoch_end` has been removed in v2.0.0"): whose it is comes from the frame that raised it, not the name.
@rule(
    "api-version-skew",
    r"`?(?P<what>[\w.()]{2,100})`? (?:has been|have been|was|were|is) (?:deprecated and )?removed in "
    r"(?:v|version |release )?(?P<version>\d+(?:\.\d+){1,2})\b",
    source="https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/pytorch/trainer/"
    "configuration_validator.py ('Support for `training_epoch_end` has been removed in v2.0.0')",
    confidence=0.75,
)
def removed_in_release(found: re.Match[str], failure: Failure) -> Lead:
    """A library saying in its own words that an API left in a given release: the code calling it is older."""
    what, version = found.group("what"), found.group("version")
    library = failure.installed_library
    whose = library or "the library that says so"
    return Lead(
        f"{whose} says {what} was removed in its release {version}: the code that uses it was written for an older "
        f"release. Move that code to the replacement the message names, or install a release of {whose} older than "
        f"{version} (`pip show` tells which one is installed).",
        {"api": what, "version": version, "package": library or ""},
        install((library, f"<{version}")) if library else None,
        verdict="environment",
        next=(f"python -m pip show {library}",) if library else (),
    )


@rule(
    "api-version-skew",
    r"'(?P<object>[\w.]{1,120})' object has no attribute '(?P<name>\w{1,120})'",
    source=MODULEOBJECT,
    confidence=0.6,
    on="exception",
)
def object_has_no_attribute(found: re.Match[str], failure: Failure) -> Lead | None:
    accessor = _accessor(failure)
    caller = accessor.owner if accessor is not None else None
    if caller is None or caller == "python" or failure.type.rsplit(".", 1)[-1] != "AttributeError":
        return None  # the user's own objects: judged as the user's code
    if found.group("object") == "NoneType":
        return None  # a value that is None (a file that did not load, a call that returned nothing): no version
    host = host_of(accessor.file) if accessor is not None else None
    return Lead(
        f"{caller} uses {found.group('object')}.{found.group('name')}, which the installed version of the library that "
        f"makes {found.group('object')} objects does not have: {caller} was written for another release of it."
        + (
            f" {caller} is a plug-in of {host}, written against {host}'s release and the libraries that release "
            f"brings: update {host} and {caller} together (or install the {caller} release made for this {host})."
            if host
            else ""
        )
        + _remote_code_note(caller),
        {"object": found.group("object"), "name": found.group("name"), "caller": caller, "package": caller}
        | ({"host": host} if host else {}),
        verdict="environment",
    )


@rule(
    "api-version-skew",
    r"(?:'(?P<object>[\w.]{1,120})' object|type object '(?P<type>[\w.]{1,120})') has no attribute "
    r"'(?P<name>\w{1,120})'",
    source="compat_matrix/failures/attribute-history.json (the first release of each minor series: the attributes "
    "of every class, read from the wheels' source by scripts/attribute_history.py)",
    confidence=0.85,
)
def attribute_that_came_and_went(found: re.Match[str], failure: Failure) -> Lead | None:
    """An attribute that some releases of a library's class had and the installed one lacks
    (`'DynamicCache' object has no attribute 'get_max_length'`): code written for another release of that library,
    whoever's frame asked for it. Read from the class's release history, not from the frames, so a user's own line
    asking for it is read the same way (there, frames alone would say a typo)."""
    # a class Python names with its module ('tensorrt.tensorrt.Builder' object): the table knows its own name
    cls, name = (found.group("object") or found.group("type")).rsplit(".", 1)[-1], found.group("name")
    histories = attribute_history(cls, name)
    named = [h for h in histories if log_names(h.package, failure)]
    if len(named) > 1 or (not named and len(histories) != 1):
        return None  # classes of that name in two packages the log does not tell apart
    picked = named[0] if named else histories[0]
    accessor = _accessor(failure)
    owner = (accessor.owner or "").split(" ", 1)[0].replace("-", "_") if accessor is not None else ""
    if owner in (*picked.imports, picked.package.replace("-", "_")):
        return None  # the library's own code lacks its own attribute: a release at odds with itself, read elsewhere
    return _attribute_lead(picked, bool(named), accessor, failure)


def _attribute_lead(picked: AttributeHistory, shown: bool, accessor: Frame | None, failure: Failure) -> Lead:
    package, cls, name = picked.package, picked.cls, picked.attribute
    whose = f"{package}'" if package.endswith("s") else f"{package}'s"
    if accessor is None:
        caller = "the calling code"
    elif accessor.user or accessor.owner in (None, "python"):
        caller = f"your code at {accessor.short()}"
    elif accessor.owner == REMOTE_CODE:
        caller = f"the model's own code at {accessor.short()}"
    else:
        caller = f"{accessor.owner}'s code at {accessor.short()}"
    runs = ", ".join(f"{first}..{last}" for first, last in picked.had)
    params = {"package": package, "class": cls, "name": name, "had": runs, "first": picked.first, "last": picked.last}
    told, fix = _while_it_was_there(picked, f"{whose} {cls} has {name} in {package}", caller)
    told += _remote_code_note(accessor.owner if accessor is not None else None, package)
    if not shown:
        told += f" If {cls} is a class of your own, not {whose}, this does not apply."
    return Lead(
        told, params, fix=fix, verdict="environment", confidence=None if shown else 0.7,
        next=(f"python -m pip show {package}",),
    )  # fmt: skip


# the methods through which an attribute is looked up on another object's behalf (torch's Module.__getattr__,
# a module's lazy __getattr__): the frame that asked for the attribute is the one before them
_LOOKUPS = frozenset({"__getattr__", "__getattribute__", "_getattr", "getattr"})


def _accessor(failure: Failure) -> Frame | None:
    """The frame whose code asked for the attribute: the innermost one that is not a lookup method."""
    frames = list(failure.frames)
    while frames and frames[-1].function in _LOOKUPS:
        frames.pop()
    return frames[-1] if frames else None  # None: the log shows only the lookup, not who asked


# transformers 4.52's check_torch_load_is_safe (utils/import_utils.py; absent from 4.51.3's wheel): torch.load of a
# .bin/.pt checkpoint only on torch 2.6 or newer, for CVE-2025-32434
@rule(
    "version-mismatch",
    r"we now require users to upgrade torch to at least v(?P<need>\d+\.\d+) in order to use the function",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/utils/import_utils.py "
    "(check_torch_load_is_safe, from the 4.52.1 wheel on); https://nvd.nist.gov/vuln/detail/CVE-2025-32434",
    confidence=0.9,
)
def torch_load_needs_newer_torch(found: re.Match[str], failure: Failure) -> Lead:
    need = found.group("need")
    # no command is pasted: torch's upgrade must bring the torchvision and torchaudio of its release and the same
    # CUDA build, and the other way out (an older transformers) gives up a guard against remote code execution
    return Lead(
        f"The installed transformers (4.52 or newer) loads .bin/.pt checkpoints with torch.load only on torch {need} "
        f"or newer (CVE-2025-32434: torch.load could run code from a crafted file even with weights_only=True), and "
        f"the installed torch is older: the two releases do not fit. Upgrade torch to {need} or newer, with the "
        "torchvision and torchaudio of its release and the same CUDA build (pytorch.org's selector gives the "
        "command); or load the model's safetensors weights, where it has them, which need no torch.load. Pinning "
        "transformers<4.52 also runs, without that guard: only for checkpoints you trust.",
        {"package": "transformers", "torch": f">={need}"},
        next=(
            'python -c "import torch, transformers; print(torch.__version__, torch.version.cuda, '
            'transformers.__version__)"',
        ),
    )


# torch's own schedulers (torch/optim/lr_scheduler.py): each derives from LRScheduler, which torch 2.0 made the base
_TORCH_SCHEDULERS = frozenset({
    "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
    "SequentialLR", "PolynomialLR", "CosineAnnealingLR", "ChainedScheduler", "CyclicLR", "CosineAnnealingWarmRestarts",
    "OneCycleLR",
})  # fmt: skip


@rule(
    "api-version-skew",
    r"The provided lr scheduler `(?P<name>\w{1,100})` doesn't follow PyTorch's LRScheduler API",
    source="pytorch-lightning 1.8.3 and 1.8.4 wheels, pytorch_lightning/utilities/types.py (LRSchedulerTypeTuple: "
    "torch.optim.lr_scheduler._LRScheduler up to 1.8.3; torch 2.0's LRScheduler base from 1.8.4); "
    "https://github.com/pytorch/pytorch/blob/v2.0.0/torch/optim/lr_scheduler.py (_LRScheduler a subclass of "
    "LRScheduler)",
    confidence=0.85,
)
def lightning_before_torch_2_schedulers(found: re.Match[str], failure: Failure) -> Lead:
    """Lightning checks a scheduler with isinstance against the tuple of the scheduler types it knows. Up to 1.8.3
    that tuple held torch's _LRScheduler, which torch 2.0 turned into a subclass of its new LRScheduler base, so every
    torch 2 scheduler fails the check; from 1.8.4 Lightning checks against LRScheduler when torch has it. Fabric
    (lightning_fabric, from 1.9) is of a Lightning that has the fix: there only a scheduler of another kind fails."""
    name = found.group("name")
    where = " ".join([failure.type, *(f.file for f in failure.frames)])
    if re.search(r"lightning[._/\\]fabric|lightning_fabric", where):
        return Lead(
            f"Lightning refuses the scheduler {name}: it derives from neither torch's LRScheduler nor "
            "ReduceLROnPlateau, and this Lightning (1.9 or newer, its Fabric in the log) knows torch 2's schedulers. "
            f"Make {name} derive from torch.optim.lr_scheduler.LRScheduler, or override "
            "LightningModule.lr_scheduler_step as the message says. Not an environment problem.",
            {"name": name},
            family="user-code-error",
            verdict="not-environment",
            confidence=0.6,
        )
    # the unified `lightning` distribution (lightning.pytorch, 1.8 on) or the older `pytorch-lightning`
    package = "lightning" if re.search(r"lightning[./\\]pytorch", where) else "pytorch-lightning"
    fix = install((package, ">=1.8.4,<1.9"), note="the smallest step: 1.8.4 knows torch 2's schedulers")
    upgrade = (
        f"Install {package} 1.8.4 or newer ({package}>=1.8.4,<1.9 is the smallest step, with 1.8's API), or keep "
        "torch below 2.0 for this code."
    )
    if name in _TORCH_SCHEDULERS:
        return Lead(
            f"{name} is torch's own scheduler, and this Lightning refuses it: Lightning up to 1.8.3 checks schedulers "
            "against torch's _LRScheduler, which torch 2.0 made a subclass of its new LRScheduler base, so no torch "
            f"2 scheduler passes. The Lightning installed is older than the torch beside it. {upgrade}",
            {"name": name, "package": package, "torch": ">=2.0"},
            fix,
            verdict="environment",
            next=(f"python -m pip show {package} torch",),
        )
    return Lead(
        f"Lightning refuses the scheduler {name}. If {name} derives from torch's LRScheduler, this is Lightning up to "
        f"1.8.3 beside torch 2.0 or newer (it knows only torch's old _LRScheduler): {upgrade} If {name} is a "
        "scheduler of your own that derives from neither, override LightningModule.lr_scheduler_step as the message "
        "says.",
        {"name": name, "package": package},
        verdict="environment",
        confidence=0.6,
        next=(f"python -m pip show {package} torch",),
    )


@rule(
    "api-version-skew",
    r"Can't get attribute '(?P<name>[\w.]{1,200})' on <module '(?P<module>[\w.]{1,200})'"
    r"(?: from '(?P<path>[^'\n]{1,400})'| \((?P<builtin>built-in)\))?",
    source="https://github.com/python/cpython/blob/main/Lib/pickle.py (Unpickler.find_class: the module a pickle "
    "names is imported and the class looked up in it by name); "
    "https://docs.python.org/3/library/multiprocessing.html#the-spawn-and-forkserver-start-methods",
    confidence=0.75,
)
def unpickled_class_not_there(found: re.Match[str], failure: Failure) -> Lead:
    """A pickle (a checkpoint saved whole, a model or dataset object, what a spawned worker is sent) names each
    object's class by module and name, and loading looks the class up there: the module that lacks it is of another
    release than the one that wrote the pickle, or, for the main script's own class, a process that does not run
    that script."""
    name, module, path = found.group("name"), found.group("module"), found.group("path") or ""
    spawned = module == "__mp_main__" or any(
        f.owner == "python" and "multiprocessing" in f.file for f in failure.frames
    )
    if module in ("__main__", "__mp_main__"):
        said = (
            f"A worker process could not find {name}: workers started by spawn (the default on Windows and macOS; a "
            "DataLoader with num_workers > 0, multiprocessing) are sent objects by their class's module, and "
            f"{name} is defined in the script run as __main__ (or in a notebook), which a worker does not run. Move "
            f"{name} into a .py module the script imports, keep the script's entry under "
            "`if __name__ == '__main__':`, or use num_workers=0."
            if spawned or found.group("builtin")
            else f"The file was pickled with {name}, a class of the script that saved it (__main__), and the script "
            f"that loads it defines no {name}: define or import {name} in the loading script before loading (or save "
            "and load a state_dict rather than the whole object)."
        )
        return Lead(
            f"{said} Not an environment problem.",
            {"name": name, "module": module},
            family="user-code-error",
            verdict="not-environment",
            confidence=0.7,
        )
    top = top_of(module)
    # pickle's message names the module's file: under site-packages (dist-packages on Debian and Colab) the module
    # is an installed package's; a file elsewhere is a project's own, whatever it is called
    installed = bool(re.search(r"[/\\](?:site|dist)-packages[/\\]", path)) if path else top in KNOWN_IMPORTS
    if installed:
        package = distribution_named(top)
        return Lead(
            f"The pickled file (a checkpoint or object saved whole) was written with {module}.{name}, which the "
            f"installed {package} does not have: the file was saved by another release of {package}, most often a "
            f"newer one that added {name}. Install the release that wrote the file (for a newer checkpoint, upgrade "
            f"{package}).",
            {"name": name, "module": module, "package": package},
            verdict="environment",
            next=(f"python -m pip show {package}",),
        )
    return Lead(
        f"The pickled file was written with {module}.{name}, which the code loading it does not have"
        + (f" ({path})" if path else "")
        + f": the file and the code that defines {module} come from different versions of that project. Load it with "
        "the version that saved it, or use a file saved by this one.",
        {"name": name, "module": module, "package": top},
        verdict="environment",
        confidence=0.6,
    )


@rule(
    "api-version-skew",
    r"Weights only load failed|(?<!\w)weights_only=True|WeightsUnpickler error",  # not Keras' save_weights_only
    source="https://github.com/pytorch/pytorch/blob/main/torch/serialization.py (torch 2.6: torch.load defaults to "
    "weights_only=True)",
    confidence=0.85,
)
def torch_load_weights_only(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "torch.load refused the checkpoint: since torch 2.6 torch.load defaults to weights_only=True, which loads "
        "no arbitrary pickled objects. For a checkpoint you trust, pass weights_only=False (or allow its classes "
        "with torch.serialization.add_safe_globals); the code was written for an older torch.",
        {"api": "torch.load", "option": "weights_only", "package": "torch"},
        verdict="environment",
    )


@rule(
    "api-version-skew",
    r"File format not supported: filepath=|Keras 3 only supports V3 `?\.keras`? files|keras\.src\.legacy|Unrecognized "
    r"keyword arguments passed to \w+: \{'(?P<kw>\w+)'"
    # Keras 3's refusals of what Keras 2 took ("The `save_format` argument is deprecated in Keras 3")
    r"|\b(?:deprecated|not supported|no longer supported|removed) in Keras 3\b"
    # Keras 3's save_model (keras/src/saving/saving_api.py): model.save(path) with no extension, which Keras 2
    # wrote as a SavedModel folder; also as the source line a notebook's traceback shows ('"Invalid filepath
    # extension for saving. "' in the raise statement, the rest on the lines after)
    r"|(?P<save>Invalid filepath extension for saving\."
    r"(?: Please add either a `\.keras` extension|(?m:[ \t]*\"[ \t]*$)))"
    # Keras 3's Operation (keras/src/ops/operation.py): a model is built when first called, so .input/.output of a
    # Sequential made without keras.Input, which Keras 2 built on creation, do not exist yet
    r"|(?P<unbuilt>[Tt]he layer \w{1,100} has never been called and thus has no defined (?:input|output)\b(?! shape))"
    # Keras 3's Variable and Operation (keras/src/backend/common/variables.py, keras/src/ops/operation.py) refuse a
    # name with "/", which Keras 2 built from name scopes ("conv1/conv"): a Keras 2 model file, or code that names so
    r"|(?P<slash>Argument [`']?name[`']? must be a string and cannot contain character [`']?/[`']?\.?"
    r"(?: Received: name=(?P<received>[^\s(]{1,200}))?)"
    # Keras 3's Lambda (keras/src/layers/core/lambda_layer.py) infers its output by running the function on
    # symbolic tensors; Keras 2's wording was "Please specify `output_shape` for this Lambda."
    r"|(?P<lambda>We could not automatically infer the shape of the Lambda's output\. Please specify the "
    r"`output_shape` argument for this Lambda layer)",
    source="https://keras.io/getting_started/ (Keras 3: model formats and arguments that changed from Keras 2); "
    "https://github.com/keras-team/keras/blob/master/keras/src/layers/core/lambda_layer.py; "
    "https://github.com/keras-team/keras/blob/master/keras/src/saving/saving_api.py; "
    "https://github.com/keras-team/keras/blob/master/keras/src/ops/operation.py; "
    "https://github.com/keras-team/keras/blob/master/keras/src/backend/common/variables.py",
    confidence=0.8,
)
def keras_3(found: re.Match[str], failure: Failure) -> Lead | None:
    if found.group("save"):
        return Lead(
            "The code saves a model the Keras 2 way, model.save(path) with no extension (a SavedModel folder), and "
            "runs under Keras 3 (TensorFlow 2.16+), which writes only .keras or .h5 files: save to a path ending in "
            ".keras, use model.export(path) for a SavedModel (TF Serving, TFLite), or run the code on Keras 2 "
            "(install tf-keras and set TF_USE_LEGACY_KERAS=1).",
            {"package": "keras", "framework": "tensorflow", "call": "model.save"},
            verdict="environment",
        )
    if found.group("slash"):
        received = found.group("received")
        if received is not None and "/" not in received:
            return None  # a name that is no string (name=12345): the caller's value, not Keras 2's scopes
        named = next(
            (f for f in failure.frames if f.user and re.search(r"(?<![\w.])name\s*=\s*f?['\"][^'\"]*/", f.code)), None
        )
        if named is not None:
            return Lead(
                yours(
                    failure,
                    f"Keras 3 refuses a layer or variable name with '/' (`{scrubbed_head(named.code.strip(), 120)}`): "
                    "rename it without '/'.",
                ),
                {"package": "keras", "where": named.short()},
                family="user-code-error",
                verdict="not-environment",
            )
        return Lead(
            "Keras 3 refuses a layer or variable name with '/', which Keras 2 (tf.keras before TensorFlow 2.16) made "
            "from its name scopes ('conv1/conv'): a model file saved by Keras 2, or code written for it (a library's, "
            "such as TensorFlow Probability's, that names its variables so), runs under Keras 3. Run it on Keras 2 "
            "(for code that uses tf.keras: install tf-keras and set TF_USE_LEGACY_KERAS=1, or pin tensorflow<2.16), "
            "or re-save the model with names without '/'.",
            {"package": "keras", "framework": "tensorflow"},
            verdict="environment",
        )
    if found.group("lambda"):
        # Keras 3 raises it from a bare except around the function's symbolic run: any error inside the function
        # (a shape bug of the user's own, in keras.ops) ends the same; the code shown says which
        keras_2_code = re.search(r"\bK\.\w|\btf\.\w|keras\.backend\b|import backend", failure.code_shown)
        return Lead(
            "Keras 3 works out a Lambda layer's output by running its function on symbolic tensors, and the function "
            "failed there"
            + (
                ": it uses Keras 2's backend functions or TensorFlow ops, as code written for Keras 2 (tf.keras before "
                "TensorFlow 2.16) does, which Keras 3 cannot trace. "
                if keras_2_code
                else ". Most often it uses Keras 2's backend functions (`from keras import backend as K`) or "
                "TensorFlow ops, as code written for Keras 2 (tf.keras before TensorFlow 2.16) does; an error of the "
                "function's own ends the same way (call it on a real tensor to see it). "
            )
            + "Write the function with keras.ops (`from keras import ops`), or pass output_shape= to the Lambda; or "
            "run the code on Keras 2 (install tf-keras and set TF_USE_LEGACY_KERAS=1).",
            {"package": "keras", "framework": "tensorflow", "call": "keras.layers.Lambda"},
            verdict="environment" if keras_2_code else "unknown",
            confidence=0.65,
        )
    if found.group("unbuilt"):
        return Lead(
            "Keras 3 builds a model when it is first called: a Sequential made without keras.Input has no input or "
            "output until then, where Keras 2 (tf.keras before TensorFlow 2.16) had them at once. The code was written "
            "for Keras 2: give the model keras.Input(shape=...) as its first layer, or call it once on a batch before "
            "reading .input/.output; or run it on Keras 2 (tf-keras with TF_USE_LEGACY_KERAS=1).",
            {"package": "keras", "framework": "tensorflow", "call": "keras.Input"},
            verdict="environment",
        )
    return Lead(
        "The code was written for Keras 2 (tf.keras before TensorFlow 2.16) and runs under Keras 3: saved models in "
        "the SavedModel format load through keras.layers.TFSMLayer, and some arguments are gone. Install tf-keras and "
        "set TF_USE_LEGACY_KERAS=1, or pin tensorflow<2.16.",
        {"package": "keras", "framework": "tensorflow"},
        verdict="environment",
    )


# Python 3.11's dataclasses refuse any unhashable default (a dataclass instance, a config object), where 3.10 and
# older refused only list, dict and set and their subclasses: a dataclass that declares another dataclass as a
# field's default worked up to Python 3.10 (https://docs.python.org/3/library/dataclasses.html#mutable-default-values,
# "Changed in version 3.11")
@rule(
    "api-version-skew",
    r"mutable default <class '(?P<type>[\w.]{1,200})'> for field (?P<field>\w{1,80}) is not allowed: use "
    r"default_factory",
    source="https://docs.python.org/3/library/dataclasses.html#mutable-default-values (Changed in version 3.11: "
    "unhashable objects, not only list, dict and set); https://github.com/python/cpython/blob/main/Lib/dataclasses.py",
    confidence=0.85,
)
def dataclass_default_refused_since_3_11(found: re.Match[str], failure: Failure) -> Lead:
    kind, field = found.group("type"), found.group("field")
    if kind in ("list", "dict", "set") or kind.rsplit(".", 1)[-1] in _REFUSED_BEFORE_3_11:
        return Lead(
            f"The dataclass field {field} has a {kind} as its default, which no Python allows (one object would be "
            f"shared by every instance): use field(default_factory={kind}).",
            {"field": field, "fix": "default_factory"},
            verdict="not-environment",
            family="user-code-error",
        )
    return Lead(
        f"The dataclass field {field} has an instance of {kind} as its default. Python 3.11 and newer refuse any "
        "unhashable default (3.10 and older refused only list, dict and set), so this code was written for Python "
        f"3.10 or older: run it on Python 3.10, or change the field to field(default_factory=...) that makes a "
        f"{kind.rsplit('.', 1)[-1]} (unless {kind} is a list, dict or set subclass, which every Python refused: "
        "then the code's own mistake).",
        {"field": field, "fix": "default_factory", "python": "Python 3.11"},
        verdict="environment",
    )


# list, dict and set subclasses that Python 3.10 and older refused as well (isinstance(default, (list, dict, set)))
_REFUSED_BEFORE_3_11 = frozenset({
    "OrderedDict", "defaultdict", "Counter", "EasyDict", "Dict", "ConfigDict", "AttrDict", "Munch", "DotMap",
})  # fmt: skip
