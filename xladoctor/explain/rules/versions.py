"""Versions that do not fit together: a module that is not installed, an API a library expects that the installed
version of another no longer (or not yet) has, and the checks frameworks make of their own pairings."""

from __future__ import annotations

import re
import sys

from xladoctor.explain.platforms import NO_BUILD, platform_of_failure
from xladoctor.explain.records import IMPORT_ALIASES, MOVING_APIS, Failure, Frame, host_of
from xladoctor.explain.rules import Lead, rule, under_torch_compile
from xladoctor.fix import PROJECT_NAME, Fix, export, install
from xladoctor.matrix.failures import (
    AttributeHistory,
    ParameterHistory,
    ReleaseRuns,
    attribute_history,
    history_classes,
    module_history,
    parameter_history,
)

# CPython Lib/importlib/_bootstrap.py: "No module named %r"; Python/import.c: "cannot import name %R from %R"
IMPORTLIB = "https://github.com/python/cpython/blob/main/Lib/importlib/_bootstrap.py"
# CPython Objects/moduleobject.c: "module '%U' has no attribute '%U'"
MODULEOBJECT = "https://github.com/python/cpython/blob/main/Objects/moduleobject.c"
# import name -> the distribution people install for it (PyPI names; the common mismatches only)
DISTRIBUTION_OF = {
    "cv2": "opencv-python", "PIL": "pillow", "sklearn": "scikit-learn", "yaml": "pyyaml", "skimage": "scikit-image",
    "google.protobuf": "protobuf", "torch_xla": "torch_xla", "tensorflow_io": "tensorflow-io", "attr": "attrs",
    "dateutil": "python-dateutil", "dotenv": "python-dotenv", "bs4": "beautifulsoup4", "Crypto": "pycryptodome",
    "jax_plugins": "jax[cuda12]", "flash_attn": "flash-attn", "sentencepiece": "sentencepiece",
    "pkg_resources": "setuptools", "distutils": "setuptools", "setuptools": "setuptools", "cuda": "cuda-python",
}  # fmt: skip


def _top(module: str) -> str:
    return module.split(".", 1)[0]


# "No module named 'a.b'": Python names the first part it could not import, so `a` was imported and lacks `b` (a
# release without that submodule), except where `a` is a namespace several distributions share (google.protobuf is
# missing protobuf) or a folder of the user's project run from another working directory (models.common).
_NAMESPACE_TOPS = frozenset({"google", "nvidia", "mpl_toolkits", "azure", "backports", "zope", "ruamel", "jaraco"})
# A top-level package that is a namespace by design and one distribution's: "cannot import name 'X' from 'cuda'
# (unknown location)" is an API of that distribution, not a build that failed (cuda-python's cuda.bindings and
# cuda.core share the `cuda` namespace, https://nvidia.github.io/cuda-python/)
_OWN_NAMESPACES = frozenset({"cuda"})
_LOCAL_TOPS = frozenset({
    "models", "model", "utils", "util", "src", "lib", "libs", "modules", "module", "common", "core", "tools", "scripts",
    "configs", "config", "app", "networks", "nets", "layers", "ops", "helpers", "dataset", "data", "experiments",
})  # fmt: skip


def _is_submodule_of_installed(module: str) -> bool:
    top = _top(module)
    return "." in module and top not in _NAMESPACE_TOPS and top not in _LOCAL_TOPS and module not in DISTRIBUTION_OF


# Frames that only pass a call on: torch.nn.Module.__call__'s dispatch. A call's arguments are wrong where they were
# written, the frame before these (`resnet(x, temb, scale=s)` in diffusers -> _call_impl -> forward()).
_PASSING_ON = frozenset({"_call_impl", "_wrapped_call_impl"})


def _caller(failure: Failure) -> str | None:
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


def _parties(failure: Failure, caller: str) -> str:
    """The other packages whose code is in the stack: a method called on `self` runs the override of the subclass a
    package above defined (DeepSpeed's elastic agent under torch's), so each of them may be the side to move."""
    others = list(dict.fromkeys(f.owner for f in failure.frames if f.owner and f.owner not in (caller, "python")))
    if not others:
        return ""
    return f"; the stack also runs code of {', '.join(others[:3])}, whose subclass or wrapper may be the other side"


def _callee_package(call: str) -> str:
    """The package a called name starts with ('torch.nn.functional.pad' -> torch); '' when it starts with a class
    or a bare function (`Trainer.get_batch_samples`, `forward`): Python's message does not name the module."""
    top = _top(call)
    return top if "." in call and top.islower() else ""


# Import names a misspelling is measured against: the frameworks and the packages people install beside them. A
# name one or two letters from one of them, and itself none of them, is a typo in the import, not a missing package
# ("lightening" for lightning); the cut-off is difflib's ratio, high enough that torchaudio is not torchvision, and
# only an edit inside the name counts.
_KNOWN_IMPORTS = frozenset(
    {*MOVING_APIS, *DISTRIBUTION_OF, "lightning", "pytorch_lightning", "torchmetrics", "datasets", "timm", "einops",
     "safetensors", "tokenizers", "sklearn", "pandas", "matplotlib", "tqdm", "wandb", "tensorboard", "onnxruntime"}
)  # fmt: skip


def _misspelt(top: str) -> str | None:
    if top in _KNOWN_IMPORTS or len(top) < 5:
        return None
    import difflib  # only for a name that is not a known one

    close = difflib.get_close_matches(top, _KNOWN_IMPORTS, n=1, cutoff=0.88)
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
    top = _top(module)
    compiled = module.startswith(("torch._C", "torch_xla._XLAC")) or module.endswith("._C")
    if _is_submodule_of_installed(module) and not compiled:
        return None  # a submodule an installed package lacks: api-version-skew (submodule_gone) reads it
    if top in _LOCAL_TOPS and "." in module and _host_with_folder(failure, top) is not None:
        return None  # a module of the application the traceback runs in (submodule_gone reads it)
    if module in ("torch._C", "torch_xla._XLAC") or module.endswith("._C"):
        return Lead(
            f"{module} is the compiled part of {top}: it is missing from this install (a broken or interrupted "
            f"install, or Python importing the {top} source folder instead of the installed package).",
            {"module": module, "package": top},
            install((top if top != "torch_xla" else "torch_xla", ""), reinstall=True),
        )
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
    package = DISTRIBUTION_OF.get(module) or DISTRIBUTION_OF.get(top) or top.replace("_", "-")
    platform = platform_of_failure(failure)
    unbuilt = NO_BUILD.get((top, platform or ""))
    if unbuilt is not None:
        said, instead = unbuilt
        return Lead(
            f"No module named {module!r}, and on {'Windows' if platform == 'windows' else 'macOS'} it is not a "
            f"matter of installing it: {said}",
            {"module": module, "package": instead or package, "platform": platform or ""},
            install((instead, "")) if instead else None,
            next=('python -c "import torch; print(torch.__version__)"',),
        )
    building = any(w in failure.message for w in ("build wheel", "Getting requirements", "setup.py", "pyproject"))
    if building and top == "torch":
        return Lead(
            "pip builds the package in an isolated environment without torch, so its setup.py cannot import torch: "
            "build it against the installed torch with --no-build-isolation.",
            {"module": module, "package": "torch"},
            next=("pip install --no-build-isolation PACKAGE",),
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
    return Lead(
        f"No module named {module!r}: {package} is not installed in the interpreter that ran this, or it was "
        "installed into another one (another venv, conda env, or the system Python).",
        {"module": module, "package": package},
        install((package, "")),
        next=("python -c 'import sys; print(sys.executable)'  # the interpreter that ran it",),
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
    text = "\n".join([failure.haystack, *(frame.code for frame in failure.frames)])
    for alias in aliases:
        if re.search(rf"(?<![\w.]){re.escape(alias)}\.{re.escape(name)}\b", text):
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
        next=(f"python -m pip show {shown} {failure.installed_library or ''}".strip(),),
    )


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
    instead = _instead_of_pinning(package, below.group(1)) if below else None
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
    host = _host_with_folder(failure, top) if top in _LOCAL_TOPS else None
    if host is not None:
        return _host_lacks(module, host, failure)
    if not _is_submodule_of_installed(module) or module.startswith(("torch._C", "torch_xla._XLAC")):
        return None
    if module.endswith(("._C", "._ext")):
        return None  # a package's compiled extension (detectron2._C, mmcv._ext): a build without it, read elsewhere
    return _api_skew_lead(module, top, failure)


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
    top = _top(found.group("module"))
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
    if ".csrc" in module and _top(module) not in ("torch", "torch_xla", "jax", "jaxlib", "tensorflow"):
        # a package's compiled kernels, bound as <package>...csrc: one missing is a build that left it out
        return Lead(
            f"{module} is {_top(module)}'s compiled extension, and it has no {name}: the extension was not built, or "
            "built without that kernel (a wheel or source install that skipped the CUDA build: no nvcc, a CUDA_HOME "
            f"unset at install time). Build {_top(module)} from source with its CUDA extension (pip install "
            "--no-build-isolation, from its repository), or install a wheel that ships the kernels.",
            {"module": module, "name": name, "package": _top(module)},
            family="build-failure",
            next=("which nvcc && nvcc --version; echo $CUDA_HOME",),
        )
    own = _own_module(failure, module)
    if own is not None:
        return _inconsistent_release(own, module, name)
    return _api_skew_lead(module, _top(module), failure, name)


def _own_module(failure: Failure, module: str) -> str | None:
    """The package (or application) whose own code asked one of its own modules for a name: the frame that looked
    it up (past __getattr__) is of the distribution that `module` is a part of, or of the application whose folder
    holds it. None for a use across packages."""
    accessor = _accessor(failure)
    if accessor is None or accessor.owner in (None, "python"):
        return None
    top = _top(module)
    if accessor.owner.replace("-", "_").lower() == top.lower():
        return accessor.owner
    return accessor.owner if top in _LOCAL_TOPS and _host_with_folder(failure, top) == accessor.owner else None


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
            f"({_top(module)}.py in the working folder) shadows the installed one.",
            {"module": module, "name": name},
            verdict="not-environment",
            confidence=0.6,
        )
    namespace = module in _OWN_NAMESPACES  # a folder without __init__.py by design: no failed build to read into it
    if "." not in module and not namespace and f"from '{module}' (unknown location)" in failure.haystack:
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
    return _api_skew_lead(module, _top(module), failure, name)


@rule(
    "api-version-skew",
    r"(?P<call>[\w.]{1,200})\(\) got an unexpected keyword argument '(?P<name>\w{1,100})'",
    source="https://github.com/python/cpython/blob/main/Python/ceval.c (unexpected keyword argument)",
    confidence=0.6,
    # a line too: the message quoted without its exception type ("load() got an unexpected keyword argument
    # 'backend'"), which the development part's threads settle as a release question every time
)
def unexpected_keyword(found: re.Match[str], failure: Failure) -> Lead | None:
    call, name = found.group("call"), found.group("name")
    caller = _caller(failure)
    if not failure.frames and re.fullmatch(r"\w*Config\.__init__", call):
        # a library's configuration class given a key it does not know: a config file (adapter_config.json,
        # config.json) saved by a newer release of that library, read by the older one installed
        return Lead(
            f"{call}() does not take {name}=: a configuration saved by a newer release of its library (peft's "
            "adapter_config.json, a model's config.json) is read by the older release installed here. Upgrade that "
            "library to the release that wrote the file.",
            {"call": call, "name": name},
            verdict="environment",
            confidence=0.7,
        )
    if (saved := _saved_by_another_release(call, name, failure)) is not None:
        return saved
    if caller is None or caller == "python":
        return _keyword_another_release_refused(call, name, failure)
    return Lead(
        f"{caller} calls {call}() with {name}=, which the installed version of the callee does not take: {caller} "
        f"was written for another release of the library it calls.",
        {"call": call, "name": name, "caller": caller, "package": _callee_package(call)},
        verdict="environment",
    )


@rule(
    "api-version-skew",
    r"(?P<call>[\w.]{1,200})\(\) got multiple values for (?:keyword )?argument '(?P<name>\w{1,100})'",
    source="https://github.com/python/cpython/blob/main/Python/ceval.c (multiple values for argument: a parameter "
    "filled by position and named again)",
    confidence=0.6,
    on="exception",
)
def multiple_values_for_argument(found: re.Match[str], failure: Failure) -> Lead | None:
    """A parameter given twice, by position and by keyword: the caller's positional arguments were laid out for a
    signature with another order (a parameter inserted or removed before it). In a library's call, or a call of a
    framework's function with no traceback to say whose, that is a release question; in the user's own call of
    anything else it is most often the user's order."""
    call, name = found.group("call"), found.group("name")
    caller, package = _caller(failure), _callee_package(call)
    twice = f"{call}() got {name} twice, by position and by keyword"
    if failure.frames and caller not in (None, "python"):
        return Lead(
            f"{caller} calls {call}() with {name} twice, by position and by keyword: the positional parameters of the "
            f"installed {package or 'callee'} are not in the order {caller} was written for (a parameter added or "
            f"removed before {name}). {caller} and {package or 'the library it calls'} are of releases that do not "
            "pair: install the releases they were written for together.",
            {"call": call, "name": name, "caller": caller, "package": package},
            verdict="environment",
            next=tuple(f"python -m pip show {p}" for p in (caller, package) if p),
        )
    if failure.frames or not package or package in _NOT_MODULES:
        return None  # the user's own call, or a call of a function Python's message does not place in a package
    return Lead(
        f"{twice}, and the log shows no traceback to say who called it: most often the caller was written for another "
        f"release of {package}, whose positional parameters moved (a parameter added or removed before {name}); if "
        "the call is your own, pass its arguments by keyword.",
        {"call": call, "name": name, "package": package},
        verdict="environment",
        confidence=0.5,
        next=(f"python -m pip show {package}",),
    )


