"""Failure records: what a region of the log says, parsed whatever its wrapping.

A Python traceback becomes one record per exception (type, message, frames split into the user's code and
library code, with the package each library frame belongs to), linked to the exception it caused or interrupted
("The above exception was the direct cause ...", "During handling ..."); a wrapper such as torch.compile's
BackendCompilerFailed gives way to the error its message carries. Any other error line becomes a line record with
the lines after it. Prefixes (rank tags, timestamps, logger headers, `[rank3]:`, Ray's `(pid=...)`, glog's
`E1203 ...]`), colour codes and Markdown quoting are taken off first. Pure: no file is read.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from xladoctor.explain.regions import (
    SEPARATOR,
    TRACEBACK,
    Region,
    notebook_content,
    prefix_shape,
    prefixed_frame,
    strip_prefix,
)
from xladoctor.sanitize import bounded

# A frame's line; a paste cut at its start keeps the path's end (`...site-packages\\x\\y.py", line 9, in f`).
_FRAME = re.compile(  # the function's name ends at its last non-space: no lazy match retried before trailing space
    r'^\s*(?:File "|(?=\S*[/\\]\S*\.py", line \d))(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>[^\n]*\S))?\s*$'
)
# IPython's (Jupyter, Colab, Kaggle) frames: 8.x "File /x/y.py:12, in f(a, b)" and "Cell In[3], line 1"; 7.x
# "/x/y.py in f(a, b)" and "<ipython-input-3-ab12> in <module>" (no line: it is on the arrow line below it). Colab
# renders each path as a link, and a copy from its page keeps the Markdown: "[/x/y.py](https://localhost:8080/#) in f"
_LINKED = r"(?:\]\([^)\s]{0,300}\))?"
_IPYTHON_FRAME = re.compile(
    r"^\s*(?:File \[?(?P<file>\S[^\n]*?):(?P<line>\d+)" + _LINKED + r", in (?P<func>[^\s(]+)"
    r"|(?P<cell>Cell In ?\[\d*\]), line (?P<cell_line>\d+)"
    r"|\[?(?P<file7>(?:[A-Za-z]:\\|/|~)[^\n\]]*?\.py|<ipython-input-[\w-]+>)" + _LINKED + r" in (?P<func7>[^\s(]+))"
)
# Rich's frames ("│ /x/y.py:12 in f │", the function on the next line when the path is long) and the line it marks as
# the one running ("│ ❱ 12 │   return f(x) │", its indent guides drawn with "│" too)
_RICH_FRAME = re.compile(r"^\s*│\s(?P<file>[^\s│][^│]*?\.py):(?P<line>\d+)(?: in(?: (?P<func>[^\s│]+))?)?\s*│?\s*$")
_RICH_ARROW = re.compile(r"^\s*│\s*❱\s*(?P<line>\d+)\s*│(?P<code>.*?)│?\s*$")
# The line IPython marks as the one running: "----> 1 model.to('cuda')", "-> 1145 return self._apply(convert)"
_IPYTHON_ARROW = re.compile(r"^\s*-*> ?(?P<line>\d+)\s+(?P<code>.*\S)")
# Ray re-raises a task's exception as a class it names "RayTaskError(<the cause's class>)" (ray/exceptions.py,
# RayTaskError.as_instanceof_cause): the cause's class is the type that matters.
_EXCEPTION = re.compile(
    r"^(?P<type>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\((?P<cause>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\))?"
    r"(?::(?:\s(?P<msg>.*))?)?$"
)
_NAMED_LIKE_ERROR = re.compile(r"(?:Error|Exception|Warning|Interrupt|Exit|Failed|Fault|Timeout|Abort|Exhausted)$")
_BARE = frozenset({"KeyboardInterrupt", "SystemExit", "StopIteration", "MemoryError", "RecursionError"})
_CHAIN_CAUSE = "The above exception was the direct cause"
_CHAIN_CONTEXT = "During handling of the above exception"
# Log prefixes, taken off a line's start (repeatedly): srun -l labels, rank tags, OpenMPI's tags, Ray actor tags,
# timestamps with their level and logger, glog headers, vLLM/loguru headers, Markdown quotes and list bullets,
# exception groups' bars.
_PREFIX = re.compile(
    r"^(?:"
    r"\[(?:rank|default|RANK)\s?\d+\]:?\s?"
    r"|rank\s?\d+\s?[:\]]\s?"
    r"|\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:"  # OpenMPI's --tag-output (mpirun, horovodrun): "[1,0]<stderr>:"
    r"|\d{1,5}:\s(?=\S)"
    r"|\((?:[\w.]+\s)?pid=\d+(?:,\s?ip=[\d.:a-f]+)?\)\s"
    r"|\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s*(?:[|:-]\s*)?"
    r"|\[?(?:ERROR|WARNING|WARN|INFO|DEBUG|CRITICAL|FATAL)\]?(?::[\w.]+:(?:\d+:)?(?=\S)|\s+\d{2}-\d{2}\s\d{2}:\d{2}:\d{2}"
    r"(?:\.\d+)?\s+(?:\[[^\]]{1,80}\]\s|[\w./-]+:\d+\]\s)?|\s?[|:-]\s?)"
    # absl's log line, and its form before absl::InitializeLog: "E0000 00:00:1758870517.195873 3168446 x.cc:88] "
    r"|[IWEF]\d{4}\s\d{2}:\d{2}:(?:\d{2}|\d{9,11})\.\d+\s+\d+\s+[\w./+-]+:\d+\]\s?"
    r"|E\s{2,}(?=\S)|>\s?|[-*]\s(?=\S)|`{1,3}"
    r"|\s*\|\s(?=\s*\S)"  # an exception group's bars before the lines of its tracebacks
    # Docker Compose's service tag ("vllm-1  | "), kubectl logs --prefix's ("[pod/web-0/app] "), and the logger
    # name and level of logging's documented format "%(asctime)s - %(name)s - %(levelname)s - %(message)s"
    r"|[A-Za-z0-9][\w.-]{0,62}(?:[-_]\d{1,3}\s*|\s{2,})\|\s|\[pod/[\w.-]{1,253}/[\w.-]{1,63}\]\s"
    r"|[\w.]{1,80} - (?:ERROR|WARNING|INFO|DEBUG|CRITICAL) - "
    r")"
)
# absl's prefix of a fatal line (F: the check that aborts), again for the source file and line it names (the rest of
# the prefix says nothing of the failure); an error line's (E) file is where a message was written, not an abort
_ABSL_SOURCE = re.compile(r"F\d{4}\s\d{2}:\d{2}:(?:\d{2}|\d{9,11})\.\d+\s+\d+\s+(?P<source>[\w./+-]{1,200}:\d{1,7})\]")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_MARKDOWN_BOLD = re.compile(r"\*\*(?!\*)(\S.*?)(?<![*\s])\*\*\s*$")  # exactly two stars each side
_SITE = re.compile(r"[/\\](?:site|dist)-packages[/\\](?P<top>[^/\\]+)")
# The standard library: lib/python3.X/ on POSIX; on Windows, PythonXY\Lib\ (python.org) or an embedded Python's
# folder, written with either case ("C:\...\Python39\lib\ctypes\__init__.py").
# Any other Windows install ("D:\python\lib\ctypes\", "C:\conda\envs\x\Lib\json\") is told by a folder named like
# an install above its Lib\ (python, conda, envs, venv, pypy) and a module of the standard library under it.
_STDLIB = re.compile(
    r"[/\\]lib[/\\]python3\.\d+[/\\](?!site-packages|dist-packages)|<frozen |^<"
    r"|[/\\](?:[Pp]ython3\d{1,2}|python_embedd?ed)[/\\][Ll]ib[/\\](?!site-packages)"
    r"|^[A-Za-z]:\\(?:[^\\\n]{1,80}\\){0,6}?[^\\\n]{0,40}(?i:python|conda|pypy|venv|envs)[^\\\n]{0,40}\\"
    r"(?:[^\\\n]{1,80}\\){0,2}?[Ll]ib\\(?:"
    + "|".join(sorted((m for m in sys.stdlib_module_names if not m.startswith("_")), key=len, reverse=True))
    + r")(?:\\|\.py$)"
)
# A framework run from a source checkout (`pip install -e`, a build tree): its private subpackages are its own
# wherever the checkout lies, and no project of a user's is laid out as torch/_inductor/ or jax/_src/.
# torch.compile's own private subpackages (Dynamo, Inductor, functorch, ...): rules/crashes.py reads an exception raised
# there as a broken invariant of the framework.
TORCH_COMPILER_PACKAGES = ("_inductor", "_dynamo", "_functorch", "_subclasses", "_higher_order_ops", "_export")
_CHECKOUT = re.compile(
    r"[/\\](?P<top>torch|jax|triton|torch_xla|tensorflow)[/\\](?:"
    + "|".join((*TORCH_COMPILER_PACKAGES, "_prims", "_refs", "_src", "_C", "csrc", "compiler", "runtime", "backends"))
    + r"|language|python)[/\\]"
)
# An application's own code and its plug-ins, wherever it lies: ComfyUI's custom nodes (each a project of its own
# that the user installed, not wrote) and ComfyUI itself; the extensions of AUTOMATIC1111's Stable Diffusion web UI
# (and its forks, stable-diffusion-webui-forge, ...). A frame there is a library's, not the user's code.
_APP = re.compile(
    r"[/\\]custom_nodes[/\\](?P<plugin>[^/\\\n]{1,100})[/\\]"
    # (a path the traceback shows relative to the folder it ran from starts with the webui's own folder)
    r"|(?:^|[/\\])stable-diffusion-webui[\w-]{0,40}[/\\]extensions(?:-builtin)?[/\\](?P<extension>[^/\\\n]{1,100})[/\\]"
    r"|(?:^|[/\\])(?P<webui>stable-diffusion-webui[\w-]{0,40})[/\\](?:modules|repositories)[/\\]"
    r"|[/\\](?P<app>ComfyUI)[/\\](?:comfy(?:_extras|_execution|_api)?[/\\]|app[/\\]|(?:execution|nodes|main|server)\.py$)"
    # a model's own code that transformers downloaded with trust_remote_code=True and imports from its modules cache
    # (HF_MODULES_CACHE, ~/.cache/huggingface/modules/transformers_modules/<org>/<model>/): the model's authors'
    r"|[/\\](?P<remote>transformers_modules)[/\\]"
)
# Packages whose APIs move between releases: `No module named 'jax.experimental.maps'` is an API that went, and
# `jax.core.pp_eqn_rules[...]` in another package's module is a use of one that may have.
MOVING_APIS = frozenset({
    "torch", "jax", "jaxlib", "tensorflow", "keras", "transformers", "diffusers", "numpy", "scipy", "triton",
    "torch_xla", "torchvision", "torchaudio", "accelerate", "peft", "flax", "optax", "huggingface_hub", "pydantic",
    "setuptools", "pkg_resources", "tf_keras", "langchain", "vllm", "deepspeed", "xformers", "bitsandbytes", "trl",
})  # fmt: skip
# A library's file shown from its own top folder: cut there by the reporter ("/keras/src/utils/traceback_utils.py",
# "...diffusers/models/...") or by the library's own traceback filter (JAX prints "jax/_src/numpy/util.py"). Only
# names no project of a user's gives its own folders: not `datasets` (detection repositories keep theirs there),
# `triton` (Triton Inference Server's model repositories), nor `lightning`, `timm` or `models`, copied into projects.
_TRIMMED = frozenset({
    *(MOVING_APIS - {"triton"}), "unsloth", "sglang", "ultralytics", "pytorch_lightning", "sentence_transformers",
    "equinox", "transformer_engine", "flash_attn", "mmcv", "mmdet", "detectron2", "onnxruntime",
})  # fmt: skip
# an ellipsis where the reporter cut the path ("...", "…"), not a parent folder ("../"), then the package folder
_TRIMMED_PATH = re.compile(r"^(?:\.{3,}|\u2026)?[/\\]?(?P<top>[A-Za-z_]\w*)[/\\][^\n]*\.py$")
# A library run from its own clone in the src layout most of them use (pip install -e of a checkout:
# diffusers/src/diffusers/..., transformers-main/src/transformers/...): the clone's folder, src/, then the package
# (a look-ahead, so that every folder is tried: in .../src/diffusers/src/diffusers/ the clone is the second)
_CLONED = _TRIMMED | {"lightning", "lightning_fabric"}  # the libraries whose clones are read so
_SRC_LAYOUT = re.compile(r"(?=[/\\](?P<repo>[\w.-]{1,100})[/\\]src[/\\](?P<top>[A-Za-z_]\w{0,100})[/\\])")


def _clone_of(repo: str, top: str) -> bool:
    """The folder is a clone of the package's repository: named like it (diffusers, peft-0.13.0, transformers-main;
    Lightning's repository, lightning or pytorch-lightning, for its three packages), not a user's folder that happens
    to hold src/peft/ (nor medical-datasets/src/datasets/)."""
    name, package = re.sub(r"[^a-z0-9]", "", repo.lower()), re.sub(r"[^a-z0-9]", "", top.lower())
    if top in ("lightning", "pytorch_lightning", "lightning_fabric"):
        return name.startswith(("lightning", "pytorchlightning"))
    return name.startswith(package)


# Conventional import aliases (`import torch.nn.functional as F`, `import jax.numpy as jnp`): a call through one is
# a call into that package, although the alias is no module name.
IMPORT_ALIASES = {"F": "torch", "nn": "torch", "np": "numpy", "jnp": "jax", "tf": "tensorflow", "K": "keras"}
# The compiled modules some distributions put at site-packages' top, by the distribution's own layout
# (flash-attn's flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so, mamba-ssm's selective_scan_cuda)
COMPILED_TOP_MODULES = {
    "flash_attn_2_cuda": "flash-attn", "flash_attn_cuda": "flash-attn", "selective_scan_cuda": "mamba-ssm",
    "causal_conv1d_cuda": "causal-conv1d", "fused_layer_norm_cuda": "apex", "amp_C": "apex",
}  # fmt: skip
# The package of a frame under site-packages, named as people install it (import name -> distribution).
_DISTRIBUTIONS = {
    "torch_xla": "torch-xla", "jaxlib": "jaxlib", "jax_plugins": "jax-cuda-plugin", "cv2": "opencv-python",
    "PIL": "pillow", "sklearn": "scikit-learn", "yaml": "pyyaml", "google": "google (protobuf, ...)",
    "tensorflow": "tensorflow", "tf_keras": "tf-keras", "flash_attn": "flash-attn", **COMPILED_TOP_MODULES,
}  # fmt: skip


@dataclass(frozen=True)
class Frame:
    """One frame of a traceback: where, and whose code it is."""

    file: str
    line: int
    function: str
    owner: str | None  # the package a library frame belongs to ('torch', 'transformers'); None: the user's code
    code: str = ""  # the source line Python printed under it (the call or statement that raised), when it did

    @property
    def user(self) -> bool:
        return self.owner is None

    @property
    def installed(self) -> bool:
        """Its owner is a distribution pip knows (its file under site-packages, or a framework's source checkout):
        not an application's plug-in folder or a model's remote code, whose names no fix may hand to pip."""
        return is_distribution_file(self.file)

    def short(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Failure:
    """One failure the log shows: a Python exception, or an error line with the lines after it."""

    kind: str  # "exception" | "line"
    type: str  # "RuntimeError", "torch.OutOfMemoryError"; "" for a line
    message: str  # the exception's message (all its lines) or the line and its context
    line: int  # the log's line number of the exception line (or the error line)
    text: str  # that line, as shown (prefix taken off)
    frames: tuple[Frame, ...] = ()
    chain: int = 0  # which chain of exceptions in the log it belongs to
    position: int = 0  # its place in its chain: 0 is the root (the first, which caused or preceded the others)
    wrapper: bool = False  # a wrapper whose message carries another error (that one is its own record)
    warning: bool = False  # a warning, not an error: the program may well have gone on
    carried_by: str = ""  # the wrapper whose message carried it ("torch._dynamo.exc.BackendCompilerFailed")
    context_lines: tuple[int, ...] = ()  # the log's line number of each line after `text` in `message` (a line record)
    # the native source file and line absl's log prefix named ("pjrt_future.h:229"), which clean() takes off with
    # the rest of the prefix: where a native check that failed lives, the part a search or a report names
    source: str = ""

    @property
    def last_frame(self) -> Frame | None:
        return self.frames[-1] if self.frames else None

    @property
    def raised_in_user_code(self) -> bool:
        frame = self.last_frame
        return frame is not None and frame.user

    @property
    def user_frame(self) -> Frame | None:
        """The last frame of the user's own code: where a fix of theirs goes."""
        return next((f for f in reversed(self.frames) if f.user), None)

    def caller_of(self, owner: str | None, past_standard_library: bool = False) -> Frame | None:
        """The frame that called into `owner`'s code: the one just outside its innermost run of frames (None when
        `owner`'s code did not run last, or nothing called it); `past_standard_library`: the standard library's
        frames (a builtin `owner` called) left out first."""
        frames = [f for f in self.frames if f.owner != "python"] if past_standard_library else list(self.frames)
        inside = len(frames)
        while inside > 0 and frames[inside - 1].owner == owner:
            inside -= 1
        return frames[inside - 1] if 0 < inside < len(frames) else None

    @property
    def library(self) -> str | None:
        """The package whose code raised it (the last frame's), None when the user's code did."""
        frame = self.last_frame
        return frame.owner if frame is not None else None

    @property
    def installed_library(self) -> str | None:
        """`library`, when pip knows it (Frame.installed): the only owner a fix or a `pip show` may name."""
        frame = self.last_frame
        return frame.owner if frame is not None and frame.owner not in (None, "python") and frame.installed else None

    @property
    def packages(self) -> tuple[str, ...]:
        """The packages its frames pass through, outermost first, each once; "your code" for the user's frames and
        none for the standard library's: whose code called whose down to the raise (the candidates for what to
        change when a package was written for another release of the next)."""
        seen: dict[str, None] = {}
        for frame in self.frames:
            if frame.owner != "python":
                seen.setdefault(frame.owner or "your code", None)
        return tuple(seen)

    @property
    def haystack(self) -> str:
        """What rules read: the type and message of an exception, the line and its context otherwise."""
        return f"{self.type}: {self.message}" if self.type else self.message

    @property
    def code_shown(self) -> str:
        """The haystack and the source lines its frames show: all the log says of the code around the failure."""
        return "\n".join([self.haystack, *(frame.code for frame in self.frames)])


_PATH_SEPARATOR = re.compile(r"[/\\]")


def file_name(path: str) -> str:
    """The last part of a path, written with either separator (a Windows path, or one pasted with forward slashes)."""
    return _PATH_SEPARATOR.split(path)[-1]


def clean(line: str) -> str:
    """A log line without colour codes and the prefixes loggers and launchers put before it."""
    line = _ANSI.sub("", line) if "\x1b[" in line else line
    line = line.rstrip("\r")
    for _ in range(6):
        found = _PREFIX.match(line)
        if found is None or found.end() == 0:
            break
        line = line[found.end() :]
    bold = _MARKDOWN_BOLD.match(line) if line.startswith("**") else None
    if bold is not None:  # a line a Markdown post made bold (**ValueError: x**), not glog's "*** SIGSEGV ... ***"
        return bold.group(1)
    return line.strip("`") if line.startswith("`") else line


# Code a compiler wrote and ran (torch.compile's Inductor writes its kernels' Python under
# /tmp/torchinductor_<user>/, torch/_inductor/codecache.py; Triton caches its launchers under ~/.triton/cache): the
# framework's, not the user's, whatever folder holds it
_GENERATED = re.compile(r"[/\\]torchinductor_[^/\\]{1,64}[/\\]|[/\\]\.triton[/\\]cache[/\\]")


_CODE_CHARS, _CODE_BACK = 300, 100  # a frame's source line kept, cut at a word's end within the last 100


# A console script's frame (venv/bin/accelerate, Scripts\torchrun.exe\__main__.py, Scripts\x-script.py): the
# library's entry point, run with the user's command line; a script of the user's own (bin/train.py) is none
CONSOLE_SCRIPT = re.compile(
    r"(?i:env|conda|python|usr|local|opt|forge|mamba)[^/\\\n]{0,40}[/\\](?:bin|Scripts)[/\\]"
    r"(?:[\w.-]{1,80}\.exe[/\\]__main__\.py|[\w.-]{1,80}-script\.pyw?|[\w-][\w.-]{0,80}(?<!\.py))$"
)


def owner_of(path: str) -> str | None:
    """The package a frame's file belongs to; 'python' for the standard library; None for the user's own code."""
    top = installed_package(path)
    if top is not None:
        return _DISTRIBUTIONS.get(top, top)
    if _STDLIB.search(path):
        return "python"
    if _GENERATED.search(path):
        return "torch" if "torchinductor_" in path else "triton"
    checkout = _CHECKOUT.search(path)
    if checkout:
        return checkout.group("top")
    app = _APP.search(path)
    if app is None:
        for clone in _SRC_LAYOUT.finditer(path):
            if clone.group("top") in _CLONED and _clone_of(clone.group("repo"), clone.group("top")):
                return _DISTRIBUTIONS.get(clone.group("top"), clone.group("top"))
        trimmed = _TRIMMED_PATH.match(path)
        return (
            _DISTRIBUTIONS.get(trimmed.group("top"), trimmed.group("top"))
            if trimmed and trimmed.group("top") in _TRIMMED
            else None
        )
    return next(app.group(name) for name in ("plugin", "extension", "webui", "app", "remote") if app.group(name))


# The applications whose plug-ins live in their own folder tree: a plug-in is written against its host's release.
_HOSTS = {"plugin": "ComfyUI", "extension": "stable-diffusion-webui"}


def host_of(path: str) -> str | None:
    """The application a plug-in's file belongs to (ComfyUI for custom_nodes/X, the webui for extensions/X), as the
    path names it where it does ("stable-diffusion-webui-forge"); None for any other file."""
    app = _APP.search(path)
    if app is None:
        return None
    group = next((name for name in _HOSTS if app.group(name)), None)
    if group is None:
        return None
    named = re.search(
        r"(?:^|[/\\])(stable-diffusion-webui[\w-]{0,40}|ComfyUI[\w-]{0,40})[/\\]", path[: app.start() + 1]
    )
    return named.group(1) if named else _HOSTS[group]


def _frame(shown: re.Match[str]) -> Frame:
    """A frame from its line as Python prints it (`_FRAME`)."""
    path = shown.group("file")
    return Frame(path, int(shown.group("line")), (shown.group("func") or "").strip(), owner_of(path))


def frame_at(text: str) -> Frame | None:
    """The frame one line of a log shows, in Python's or IPython's way of printing it; None when it shows none."""
    body = clean(text)
    if (shown := _FRAME.match(body)) is not None:
        return _frame(shown)
    if (shown := _IPYTHON_FRAME.match(body)) is not None:
        return _ipython_frame(shown)
    return None


def is_exception_line(text: str) -> bool:
    """`text` is an exception's own line (`ImportError: ...`), named like an error as Python prints it."""
    return _exception_line(clean(text).strip(), False) is not None


def is_distribution_file(path: str) -> bool:
    """The file belongs to a distribution pip installs (site-packages, or a framework's source checkout), so its
    owner's name may be handed to pip; an application's plug-in or a model's remote code may not."""
    return installed_package(path) is not None or _CHECKOUT.search(path) is not None


def installed_package(path: str) -> str | None:
    """The top-level package (or one-file module) a file under site-packages or dist-packages belongs to, by the name
    it is imported as: `peft` of `.../site-packages/peft/peft_model.py`; None for any other file."""
    found = _SITE.search(path)
    if found is None:
        return None
    top = found.group("top").removesuffix(".py")  # a one-file module: six.py is `six`
    compiled = _COMPILED_MODULE.match(top)  # ...and a compiled one: flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so
    if compiled is not None:
        return compiled.group("module")
    return top.split("-", 1)[0] if top.endswith((".egg", ".dist-info")) else top  # foo-1.0-py3.11.egg is `foo`


# A compiled module's file name: the module, its ABI tag (PEP 3149: cpython-310-x86_64-linux-gnu, abi3, cp311-win_amd64)
_COMPILED_MODULE = re.compile(r"(?P<module>[A-Za-z_]\w{0,80})(?:\.[\w-]{1,80})?\.(?:so|pyd)$")


def _exception_line(text: str, in_traceback: bool) -> tuple[str, str] | None:
    """(type, message) when `text` is an exception line: any dotted name ending a traceback, else one named like an
    error ('...Error', '...Exception', ...)."""
    found = _EXCEPTION.match(text.strip())
    if found is None:
        return None
    kind = found.group("type")
    if found.group("cause"):
        if not kind.endswith("RayTaskError") or found.group("msg") is None:
            return None  # a call (`main(args)`), not an exception line
        kind = found.group("cause")
    last = kind.rsplit(".", 1)[-1]
    if found.group("msg") is None and ":" not in text and kind not in _BARE and not in_traceback:
        return None
    if not in_traceback and not _NAMED_LIKE_ERROR.search(last) and last not in _BARE:
        return None
    return kind, (found.group("msg") or "").strip()


def _ipython_frame(shown: re.Match[str]) -> Frame:
    """A frame as IPython prints it; a notebook cell is the user's code."""
    if shown.group("cell"):
        return Frame(shown.group("cell"), int(shown.group("cell_line")), "<cell>", None)
    path = shown.group("file") or shown.group("file7")
    function = shown.group("func") or shown.group("func7")
    owner = None if path.startswith("<ipython-input") else owner_of(path)
    return Frame(path, int(shown.group("line") or 0), function, owner)


def _tracebacks(region: Region, chain: int) -> Iterator[Failure]:
    """The exceptions of a traceback region, in order; a chain separator links each to the next."""
    shape = region.prefix
    frames: list[Frame] = []
    arrowed = False  # the last frame is IPython's or Rich's: its code is on the arrow line, not the first indented one
    # A traceback pasted with every line indented alike (a quote, an editor's selection): Python puts its frames two
    # spaces in, so any more is the paste's shift, and an exception line indented no further than that ends it.
    shift = 0
    position = 0
    lines = [(n, strip_prefix(t, shape)) for n, t in region.lines]
    index = 0
    while index < len(lines):
        number, text = lines[index]
        body = clean(text) if shape is None else text
        frame = _FRAME.match(body)
        if TRACEBACK in body:
            frames = []
        elif frame is not None:
            frames.append(_frame(frame))
            arrowed = False
            shift = max(0, min(_indent(body) - 2, 8))
        elif (rich := _RICH_FRAME.match(body)) is not None:
            path = rich.group("file").strip()
            frames.append(Frame(path, int(rich.group("line")), rich.group("func") or "", owner_of(path)))
            arrowed = True
        elif frames and arrowed and (arrow := _RICH_ARROW.match(body)):
            frames[-1] = replace(
                frames[-1], code=bounded(arrow.group("code").replace("│", "").strip(), _CODE_CHARS, _CODE_BACK)
            )
        elif (shown := _IPYTHON_FRAME.match(body)) is not None:
            frames.append(_ipython_frame(shown))
            arrowed = True
        elif frames and arrowed and (arrow := _IPYTHON_ARROW.match(body)):
            line = frames[-1].line or int(arrow.group("line"))  # IPython 7 gives the line only here
            frames[-1] = replace(frames[-1], line=line, code=bounded(arrow.group("code"), _CODE_CHARS, _CODE_BACK))
        elif frames and arrowed and body.startswith((" ", "\t")):
            pass  # IPython's lines around the one that ran: context, not the frame's source
        elif (
            frames and not frames[-1].code and _indent(body) > shift and body[:1] in (" ", "\t")
            and (code := _source(body))
        ):  # fmt: skip
            frames[-1] = replace(frames[-1], code=code)  # the first indented line under a frame is its source
        elif body.strip() and _indent(body) <= shift and (parsed := _exception_line(clean(body.lstrip()), True)):
            message, index = _message(lines, index, parsed[1])
            yield Failure("exception", parsed[0], message, number, clean(body), tuple(frames), chain, position)
            position += 1
            frames = []
            continue
        index += 1


_MARKERS = frozenset("^~- ")


def _indent(body: str) -> int:
    """The columns of white space a line starts with (a tab counts one: tracebacks are indented with spaces)."""
    return len(body) - len(body.lstrip(" \t"))


def _source(body: str) -> str:
    """A frame's source line as Python prints it (indented), not the carets that mark a column under it."""
    code = body.strip()
    return (
        ""
        if not code or set(code) <= _MARKERS or code.startswith("[Previous line repeated")
        else bounded(code, _CODE_CHARS, _CODE_BACK)
    )


_TF_DEFINED_AT_LINES = 400  # how far "Node: 'name'" may come after TensorFlow's "Detected at node ... defined at"
_TF_GRAPH_ERROR = re.compile(r"Graph execution error:\s*$")  # TensorFlow's wrapper of an op's error in a tf.function
_GROUP_RULE = re.compile(r"^\s*\+[-+]*(?: \d+ -+| \.\.\. -+)?\s*$")  # an exception group's "+-+---- 1 ----" rules
# Keras' wrapper of a layer's error (keras/src/utils/traceback_utils.py; tf.keras's "when calling layer 'x'"): the
# layer's own error is the paragraph after a blank line, then "Arguments received by ..."
_KERAS_CALL = re.compile(r"Exception encountered when calling (?:layer |[\w.]+\.call\(\))")


def _message(lines: list[tuple[int, str]], index: int, first: str) -> tuple[str, int]:
    """An exception's message: its first line and the lines after it, up to a blank line, a chain separator or a new
    traceback; the index of the line after it. A line that ends with a colon introduces an indented list after one
    blank line (torch's "handlers returned NotImplemented:\n\n  - tensor subclass <class ...>"): that blank is
    inside the message."""
    parts = [first]
    tf_graph_error = _TF_GRAPH_ERROR.search(first) is not None  # its op's error comes after a blank line or frames
    keras_call = _KERAS_CALL.match(first) is not None
    index += 1
    while index < len(lines):
        text = clean(lines[index][1])
        # TensorFlow's "Graph execution error:" and Keras' "Exception encountered when calling X.call()." put the
        # error they wrap after a blank line, not indented
        detail = len(parts) == 1 and (tf_graph_error or keras_call)
        if not text.strip() and (parts[-1].rstrip().endswith(":") or detail) and index + 1 < len(lines):
            after = clean(lines[index + 1][1])
            if (after[:1] in (" ", "\t") or detail) and after.strip() and not _FRAME.match(after):
                index += 1
                continue
        if not text.strip() or TRACEBACK in text or text.startswith((_CHAIN_CAUSE, _CHAIN_CONTEXT)):
            break
        if len(parts) == 1 and tf_graph_error and text.startswith("Detected at node"):
            # TensorFlow 2.11-2.15: the frames where the op was defined, then "Node: 'name'", then its error
            node = next((i for i in range(index + 1, min(len(lines), index + _TF_DEFINED_AT_LINES))
                         if clean(lines[i][1]).startswith("Node: '")), None)  # fmt: skip
            if node is not None:
                index = node + 1
                continue
        if _FRAME.match(text) or _GROUP_RULE.match(text):
            break
        parts.append(text)
        index += 1
    return "\n".join(parts).strip(), index


# torch.compile's wrappers (torch._dynamo.exc, torch._inductor.exc): the error they carry is the one that matters
COMPILE_WRAPPERS = ("BackendCompilerFailed", "InductorError")
_WRAPPER = re.compile(r"(?:raised|failed|error)[^\n]{0,80}:\s*$|see the (?:next|following) line", re.IGNORECASE)


def _unwrapped(failure: Failure) -> Iterator[Failure]:
    """The error a wrapper carries in its message (torch._dynamo's BackendCompilerFailed "backend='inductor'
    raised:\\nRuntimeError: ..."; InductorError; a subprocess's error re-raised): as a record of its own, after it."""
    lines = failure.message.split("\n")
    if len(lines) < 2:
        return
    first = lines[0]
    inner_at = next(
        (i for i, line in enumerate(lines[1:], 1) if _exception_line(line, False) is not None),
        None,
    )
    if inner_at is None or not (_WRAPPER.search(first) or failure.type.endswith(COMPILE_WRAPPERS)):
        return
    parsed = _exception_line(lines[inner_at], False)
    assert parsed is not None
    message = "\n".join([parsed[1], *lines[inner_at + 1 :]]).strip()
    yield replace(
        failure,
        type=parsed[0],
        message=message,
        text=lines[inner_at],
        wrapper=False,
        carried_by=failure.type or first,
        source="",  # the wrapper's own line named that file, not the error it carries
    )


# ... and c10's own logger since torch 2.4 ("[W1105 13:37:10.134661876 ProcessGroupNCCL.cpp:4115] ...")
# (XLA's "*** WARNING ***" lines are logged at ERROR level, E0103..., and it goes on: ptx_compiler_helpers.cc)
_WARNING_LINE = re.compile(r"^(?:[\w.]*Warning\b|\[?W\d{4}\s|WARNING\b|\[?W\]?\s|warning:|\*\*\* WARNING \*\*\*)")


# glibc's loader on a library LD_PRELOAD names that it cannot load: "ERROR: ld.so: object ... cannot be preloaded
# (...): ignored." (elf/rtld.c) -- in its words an error, in effect a warning: the program runs on without it.
_IGNORED_PRELOAD = re.compile(
    r"ld\.so: object '[^'\n]{1,300}' from \S{1,40} cannot be preloaded [^\n]{0,200}: ignored\."
)


# A measured error that a training, evaluation or test loop prints as it goes ("validation error 0.12", "mean squared
# error: 0.034", "top-1 error 23.4%", "max abs error = 1e-6"): a quantity of the model, not a failure of the program.
# The adjective is required ("make: *** [all] Error 1" and "CUDA error 700" are failures with a number too), and
# so is the number.
_METRIC = re.compile(
    r"(?i)\b(?:(?:root[ _-])?mean[ _-]?(?:squared|absolute)|squared|absolute|relative|abs|rel|max|min|avg|average|mean"
    r"|median|val(?:idation)?|train(?:ing)?|test|eval(?:uation)?|top-?\d{1,2}|reconstruction|classification"
    r"|quantization|approximation|prediction|rms|l[12]|bit|word|char(?:acter)?|token|pixel)[ _-]?error(?:[ _-]?rate)?s?"
    r"\b(?:\s*\([^()\n]{0,30}\))?\s*[:=]?\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"
)
# ... and nothing else on the line that says something failed
_FAILURE_WORD = re.compile(
    r"(?i)error|fail|exception|traceback|abort|fatal|cannot|can't|could not|unable|invalid|denied|refused|killed"
    r"|segmentation|not found|no such|mismatch|exceed|nan\b|inf\b"
)


# nccl-tests' and rccl-tests' own header and table (src/common.cu: "# nThread 1 nGpus 8 ...", "# Using devices",
# "#  Rank  0 Group  0 Pid ...", the column names with "#wrong", "# Avg bus bandwidth"): a report, never a failure
_COLLECTIVE_TEST_LINE = re.compile(
    r"^#\s*(?:nThread \d+ nGpus \d+|Using devices|Rank\s+\d+\s|size\s+count\s+type|\(B\)\s+\(elements\)"
    r"|Out of bounds values|Avg bus bandwidth)"
)


def is_metric(line: str) -> bool:
    """A line that reports a measured error (a metric) and nothing that failed."""
    rest, metrics = _METRIC.subn(" ", line)
    return metrics > 0 and _FAILURE_WORD.search(rest) is None


def is_warning(line: str) -> bool:
    """A line a logger or Python wrote as a warning (the program may have gone on after it), a metric's report
    (is_metric) or a collective test's header and table: none is the failure that stopped a program."""
    return (
        bool(_WARNING_LINE.match(line.strip()) or _WARNING_LINE.match(clean(line)))
        or "Warning:" in line
        or _IGNORED_PRELOAD.search(line) is not None
        # LLVM's code generator on a CPU, GPU or feature it does not know: it goes on without it
        or line.rstrip().endswith(("(ignoring processor)", "(ignoring feature)"))
        or is_metric(line)
        or _COLLECTIVE_TEST_LINE.match(line.strip()) is not None
        # NCCL_DEBUG=INFO's own lines are context ("NET/IB : No device found." on every machine without
        # InfiniBand): a WARN line or an exception of the same log is the failure
        or _NCCL_INFO.search(line) is not None
    )


_NCCL_INFO = re.compile(r"\bNCCL INFO\b")


_SOURCE_LINE = re.compile(r"^(?:raise |assert |except |def |class |if |elif |return |print\()")


# ComfyUI's report of a node's exception (execution.py, 2023-2024): the message first, with no type, then the frames
# that traceback.format_tb wrote: "Error occurred when executing NODE:\n\nMESSAGE\n\n  File ...".
_APP_HEADER = re.compile(r"^Error occurred when executing [^\n]{1,200}:$")


# Messages only CPython's own exceptions word so (Objects/object.c, Python/ceval.c, Python/import.c, getargs.c):
# a message printed without its type (ComfyUI's report) is of that type.
_MESSAGE_TYPES = (
    (re.compile(r"^No module named '"), "ModuleNotFoundError"),
    (re.compile(r"^cannot import name '"), "ImportError"),
    (re.compile(r"^'[\w.]+' object has no attribute '|^module '[\w.]+' has no attribute '"), "AttributeError"),
    (re.compile(r"got an unexpected keyword argument '|missing \d+ required (?:positional|keyword-only) argument|"
                r"takes (?:from )?\d+ (?:to \d+ )?positional arguments? but \d+ (?:were|was) given|"
                r"^'[\w.]+' object is not (?:callable|subscriptable|iterable)"), "TypeError"),
)  # fmt: skip


def _type_of_message(message: str) -> str:
    return next((kind for pattern, kind in _MESSAGE_TYPES if pattern.search(message)), "")


def _message_then_frames(lines: list[tuple[int, str]], chain: int) -> Failure | None:
    """An exception reported message first and frames after (ComfyUI's, or its paste with the header cut off): an
    exception record of those frames, its type the message's own when it names one, else none."""
    texts = [(n, clean(t).strip()) for n, t in lines]
    texts = [(n, t) for n, t in texts if t]
    if texts and _APP_HEADER.match(texts[0][1]):
        texts = texts[1:]
    if any(TRACEBACK in t for _, t in texts):
        return None  # Python's own order: its header, the frames, the exception last
    first_frame = next((i for i, (_, t) in enumerate(texts) if _FRAME.match(t)), None)
    if not first_frame or first_frame > 20:
        return None  # no frames, or no message before them, or no short one
    message = [t for _, t in texts[:first_frame]]
    frames: list[Frame] = []
    for _, text in texts[first_frame:]:
        frame = _FRAME.match(text)
        if frame is not None:
            frames.append(_frame(frame))
        elif _exception_line(text, False) is not None:
            # the exception's own line follows the frames (under a frame Python showed no source for, too): a
            # traceback of Python's order, read as one
            return None
        elif frames and not frames[-1].code and (code := _source(text)):
            frames[-1] = replace(frames[-1], code=code)
    parsed = _exception_line(message[0], False)
    kind, first = parsed if parsed is not None else (_type_of_message(message[0]), message[0])
    body = "\n".join([first, *message[1:]]).strip()
    return Failure("exception", kind, body, texts[0][0], message[0], tuple(frames), chain, 0)


def _line_records(region: Region, chain: int) -> Iterator[Failure]:
    lines = list(region.lines)
    if (reported := _message_then_frames(lines, chain)) is not None:
        yield reported
        return
    if (split := _headless_within(region)) is not None:
        before, traceback, others = split
        yield from _line_records(before, chain)
        yield from _tracebacks(traceback, chain)
        if others.lines:  # another rank's lines, a progress bar, printed between the frames: records of their own
            yield from _line_records(others, chain)
        return
    # a line of source code or a frame quoted from a traceback: the error comes after it; but a line typed at the
    # interpreter's prompt (">>> ") is kept, as what its output answers (`tf.config.list_physical_devices('GPU')`).
    # An indented line that a frame line follows is the source Python printed under the frame before it.
    while (
        lines
        and not lines[0][1].lstrip().startswith(">>>")
        and (
            _SOURCE_LINE.match(clean(lines[0][1]).strip())
            or _FRAME.match(clean(lines[0][1]))
            or (len(lines) > 1 and lines[0][1][:1] in (" ", "\t") and _FRAME.match(clean(lines[1][1])))
        )
    ):
        lines.pop(0)
    if not lines:
        return
    # an exception line among the lines after a warning (the warning started the region, and the error that
    # stopped the program came within its few lines of context): a record of its own, from its line on
    later = (
        next((i for i in range(1, len(lines)) if _exception_line(clean(lines[i][1]), False) is not None), None)
        if is_warning(lines[0][1])
        else None
    )
    if later is not None:
        yield from _line_records(Region(lines[:later], False, False, prefix=region.prefix), chain)
        yield from _line_records(Region(lines[later:], False, False, prefix=region.prefix), chain)
        return
    region = Region(lines, region.traceback, False, prefix=region.prefix)
    number, first = region.lines[0]
    text = clean(first)
    context = tuple(clean(t) for _, t in region.lines[1:])
    message = "\n".join([text, *context]).strip()
    warning = is_warning(first)
    parsed = _exception_line(text, False)
    if parsed is not None:
        kind, first_message = parsed
        frames: tuple[Frame, ...] = ()
        for at, line in enumerate(context):
            # pytest's report: the exception's "E   " lines, then the raising frame's "path:line: Type". A path
            # relative to the tested project is that project's source, a library's own checkout as often as the
            # reader's code: only a package's frame says whose code raised
            if (location := _pytest_location(line, kind)) is not None:
                path = location.group("file")
                owner = owner_of(path) if is_distribution_file(path) else None
                frames = (Frame(path, int(location.group("line")), "", owner),) if owner is not None else ()
                context = context[:at]
                break
        body = "\n".join([first_message, *context]).strip()
        yield Failure("exception", kind, body, number, text, frames, chain, 0, warning="Warning" in kind)
        return
    numbers = tuple(n for n, _ in region.lines[1:])
    absl = _ABSL_SOURCE.search(first, 0, 300)
    source = absl.group("source") if absl is not None and text in first[absl.end() :] else ""
    yield Failure(
        "line", "", message, number, text, (), chain, 0, warning=warning, context_lines=numbers, source=source
    )


def _headless_within(region: Region) -> tuple[Region, Region, Region] | None:
    """An error line's region that a traceback cut above its first frame follows, in Python's order (frames, then
    the exception line): the lines before it, the traceback as a region of its own (its tag, if its lines carry one,
    taken off them), so the exception keeps its frames, and the lines another process (another tag, or none) or a
    progress bar printed between its frames. None when the region holds no such traceback."""
    lines = region.lines
    for index in range(1, len(lines)):
        text = lines[index][1]
        tag = prefixed_frame(text)
        if not tag and _FRAME.match(clean(text)) is None:
            continue
        shape = prefix_shape(tag) if tag else region.prefix
        own = tag.rstrip()  # this process's tag as written: "[rank0]:", not any rank's
        kept: list[tuple[int, str]] = [lines[index]]
        others: list[tuple[int, str]] = []
        strays = 0
        for at in range(index + 1, len(lines)):
            number, line = lines[at]
            if own and not line.startswith(own):
                others.append((number, line))  # a line of another rank or process: not this traceback's
                continue
            text = strip_prefix(line, shape)
            if not text.strip() or text[:1] in " \t" or _FRAME.match(clean(text)) is not None:
                kept.append((number, line))  # the frames, the source lines and carets under them
                continue
            if _exception_line(clean(text), False) is not None:
                before = Region(lines[:index], False, False, prefix=region.prefix)
                traceback = Region(kept + list(lines[at:]), True, False, prefix=shape)
                return before, traceback, Region(others, False, False, prefix=region.prefix)
            others.append((number, line))
            strays += 1  # a line of its own process that is neither a frame nor its exception
            if strays > _STRAY_LINES:
                return None  # the frames end on something else (a message printed before its frames, a dump)
        return None
    return None


_STRAY_LINES = 2  # how many lines of its own process may come between a traceback's frames (a progress bar)


# pytest's long traceback ends each entry with its location, the last one with the exception's type:
# "/usr/lib/python3.10/site-packages/jax_triton/triton_lib.py:215: TypeError" (_pytest/_code/code.py, ReprFileLocation)
_PYTEST_LOCATION = re.compile(
    r"^(?P<file>(?:[A-Za-z]:)?[^\s:]{1,300}\.py):(?P<line>\d{1,7}): (?P<type>[A-Za-z_][\w.]{0,120})$"
)


def _pytest_location(line: str, kind: str) -> re.Match[str] | None:
    """The line as pytest's location of the frame that raised an exception of this type, or None."""
    found = _PYTEST_LOCATION.match(line.strip())
    return found if found is not None and found.group("type").rsplit(".", 1)[-1] == kind.rsplit(".", 1)[-1] else None


def at_match(failure: Failure, start: int) -> Failure:
    """A line record as the line of its region that a rule matched at offset `start` of its haystack: the region's
    first line is often start-up noise ("oneDNN custom operations are on") and the error comes later in it."""
    if failure.kind != "line" or not failure.context_lines:
        return failure
    index = failure.haystack.count("\n", 0, start)
    lines = failure.message.split("\n")
    if index == 0 or index > len(failure.context_lines) or index >= len(lines):
        return failure
    text = lines[index]
    return replace(failure, line=failure.context_lines[index - 1], text=text, warning=is_warning(text), source="")


def _notebook_lines(region: Region) -> Region:
    """A notebook's region as the output lines its JSON strings hold, each with its file line number."""
    lines: list[tuple[int, str]] = []
    for number, text in region.lines:
        content = notebook_content(text) if SEPARATOR in text else text.strip().strip('",')
        lines.extend((number, part) for part in content.split("\n") if part.strip(" ,[]"))
    if not lines:
        return region
    prefix = None
    if region.traceback:
        header = next((t for _, t in lines if TRACEBACK in t), "")
        prefix = prefix_shape(header[: header.index(TRACEBACK)]) if header else None
    return Region(lines, region.traceback, False, prefix=prefix)


# A `raise` statement quoted as a traceback's last source line: `raise RuntimeError("..." "...") from e`.
_RAISE = re.compile(r"^raise (?P<type>[A-Za-z_][\w.]{0,120})(?:\((?P<args>.*?)\)?)?(?:\s+from\s+[\w.]+)?\s*$")
_ASSERT = re.compile(r"^assert (?P<test>[^,\n]{1,300}?)(?:,\s*(?P<message>.{1,500}))?\s*$")
_LITERAL = re.compile(
    r"""[rRbBuUfF]{0,2}(?:"(?P<double>(?:[^"\\]|\\.){0,1000})"|'(?P<single>(?:[^'\\]|\\.){0,1000})')"""
)


def _raised(region: Region, chain: int) -> Failure | None:
    """A traceback pasted without its exception line often ends on the `raise` statement of the frame that raised
    (the source line Python prints under each frame): the type it raises is the exception's, and its string
    literals, joined as Python joins adjacent ones, the message (an f-string's fields stay as written)."""
    lines = [(n, clean(strip_prefix(t, region.prefix)).strip()) for n, t in region.lines]
    lines = [(n, t) for n, t in lines if t]
    if not lines:
        return None
    number, last = lines[-1]
    asserted = _ASSERT.match(last)
    found = _RAISE.match(last)
    if asserted is not None:  # `assert cond[, "message"]`: an AssertionError, its message the literal or the test
        literals = _LITERAL.findall(asserted.group("message") or "")
        message = "".join(d or s for d, s in literals) or asserted.group("test")
        return Failure("exception", "AssertionError", message, number, last, _frames_of(lines), chain, 0)
    if found is None:
        return None
    kind = found.group("type")
    short = kind.rsplit(".", 1)[-1]
    if not (_NAMED_LIKE_ERROR.search(short) or short in _BARE):
        return None  # `raise err`, `raise self.error`: the type is not written in the line
    literals = _LITERAL.findall(found.group("args") or "")
    message = "".join(double or single for double, single in literals)
    return Failure("exception", kind, message, number, last, _frames_of(lines), chain, 0)


def _frames_of(lines: list[tuple[int, str]]) -> tuple[Frame, ...]:
    frames = []
    for _, text in lines:
        frame = _FRAME.match(text)
        if frame is not None:
            frames.append(_frame(frame))
    return tuple(frames)


def parse(regions: Iterable[Region], notebook: bool = False) -> list[Failure]:
    """Every failure record of the regions, in log order; each traceback region is one chain."""
    records: list[Failure] = []
    for chain, region in enumerate(regions):
        region = _notebook_lines(region) if notebook else region
        found = list(_tracebacks(region, chain)) if region.traceback else []
        if not found or all(f.kind == "line" for f in found):
            raised = _raised(region, chain)  # cut before its exception line, ending on the `raise` statement
            reported = _message_then_frames(list(region.lines), chain)
            if reported is not None and raised is not None and not reported.type:
                reported = replace(reported, type=raised.type)  # the message above, the type its `raise` names
            raised = reported or raised
            found = [raised] if raised is not None else found
        if region.traceback and not found:  # a traceback cut before its exception line: the last frame is the lead
            found = list(_line_records(region, chain))
        if not region.traceback and not found:
            found = list(_line_records(region, chain))
        for failure in found:
            inner = list(_unwrapped(failure))
            records.append(replace(failure, wrapper=bool(inner)))
            records.extend(replace(i, position=failure.position) for i in inner)
    return _ray_headers_carry(records)


_RAY_TASK_ERROR = re.compile(r"RayTaskError\([\w.]+\)")
RAY_REMOTE_LINES = 400  # how far below its header Ray prints the task's own traceback and exception


def _ray_headers_carry(records: list[Failure]) -> list[Failure]:
    """Ray prints "RayTaskError(X): ray::f() (pid=..)" and then the task's own traceback ending in "X: message"
    (ray/exceptions.py, RayTaskError.__str__): the header is a wrapper of that exception, when the log has it."""
    for index, record in enumerate(records):
        if record.kind != "exception" or not _RAY_TASK_ERROR.search(record.text):
            continue
        if any(
            later.kind == "exception" and record.line < later.line <= record.line + RAY_REMOTE_LINES
            for later in records[index + 1 :]
        ):
            records[index] = replace(record, wrapper=True)
    return records


__all__ = ["TORCH_COMPILER_PACKAGES", "Failure", "Frame", "clean", "owner_of", "parse", "prefix_shape"]
