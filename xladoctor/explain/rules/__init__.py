"""Family rules: what a failure record's structure says, as a family of causes with parameters read from it.

Each module of this package is one group of families (the loader, versions, CUDA, distributed, resources,
installs, the user's code). A rule is a generic shape of one failure (`(?P<library>lib...\\.so...): cannot open
shared object file`, not one library's exact message), the upstream source of that shape, and a function that reads
its parameters into a Lead: the cause in words, the fix as structured steps, what to collect next. Rules read a
record and nothing else: joining with an environment's facts is explain/join.py's work.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from xladoctor.explain.literals import required_literals
from xladoctor.explain.platforms import platform_of_failure
from xladoctor.explain.records import MOVING_APIS, Failure
from xladoctor.explain.shipped import the_one_shipping
from xladoctor.fix import Fix, export

VERDICTS = ("environment", "not-environment", "framework-bug", "unknown")
# What decides a GPU-generation question (bf16 needs 8.0, fp8e4nv 8.9): the GPU's compute capability, as torch reads it.
GPU_CAPABILITY = "python -c 'import torch; print(torch.cuda.get_device_capability())'"


@dataclass(frozen=True)
class Lead:
    """What one rule concludes from one record."""

    cause: str
    params: Mapping[str, Any] = field(default_factory=dict)
    fix: Fix | None = None
    verdict: str | None = None  # None: the family's own verdict
    family: str | None = None  # None: the rule's family (a table-driven rule names the family of the code it read)
    confidence: float | None = None  # None: the rule's
    next: tuple[str, ...] = ()  # commands that collect what would decide it
    note: str | None = None
    # a state the log shows (JAX answering its devices with the CPU), not a failure: it decides only where no
    # exception of its own comes after it in the log (decide.diagnose)
    observation: bool = False


@dataclass(frozen=True)
class Rule:
    id: str
    family: str
    pattern: re.Pattern[str]
    read: Callable[[re.Match[str], Failure], Lead | None]
    source: str
    confidence: float
    literals: tuple[str, ...] | None  # plain text every match holds (None: none could be derived)
    folded: bool  # the literals are lower-case (the pattern ignores case)
    on: str = "any"  # "any" record, "exception" only, "line" only

    def literals_in(self, haystack: str, lowered: str) -> bool:
        if self.literals is None:
            return True
        text = lowered if self.folded else haystack
        return any(literal in text for literal in self.literals)


RULES: list[Rule] = []


# Names of packages that several rule modules (and the last resort's guesses) read.
# import name -> the distribution people install for it (PyPI names; the common mismatches only)
DISTRIBUTION_OF = {
    "cv2": "opencv-python", "PIL": "pillow", "sklearn": "scikit-learn", "yaml": "pyyaml", "skimage": "scikit-image",
    "google.protobuf": "protobuf", "torch_xla": "torch_xla", "tensorflow_io": "tensorflow-io", "attr": "attrs",
    "dateutil": "python-dateutil", "dotenv": "python-dotenv", "bs4": "beautifulsoup4", "Crypto": "pycryptodome",
    "jax_plugins": "jax[cuda12]", "flash_attn": "flash-attn", "sentencepiece": "sentencepiece",
    "pkg_resources": "setuptools", "distutils": "setuptools", "setuptools": "setuptools", "cuda": "cuda-python",
    # published as source archives whose metadata needs a build (torch, nvcc) before it lists any import, so the
    # wheels' table (explain/shipped.py) cannot read them: pypi.org/project/<name> of each
    "llama_cpp": "llama-cpp-python", "mamba_ssm": "mamba-ssm", "causal_conv1d": "causal-conv1d", "pycuda": "pycuda",
    # NVIDIA's own distribution of the NVML bindings (pypi.org/project/pynvml says to use it); NVIDIA's TensorRT on
    # PyPI (docs.nvidia.com/deeplearning/tensorrt, pip install tensorrt), too large for the wheels' table
    "pynvml": "nvidia-ml-py", "tensorrt": "tensorrt",
}  # fmt: skip


def distribution_named(module: str) -> str:
    """The distribution that installs an import (`cv2` -> opencv-python, `fla` -> fla-core): the hand-kept list, the
    wheels' table (explain/shipped.py), or, where neither knows it, the import's own name with dashes (for words
    such as `pip show`, never for an install command: see versions.py, no_module_named)."""
    top = module.split(".", 1)[0]
    return DISTRIBUTION_OF.get(module) or DISTRIBUTION_OF.get(top) or the_one_shipping(top) or top.replace("_", "-")


# The names a package gives its compiled half, one extension module beside its Python code (detectron2's and
# GroundingDINO's _C, mmcv's _ext, nerfacc's and gsplat's csrc): missing, it is a build that skipped it, never an API
COMPILED_PARTS = ("_C", "_ext", "csrc")


# A project's own folders, imported as top-level packages when a script runs from the project's root (models.yolo,
# utils.general): no distribution's
LOCAL_TOPS = frozenset({
    "models", "model", "utils", "util", "src", "lib", "libs", "modules", "module", "common", "core", "tools", "scripts",
    "configs", "config", "app", "networks", "nets", "layers", "ops", "helpers", "dataset", "data", "experiments",
})  # fmt: skip

# Import names a misspelling is measured against, and that a library's optional import may name: the frameworks and
# the packages people install beside them
KNOWN_IMPORTS = frozenset(
    {*MOVING_APIS, *DISTRIBUTION_OF, "lightning", "pytorch_lightning", "torchmetrics", "datasets", "timm", "einops",
     "safetensors", "tokenizers", "sklearn", "pandas", "matplotlib", "tqdm", "wandb", "tensorboard", "onnxruntime"}
)  # fmt: skip


def installable(module: str) -> str | None:
    """The distribution to hand to pip for an import, when one is known to ship it: the hand-kept list, the wheels'
    table (explain/shipped.py), or a known import whose distribution is named like it. None where none is known: a
    guessed name may install nothing, or somebody else's project (PyPI's `apex`, `utils` and `whisper` are not the
    ones people mean)."""
    top = module.split(".", 1)[0]
    if module in DISTRIBUTION_OF or top in DISTRIBUTION_OF:
        return DISTRIBUTION_OF.get(module) or DISTRIBUTION_OF[top]
    if module == top and top in KNOWN_IMPORTS:
        return top.replace("_", "-")  # tensorflow is tensorflow, never the one build of it the table read
    return the_one_shipping(module)


Reader = TypeVar("Reader", bound=Callable[[re.Match[str], Failure], "Lead | None"])


def rule(
    family: str, pattern: str, *, source: str, confidence: float = 0.9, on: str = "any", flags: int = 0
) -> Callable[[Reader], Reader]:
    """Register a rule of `family`: `pattern` (its named groups are the parameters) and the function that reads it."""
    compiled = re.compile(pattern, flags)

    def register(read: Reader) -> Reader:
        literals = required_literals(compiled)
        folded = bool(compiled.flags & re.IGNORECASE)  # an inline (?i) too: its literals are lower-cased
        RULES.append(
            Rule(f"{family}:{read.__name__}", family, compiled, read, source, confidence, literals, folded, on)
        )
        return read

    return register


_LOADED: list[bool] = []


def load_rules() -> list[Rule]:
    """Every rule of every module of this package, in module order (whichever module was imported first: a module
    that uses another's helper imports it before this runs)."""
    if not _LOADED:
        modules = sorted(m.name for m in pkgutil.iter_modules(__path__))
        for module in modules:
            importlib.import_module(f"{__name__}.{module}")
        order = {f"{__name__}.{module}": at for at, module in enumerate(modules)}
        RULES.sort(key=lambda item: order.get(item.read.__module__, len(order)))  # stable: each module's own order
        _LOADED.append(True)
    return RULES


def trigger_literals() -> tuple[str, ...]:
    """Text any rule needs: the region collector looks closely only at chunks that hold one of these."""
    found: list[str] = []
    for item in load_rules():
        if item.on == "warnings":
            continue  # read from the whole log's text (verdict.warnings_alone), never from a region of it
        if item.literals is not None:
            found.extend(item.literals if not item.folded else ())
    return tuple(dict.fromkeys(found))


# Shared by the rules: where the messages of torch and jax come from and where their bugs are reported, and how a
# rule says whose line to change.
ATEN = "https://github.com/pytorch/pytorch/tree/main/aten/src/ATen (the checks that raise these messages)"
JAX_ERRORS = "https://docs.jax.dev/en/latest/errors.html"
TORCH_ISSUES = "https://github.com/pytorch/pytorch/issues"
JAX_ISSUES = "https://github.com/jax-ml/jax/issues"


# XLA's stream executor is JAX's as much as TensorFlow's: these say the log is JAX's
JAX_WORDS = re.compile(r"\bjax(?:lib)?\b|XlaRuntimeError|JaxRuntimeError")


def memory_framework(haystack: str) -> str | None:
    """Whose allocator took the GPU's memory, by the log's words: 'jax', 'tensorflow', or None for another."""
    return "jax" if JAX_WORDS.search(haystack) else "tensorflow" if "tensorflow" in haystack else None


def library_memory_taken(library: str, framework: str) -> Lead:
    """A CUDA library (cuBLAS, cuDNN) that found no GPU memory for its handle, under the framework whose allocator
    took it at start-up (`framework`: memory_framework's 'jax' or 'tensorflow')."""
    if framework == "jax":
        how = (
            "JAX preallocates 75% of it at start-up, and another process on the GPU may hold the rest: set "
            "XLA_PYTHON_CLIENT_PREALLOCATE=false (or a smaller XLA_PYTHON_CLIENT_MEM_FRACTION) before JAX starts"
        )
        said = {"library": library, "variable": "XLA_PYTHON_CLIENT_PREALLOCATE"}
        fix = export("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    else:
        how = (
            "TensorFlow maps nearly all of it at start-up, and another process on the GPU (a second notebook, a "
            "PyTorch job) may hold the rest: turn on memory growth before anything runs on the GPU "
            "(tf.config.experimental.set_memory_growth(gpu, True), or TF_FORCE_GPU_ALLOW_GROWTH=true)"
        )
        said = {"library": library, "api": "set_memory_growth"}
        fix = export("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    return Lead(
        f"{library} could not allocate its handle or workspace: the GPU's memory is taken. {how}, and stop what else "
        "holds the GPU (nvidia-smi lists it). If the GPU is free and it still fails, the CUDA libraries do not match "
        "the framework's build.",
        said,
        fix,
        verdict="not-environment",
        next=("nvidia-smi  # the processes that hold GPU memory",),
    )


# Sizes as the frameworks print them: binary units (torch's "39.59 GiB", XLA's "400.00GiB"), or bytes
_SIZE_TEXT = re.compile(r"(?P<n>\d+(?:\.\d+)?) ?(?:(?P<unit>[KMGT])i?B?|bytes|B)?")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


# a line that goes on to say what the program does instead ("...; using bf16", "falling back to", "disabling it"):
# a warning it went on from (a logger's "WARNING:" header is taken off the line), not the failure
WENT_ON_WORDS = r"(?i);\s*using\b|\bfall(?:s|ing) ?back\b|\b(?:disabling|ignoring|skipping)\b"
WENT_ON = re.compile(WENT_ON_WORDS)


def version_range(want: str) -> SpecifierSet | None:
    """A release range as pip reads it (">=0.14.5", "~=1.26.0,<2"), None for anything pip would refuse
    ("<=3.20.x") or that is no range at all ("the latest release")."""
    try:
        return SpecifierSet(want) if want and want[0] in "<>=!~" else None
    except InvalidSpecifier:
        return None


def size_in_bytes(text: str | None) -> float | None:
    """A printed size in bytes: "39.59 GiB", "400.00GiB", "17179869184 bytes"; None for anything else."""
    found = _SIZE_TEXT.match((text or "").strip())
    return float(found.group("n")) * _UNITS[found.group("unit") or ""] if found else None


# torch.compile's stack in a record: a frame of Dynamo, Inductor or AOTAutograd, the wrapper that carried the error,
# or the words torch.compile's logs print ("[Inductor] RuntimeError: ...")
_TORCH_COMPILE = re.compile(
    r"torch[./\\]_(?:dynamo|inductor|functorch)[./\\]|BackendCompilerFailed|InductorError|\[Inductor\]|aot_autograd"
    r"|torch\.compile"
)


def under_torch_compile(failure: Failure) -> bool:
    """The failure happened while torch.compile traced or compiled: its frames, its wrapper or its words say so."""
    seen = " ".join([failure.text, failure.haystack, failure.carried_by, *(f.file for f in failure.frames)])
    return bool(_TORCH_COMPILE.search(seen))


def shows_package(failure: Failure, name: str, owner: str | None = None) -> bool:
    """The record names the package `name` (its import name) in its words or the code it shows, or a frame of it
    runs (`owner`: its distribution's name, where that is another: flash-attn for flash_attn)."""
    return name in failure.code_shown.lower() or any(f.owner == (owner or name) for f in failure.frames)


def yours(failure: Failure, what: str) -> str:
    frame = failure.user_frame
    if frame is None:
        # no frame of the user's (a library's own traceback, a script run from site-packages): the innermost frame
        # outside the frameworks is the call that handed them the wrong value
        outside = [f for f in failure.frames if f.owner not in _FRAMEWORK_OWNERS]
        if outside:
            last = outside[-1]
            code = f" (`{last.code}`)" if last.code else ""
            return f"{what} Not an environment problem: the call at {last.short()}{code}, in {last.owner}."
    if frame is None and not failure.frames:
        # the error alone, no traceback: whose code gave the values it does not say (a project or library the user
        # runs has such bugs as often as the user's own script), only that no install or driver changes them
        return (
            f"{what} Not an environment problem: the code that gave these values, yours or that of the project or "
            "library you run (the whole traceback shows whose)."
        )
    where = f" at {frame.short()}" if frame is not None else ""
    code = f" (`{frame.code}`)" if frame is not None and frame.code else ""  # the line to change, as the user wrote it
    return f"{what} Not an environment problem: your code{where}{code}."


# the packages whose checks raise the user's mistakes (the op that received them), not where they were made
_FRAMEWORK_OWNERS = frozenset({"torch", "jax", "jaxlib", "tensorflow", "keras", "tf_keras", "triton", "numpy",
                               "python", "flax", "torch_xla"})  # fmt: skip


# A path given where a model or a folder was expected, as code_inputs.py and config.py read it
def looks_like_a_path(name: str) -> bool:
    """A name that only a file system holds, never a Hub repository id ("namespace/repo_name"): absolute, relative
    to a folder (./, ../, ~), a Windows path, or more than one level deep."""
    return bool(re.match(r"[/~.]|[A-Za-z]:[\\/]", name)) or "\\" in name or name.count("/") > 1


def unexpanded_home(path: str) -> str:
    """A path that starts with ~: Python's file functions take it as a folder named "~", not as home."""
    if not path.startswith("~"):
        return ""
    return " Python does not expand ~ (only a shell does): give the full path, or os.path.expanduser() of it."


def listing(folder: str, failure: Failure) -> tuple[str, ...]:
    """A POSIX shell's look at a folder named in a log: ~ left for the shell to expand, the rest quoted; none for a
    Windows path or a Windows log (a POSIX command would misquote it)."""
    if re.match(r"[A-Za-z]:[\\/]", folder) or "\\" in folder or platform_of_failure(failure) == "windows":
        return ()
    if folder.startswith("~/"):
        return (f'ls -la -- "$HOME"/{shlex.quote(folder[2:])}  # the folder and what it holds',)
    return (f"ls -la -- {shlex.quote(folder)}  # the folder and what it holds",)