@rule(
    "api-version-skew",
    r"Argument\(s\) not recognized: \{'(?P<name>\w{1,60})'",
    source="https://github.com/keras-team/keras/blob/master/keras/src/optimizers/base_optimizer.py "
    "(BaseOptimizer.__init__ refuses what Keras 2 took: lr, and the rest of **kwargs)",
    confidence=0.8,
    on="exception",
)
def keras3_optimizer_argument(found: re.Match[str], failure: Failure) -> Lead:
    name = found.group("name")
    instead = " (Keras 3 spells it learning_rate=)" if name == "lr" else ""
    # lr= is Keras 2's own name (Keras 3 dropped the alias); another keyword may be a typo as well
    written = "the code was written for Keras 2" if name == "lr" else "most often, code written for Keras 2"
    legacy = _instead_of_pinning("keras", "3", name)
    return Lead(
        f"A Keras 3 optimizer refuses {name}={instead}: {written} (tf.keras before TensorFlow 2.16), and the Keras "
        f"installed is 3. Write the Keras 3 argument.{legacy[0] if legacy else ''}",
        {"name": name, "package": "keras"},
        legacy[1] if legacy else None,
        verdict="environment",
        next=("python -m pip show keras tensorflow",),
    )


# records.IMPORT_ALIASES: a call through one is a call into that package. (Lightning's pl and L, read for
# api-history.json's classes, are _ALIASES below.)
_IMPORT_ALIASES = IMPORT_ALIASES
_UPPER_ALIASES = "|".join(alias for alias in _IMPORT_ALIASES if alias[:1].isupper())  # a module path starts lower

# Names that start a dotted call without being a module: an object's attribute (`self.model.generate(`).
_NOT_MODULES = frozenset({"self", "cls", "super", "model", "models", "pipe", "pipeline", "trainer", "args", "config"})


def _saved_by_another_release(call: str, name: str, failure: Failure) -> Lead | None:
    """A class's constructor refusing a keyword that `Class.from_pretrained(...)` handed it: from_pretrained (the
    convention of transformers, diffusers, peft and sentence-transformers) builds the object from the files saved
    with a model (config.json, processor_config.json, tokenizer_config.json), so the key came from those files, saved
    by another (most often newer) release of the library, not from the line that called it."""
    cls = call.removesuffix(".__init__")
    if cls == call or "." in cls:
        return None
    # the frame whose line calls Class.from_pretrained: the user's (a traceback cut there) or the last of any; the
    # model's name when the call gives it as a literal
    calling = re.compile(
        rf"(?<![\w.]){re.escape(cls)}\.from_pretrained\((?:\s*(?P<q>['\"])(?P<model>[\w./-]{{1,200}})(?P=q))?"
    )
    called = next(((f, m) for f in reversed(failure.frames) if (m := calling.search(f.code))), None)
    if called is None:
        return None
    frame, named = called
    model = f" {named.group('model')}" if named.group("model") else ""
    return Lead(
        f"{cls}.from_pretrained() built {cls} from the files saved with the model{model} (its config.json, "
        f"processor_config.json or tokenizer_config.json), and {cls}() does not take {name}=, a key of those files: "
        f"they were saved by another release of the library that defines {cls} (transformers, diffusers, ...), most "
        "often a newer one than the release installed here. Upgrade that library to the release the model's files "
        "were written for (its model card or config.json's 'transformers_version' says which), or pin the model's "
        "revision= to files saved for the installed release.",
        {"call": call, "name": name, "class": cls, "where": frame.short(), "model": model.strip()},
        verdict="environment",
        confidence=0.75,
        next=("python -m pip show transformers diffusers 2>/dev/null | grep -E '^(Name|Version)'",),
    )


# A function's own name as Python's message gives it (lower case, not a dunder), and the callables a user's classes
# define themselves (an nn.Module's forward, a Keras layer's call): refused keywords there are the user's own.
_PLAIN_FUNCTION = re.compile(r"[a-z][a-z0-9_]*")
_OWN_CALLABLES = frozenset({"forward", "call", "step", "training_step", "validation_step", "predict", "run", "main"})


def _aliased_callee(call: str, callee: str, name: str, frame: Frame) -> Lead | None:
    """The user's line passes name= to a function it calls by another name than the one Python's message gives
    (`attn(q, k, v, scale=s)` refused as scaled_dot_product_attention()): a function imported under an alias
    (`from torch.nn.functional import scaled_dot_product_attention as attn`), a library's, not one the line defines;
    its own function or a library's reached through an object is judged as user code."""
    if "." in call or not _PLAIN_FUNCTION.fullmatch(callee) or callee in _OWN_CALLABLES:
        return None  # a class's constructor, a method, a module's forward(): what the user's own classes define
    called = [c for c in re.findall(r"(?<![\w.])([A-Za-z_]\w*)\s*\(", frame.code) if c not in _NOT_MODULES]
    if not re.search(rf"\b{re.escape(name)}\s*=", frame.code) or len(called) != 1 or called[0] == callee:
        return None
    alias = called[0]
    return Lead(
        f"Your code at {frame.short()} calls {callee}() under the name {alias} (an import with `as`) with {name}=, "
        f"which the installed release of the library that defines {callee} does not take: the code was written for "
        f"another release of it (a parameter added or removed since). Install the release the code was written for "
        f"(its requirements file says which), or drop {name}= if it is a typo.",
        {"call": call, "name": name, "alias": alias, "where": frame.short()},
        verdict="environment",
        confidence=0.6,
        next=("python -m pip list 2>/dev/null",),
    )


def _keyword_another_release_refused(call: str, name: str, failure: Failure) -> Lead | None:
    """A keyword refused where no library's frame made the call: at the user's own line, read as another package's
    release when that line calls the callee through a module path (`faster_whisper.transcribe.TranscriptionOptions(`);
    with no traceback at all, read so with less confidence (in the corpus's threads it is a release question, not a
    typo, every time). A class api-history.json knows is left to its history (a keyword no release took: a typo)."""
    owner = call.split(".", 1)[0] if "." in call else ""
    callee = owner if owner and owner[:1].isupper() else call.rsplit(".", 1)[-1]
    if callee in history_classes():
        return None
    frame = failure.last_frame
    if frame is not None:
        module = rf"(?P<module>(?:[a-z_]\w*|{_UPPER_ALIASES})(?:\.[a-z_]\w*)*)"
        found = re.search(rf"(?<![\w.]){module}\.{re.escape(callee)}\s*\(", frame.code)
        if found is None:
            return _aliased_callee(call, callee, name, frame)
        top = _IMPORT_ALIASES.get(_top(found.group("module")), _top(found.group("module")))
        distribution = DISTRIBUTION_OF.get(top) or top.replace("_", "-")
        if top in _NOT_MODULES or top in _LOCAL_TOPS or (not callee[:1].isupper() and top not in _KNOWN_IMPORTS):
            return None
        return Lead(
            f"Your code at {frame.short()} calls {found.group('module')}.{callee}() with {name}=, which the installed "
            f"{top} does not take: the code was written for another release of {top} (a parameter added or removed "
            f"since). Install the release the code was written for, or drop {name}= if it is a typo.",
            {"call": call, "name": name, "package": distribution, "where": frame.short()},
            verdict="environment",
            confidence=0.7,
            next=(f"python -m pip show {distribution}",),
        )
    if failure.frames:
        return None
    if failure.kind == "line" and (call.rsplit(".", 1)[-1] in _OWN_CALLABLES or call.endswith("__")):
        return None  # quoted without a traceback, forward() or __init__() is as likely the user's own class
    package = _callee_package(call)
    whose = package or f"the library that defines {call}"
    return Lead(
        f"{call}() does not take {name}=, and the log shows no traceback to say who called it: most often the code "
        f"was written for another release of {whose} (a parameter added or removed since); if the call is your own, "
        "check the keyword against the installed release's documentation.",
        {"call": call, "name": name, "package": package},
        verdict="environment",
        confidence=0.5,
        next=("python -m pip list 2>/dev/null",),
    )


@rule(
    "api-version-skew",
    r"(?P<call>[\w.]{1,200})\(\) (?:takes (?:from \d+ to )?(?P<takes>\d+) positional arguments? but (?P<given>\d+) "
    r"(?:were|was) given"
    r"|missing (?P<missing>\d+) required positional arguments?: (?P<names>[^\n]{1,200}))",
    source="https://github.com/python/cpython/blob/main/Python/ceval.c (too many positional arguments, missing "
    "required argument)",
    confidence=0.6,
    on="exception",
)
def call_signature_changed(found: re.Match[str], failure: Failure) -> Lead | None:
    """unexpected_keyword's kin: a library calls a function with a number of arguments it does not take, which is
    one library written for another release of another (a method that gained or lost a parameter)."""
    call = found.group("call")
    caller = _caller(failure)
    if caller is None or caller == "python":
        return None  # the user's own call: a mistake of theirs, judged as user code
    what = (
        f"with {found.group('given')} positional arguments where it takes {found.group('takes')}"
        if found.group("takes")
        else f"without {found.group('names').strip()}"
    )
    return Lead(
        f"{caller} calls {call}() {what}: the two sides were written for different releases ({caller}, or the "
        f"package that defines {call}, is newer than the other){_parties(failure, caller)}. Install the releases "
        f"made for each other: upgrade {caller}, or pin the other to the version {caller} was written for.",
        {"call": call, "caller": caller, "package": _callee_package(call)},
        verdict="environment",
        next=("python -m pip list 2>/dev/null | head -100",),
    )


# Where Python names no class ("__init__() got an unexpected keyword argument", before 3.10), the call line does.
_CALLED_CLASS = re.compile(r"\b([A-Z]\w{2,60})\s*\(")
# The aliases the docs of api-history.json's packages import them as (`import pytorch_lightning as pl`, `import
# lightning as L`), read on the call line.
_ALIASES = {"pytorch-lightning": re.compile(r"\bpl\.\w+\("), "lightning": re.compile(r"(?<![\w.])L\.\w+\(")}


# Class names people also give classes of their own: without the library in the log, a verdict on them is less sure.
_GENERIC_CLASS_NAMES = frozenset({"Trainer", "Accelerator", "BaseTrainer"})


def _called_class(failure: Failure, named: str | None) -> str | None:
    """The class whose constructor refused the keyword: Python's message names it from 3.10 on; before, the call
    on the last frame's line does (only that line: the frames above called something else)."""
    if named:
        return named
    frame = failure.last_frame
    if frame is None or "super(" in frame.code:
        return None  # a base class's __init__ called through super(): which one is not shown
    known = history_classes()
    name: str
    for name in _CALLED_CLASS.findall(frame.code):
        if name in known:
            return name
    return None


def _log_names(package: str, failure: Failure) -> bool:
    alias = _ALIASES.get(package)
    if alias is not None and any(alias.search(f.code) for f in failure.frames):
        return True
    text = (failure.message + " " + " ".join(f"{f.file} {f.code}" for f in failure.frames)).lower()
    # the import name, as a word of its own: "lightning" is not found in "pytorch_lightning"
    return re.search(rf"(?<![\w.]){re.escape(package.replace('-', '_'))}\b", text) is not None


def _history_pick(
    found: list[ParameterHistory], failure: Failure, named_callable: bool = False
) -> tuple[ParameterHistory | None, bool, list[str]]:
    """The package whose class it is, whether the log shows it, and the other packages that fit as well: the one the
    log shows, else the packages whose releases changed that parameter, when they all changed it alike (Lightning's
    two package names); a class of the user's own with that name is left to the facts to rule out.

    A release that takes **kwargs does not refuse an unknown name, so such a history is not read, except for a
    function the message names itself (`FluxPipeline.__call__()`) whose parameter was added: the refusal shows the
    installed release has neither, and the release that added it is the fix whatever later ones take."""
    changed = [
        h for h in found
        if (h.removed or h.added) and (not h.var_keyword or (named_callable and h.added and not h.removed))
    ]  # fmt: skip
    named = [h for h in changed if _log_names(h.package, failure)]
    if named:
        return named[0], True, []
    alike = {(h.removed, h.added, h.first if h.added else "", h.next_series) for h in changed}
    if len(alike) != 1:
        return None, False, []  # none changed it (every release takes it: not a release question), or they disagree
    return changed[0], False, [h.package for h in changed[1:]]


@rule(
    "api-version-skew",
    r"(?:(?P<cls>[A-Z]\w{1,100})\.)?__init__\(\) got an unexpected keyword argument '(?P<name>\w{1,100})'",
    source="compat_matrix/failures/api-history.json (the first release of each minor series: constructor signatures "
    "and dataclass fields, read from the wheels by scripts/api_history.py)",
    confidence=0.85,
    on="exception",
)
def constructor_parameter_history(found: re.Match[str], failure: Failure) -> Lead | None:
    """A constructor refusing a keyword its library took in other releases (trl's SFTTrainer and tokenizer=,
    Lightning's Trainer and gpus=): code written for another release of that library. Raised at the user's own call,
    the traceback alone reads as their typo; the library's release history says otherwise."""
    cls = _called_class(failure, found.group("cls"))
    name = found.group("name")
    picked, shown, also = _history_pick(parameter_history(cls, name), failure) if cls else (None, False, [])
    return _history_lead(picked, shown, also, failure) if picked is not None else None


@rule(
    "api-version-skew",
    r"(?P<call>[A-Za-z_][\w.]{0,200})\(\) got an unexpected keyword argument '(?P<name>\w{1,100})'",
    source="compat_matrix/failures/api-history.json (the first release of each minor series: function and method "
    "signatures, read from the wheels by scripts/api_history.py)",
    confidence=0.85,
    on="exception",
)
def callable_parameter_history(found: re.Match[str], failure: Failure) -> Lead | None:
    """constructor_parameter_history's kin for functions and methods (huggingface_hub's hf_hub_download, a
    diffusers pipeline's __call__): looked up by the qualified name Python's message gives them."""
    call = found.group("call")
    if call.endswith("__init__"):
        return None  # a constructor: constructor_parameter_history reads it
    picked, shown, also = _history_pick(parameter_history(call, found.group("name")), failure, named_callable=True)
    if picked is not None and not shown and _COMMON_FUNCTION_NAME.fullmatch(call):
        return None  # jit, vmap, grad, checkpoint: torch, numba and others have their own; only with jax in the log
    return _history_lead(picked, shown, also, failure) if picked is not None else None


# A module function's bare name that other libraries use too (jax's jit and torch.jit, jax's vmap and torch.vmap):
# one word, no underscore or dot. hf_hub_download or StableDiffusionPipeline.__call__ say whose they are.
_COMMON_FUNCTION_NAME = re.compile(r"[a-z]+")


def _instead_of_pinning(package: str, after: str, name: str = "") -> tuple[str, Fix] | None:
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


def _history_lead(picked: ParameterHistory, shown: bool, also: list[str], failure: Failure) -> Lead:
    """What a refused keyword means, by the release history of the class or function that refused it."""
    cls, name = picked.cls, picked.parameter
    frame = failure.last_frame
    if frame is not None and not frame.user and frame.owner not in (None, "python"):
        caller = (
            f"{frame.owner}'s code at {frame.short()} (a release of {frame.owner} made for another {picked.package})"
        )
    elif frame is not None:
        caller = f"your code at {frame.short()}"
    else:
        caller = "the calling code"
    package, renamed, first, last, after = picked.package, picked.renamed_to, picked.first, picked.last, ""
    whose = f"{package}'" if package.endswith("s") else f"{package}'s"  # diffusers' pipeline, trl's trainer
    params = {"package": package, "class": cls, "name": name, "first": first, "last": last, "latest": picked.latest}
    if picked.removed and picked.added:
        after = picked.next_series
        told = (
            f"{whose} {cls} takes {name}= only from {package} {first} to {last}: {caller} was written for "
            f"those releases, and the one installed is older or newer. Install one of them "
            f"({package}>={first},<{after})" + (f", or pass {renamed}= as newer releases want." if renamed else ".")
        )
        fix = install((package, f">={first},<{after}"))
    elif picked.removed:
        after = picked.next_series
        told = (
            f"{whose} {cls} takes {name}= up to {package} {last} and refuses it from {after} on"
            + (f" (renamed {renamed}= in an earlier release, the old name kept for a while)" if renamed else "")
            + f": {caller} was written for an older {package} than the one installed. "
            + (f"Pass {renamed}= instead of {name}=" if renamed else f"Drop {name}= or move it where {package} now "
               "takes it (its release notes say)")
            + f", or install the release it was written for ({package}<{after})."
        )  # fmt: skip
        fix = install((package, f"<{after}"), note=f"or change {name}= in the call, as above")
        instead = _instead_of_pinning(package, after, name)
        if instead is not None:
            told, fix = told + instead[0], instead[1]
    else:
        saved = " (or a configuration file it reads, saved by that release)" if picked.cls.endswith("Config") else ""
        told = (
            f"{whose} {cls} takes {name}= from {package} {first} on: {caller}{saved} was written for a newer "
            f"{package} than the one installed. Upgrade it."
        )
        fix = install((package, f">={first}"))
    if also:
        told += f" (The same holds for {', '.join(also)}, if that is the package installed.)"
    generic = not shown and (cls in _GENERIC_CLASS_NAMES or bool(also))
    if generic:
        kind = "function" if "." in cls or cls[:1].islower() else "class"
        told += f" If {cls} is a {kind} of your own, not {whose}, this does not apply."
    return Lead(
        told, params, fix=fix, verdict="environment", confidence=0.7 if generic else None,
        next=(f"python -m pip show {package}",),
    )  # fmt: skip


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


@rule(
    "version-mismatch",
    r"(?:xFormers was built for|built for|compiled (?:for|with|against|using)):?\s*(?P<want>(?:PyTorch|torch|CUDA"
    r"|Python|python|NumPy|numpy)\s?[\d.]+[\w.+]*)[^\n]{0,120}?\(?you have (?P<have>[\w.+ ]{1,40})\)?",
    source="https://github.com/facebookresearch/xformers/blob/main/xformers/_cpp_lib.py ('xFormers was built for')",
    confidence=0.85,
)
def built_for_other(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"A compiled package was built for {found.group('want')}, but {found.group('have').strip()} is installed: "
        "install its build for the installed version, or the version it was built for.",
        {"want": found.group("want"), "have": found.group("have").strip()},
    )


@rule(
    "version-mismatch",
    r"Could not run '(?P<op>torchvision::\w{1,60})' with arguments from the '(?P<backend>\w{1,40})' backend",
    source="https://github.com/pytorch/vision/issues/3058 (torchvision ops missing for the backend: a torchvision "
    "build "
    "that does not match torch)",
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
    named = [h for h in histories if _log_names(h.package, failure)]
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
    torch 2 scheduler fails the check; from 1.8.4 Lightning checks against LRScheduler when torch has it."""
    name = found.group("name")
    fix = install(("pytorch-lightning", ">=1.8.4,<2"), note="the 1.x line that knows torch 2's schedulers")
    upgrade = (
        "Install a Lightning that knows torch 2's schedulers (pytorch-lightning 1.8.4 or newer; staying on 1.x "
        "keeps its API), or keep torch below 2.0 for this code."
    )
    if name in _TORCH_SCHEDULERS:
        return Lead(
            f"{name} is torch's own scheduler, and this Lightning refuses it: Lightning up to 1.8.3 checks schedulers "
            "against torch's _LRScheduler, which torch 2.0 made a subclass of its new LRScheduler base, so no torch "
            f"2 scheduler passes. The Lightning installed is older than the torch beside it. {upgrade}",
            {"name": name, "package": "pytorch-lightning", "torch": ">=2.0"},
            fix,
            verdict="environment",
            next=("python -m pip show pytorch-lightning lightning torch",),
        )
    return Lead(
        f"Lightning refuses the scheduler {name}. If {name} derives from torch's LRScheduler, this is Lightning up to "
        f"1.8.3 beside torch 2.0 or newer (it knows only torch's old _LRScheduler): {upgrade} If {name} is a "
        "scheduler of your own that derives from neither, override LightningModule.lr_scheduler_step as the message "
        "says.",
        {"name": name, "package": "pytorch-lightning"},
        verdict="environment",
        confidence=0.6,
        next=("python -m pip show pytorch-lightning lightning torch",),
    )


@rule(
    "api-version-skew",
    r"Can't get attribute '(?P<name>[\w.]{1,200})' on <module '(?P<module>[\w.]{1,200})'",
    source="https://github.com/python/cpython/blob/main/Lib/pickle.py (Unpickler.find_class: the module a pickle "
    "names is imported and the class looked up in it by name)",
    confidence=0.75,
)
def unpickled_class_not_there(found: re.Match[str], failure: Failure) -> Lead:
    """A pickle (a checkpoint saved whole, a model or dataset object) names each object's class by module and name,
    and loading looks the class up there: the module that lacks it is of another release than the one that wrote the
    file, or, for the saving script's own class (`__main__`), a script that does not define it."""
    name, module = found.group("name"), found.group("module")
    if module in ("__main__", "__mp_main__"):
        return Lead(
            f"The file was pickled with {name}, a class of the script that saved it (__main__), and the script that "
            f"loads it defines no {name}: define or import {name} in the loading script before loading (or save and "
            "load a state_dict rather than the whole object). Not an environment problem.",
            {"name": name, "module": module},
            family="user-code-error",
            verdict="not-environment",
            confidence=0.7,
        )
    top = _top(module)
    # pickle's message names the module's file: under site-packages, the module is an installed package's
    if top in _KNOWN_IMPORTS or re.search(rf"site-packages[/\\]{re.escape(top)}[/\\]", failure.haystack):
        package = DISTRIBUTION_OF.get(top) or top.replace("_", "-")
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
        f"The pickled file was written with {module}.{name}, which the code loading it does not have: the file and "
        f"the code that defines {module} come from different versions of that project. Load it with the version that "
        "saved it, or use a file saved by this one.",
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
    # wrote as a SavedModel folder
    r"|(?P<save>Invalid filepath extension for saving\. Please add either a `\.keras` extension)"
    # Keras 3's Operation (keras/src/ops/operation.py): a model is built when first called, so .input/.output of a
    # Sequential made without keras.Input, which Keras 2 built on creation, do not exist yet
    r"|(?P<unbuilt>[Tt]he layer \w{1,100} has never been called and thus has no defined (?:input|output)\b(?! shape))",
    source="https://keras.io/getting_started/ (Keras 3: model formats and arguments that changed from Keras 2); "
    "https://github.com/keras-team/keras/blob/master/keras/src/saving/saving_api.py; "
    "https://github.com/keras-team/keras/blob/master/keras/src/ops/operation.py",
    confidence=0.8,
)
def keras_3(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("save"):
        return Lead(
            "The code saves a model the Keras 2 way, model.save(path) with no extension (a SavedModel folder), and "
            "runs under Keras 3 (TensorFlow 2.16+), which writes only .keras or .h5 files: save to a path ending in "
            ".keras, use model.export(path) for a SavedModel (TF Serving, TFLite), or run the code on Keras 2 "
            "(install tf-keras and set TF_USE_LEGACY_KERAS=1).",
            {"package": "keras", "framework": "tensorflow", "call": "model.save"},
            verdict="environment",
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


# Programs a library runs as a subprocess, installed by the system's package manager, not by pip
_SYSTEM_PROGRAMS = frozenset({
    "ffmpeg", "ffprobe", "sox", "git", "git-lfs", "java", "nvcc", "espeak", "espeak-ng", "tesseract", "graphviz", "dot",
    "gcc", "g++", "make", "node", "npm", "rustc", "cargo",
})  # fmt: skip


@rule(
    "module-not-found",
    r"requires the (?P<pkg>[\w.-]{1,60}) library but it was not found in your environment|(?:requires|needs) "
    r"`?(?P<pkg2>[\w.\[\]-]{2,60})`?[^\n]{0,60}(?:run|:)? ?`?pip install (?P<upgrade>-U |--upgrade )?['\"]?"
    r"(?P<pip>[\w.\[\]<>=-]{2,80})['\"]?`?|Cannot "
    r"find a working triton installation"
    r"|requires the following packages that were not found in your environment: (?P<pkgs>[\w.-]{2,60})"
    # tokenization_utils_fast.py: a fast tokenizer converted from a slow one, whose converter needs sentencepiece
    r"|If it's based on (?P<slow>sentencepiece), make sure you have sentencepiece installed"
    # a library's own words for an optional dependency it needs for this use ("'onnxruntime' must be installed to
    # use 'hbredin/wespeaker...' embeddings"): the name, quoted, of what to install
    r"|'(?P<must>[A-Za-z][\w.-]{1,60})' must be installed (?:to|for|in order)"
    # "flash_attn is not installed. Please pip install flash-attn": the library's own words, with the package to get
    r"|[\w.-]{2,60} is not installed\.? (?:Please )?(?:run )?`?pip install ['\"]?(?P<asked>[\w.\[\]<>=-]{2,80})",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/utils/import_utils.py "
    "(requires_backends); src/transformers/dynamic_module_utils.py (check_imports, for a model's remote code); "
    "src/transformers/tokenization_utils_fast.py ('Cannot instantiate this tokenizer from a slow version')",
    confidence=0.85,
)
def requires_package(found: re.Match[str], failure: Failure) -> Lead:
    if must := found.group("must"):
        if must.lower() in _SYSTEM_PROGRAMS:
            return Lead(
                f"A library needs the program {must}, which is not on this machine's PATH: it is a system program, "
                f"not a Python package (the pip package of that name is not it). Install it with the system's "
                f"package manager (apt, dnf, brew) or conda (conda install -c conda-forge {must.lower()}).",
                {"program": must},
                verdict="environment",
                confidence=0.7,
                next=(f"which {must.lower()}",),
            )
        # a name a library quoted may be its module's rather than its distribution's (cv2 is opencv-python): said,
        # and checked with pip rather than installed blindly
        distribution = DISTRIBUTION_OF.get(must, must)
        return Lead(
            f"A library needs {must} for what it was asked to do, and {must} is not installed in this interpreter "
            f"(an optional dependency its install does not pull in). Install {distribution} (of a version the "
            "library supports; its documentation names the package if this is only a module's name).",
            {"package": distribution},
            confidence=0.7,
            next=(f"python -m pip show {distribution}",),
        )
    package = (
        found.group("pip") or found.group("asked") or found.group("pkg") or found.group("pkg2") or found.group("pkgs")
        or found.group("slow") or "triton"
    )  # fmt: skip
    spec = re.fullmatch(r"(?P<name>[\w.\[\]-]+?)(?P<want>[<>=~!]=?[\w.]+)", package)
    if spec is not None or found.group("upgrade") or "latest version" in found.group(0):
        # a minimum version named (accelerate>=0.26.0), or an upgrade asked for: missing or too old, both fixed alike
        name = spec.group("name") if spec else package
        want = spec.group("want") if spec else "the latest release"
        what = f"{name}{want}" if spec else f"a recent {name}"
        return Lead(
            f"A library needs {what}: it is not installed in this interpreter, or the installed one is older. "
            f"Install or upgrade it to that range (check `pip show {name}`: a restarted cloud instance or another "
            "package's pin can put an older one back).",
            {"package": name, "want": want},
            install((name, spec.group("want") if spec else ""), upgrade=True)
            if re.fullmatch(r"[\w.-]+", name)
            else None,
            family="version-mismatch",
            next=(f"python -m pip show {name}",),
        )
    return Lead(
        f"A library needs {package}, which is not installed in this interpreter: install it (of a version the library "
        "supports).",
        {"package": package},
        install((package, "")) if re.fullmatch(r"[\w.-]+", package) else None,
    )


@rule(
    "module-not-found",
    r"FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn "
    r"seems to be not installed",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/modeling_utils.py "
    "(_flash_attn_2_can_dispatch); https://github.com/Dao-AILab/flash-attention (Linux, CUDA, Ampere or newer)",
    confidence=0.9,
)
def flash_attention_2_missing(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        'The model was loaded with attn_implementation="flash_attention_2", and flash-attn is not installed in this '
        "interpreter. Install it where it exists (Linux, a CUDA GPU of compute capability 8.0 or newer, a wheel for "
        "the installed torch: pip install flash-attn --no-build-isolation), or load the model with "
        'attn_implementation="sdpa", which needs nothing more.',
        {"package": "flash-attn"},
        verdict="environment",
        next=("python -c 'import torch; print(torch.__version__, torch.version.cuda)'",),
    )


@rule(
    "version-mismatch",
    r"(?P<pkg>[\w.-]{2,60}?)(?P<want>[<>=!~][^ \n]{1,60}) is required for a normal functioning of this module, but "
    r"found (?P=pkg)==(?P<have>[\w.+]+)"
    r"|requires (?P<pkg2>[\w .-]{2,60}?) version (?P<want2>[<>=!~]=?\s?[\d.]+\w*)[;,] ?(?:Detected an installation of "
    r"version|but found|found version) (?P<have2>[\w.+]+)"
    # a library's own import-time check that names the installed release and the range it takes (mmdet's "MMCV==2.2.0
    # is used but incompatible. Please install mmcv>=2.0.0rc4, <2.2.0."): raised in a source checkout it reads as
    # the user's code, but the message is a pairing of releases
    # (a version ends at a word: the sentence's full stop is no part of it)
    r"|(?P<pkg3>[\w.-]{2,60})==(?P<have3>\d\w*(?:[.+]\w+)*) is (?:used but )?"
    r"(?:incompatible|not compatible|not supported)[^\n]{0,40}?(?i:please )?install (?P<pkg4>[\w.-]{2,60}?) ?"
    r"(?P<want3>[<>=!~]=?\w+(?:\.\w+)*(?:, ?[<>=!~]=?\w+(?:\.\w+)*)*)",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/utils/versions.py "
    "(require_version); https://github.com/open-mmlab/mmdetection/blob/main/mmdet/__init__.py (mmcv's range)",
    confidence=0.9,
)
def required_version(found: re.Match[str], failure: Failure) -> Lead:
    pkg = found.group("pkg") or (found.group("pkg2") or "").strip() or found.group("pkg4")
    want = found.group("want") or found.group("want2") or found.group("want3")
    have = found.group("have") or found.group("have2") or found.group("have3")
    return Lead(
        f"{pkg} {have} is installed, but {pkg}{want} is required: install a {pkg} in that range (or a release of the "
        "requiring library made for the installed one).",
        {"package": pkg, "want": want, "have": have},
        install((pkg, want.replace(" ", ""))) if re.fullmatch(r"[\w.-]+", pkg) else None,
    )


@rule(
    "version-mismatch",
    r"Detected that PyTorch and (?P<pkg>\w{2,40}) were compiled with different CUDA (?:major )?versions"
    r"|Couldn't load custom C\+\+ ops|operator (?P<op>torchvision::\w{1,40}) does not exist|Failed to load image "
    r"Python extension",
    source="https://github.com/pytorch/vision/blob/main/torchvision/extension.py",
    confidence=0.9,
)
def extension_built_for_other_torch(found: re.Match[str], failure: Failure) -> Lead:
    pkg = found.group("pkg") or "torchvision"
    return Lead(
        f"{pkg} was built for another torch (another release or another CUDA) than the one installed: install the "
        f"{pkg} release made with the installed torch, from the same index (the same +cpu / +cuXYZ build).",
        {"package": pkg, "op": found.group("op") or ""},
    )


@rule(
    "api-version-skew",
    r"has model type `?(?P<model>[\w-]{2,60})`? but Transformers does not recognize this architecture|does not "
    r"recognize this architecture"
    # quantizers/auto.py: a checkpoint's quantization_config of a method newer than the installed transformers
    r"|Unknown quantization type, got (?P<quant>[\w-]{2,40}) - supported types are",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/models/auto/configuration_auto.py; "
    "https://github.com/huggingface/transformers/blob/main/src/transformers/quantizers/auto.py",
    confidence=0.9,
)
def transformers_too_old(found: re.Match[str], failure: Failure) -> Lead:
    if quant := found.group("quant"):
        return Lead(
            f"The checkpoint is quantized with {quant}, a method the installed transformers does not know: its "
            "quantization_config was written by a newer release. Upgrade transformers to the release that added "
            f"{quant} (and install the package that method needs).",
            {"package": "transformers", "quantization": quant},
            install(("transformers", ""), upgrade=True),
        )
    return _model_type_unknown(found.group("model") or "")


def _model_type_unknown(model: str) -> Lead:
    """A checkpoint's model_type the installed transformers does not have, in either release's words."""
    return Lead(
        f"The checkpoint's model type{' (' + model + ')' if model else ''} is newer than the installed transformers "
        "knows: upgrade transformers to the release that added it.",
        {"package": "transformers", "model": model},
        install(("transformers", ""), upgrade=True),  # installed already: only an upgrade moves it
    )


# AutoTokenizer looks the tokenizer_class a checkpoint's tokenizer_config.json names up among the classes this
# release has (tokenization_auto.py: "Tokenizer class {name} does not exist or is not currently imported."): a class
# newer than the installed transformers, or one whose optional dependency (sentencepiece, tokenizers) is missing.
@rule(
    "api-version-skew",
    r"Tokenizer class (?P<cls>\w{2,80}) does not exist or is not currently imported",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/models/auto/tokenization_auto.py "
    "(AutoTokenizer.from_pretrained)",
    confidence=0.85,
)
def tokenizer_class_unknown(found: re.Match[str], failure: Failure) -> Lead:
    name = found.group("cls")
    return Lead(
        f"The checkpoint's tokenizer_config.json names {name}, which the installed transformers does not have: most "
        "often a tokenizer newer than this transformers release (upgrade transformers to the release that added "
        "it, or to the one the project pins); when the installed transformers is recent, a slow tokenizer whose "
        "optional dependency is missing (sentencepiece for the SentencePiece-based ones).",
        {"package": "transformers", "tokenizer": name},
        install(("transformers", ""), upgrade=True),  # installed already: only an upgrade moves it
        next=('python -c "import transformers; print(transformers.__version__)"',),
    )


@rule(
    "api-version-skew",
    r"^(?:[\w.]*\.)?KeyError: '(?P<model>[\w.-]{2,60})'",
    # older transformers: the auto classes look the config's model_type up in CONFIG_MAPPING, whose __getitem__
    # raises a bare KeyError for a type that release does not have (newer ones say "does not recognize this
    # architecture", read above)
    source="https://github.com/huggingface/transformers/blob/v4.30.0/src/transformers/models/auto/configuration_auto.py"
    " (_LazyConfigMapping.__getitem__)",
    confidence=0.8,
    on="exception",
    flags=re.MULTILINE,
)
def transformers_model_type_unknown(found: re.Match[str], failure: Failure) -> Lead | None:
    in_auto_config = any(
        f.file.replace("\\", "/").endswith("models/auto/configuration_auto.py") for f in failure.frames
    )
    if not in_auto_config:
        return None  # a KeyError of anything else: not a model type
    return _model_type_unknown(found.group("model"))


@rule(
    "version-mismatch",
    r"(?:mach-o file, but is an incompatible architecture|incompatible architecture) \(have '(?P<have>\w+)', need "
    r"'(?P<need>\w+)'\)|WinError 193\]?[:,]? ?%1 is not a valid Win32 application",
    source="dyld (macOS): incompatible architecture; https://learn.microsoft.com/en-us/windows/win32/debug/"
    "system-error-codes--0-499- (ERROR_BAD_EXE_FORMAT, 193)",
    confidence=0.9,
)
def wrong_cpu_architecture(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("have") is None:
        # Windows says the same of a DLL built for another architecture (a 32-bit DLL in a 64-bit Python), or of a
        # damaged one, in its own words
        return Lead(
            "Windows cannot load a DLL of the package as code of this process (WinError 193): it is built for another "
            "architecture (32-bit vs 64-bit, x64 vs ARM64) than this Python, or the file is damaged. Reinstall the "
            "package with a 64-bit Python of the machine's own architecture.",
            {"have": "another architecture", "need": "this Python's", "architecture": "WinError 193"},
            next=("python -c \"import platform, struct; print(platform.machine(), struct.calcsize('P') * 8)\"",),
            confidence=0.8,
        )
    return Lead(
        f"A compiled library is built for {found.group('have')} but this Python runs as {found.group('need')}: an "
        "x86_64 wheel under an arm64 Python (or the reverse, through Rosetta). Install the packages again with a "
        "Python of the machine's native architecture.",
        {"have": found.group("have"), "need": found.group("need")},
    )


@rule(
    "version-mismatch",
    r"xFormers (?:was built for:\s*PyTorch (?P<built>[\w.+]{3,40})[^\n]{0,120}?\(you have (?P<have>[\w.+]{3,40})\)"
    r"|wasn't build with CUDA support|can't load C\+\+/CUDA extensions)",
    source="https://github.com/facebookresearch/xformers/blob/main/xformers/_cpp_lib.py (the build-info check)",
    confidence=0.85,
)
def xformers_for_another_torch(found: re.Match[str], failure: Failure) -> Lead:
    """xformers' compiled ops are built for one torch (and its CUDA); beside another, they do not load and every
    operator it dispatches reports itself unavailable."""
    built, have = found.group("built") or "", found.group("have") or ""
    pair = f" (built for torch {built}, torch {have} is installed)" if built else ""
    return Lead(
        f"xformers' compiled extensions do not fit the installed torch{pair}: it was installed for another torch or "
        "CUDA (or as a CPU build), so its CUDA operators are missing. Install the xformers release made for this "
        "torch, from the same index (download.pytorch.org/whl/cuXYZ).",
        {"package": "xformers", "built": built, "have": have},
        next=("python -m xformers.info",),
    )


@rule(
    "api-version-skew",
    r"Descriptors cannot (?:not )?be created directly",
    source="https://protobuf.dev/news/2022-05-06/ (protobuf 4.21: code generated by protoc < 3.19 no longer loads)",
    confidence=0.9,
)
def protobuf_generated_code(found: re.Match[str], failure: Failure) -> Lead:
    """Modules generated by an old protoc (the _pb2.py files inside an older TensorFlow, ONNX or a project) do not
    load with protobuf 4.21+: the package that ships them was written for protobuf 3.x."""
    return Lead(
        "A package ships _pb2.py modules generated by a protoc older than 3.19, which the installed protobuf (4.21 or "
        "newer) refuses to load: it was written for protobuf 3.x. Install protobuf 3.20.x for it "
        "(PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python works too, slowly), or a release of that package generated "
        "with a newer protoc.",
        {"package": "protobuf", "version": "3.20.3", "variable": "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"},
        install(("protobuf", "==3.20.3")),
        verdict="environment",
        next=("python -m pip show protobuf",),
    )


TRITON_COMPILER = "https://github.com/triton-lang/triton/blob/main/third_party/nvidia/backend/compiler.py"


@rule(
    "version-mismatch",
    r"Triton only supports? CUDA (?P<floor>[\d.]+) or higher, but got CUDA version:? (?P<cuda>[\d.]+)",
    source=TRITON_COMPILER + " (ptx_get_version: the CUDA releases this Triton knows)",
    confidence=0.85,
)
def triton_does_not_know_this_cuda(found: re.Match[str], failure: Failure) -> Lead:
    """Triton maps the CUDA version of the ptxas it uses to a PTX ISA version; a CUDA newer than the Triton release
    has no entry, and its message then says 'only CUDA 10.0 or higher', which reads backwards."""
    cuda = found.group("cuda")
    return Lead(
        f"The installed Triton does not know CUDA {cuda} (its table of PTX versions ends before it; the 'only "
        f"{found.group('floor')} or higher' wording misleads): the ptxas it found is newer than this Triton. Install "
        "a Triton release that knows this CUDA (with the torch it pairs with), or point TRITON_PTXAS_PATH at the "
        "ptxas Triton bundles.",
        {"package": "triton", "cuda": f"CUDA {cuda}", "variable": "TRITON_PTXAS_PATH"},
        next=("python -c 'import triton, torch; print(triton.__version__, torch.__version__)'; ptxas --version",),
    )


@rule(
    "api-version-skew",
    r"Cannot access global variable (?P<name>\w{1,120}) from within @jit'?ed function",
    source="https://github.com/triton-lang/triton/blob/main/python/triton/runtime/jit.py (Triton 3.0: globals read in "
    "a kernel must be constexpr)",
    confidence=0.85,
)
def triton_global_not_constexpr(found: re.Match[str], failure: Failure) -> Lead:
    """Triton 3.0 stopped letting a kernel read a plain module global: kernels written for Triton 2.x fail to compile
    under the Triton a newer torch brings."""
    name = found.group("name")
    return Lead(
        f"A Triton kernel reads the module global {name}, which Triton 3.0 and newer refuse unless it is a constexpr: "
        "the kernel was written for Triton 2.x. Use a release of the package written for the installed Triton, or "
        "the Triton it was written for; TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1 lets it run meanwhile (the fix in the "
        f"code: {name}: tl.constexpr = ...).",
        {"package": "triton", "name": name, "variable": "TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", "fix": "tl.constexpr"},
        verdict="environment",
    )


@rule(
    "api-version-skew",
    r"[Tt]he filepath provided must end in `(?P<ext>\.keras|\.weights\.h5)`[^\n]{0,80}Received: "
    r"filepath=(?P<path>\S{1,300})"
    r"|The filename must end in `(?P<ext2>\.weights\.h5)`\. Received: filepath=(?P<path2>\S{1,300})",
    # keras/src/saving/saving_api.py and callbacks/model_checkpoint.py (Keras 3): the .h5/.hdf5 files and SavedModel
    # folders Keras 2 wrote are no longer what model.save(), save_weights() and ModelCheckpoint take
    source="https://github.com/keras-team/keras/blob/master/keras/src/saving/saving_api.py (save_model, "
    "save_weights); keras/src/callbacks/model_checkpoint.py; "
    "https://keras.io/getting_started/#tensorflow--keras-2-backwards-compatibility (TF_USE_LEGACY_KERAS)",
    confidence=0.85,
)
def keras3_file_format(found: re.Match[str], failure: Failure) -> Lead:
    """Keras 3 chooses the format by the file's name and refuses the names Keras 2 wrote. Whose call it was decides
    the reading: the user's own is a name to change; a library's is a library written for Keras 2, or one that
    passed the user's path along; with no frames, either."""
    path = (found.group("path") or found.group("path2") or "").rstrip(".")
    ext = found.group("ext") or found.group("ext2")
    names = (
        "Keras 3 chooses the format by the file's name: weights only (save_weights, "
        "ModelCheckpoint(save_weights_only=True)) take a name ending in .weights.h5; a whole model (model.save, "
        "ModelCheckpoint) one ending in .keras (or .h5 for the legacy format); a TensorFlow SavedModel folder is "
        "written with model.export(path)"
    )
    keras2 = (
        "install tf-keras and set TF_USE_LEGACY_KERAS=1 (this reroutes tf.keras; code that imports keras itself "
        "needs import tf_keras as keras), or use TensorFlow < 2.16"
    )
    params = {"package": "keras", "variable": "TF_USE_LEGACY_KERAS", "path": path, "option": ext}
    versions = ('python -c "import keras, tensorflow; print(keras.__version__, tensorflow.__version__)"',)
    callers = [f for f in failure.frames if f.owner not in ("keras", "tensorflow", "tf_keras", "tf-keras", "python")]
    if callers and callers[-1].owner is None:
        frame = callers[-1]
        return Lead(
            f"{names}. Your code at {frame.short()} gives {path or 'a name'}, which that call does not take: rename it "
            f"(to a name ending in {ext}). Code written for Keras 2 that must stay as it is: {keras2}. Not an "
            "environment problem.",
            params,
            verdict="not-environment",
            family="user-code-error",
        )
    owner = callers[-1].owner if callers else None
    whose = (
        f"The call came through {owner}: either {owner} was written for Keras 2 (use its release written for Keras "
        f"3), or it passed along a path you gave it (rename that to end in {ext})"
        if owner
        else "The code that made the call was written for Keras 2 (.h5/.hdf5 files, SavedModel folders): when it is "
        f"yours, rename the path (to a name ending in {ext}); when it is a library's, use its release written for "
        "Keras 3. The traceback's last frame outside keras says whose it is"
    )
    return Lead(
        f"Keras 3 refuses {path or 'the file name'} here: this call takes a name ending in {ext}. {names}. {whose}. "
        f"TensorFlow 2.16 and later install Keras 3 as `keras`; to keep Keras 2: {keras2}.",
        {**params, "library": owner or ""},
        verdict="unknown",
        next=versions,
    )


@rule(
    "version-mismatch",
    r"Your currently installed version of Keras is Keras 3, but this is not yet supported in Transformers",
    # transformers/modeling_tf_utils.py (and activations_tf.py): TensorFlow 2.16+ installs Keras 3 as `keras`;
    # Transformers' TensorFlow models need Keras 2, which the tf-keras package provides beside it
    source="https://github.com/huggingface/transformers/blob/v4.40.0/src/transformers/modeling_tf_utils.py",
    confidence=0.95,
)
def transformers_wants_tf_keras(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Transformers' TensorFlow models need Keras 2, and this environment has Keras 3 (TensorFlow 2.16 and newer "
        "install it as `keras`): install tf-keras, the Keras 2 that Transformers then uses, of the TensorFlow "
        "release installed (tf-keras==2.16.* for TensorFlow 2.16, and so on: a newer tf-keras would pull a newer "
        "TensorFlow).",
        {"package": "tf-keras", "have": "Keras 3"},
        None,  # which tf-keras depends on the TensorFlow installed, which the log does not say
        next=("python -m pip list 2>/dev/null | grep -i -e keras -e tensorflow -e transformers",),
    )


# Keras 2 and Keras 3 side by side: TensorFlow 2.16 and newer install Keras 3 as `keras`, while tf.keras code of
# before (and tf-keras, with TF_USE_LEGACY_KERAS=1) is Keras 2; an optimizer (loss, layer) object of one handed to
# the other is no identifier it knows
_KERAS_MIX_ADVICE = (
    "Use one Keras in one program: for code written for Keras 2 (tf.keras before TensorFlow 2.16), install tf-keras "
    "of the TensorFlow release and set TF_USE_LEGACY_KERAS=1 before TensorFlow is imported, or pin tensorflow<2.16; "
    "for Keras 3, import everything from `keras`."
)


@rule(
    "api-version-skew",
    r"Could not interpret (?P<kind>optimizer|loss function|loss|metric|activation function|initializer|regularizer"
    r"|constraint) identifier: <?(?P<cls>(?:keras|tensorflow|tf_keras)\.[\w.]{1,200})",
    # keras/src/optimizers/__init__.py (get) and tf.keras' optimizers.py say it for what is not their own class
    source="https://github.com/keras-team/keras/blob/master/keras/src/optimizers/__init__.py (get: 'Could not "
    "interpret optimizer identifier'); https://github.com/keras-team/tf-keras/blob/master/tf_keras/optimizers/"
    "__init__.py",
    confidence=0.8,
)
def keras_object_of_the_other_keras(found: re.Match[str], failure: Failure) -> Lead:
    cls = found.group("cls")
    keras3 = cls.startswith("keras.src.")
    kind = found.group("kind")
    return Lead(
        f"{'An' if kind[0] in 'aeiou' else 'A'} {kind} object of "
        + ("Keras 3 (keras.src...)" if keras3 else f"another Keras ({cls.rsplit('.', 1)[0]})")
        + " was handed to "
        + ("Keras 2 (tf.keras / tf-keras)" if keras3 else "a Keras that does not know its class")
        + ": two Keras releases are mixed in one program. "
        + _KERAS_MIX_ADVICE,
        {"package": "keras", "class": cls, "variable": "TF_USE_LEGACY_KERAS"},
        next=('python -c "import keras, tensorflow; print(keras.__version__, tensorflow.__version__)"',),
    )


# What a Keras 2 layer looks like when Keras 3's Sequential refuses it: tensorflow_hub's KerasLayer and tf-keras'
# own classes subclass Keras 2's Layer, which is not Keras 3's.
_KERAS2_LAYER = re.compile(r"tensorflow_hub\.|tf_keras\.|tensorflow\.python\.keras\.|keras\.engine\.|keras\.layers\.")
_NOT_A_LAYER = re.compile(
    r"of type <class '(?:function|type|list|tuple|dict|str|int|float|NoneType)'>|<function |<class "
)


@rule(
    "api-version-skew",
    # the tail is optional: a paste cut short ("... to a Sequential model. Receiv") is still this refusal
    r"Only instances of `keras\.Layer` can be added to a Sequential model\."
    r"(?: Receiv(?:ed:? ?)?(?P<what>[^\n]{0,300}))?",
    source="https://github.com/keras-team/keras/blob/master/keras/src/models/sequential.py (Sequential.add: "
    "isinstance(layer, Layer), Keras 3's Layer); https://github.com/tensorflow/tensorflow/issues/63849 "
    "(tensorflow_hub.KerasLayer under Keras 3)",
    confidence=0.75,
)
def keras_layer_of_the_other_keras(found: re.Match[str], failure: Failure) -> Lead | None:
    """Keras 3's Sequential takes only Keras 3 layers: a Keras 2 layer (tensorflow_hub.KerasLayer, a tf-keras
    layer, code written for tf.keras before TensorFlow 2.16) is refused in these words. A function or a class
    handed over instead of a layer object is the user's own mistake, read by its type."""
    what = (found.group("what") or "").strip()
    if _NOT_A_LAYER.search(what) and not _KERAS2_LAYER.search(what):
        return None  # a function (keras.applications.EfficientNetB2 itself), a class or a list: not a layer at all
    shown = _KERAS2_LAYER.search(what) is not None
    return Lead(
        "Keras 3 (what tf.keras is from TensorFlow 2.16) refused a layer"
        + (f" of Keras 2 ({what[:120]})" if shown else " that is not one of its own (its type was not shown)")
        + ": tensorflow_hub's KerasLayer and tf-keras layers are Keras 2 layers. "
        + _KERAS_MIX_ADVICE,
        {"package": "keras", "variable": "TF_USE_LEGACY_KERAS", "keep": "tf_keras"},
        confidence=None if shown else 0.6,
        next=('python -c "import keras, tensorflow; print(keras.__version__, tensorflow.__version__)"',),
    )


@rule(
    "api-version-skew",
    r"dot\(\) got an unexpected keyword argument '(?P<name>trans_[ab])'"
    # triton.compiler.errors.CompilationError quotes the kernel's source up to the line that failed
    # up to its 12 last lines (source_line_count_max_in_message), then a caret under the failing one: that last
    # quoted line is the call that failed
    r"|CompilationError: at \d{1,5}:\d{1,4}:\n(?:[^\n]{0,300}\n){0,11}[^\n]{0,200}\btl\.dot\([^\n]{0,200}?"
    # (or that line ends the paste, cut before the caret)
    r"\b(?P<name2>trans_[ab])\s*=\s*True[^\n]{0,200}(?:\n[ \t]{0,300}\^|\s*\Z)",
    # triton.language.dot took trans_a/trans_b in Triton's early releases (2.0 and its dev builds, which MPT's and
    # DNABERT-2's kernels pinned); later ones have no such arguments (tl.trans transposes the operand instead)
    source="https://github.com/triton-lang/triton/blob/main/python/triton/language/core.py (dot: no trans_a or "
    "trans_b); https://github.com/mosaicml/llm-foundry/issues/78 (the pinned triton-pre-mlir took them)",
    confidence=0.9,
)
def triton_dot_transpose(found: re.Match[str], failure: Failure) -> Lead:
    name = found.group("name") or found.group("name2")
    return Lead(
        f"A Triton kernel calls tl.dot(..., {name}=...), which only Triton's early releases (2.0 and "
        "its dev builds) take: the kernel was written for an older Triton than the one installed. Install the "
        "Triton the project pins (or uninstall triton if the project falls back to a kernel without it), or a "
        "release of the project written for the new Triton.",
        {"package": "triton", "argument": name},
        next=("python -m pip show triton",),
    )


# The Objective-C runtime's answer to a message a class does not implement (NSObject doesNotRecognizeSelector:)
_METAL_PLUGINS = (("jax", "jax-metal"), ("pjrt_plugin", "jax-metal"), ("tensorflow", "tensorflow-metal"))


@rule(
    "version-mismatch",
    r"-\[(?P<cls>[A-Za-z_]\w{1,80}) (?P<selector>[\w:]{1,200})\]: unrecognized selector sent to (?:instance|class)",
    source="https://developer.apple.com/documentation/objectivec/nsobject/1418637-doesnotrecognizeselector",
    confidence=0.75,
)
def objc_selector_missing(found: re.Match[str], failure: Failure) -> Lead:
    cls, selector = found.group("cls"), found.group("selector")
    around = failure.haystack.lower()
    plugin = next((name for word, name in _METAL_PLUGINS if word in around), "")
    who = plugin or "a native library of the framework"
    return Lead(
        f"{who} calls -[{cls} {selector}], which this macOS's system framework does not have: it was built for "
        "another macOS release (Metal plugins such as jax-metal and tensorflow-metal each target a minimum macOS, "
        "and a newer plugin calls methods an older macOS lacks). Install the plugin release made for this macOS "
        "(its release notes say which), or update macOS.",
        {"class": cls, "selector": selector, "package": plugin},
        next=("sw_vers -productVersion", "python -m pip list 2>/dev/null | grep -i -E 'metal|jax|tensorflow'"),
    )


# Triton's classes that torch's Inductor drives directly (triton.compiler.CompiledKernel, runtime.jit.JITFunction,
# runtime.autotuner.Autotuner and Heuristics, compiler.ASTSource, backends.compiler.GPUTarget): their attributes change
# between Triton releases, and each torch release is written for the Triton it pins
_TRITON_CLASSES = (
    "CompiledKernel|JITFunction|Autotuner|Heuristics|ASTSource|GPUTarget|KernelInterface|InterpretedFunction"
)


@rule(
    "version-mismatch",
    rf"(?:type object '|')(?P<cls>{_TRITON_CLASSES})'(?: object)? has no attribute '(?P<attr>\w{{1,80}})'",
    source="https://github.com/pytorch/pytorch/blob/main/torch/_inductor/runtime/triton_heuristics.py (what Inductor "
    "reads of Triton's objects); https://github.com/pytorch/pytorch/blob/main/.ci/docker/triton_version.txt (the "
    "Triton each torch pins)",
    confidence=0.8,
)
def inductor_triton_attribute(found: re.Match[str], failure: Failure) -> Lead | None:
    text = "\n".join((failure.haystack, *(f.file for f in failure.frames)))
    if not re.search(r"_inductor|InductorError|BackendCompilerFailed", text):
        return None  # not torch's compiler reading Triton: another caller of Triton's classes
    cls, attr = found.group("cls"), found.group("attr")
    return Lead(
        f"torch's Inductor reads {cls}.{attr} of Triton, which the installed Triton does not have: torch and Triton "
        "are from releases that do not pair (each torch is written for the Triton it pins: `pip show torch` lists "
        "it under Requires; triton-windows 3.4 needs torch 2.8 or newer, 3.3 goes with torch 2.7). Install the "
        "Triton your torch pins, or the torch its Triton was made for.",
        {"package": "triton", "class": cls, "attribute": attr},
        next=("python -m pip show torch triton triton-windows 2>/dev/null | grep -E '^(Name|Version|Requires)'",),
    )


@rule(
    "api-version-skew",
    r"Multiple dispatch failed for '(?P<op>[\w.]{1,120})'; all __torch_dispatch__ handlers returned NotImplemented"
    r"(?:[^\n]*\n){0,3}?[^\n]{0,20}tensor subclass <class '(?P<subclass>(?P<package>\w{1,60})\.[\w.]{1,200})'>",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/utils/python_arg_parser.cpp (handle_torch_function"
    "_no_python_arg_parser: 'Multiple dispatch failed for')",
    confidence=0.75,
)
def tensor_subclass_behind_torch(found: re.Match[str], failure: Failure) -> Lead:
    """A library's tensor subclass (xformers' attention masks, torchao's quantized tensors) handles the ops of the
    torch it was written for; an op this torch routes to it that it does not know returns NotImplemented."""
    package, op = found.group("package"), found.group("op")
    return Lead(
        f"{package}'s tensor subclass {found.group('subclass')} does not handle {op} as the installed torch calls it: "
        f"{package} was written for another torch release. Install the {package} release made for the installed "
        f"torch (or the torch it pins).",
        {"package": package, "subclass": found.group("subclass"), "op": op},
        verdict="environment",
        next=(f"python -m pip show {package} torch",),
    )


@rule(
    "accelerator-unavailable",
    r"module 'torch\._C' has no attribute '(?P<name>_cuda_\w{1,80})'",
    source="https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py (_is_compiled: a build has CUDA when "
    "torch._C has its _cuda_ functions)",
    confidence=0.9,
)
def torch_without_cuda_functions(found: re.Match[str], failure: Failure) -> Lead:
    """torch._C has its _cuda_* functions only in a CUDA (or ROCm) build: a caller that reaches for one runs on a
    CPU-only torch, whatever the GPU and driver."""
    return Lead(
        f"torch._C has no {found.group('name')}: the installed torch is a CPU-only build (no CUDA functions in it). "
        "Install a CUDA build of torch (PyPI's Linux wheel, or download.pytorch.org/whl/cuXYZ for the CUDA the driver "
        "supports).",
        {"package": "torch", "name": found.group("name")},
        verdict="environment",
        next=("python -c 'import torch; print(torch.__version__, torch.version.cuda)'", "nvidia-smi"),
    )


@rule(
    "version-mismatch",
    r"UNIMPLEMENTED: (?P<api>default_memory_space|memory_spaces?|[\w.]{0,40}MemorySpace\w{0,40}) is not supported",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/xla_bridge.py (jax calls each device's memory-space API "
    "of the PJRT C API); https://developer.apple.com/metal/jax/ (jax-metal names the jax and jaxlib it works with)",
    confidence=0.9,  # over backend_cannot's UNIMPLEMENTED: this API missing is the pairing, not an op's gap
)
def plugin_older_than_jax(found: re.Match[str], failure: Failure) -> Lead:
    """A PJRT plugin built for an older jax (jax-metal, in practice) does not implement the memory-space API that
    newer jax releases call on every device_put: the pairing, not the program, is wrong."""
    return Lead(
        f"The device plugin does not implement {found.group('api')}, which this jax calls: the plugin (jax-metal, "
        "most often) was built for an older jax and jaxlib than the installed ones. Install the jax and jaxlib that "
        "release of the plugin was made for (pip show jax-metal names its requirement), or a plugin release made for "
        "this jax.",
        {"api": found.group("api"), "packages": "jax, jaxlib, jax-metal"},
        verdict="environment",
        next=("python -m pip list 2>/dev/null | grep -i -E '^jax'",),
    )


# torchmetrics 0.11 made the classification wrappers (Accuracy, Precision, F1Score, AUROC... and their functions)
# task-specific: `task` ("binary", "multiclass", "multilabel") is a required first argument of their __new__ and of
# the functional forms; code written for 0.10 or older calls them without it.
_METRIC_NAMES = re.compile(
    r"(?i)(?:\w+\.)?(?:__new__|accuracy|precision|recall|f1_?score|fbeta_?score|auroc|average_?precision|"
    r"confusion_?matrix|specificity|stat_?scores|jaccard_?index|hamming_?distance|calibration_?error|roc|"
    r"precision_?recall_?curve|matthews_?corr ?coef|cohen_?kappa|hinge_?loss|exact_?match)"
)


@rule(
    "api-version-skew",
    r"(?P<call>[\w.]{0,100})\(\) missing 1 required positional argument: 'task'",
    source="https://lightning.ai/docs/torchmetrics/stable/classification/accuracy.html (Accuracy.__new__(cls, task, "
    "...): 'task' one of 'binary', 'multiclass', 'multilabel'); torchmetrics 0.11.0 release notes",
    confidence=0.8,
)
def metric_task_required(found: re.Match[str], failure: Failure) -> Lead | None:
    call = found.group("call")
    if not _METRIC_NAMES.fullmatch(call) and "torchmetrics" not in failure.message:
        return None
    return Lead(
        f"{call or '__new__'}() wants task=: from torchmetrics 0.11 a classification metric is task-specific "
        '(task="binary", "multiclass" with num_classes=, or "multilabel" with num_labels=), and this code was '
        "written for torchmetrics 0.10 or older. Pass task= at the call, or install the release the code was "
        "written for.",
        {"call": call, "package": "torchmetrics", "version": "0.11"},
        install(("torchmetrics", "<0.11")),
        verdict="environment",
        next=("python -m pip show torchmetrics",),
    )


@rule(
    "api-version-skew",
    r"(?P<call>[\w.]{0,120})\(\): incompatible (?:function|constructor) arguments\. The following argument types are "
    r"supported",
    source="https://github.com/pybind/pybind11/blob/master/include/pybind11/pybind11.h (the overload dispatcher's "
    "TypeError); nanobind's nb_func.cpp words it alike",
    confidence=0.65,
    on="exception",
)
def binding_arguments_refused(found: re.Match[str], failure: Failure) -> Lead | None:
    """A compiled binding (pybind11, nanobind) refusing the types it was given: from a library's code, that library
    and the compiled extension it calls are of releases that do not pair; from the user's own line, the user's."""
    call = found.group("call") or "a compiled function"
    given = re.search(r"Invoked with(?: types)?: (?P<types>[^\n]{1,300})", failure.message)
    types = given.group("types") if given else ""
    owner = re.match(r"(?P<top>[a-z_]\w*)\.", types)
    extension = owner.group("top") if owner else ""
    caller = _caller(failure)
    if caller is None and failure.frames:
        return None  # the user's own call with the wrong types: judged as user code
    who = caller if caller not in (None, "python") else "the calling code"
    return Lead(
        f"The compiled function {call}() refused the types it was given ({types[:160] or 'see the log'}): {who} and "
        f"the compiled extension it calls{' (' + extension + ')' if extension else ''} are of releases that do not "
        "pair (a signature or a type's dispatch changed between them). Install the releases made for each other: "
        f"upgrade {who if caller else 'the caller'}, or pin the other to what it was written for.",
        {"call": call, "caller": caller or "", "package": extension},
        verdict="environment",
        confidence=0.65 if caller else 0.5,
        next=("python -m pip list 2>/dev/null",),
    )


@rule(
    "api-version-skew",
    r"`?rope_scaling`? must be a dictionary with two fields, `?type`? and `?factor`?, got (?P<got>\{[^\n]{0,300}\})",
    source="https://github.com/huggingface/transformers/blob/v4.42.4/src/transformers/models/llama/"
    "configuration_llama.py (_rope_scaling_validation before 4.43); https://github.com/huggingface/blog/pull/2243 "
    "(Llama 3.1 needs transformers 4.43.2)",
    confidence=0.85,
)
def rope_scaling_of_a_newer_config(found: re.Match[str], failure: Failure) -> Lead | None:
    """transformers before 4.43 accepted only {"type", "factor"} as a model's rope_scaling. A config written for a
    later release (Llama 3.1's "rope_type": "llama3" and its frequency factors) is refused by that check: the model
    is newer than the installed transformers (or than the model code copied from it)."""
    got = found.group("got")
    if "rope_type" not in got and "low_freq_factor" not in got:
        return None  # a config of the old form with a wrong value: the config's own mistake, not a release's
    return Lead(
        f"The model's config gives rope_scaling in the form later transformers releases read ({got[:160]}), and the "
        "transformers installed here (older than 4.43, or model code copied from one) accepts only `type` and "
        "`factor`. Upgrade transformers (Llama 3.1's rope scaling is read from 4.43.2 on); if the model ships its own "
        "code (trust_remote_code), update that code too.",
        {"package": "transformers", "rope_scaling": got[:160]},
        install(("transformers", ">=4.43.2")),
    )


@rule(
    "api-version-skew",
    r"Unsloth: Please file a bug report! Error patching (?P<trainer>\w{1,80})",
    source="https://github.com/unslothai/unsloth/issues/1699 (unsloth rewrites trl's trainers from their source; a trl "
    "release newer than the unsloth installed gives source it cannot patch)",
    confidence=0.85,
)
def unsloth_cannot_patch_trl(found: re.Match[str], failure: Failure) -> Lead:
    trainer = found.group("trainer")
    return Lead(
        f"Unsloth could not patch trl's {trainer}: it rewrites trl's trainers from their source code, and the trl "
        "installed here is a release newer (or older) than the unsloth installed was written for. Upgrade unsloth and "
        "unsloth_zoo to releases that support this trl, or install the trl release your unsloth names in its "
        "requirements.",
        {"package": "trl", "trainer": trainer, "library": "unsloth"},
        install(("unsloth", ""), ("unsloth_zoo", "")),
        next=("python -m pip show unsloth trl  # the two releases; unsloth's requirements name the trl it supports",),
    )


# A native module's call unpacked into more or fewer names than it returns: `out, lse = ext_cuda.fwd(...)` raising
# "not enough values to unpack (expected 8, got 7)". The compiled part and the Python code around it came from two
# releases (a build left behind by an upgrade, two copies of the package on the path).
_NATIVE_CALL = re.compile(r"=\s*[\w.]*?\b(?:_C\w*|\w+_(?:cuda|cpp|ext|C|kernels?|ops))\.\w+\(")
PYTHON_UNPACK = "https://github.com/python/cpython/blob/main/Python/ceval.c (unpack_iterable)"


@rule(
    "version-mismatch",
    r"^ValueError: (?:not enough|too many) values to unpack \(expected (?P<expected>\d+)(?:, got (?P<got>\d+))?\)",
    source=PYTHON_UNPACK,
    confidence=0.7,
    on="exception",
)
def native_returns_other_arity(found: re.Match[str], failure: Failure) -> Lead | None:
    frame = failure.last_frame
    if frame is None or frame.owner in (None, "python") or not _NATIVE_CALL.search(frame.code):
        return None  # an unpacking of the user's own, or of a value that no compiled module returned
    package = frame.owner
    if not frame.installed:
        return None  # an application's or a model's own folder: not a distribution to reinstall
    got = f", got {found.group('got')}" if found.group("got") else ""
    return Lead(
        f"{package}'s Python code unpacks {found.group('expected')} values from its compiled module "
        f"(`{frame.code[:120]}`{got}): the compiled part and the Python part of {package} come from different "
        "releases (a build an upgrade left behind, or two copies on the path), or a release of it that shipped "
        f"them out of step. Remove every copy of {package} and install one release.",
        {"package": package},
        fix=install((package, ""), reinstall=True),
        next=(f"python -m pip show -f {package} | head -20  # one copy, one version: every file listed is its",),
    )


@rule(
    "version-mismatch",
    r"Multiple KernelCreateFunc registration",
    source="https://github.com/intel/intel-extension-for-tensorflow/blob/main/docs/install/install_for_cpu.md "
    '("requires stock TensorFlow, and the version should be == 2.15.1": each release is built for one TensorFlow)',
    confidence=0.8,  # over the absl abort it ends in: the pairing, not a defect
)
def tensorflow_plugin_for_another_release(found: re.Match[str], failure: Failure) -> Lead:
    """intel-extension-for-tensorflow (itex) registers its ops and kernels into the TensorFlow that loads it, and
    aborts when they collide with that TensorFlow's own: a plugin built for another TensorFlow release."""
    return Lead(
        "intel-extension-for-tensorflow registered kernels that collide with the installed TensorFlow's: the plugin "
        "was built for another TensorFlow release. Install the TensorFlow release this ITEX release names (its "
        "release notes), or the ITEX release made for this TensorFlow.",
        {"package": "intel-extension-for-tensorflow", "other": "tensorflow"},
        next=("python -m pip list 2>/dev/null | grep -i -E '^(tensorflow|intel.extension)'",),
    )


# torch.stft defaulted to a real output (return_complex=False) for real inputs until PyTorch 2.0 made the argument
# required for them (pytorch#86724; deprecated with a warning since 1.8): a call without it is code written for 1.x.
@rule(
    "api-version-skew",
    r"stft requires the return_complex parameter be given for real inputs",
    source="https://github.com/pytorch/pytorch/pull/86724 (PyTorch 2.0: return_complex required for real inputs; "
    "aten/src/ATen/native/SpectralOps.cpp)",
    confidence=0.9,
)
def stft_without_return_complex(found: re.Match[str], failure: Failure) -> Lead:
    caller = next((frame for frame in reversed(failure.frames) if frame.owner not in ("torch", "torchaudio")), None)
    library = caller.owner if caller is not None and caller.owner else None
    where = f" ({library}'s call at {caller.short()})" if library and caller else ""
    return Lead(
        f"torch.stft was called without return_complex on a real input{where}: code written for PyTorch 1.x, where it "
        "returned a real tensor by default. PyTorch 2.0 made the argument required for real inputs. "
        + (
            f"Upgrade {library} to a release written for PyTorch 2, or install the torch 1.x release it was written "
            "for."
            if library
            else "Pass return_complex=True and take torch.view_as_real() of the result where the code expects the "
            "old layout (a last dimension of 2 for the real and imaginary parts), or pass return_complex=False "
            "(deprecated, still accepted); or run it with the torch 1.x release it was written for."
        ),
        {"package": "torch", "option": "return_complex", "call": "torch.stft", "library": library or ""},
        next=('python -c "import torch; print(torch.__version__)"',),
    )


# transformers 4.31 registers the position_ids of its models' embeddings (BERT's family, CLIP's text model) as a
# non-persistent buffer (huggingface/transformers#24505): a state dict saved with an older transformers still holds
# "...embeddings.position_ids", and load_state_dict(strict=True) calls it unexpected. The buffer is a constant
# (0..max_position_embeddings-1) that the model builds itself, so the saved copy can be dropped.
@rule(
    "api-version-skew",
    r"Unexpected key\(s\) in state_dict: (?P<keys>\"[^\"\n]{0,300}\"(?:, \"[^\"\n]{0,300}\"){0,40})",
    source="https://github.com/huggingface/transformers/pull/24505 (transformers 4.31: position_ids a non-persistent "
    "buffer); https://github.com/huggingface/transformers/issues/25330",
    confidence=0.9,
)
def position_ids_no_longer_saved(found: re.Match[str], failure: Failure) -> Lead | None:
    keys = re.findall(r'"([^"]+)"', found.group("keys"))
    if not keys or not all(key.endswith("embeddings.position_ids") for key in keys):
        return None  # other keys too: the checkpoint and the model differ in more than this buffer
    if "Missing key(s) in state_dict" in failure.message:
        return None
    return Lead(
        f"The checkpoint holds {keys[0]}" + (f" (and {len(keys) - 1} more)" if len(keys) > 1 else "") + ", which "
        "the installed transformers no longer saves or expects: since transformers 4.31 an embedding's position_ids "
        "is a buffer outside the state dict. The checkpoint was saved with an older transformers. Drop those keys "
        "before load_state_dict (state_dict.pop(key, None) for each: the model builds the same constant itself), or "
        "install the transformers release the project pins (older than 4.31).",
        {"package": "transformers", "key": keys[0]},
        next=('python -c "import transformers; print(transformers.__version__)"',),
    )


# jax imports jaxlib first and checks it (jax/_src/lib/__init__.py): none installed, or one older than the jax
# release's minimum (a jaxlib too old to have jaxlib.version at all fails the import with this message).
@rule(
    "module-not-found",
    r"jax requires jaxlib to be installed",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/lib/__init__.py",
    confidence=0.95,
)
def jaxlib_not_installed(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "jax is installed without jaxlib, its compiled half: install them together, of one release (`pip install -U "
        "jax` installs the matching jaxlib; add the [cuda12] or [tpu] extra for an accelerator).",
        {"package": "jaxlib", "module": "jaxlib"},
        install(("jax", ""), upgrade=True),
        next=("python -m pip list 2>/dev/null | grep -i jax",),
    )


@rule(
    "version-mismatch",
    r"This version of jax requires jaxlib version >= (?P<want>[\w.]{1,20}?)\.?(?:\s|$)",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/lib/__init__.py",
    confidence=0.95,
    flags=re.MULTILINE,
)
def jaxlib_too_old_to_say(found: re.Match[str], failure: Failure) -> Lead:
    want = found.group("want")
    return Lead(
        f"The installed jaxlib is older than this jax needs (jaxlib >= {want}): jax and jaxlib are released "
        "together and must be of one release. Upgrade both (`pip install -U jax` installs the matching jaxlib).",
        {"package": "jaxlib", "want": f">={want}"},
        install(("jax", ""), upgrade=True),
        next=("python -m pip list 2>/dev/null | grep -i jax",),
    )


# Keras 3 imports its backend's framework at start (keras/src/backend/__init__.py): TensorFlow unless KERAS_BACKEND
# names jax, torch or numpy.
@rule(
    "module-not-found",
    r"Unable to import (?P<framework>TensorFlow|JAX|PyTorch|torch), which is required by the (?P<backend>\w+) backend",
    source="https://github.com/keras-team/keras/tree/master/keras/src/backend (the backend's framework, imported at "
    "start; KERAS_BACKEND chooses it)",
    confidence=0.9,
)
def keras_backend_missing(found: re.Match[str], failure: Failure) -> Lead:
    framework = found.group("framework")
    package = {"TensorFlow": "tensorflow", "JAX": "jax", "PyTorch": "torch", "torch": "torch"}[framework]
    return Lead(
        f"Keras 3 runs on the {found.group('backend')} backend, and {framework} is not installed (or does not import) "
        f"in this interpreter: install {package}, or choose a backend that is installed with KERAS_BACKEND (jax, "
        "torch, tensorflow) before keras is imported.",
        {"package": package, "variable": "KERAS_BACKEND"},
        install((package, "")),
        next=(f'python -c "import {package}"  # the import error itself, when it is installed',),
    )


# accelerate's own checks of what a setting needs installed (src/accelerate/state.py): DeepSpeed when its launcher
# or config turned it on (ACCELERATE_USE_DEEPSPEED), an fp8 back end when mixed_precision='fp8'.
@rule(
    "module-not-found",
    r"DeepSpeed is not available => install it using `pip3 install deepspeed`"
    r"|Using `fp8` precision requires `transformer_engine` or `MS-AMP` to be installed",
    source="https://github.com/huggingface/accelerate/blob/main/src/accelerate/state.py",
    confidence=0.9,
)
def accelerate_needs_package(found: re.Match[str], failure: Failure) -> Lead:
    if "DeepSpeed" in found.group(0):
        return Lead(
            "accelerate was told to use DeepSpeed (its config's deepspeed_config, or ACCELERATE_USE_DEEPSPEED=true "
            "from the launcher), and deepspeed is not installed in this interpreter: install it, or turn DeepSpeed "
            "off in the accelerate config.",
            {"package": "deepspeed", "variable": "ACCELERATE_USE_DEEPSPEED"},
            install(("deepspeed", "")),
        )
    return Lead(
        "mixed_precision='fp8' needs an fp8 back end, and neither Transformer Engine (transformer-engine) nor MS-AMP "
        "is installed: install one (Transformer Engine needs an Ada or Hopper GPU), or use bf16.",
        {"package": "transformer-engine", "option": "mixed_precision"},
    )


@rule(
    "version-mismatch",
    r"Intel(?:®)? Extension for PyTorch\*?(?: [\d.]{1,10})? needs to work with PyTorch (?P<need>\d{1,2}\.\d{1,3})\.\*, "
    r"but PyTorch (?P<have>[\w.+]{1,40}) is found",
    # intel_extension_for_pytorch/__init__.py (and the copies of its check in transformers and accelerate): each IPEX
    # release is built for one torch minor series
    source="https://github.com/intel/intel-extension-for-pytorch/blob/main/intel_extension_for_pytorch/__init__.py "
    "(the torch version check); https://intel.github.io/intel-extension-for-pytorch/ (releases and the torch each "
    "needs)",
    confidence=0.9,
)
def ipex_for_another_torch(found: re.Match[str], failure: Failure) -> Lead:
    need, have = found.group("need"), found.group("have")
    return Lead(
        f"The installed Intel Extension for PyTorch was built for torch {need}.x and the installed torch is {have}: "
        "each IPEX release works with one torch minor series. Install the torch it was built for, or the IPEX "
        f"release made for torch {have.split('+')[0].rsplit('.', 1)[0]}, from the same index (Intel's release "
        "index for XPU builds).",
        {"package": "intel-extension-for-pytorch", "torch": have, "needs": f"torch {need}.*"},
        next=("python -m pip list 2>/dev/null | grep -i -E '^(torch|intel.extension)'",),
    )


@rule(
    "api-version-skew",
    r"If you use `@root_validator` with pre=False \(the default\) you MUST specify `skip_on_failure=True`",
    # pydantic 2's refusal of a pydantic 1 validator (pydantic/deprecated/class_validators.py)
    source="https://docs.pydantic.dev/latest/migration/ (root_validator -> model_validator)",
    confidence=0.85,
)
def pydantic_1_code_under_pydantic_2(found: re.Match[str], failure: Failure) -> Lead:
    library = next((f.owner for f in reversed(failure.frames) if f.owner and f.owner not in ("pydantic", "python")), "")
    who = library or "The code that defines the model"
    return Lead(
        f"{who} was written for pydantic 1 (an @root_validator without skip_on_failure) and pydantic 2 is installed: "
        f"upgrade {library or 'that library'} to a release written for pydantic 2, or pin pydantic<2 for it.",
        {"package": "pydantic", "library": library},
        next=("python -m pip list 2>/dev/null | grep -i -E '^pydantic '",),
    )


# ---- an installed package written for another Python -----------------------------------------------------------
# The interpreter's own words when a module uses a newer Python's syntax for types: builtin generics (`list[str]`,
# PEP 585, Python 3.9: "'type' object is not subscriptable", Objects/abstract.c) and unions written with `|` (PEP 604,
# Python 3.10: "unsupported operand type(s) for |: 'type' and 'NoneType'", Objects/abstract.c binop_type_error).
PEP_585 = "https://peps.python.org/pep-0585/"
PEP_604 = "https://peps.python.org/pep-0604/"
_PYTHON_OF_PATH = re.compile(r"[/\\](?:python|Python)(?P<version>3\.?\d{1,2})[/\\]|[/\\]Python3(?P<win>\d{1,2})[/\\]")
_BUILTIN_GENERIC = re.compile(r"\b(?:list|dict|tuple|set|frozenset|type)\[")
_UNION = re.compile(r"\w\s*\|\s*None\b|\bNone\s*\|\s*\w|\b(?:int|str|float|bool|bytes|list|dict|tuple)\s*\|\s*\w")
_TYPE_NAMES = (
    r"(?:type|NoneType|types\.(?:GenericAlias|UnionType)|typing\.\w{1,40}|_(?:Special|Union|Callable)?GenericAlias"
    r"|_SpecialForm)"
)


def _python_of(frame: Frame) -> tuple[int, int] | None:
    """The Python a frame's file was installed for, when its path says (…/python3.8/site-packages/…)."""
    found = _PYTHON_OF_PATH.search(frame.file)
    if found is None:
        return None
    digits = (found.group("version") or "").replace(".", "") or "3" + found.group("win")
    return 3, int(digits[1:])


@rule(
    "version-mismatch",
    rf"'type' object is not subscriptable|unsupported operand type\(s\) for \|: '{_TYPE_NAMES}' and '{_TYPE_NAMES}'",
    source=f"{PEP_585} (builtin generics, Python 3.9); {PEP_604} (X | Y unions, Python 3.10)",
    confidence=0.85,
    on="exception",
)
def newer_python_type_syntax(found: re.Match[str], failure: Failure) -> Lead | None:
    frame = failure.last_frame
    if frame is None:
        return None
    subscript = "subscriptable" in found.group(0)
    needs = (3, 9) if subscript else (3, 10)
    python = _python_of(frame)
    shows = (_BUILTIN_GENERIC if subscript else _UNION).search(frame.code) is not None
    # the line must show the syntax (the path's older Python decides only where no line was printed): `x[0]` on a
    # class is a bug, not a Python version
    if (python is not None and python >= needs) or not (shows or (python is not None and not frame.code)):
        return None
    whose = "your code" if frame.user else (frame.owner or "a module")
    syntax = "builtin generics such as list[str]" if subscript else "unions written X | None"
    running = f"Python {python[0]}.{python[1]}" if python else "an older Python"
    return Lead(
        f"{whose} ({frame.short()}) uses {syntax}, which need Python {needs[0]}.{needs[1]} or newer, and this is "
        f"{running}. Use a newer Python (a new venv or conda env), or a release of "
        f"{'the package' if frame.user else frame.owner} that still supports this one.",
        {"package": frame.owner or "", "python": running, "needs": f"{needs[0]}.{needs[1]}"},
        next=("python --version",),
    )


# A SyntaxError raised while importing an installed module: that module is written for another Python, a newer one
# (match, PEP 634: 3.10; `except*`, PEP 654: 3.11; `type X = ...`, PEP 695: 3.12) or Python 2 ("Missing parentheses in
# call to 'print'"). The file's own line and the import above it are in the traceback (Python's traceback.py prints
# a SyntaxError's file and line as its last frame).
_IMPORT_LINE = re.compile(r"^\s*(?:from\s+[\w.]+\s+)?import\s")
# Python 2's own syntax: a print or exec statement, `except E, e:`, ur'' strings, 0777 octals (not the 01 of 0.01 or
# of a date: no digit, dot or dash around it)
_PYTHON_2 = re.compile(
    r"^\s*print\s+[\"'\w]|^\s*exec\s+[\"']|\bexcept\s+[\w.]+\s*,\s*\w+\s*:|\bur[\"']|(?<![\w.-])0[0-7]+(?![\w.eE-])"
)
# async and await became keywords in Python 3.7: a package that names a parameter or variable so predates it
_ASYNC_AS_NAME = re.compile(r"\b(?:async|await)\s*(?:=|,|\))")


@rule(
    "version-mismatch",
    r"(?P<said>invalid syntax|Missing parentheses in call to '(?:print|exec)'|[^\n]{0,120}? is only supported in "
    r"Python 3\.\d+ and greater|[^\n]{0,120}? requires Python 3\.\d+ or newer|f-string[^\n]{0,120})",
    source="https://docs.python.org/3/library/exceptions.html#SyntaxError; https://peps.python.org/pep-0634/ (match, "
    "3.10); https://peps.python.org/pep-0654/ (except*, 3.11); https://peps.python.org/pep-0695/ (3.12)",
    confidence=0.8,
    on="exception",
)
def package_for_another_python(found: re.Match[str], failure: Failure) -> Lead | None:
    frames = failure.frames
    if not failure.type.endswith("SyntaxError") or len(frames) < 2:
        return None
    where = frames[-1]
    # the import that loaded it: the frame above, past importlib's own (a lazy module's importlib.import_module)
    importer = next((f for f in reversed(frames[:-1]) if f.owner != "python"), None)
    imports = importer is not None and (
        _IMPORT_LINE.match(importer.code) is not None or "import_module(" in importer.code
    )
    if where.user or where.owner in (None, "python") or not imports:
        return None  # a file of the user's, or code a library compiles: not an installed module's own syntax
    python = _python_of(where)
    running = f"Python {python[0]}.{python[1]}" if python else "this Python"
    owner = str(where.owner)
    named = owner if PROJECT_NAME.fullmatch(owner) else "PACKAGE"  # a path's part reaches a command only as a name
    if "Missing parentheses" in found.group("said") or _PYTHON_2.search(where.code):
        return Lead(
            f"{owner} ({where.short()}) is written for Python 2 and cannot be imported by {running}: install "
            f"a release of {owner} made for Python 3, or its maintained successor.",
            {"package": owner, "python": running},
            next=(f"python -m pip index versions {named}  # its releases",),
        )
    if _ASYNC_AS_NAME.search(where.code):
        return Lead(
            f"{owner} ({where.short()}) uses async or await as a name, which Python 3.7 made keywords: it was written "
            f"for Python 3.6 or older. Install a release of {owner} made for {running}, or its maintained successor.",
            {"package": owner, "python": running},
            next=(f"python -m pip index versions {named}  # its releases",),
        )
    return Lead(
        f"{owner} ({where.short()}) uses syntax of a newer Python than {running} (`{where.code.strip()[:60]}`): "
        f"use the Python its release requires (its Requires-Python), or a release of {owner} that supports "
        f"{running}.",
        {"package": owner, "python": running},
        next=("python --version", f"python -m pip show {named}  # its version; PyPI lists its Requires-Python"),
    )


# fsspec 2023.9.0 reads "**" only as a whole path component (fsspec/utils.py glob_translate); datasets wrote its
# data-file patterns for the older reading until its pull request 6244 ("Add support for fsspec>=2023.9.0"), and
# on Windows still later (datasets#6737: the maintainer's answer was fsspec==2023.9.2)
# "**" inside a quoted path component ("data/**.parquet"), not a whole one ("data/**/*.parquet") nor **kwargs
_PARTIAL_STARSTAR = re.compile(r"[\"'][^\"'\n]{0,200}?(?:[^/\\\"'\n]\*\*|\*\*[^/\\\"'\n])[^\"'\n]{0,200}[\"']")


@rule(
    "api-version-skew",
    r"Invalid pattern: '\*\*' can only be an entire path component",
    source="https://github.com/fsspec/filesystem_spec/blob/master/fsspec/utils.py (glob_translate); "
    "https://github.com/huggingface/datasets/pull/6244; https://github.com/huggingface/datasets/issues/6737",
    confidence=0.85,
)
def datasets_patterns_for_another_fsspec(found: re.Match[str], failure: Failure) -> Lead:
    mine = next((f for f in failure.frames if f.user and _PARTIAL_STARSTAR.search(f.code)), None)
    if mine is not None:
        # the pattern with "**" inside a name is the user's own (data_files="data/**.parquet"): no release reads it
        return Lead(
            f"The file pattern at {mine.short()} puts '**' inside a path component (`{mine.code.strip()[:80]}`): "
            "since fsspec 2023.9.0 '**' must be a whole component, so write 'data/**/*.parquet' rather than "
            "'data/**.parquet'. Not an environment problem.",
            {"where": mine.short()},
            verdict="not-environment",
            family="user-code-error",
        )
    return Lead(
        "datasets built its file patterns for an fsspec older than the one installed: since fsspec 2023.9.0 '**' is "
        "read only as a whole path component, which older datasets releases do not write. Upgrade datasets (its "
        "releases pin the fsspec they were made for); where this datasets must stay, install the fsspec of its time "
        "(fsspec==2023.9.2, the datasets maintainers' answer).",
        {"package": "datasets", "caller": "datasets", "owner": "fsspec"},
        install(("datasets", ""), upgrade=True),
        next=("python -m pip show datasets fsspec  # the two versions",),
    )


# Keras 3's loader (keras/src/saving/serialization_lib.py, _retrieve_class_or_fn): a class of the saved model it
# cannot find. One of Keras' own ("Functional", "Sequential") is a file another Keras wrote (tf.keras 2 and Keras 3
# name and nest them differently); any other is the model's own class, which must be registered and imported first.
_KERAS_OWN_CLASSES = frozenset(
    "Functional Sequential Model InputLayer Dense Conv1D Conv2D Conv3D Embedding LSTM GRU Dropout BatchNormalization "
    "LayerNormalization Flatten Reshape Activation MultiHeadAttention Adam AdamW SGD RMSprop DTypePolicy Policy "
    "TFOpLambda SlicingOpLambda KerasLayer".split()
)


@rule(
    "api-version-skew",
    r"Could not locate (?P<kind>class|function) '(?P<name>[\w.]{1,200})'\. Make sure custom classes",
    source="https://github.com/keras-team/keras/blob/master/keras/src/saving/serialization_lib.py "
    "(_retrieve_class_or_fn)",
    confidence=0.8,
)
def keras_class_not_located(found: re.Match[str], failure: Failure) -> Lead:
    name = found.group("name")
    module = re.search(r"'module': '(?P<module>[\w.]{1,200})'", failure.haystack)
    keras_own = name.rsplit(".", 1)[-1] in _KERAS_OWN_CLASSES or name.startswith(("keras.", "tf.keras."))
    if keras_own or (module is not None and module.group("module").split(".")[0] in ("keras", "tf_keras")):
        return Lead(
            f"The saved model names Keras' own {name}, which this Keras does not know by that name: the file was "
            "written by another Keras (tf.keras of Keras 2 and Keras 3 save their models differently). Load it with "
            "the Keras that saved it (Keras 2 files: pip install tf_keras and TF_USE_LEGACY_KERAS=1, or the "
            "tensorflow release it was saved with), or re-save it from there in the format this Keras reads.",
            {"class": name, "package": "keras"},
            verdict="environment",
            next=('python -c "import keras, tensorflow as tf; print(keras.__version__, tf.__version__)"',),
        )
    owner = module.group("module") if module is not None else ""
    return Lead(
        f"The saved model uses the class {name}{' of ' + owner if owner else ''}, and Keras found no class of that "
        "name registered when it loaded the file: the code that defines it was not imported before load_model, or "
        "the class is not decorated with @keras.saving.register_keras_serializable(). Import it first (or pass "
        f"custom_objects={{'{name}': {name}}} to load_model). Not an environment problem"
        + (f", unless {owner.split('.')[0]} is a package whose release renamed it." if owner else "."),
        {"class": name, "option": "custom_objects"},
        verdict="not-environment",
        family="user-code-error",
        confidence=0.75,
    )
