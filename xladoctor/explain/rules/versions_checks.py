"""Versions that do not fit together, as the libraries' own checks say it: a package a library requires for this use,
a release it requires, an extension built for another torch, a model or config newer than the library reading it,
Keras 2 code under Keras 3 (and the reverse), Triton and CUDA releases, plugins of another framework release, and
code for another Python. The general readings (a module, an attribute a release lacks) are versions.py's; a keyword,
versions_calls.py's."""

from __future__ import annotations

import re
import shlex

from xladoctor.explain.records import Failure, Frame
from xladoctor.explain.rules import DISTRIBUTION_OF, WENT_ON, Lead, rule, version_range, yours
from xladoctor.explain.rules.versions import calling_package, cpu_torch_under_a_gpu_build
from xladoctor.fix import PROJECT_NAME, install
from xladoctor.sanitize import scrubbed_head

# Programs a library runs as a subprocess, installed by the system's package manager, not by pip
_SYSTEM_PROGRAMS = frozenset({
    "ffmpeg", "ffprobe", "sox", "git", "git-lfs", "java", "nvcc", "espeak", "espeak-ng", "tesseract", "graphviz", "dot",
    "gcc", "g++", "make", "node", "npm", "rustc", "cargo", "festival", "mbrola", "espeak-mbrola",
})  # fmt: skip
# conda-forge's package for a program, where its name is another (nvcc is cuda-nvcc, g++ is gxx); a program not
# listed gets no conda command
_CONDA_PACKAGE = {
    "ffmpeg": "ffmpeg", "ffprobe": "ffmpeg", "sox": "sox", "git": "git", "git-lfs": "git-lfs", "java": "openjdk",
    "nvcc": "cuda-nvcc", "tesseract": "tesseract", "graphviz": "graphviz", "dot": "graphviz", "gcc": "gcc",
    "g++": "gxx", "make": "make", "node": "nodejs", "npm": "nodejs", "rustc": "rust", "cargo": "rust",
}  # fmt: skip
# phonemizer loads espeak-ng as a shared library, found where the system's loader looks, or where this variable says
# (phonemizer/backend/espeak/wrapper.py: EspeakWrapper takes the library from PHONEMIZER_ESPEAK_LIBRARY)
_ESPEAK_LIBRARY = (
    " phonemizer loads it as a library (libespeak-ng): an espeak-ng built into another folder (/usr/local/lib) is "
    "found when PHONEMIZER_ESPEAK_LIBRARY names its libespeak-ng.so (or .dylib, .dll)."
)


# what more a program needs said: which nvcc, espeak's backends and how phonemizer finds the library
_PROGRAM_NOTES = {
    "nvcc": " Take the nvcc of the CUDA release torch was built for (torch.version.cuda).",
    "espeak-mbrola": " espeak-mbrola is espeak-ng speaking with the mbrola program and its voices: both are needed.",
}


def _system_program_missing(program: str) -> Lead:
    """A program a library needs that is the system's to install (apt, dnf, brew, conda-forge), not pip's."""
    name = program.lower()
    conda = _CONDA_PACKAGE.get(name)
    return Lead(
        f"A library needs the program {program}, which is not on this machine's PATH: it is a system program, "
        "not a Python package (the pip package of that name is not it). Install it with the system's package "
        "manager (apt, dnf, brew)"
        + (f" or conda (conda install -c conda-forge {conda})." if conda else ".")
        + _PROGRAM_NOTES.get(name, "")
        + (_ESPEAK_LIBRARY if name.startswith("espeak") else ""),
        {"program": program},
        family="missing-library",  # the system's, as a shared library is: not pip's to install
        verdict="environment",
        confidence=0.7,
        next=(f"which {name}",),
    )


# a distribution's system package, not a PyPI project: python3-dev, python3-devel
_SYSTEM_PACKAGE = re.compile(r"-(?:dev|devel)$", re.IGNORECASE)

_NOT_A_PACKAGE = frozenset({
    "a", "an", "the", "it", "this", "that", "these", "them", "from", "with", "via", "and", "or", "some", "any", "all",
    "one", "both", "either", "manually", "separately", "cuda", "cudnn", "rocm", "nvidia", "driver", "toolkit",
    "additional", "extra", "optional", "dependencies", "package",
    "packages", "library", "libraries", "module", "modules", "version", "latest",
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
    # torch's own words for its optional dependencies (torch/_functorch/partitioners.py "Need networkx installed",
    # torch/cuda/__init__.py "pynvml does not seem to be installed", torch/fx/passes/graph_drawer.py "requires the
    # pydot package to be installed", torch/onnx "Module onnx is not installed!", "you need to install scipy")
    r"|\bNeed (?P<need>[A-Za-z][\w.-]{1,60}) installed\b"
    r"|\byou need to install (?:the )?[`'\"]?(?P<need_to>[A-Za-z][\w.-]{1,60})[`'\"]?"
    r"(?= ?(?:$|[.,;!]|->|package\b|library\b|first\b|to (?:use|run|set|save|read|load|enable)\b))"
    r"|\brequires the (?P<the_package>[A-Za-z][\w.-]{1,60}) package to be installed"
    r"|\bModule (?P<module_named>[A-Za-z][\w.-]{1,60}) is not installed\b"
    r"|\b(?P<seems>[A-Za-z][\w.-]{1,60}) does not seem to be installed or it can't be imported"
    # JAX's and Keras's ("Please install the `filelock` package to set ...", "`visualize_sharding` requires `rich` to
    # be installed", "requires TensorFlow to be installed", "requires installing TensorFlow"): jax/_src/lru_cache.py,
    # jax/_src/debugging.py, jax/tools/jax_to_ir.py, keras/src/utils/file_utils.py
    r"|\bPlease install the `?(?P<please>[A-Za-z][\w.\[\]-]{1,60})`? (?:package|library)\b"
    r"|\brequires [`'\"]?(?P<to_be>[A-Za-z][\w.-]{1,60})[`'\"]? to be installed\b"
    r"|\brequires installing (?P<installing>[A-Za-z][\w.-]{1,60})\b"
    r"|\b(?P<unavailable>[A-Za-z][\w.-]{1,60}) is not available, please install it\b"
    # DeepSpeed's ("fused RMSNorm needs Triton, which is not installed in this environment", "NPU_Accelerator requires
    # torch_npu, which is not installed on this system"); Lightning's ("Neither `tensorboard` nor `tensorboardX` is
    # available")
    r"|\b(?:needs|requires) [`'\"]?(?P<which_not>[A-Za-z][\w-]{1,60})[`'\"]?, which is not (?:installed|available)\b"
    # xformers' ("Triton is needed for forward pass but it is not available!"), torchaudio's ("DeepPhonemizer is not
    # installed. Please install it.")
    r"|\b(?P<needed>[A-Za-z][\w-]{1,60}) is needed for [^\n]{1,80}? but it is not available"
    r"|\b(?P<please_it>[A-Za-z][\w-]{1,60}) is not (?:available|installed)\. Please install it(?:[.!]|$)"
    r"|\bNeither [`'\"]?(?P<neither>[A-Za-z][\w.-]{1,60})[`'\"]? nor [`'\"]?[A-Za-z][\w.-]{1,60}[`'\"]? is available"
    # "flash_attn is not installed. Please pip install flash-attn": the library's own words, with the package to get
    r"|[\w.-]{2,60} is not installed\.? (?:Please )?(?:run )?`?pip install ['\"]?(?P<asked>[\w.\[\]<>=-]{2,80})"
    # phonemizer's backends (backend/base.py: f"{self.name()} not installed on your system")
    r"|\b(?P<on_system>[A-Za-z][\w.-]{1,60}) (?:is )?not installed on (?:your|this) (?:system|machine|computer)\b",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/utils/import_utils.py "
    "(requires_backends); src/transformers/dynamic_module_utils.py (check_imports, for a model's remote code); "
    "src/transformers/tokenization_utils_fast.py ('Cannot instantiate this tokenizer from a slow version')",
    confidence=0.85,
)
def requires_package(found: re.Match[str], failure: Failure) -> Lead | None:
    named = (
        "must", "need", "need_to", "the_package", "module_named", "seems", "please", "to_be", "installing",
        "unavailable", "which_not", "neither", "needed", "please_it", "on_system",
    )  # fmt: skip
    if must := next((found.group(name) for name in named if found.group(name)), None):
        if must.lower() in _NOT_A_PACKAGE or _SYSTEM_PACKAGE.search(must):
            # "requires installing from source", "you need to install the ...": a sentence, not a name; a system
            # package ("Please install the python3-dev package") is not pip's to install
            return None
        if found.group("on_system") and must.lower() not in _SYSTEM_PROGRAMS:
            return None  # "Docker Desktop is not installed on your system": the phrase names the system's, never pip's
        if must.lower() in _SYSTEM_PROGRAMS:
            return _system_program_missing(must)
        # a name a library quoted may be its module's rather than its distribution's (cv2 is opencv-python): said,
        # and checked with pip rather than installed blindly
        distribution = DISTRIBUTION_OF.get(must, must)
        return Lead(
            f"A library needs {must} for what it was asked to do, and {must} is not installed in this interpreter "
            f"(an optional dependency its install does not pull in). Install {distribution} (of a version the "
            "library supports; its documentation names the package if this is only a module's name).",
            {"package": distribution},
            confidence=0.7,
            next=(f"python -m pip show {shlex.quote(distribution.split('[', 1)[0])}",),
        )
    for group in ("pip", "asked"):
        following = found.string[found.end(group) : found.end(group) + 3] if found.group(group) else ""
        if following[:1] in ("+", ":", "/") or following.startswith(" @"):
            return None  # "pip install git+https://...", a URL, "name @ git+...": a checkout or a file, not PyPI's
    package = (
        found.group("pip") or found.group("asked") or found.group("pkg") or found.group("pkg2") or found.group("pkgs")
        or found.group("slow") or "triton"
    )  # fmt: skip
    package = package.rstrip(".")  # "...not found in your environment: flash_attn. Run ...": the sentence's stop
    package = DISTRIBUTION_OF.get(package, package)
    spec = re.fullmatch(r"(?P<name>[\w.\[\]-]+?)(?P<want>[<>=~!]=?[\w.]+)", package)
    upgrade = found.group("upgrade")
    if tied_to_a_build(spec.group("name") if spec else package):
        name = spec.group("name") if spec else package
        return Lead(
            f"A library needs {package}: it is not installed in this interpreter, or not the release it needs. {name} "
            "is tied to one torch (or jaxlib) build: install the release made for the installed one, from the index "
            "that build came from, not with a bare pip command that would replace it.",
            {"package": name},
            family="version-mismatch" if spec or upgrade else None,
            next=(_THE_BUILD_TO_MATCH,),
        )
    if spec is not None or upgrade or "latest version" in found.group(0):
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


# transformers' is_torch_available (utils/import_utils.py): a torch older than the release needs is not an error there,
# it is switched off with one warning, and the failure comes later as torch's names missing (NameError: name 'torch'
# is not defined, "cannot import name 'AdamW'", "requires the PyTorch library but it was not found")
@rule(
    "version-mismatch",
    r"Disabling PyTorch because PyTorch >= ?(?P<need>\d+\.\d+(?:\.\d+)?) is required but found "
    r"(?P<have>\d+\.\d+[\w.+]*)",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/utils/import_utils.py "
    "(is_torch_available: 'Disabling PyTorch because PyTorch >= ... is required but found ...')",
    confidence=0.9,
)
def transformers_disabled_torch(found: re.Match[str], failure: Failure) -> Lead:
    need, have = found.group("need"), found.group("have")
    return Lead(
        f"transformers needs torch {need} or newer and found {have}: it switched its PyTorch code off (a warning, "
        "not an error), so what fails next is torch's names missing in transformers (NameError: name 'torch' is "
        "not defined, a class it cannot import). Upgrade torch to "
        f"{need} or newer (from the same index as the installed build, so a CUDA build stays one: its "
        f"torch.version.cuda says which), or install a transformers release made for torch {have}.",
        {"package": "torch", "need": f"torch>={need}", "installed": have, "library": "transformers"},
        verdict="environment",
        next=(
            'python -c "import torch; print(torch.__version__, torch.version.cuda)"  # the build to replace',
            "python -m pip show transformers",
        ),
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


# xformers/_cpp_lib.py's report of its build against the running torch: "PyTorch 1.13.1+cu117 with CUDA 1107 (you
# have 2.1.2+cpu)", on the line after "xFormers was built for:"
_XFORMERS_PAIR = re.compile(r"PyTorch (?P<built>[\w.+]{3,40})[^\n]{0,120}?\(you have (?P<have>[\w.+]{3,40})\)")


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
    if not built and (pair_said := _XFORMERS_PAIR.search(failure.haystack, found.start())):
        built, have = pair_said.group("built"), pair_said.group("have")  # "can't load ..." says the pair after it
    pair = f" (built for torch {built}, torch {have} is installed)" if built else ""
    if (cpu_only := cpu_torch_under_a_gpu_build(built, have, "xformers")) is not None:
        return cpu_only
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
        + (
            f" of Keras 2 ({scrubbed_head(what, 120)})"
            if shown
            else " that is not one of its own (its type was not shown)"
        )
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
    caller = calling_package(failure)
    if caller is None and failure.frames:
        return None  # the user's own call with the wrong types: judged as user code
    who = caller if caller not in (None, "python") else "the calling code"
    return Lead(
        f"The compiled function {call}() refused the types it was given "
        f"({scrubbed_head(types, 160) or 'see the log'}): {who} and "
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
        f"The model's config gives rope_scaling in the form later transformers releases read "
        f"({scrubbed_head(got, 160)}), and the "
        "transformers installed here (older than 4.43, or model code copied from one) accepts only `type` and "
        "`factor`. Upgrade transformers (Llama 3.1's rope scaling is read from 4.43.2 on); if the model ships its own "
        "code (trust_remote_code), update that code too.",
        {"package": "transformers", "rope_scaling": scrubbed_head(got, 160)},
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
        f"(`{scrubbed_head(frame.code, 120)}`{got}): the compiled part and the Python part of {package} come from "
        "different releases (a build an upgrade left behind, or two copies on the path), or a release of it that "
        f"shipped them out of step. Remove every copy of {package} and install one release.",
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
        f"{owner} ({where.short()}) uses syntax of a newer Python than {running} "
        f"(`{scrubbed_head(where.code.strip(), 60)}`): "
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
            f"The file pattern at {mine.short()} puts '**' inside a path component "
            f"(`{scrubbed_head(mine.code.strip(), 80)}`): "
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


# The PyPI projects whose minimum (or maximum) release libraries name in their own errors ("requires `torch>=2.8`",
# "requires a Pytorch >= 2.8.0", "requires peft >= 0.21.0", "only available in PyTorch >= 2.7 (found 2.6.0)", "Please
# install PEFT <= v0.15.2"): spelled as the libraries spell them, mapped to the name pip takes
_RELEASED_UNDER_ITS_NAME = frozenset({
    "torch", "transformers", "peft", "accelerate", "diffusers", "deepspeed", "triton", "jax", "jaxlib", "tensorflow",
    "keras", "numpy", "bitsandbytes", "vllm", "xformers", "flash-attn", "huggingface-hub", "safetensors", "tokenizers",
    "trl", "torchvision", "torchaudio", "protobuf", "onnxruntime", "kernels", "datasets", "optimum", "torchao", "timm",
    "sentence-transformers", "lightning", "pytorch-lightning",
})  # fmt: skip
_SPELLED_AS = {"pytorch": "torch", "flash_attn": "flash-attn", "huggingface_hub": "huggingface-hub"}
_RELEASED = "|".join(
    sorted((re.escape(name) for name in _RELEASED_UNDER_ITS_NAME | _SPELLED_AS.keys()), key=len, reverse=True)
)

# Packages a bare pip command must not move: torch itself (PyPI's default index can trade its CUDA build for another)
# and the ones whose wheels pin one torch release exactly (torchvision, torchaudio, xformers, triton, vllm, torchao,
# flash-attn's builds), which pip would "fix" by replacing torch
TORCH_BOUND = frozenset({
    "torch", "torchvision", "torchaudio", "torchtext", "torchdata", "torch-tensorrt", "xformers", "triton", "vllm",
    "torchao", "flash-attn", "mmcv", "mmcv-full", "autoawq",
    # jax's CUDA plug-ins pin one jaxlib: a bare upgrade of jax or jaxlib leaves them behind
    "jax", "jaxlib",
})  # fmt: skip


# what a package tied to one build is matched against
_THE_BUILD_TO_MATCH = 'python -c "import torch; print(torch.__version__, torch.version.cuda)"  # the build to match'


def tied_to_a_build(name: str) -> bool:
    """A package a bare pip command must not install or upgrade (its name as pip would read it: flash_attn too)."""
    return re.sub(r"[-_.]+", "-", name.split("[", 1)[0]).lower() in TORCH_BOUND


def within_its_major(want: str) -> str:
    """A lower bound with no upper one, kept within the major release it names (numpy>=1.26 -> numpy>=1.26,<2): pip
    takes the newest release a bound allows, and a new major (numpy 2, huggingface_hub 1) is the next break."""
    lower = re.fullmatch(r">=?(?P<major>\d{1,4})(?:\.\d{1,4}){0,3}", want)
    if lower is None or lower.group("major") == "0":
        return want  # a 0.x project's next minor is as likely its next break as 1.0: no bound is guessed
    return f"{want},<{int(lower.group('major')) + 1}"


@rule(
    "version-mismatch",
    r"(?i)\b(?:requires?|needs?|only available (?:in|with|from)|only supported (?:in|with|from)|please install)"
    r"(?: an?| the)? `?(?P<pkg>" + _RELEASED + r")`?(?: version)? ?(?P<op>>=|<=|==|>|<) ?v?"
    r"(?P<version>\d{1,4}(?:\.\d{1,4}){0,3})(?P<pre>\.?(?:dev|rc|a|b)\d{0,4})?\b"
    r"(?P<more>(?: ?, ?(?:<=|<|!=|>=|>|==) ?v?\d{1,4}(?:\.\d{1,4}){0,3})*)"
    r"(?:[^\n]{0,40}?\bfound:? `?v?(?P<have>\d[\w.+]{0,40}?)`?[).;,\s])?",
    source="the libraries' own release checks: https://github.com/huggingface/transformers/blob/main/src/transformers/"
    "distributed/checkpoint.py ('requires `torch>=2.8`'), https://github.com/huggingface/accelerate/blob/main/src/"
    "accelerate/utils/modeling.py ('requires a Pytorch >= 2.8.0'), https://github.com/huggingface/peft/blob/main/src/"
    "peft/tuners/lora/model.py ('requires transformers >= ...'), https://github.com/huggingface/peft/blob/main/src/peft/"
    "tuners/oft/model.py ('Please install PEFT <= v0.15.2')",
    # a fallback, under the words that name both releases (zz_fallback.releases_disagree, 0.6): "jaxlib 0.4.30
    # requires jax>=0.4.30" after "Unsupported JAX version 0.4.13" is better read as the pair
    confidence=0.58,
    on="fallback",
)
def requires_a_release(found: re.Match[str], failure: Failure) -> Lead | None:
    line_end = found.string.find("\n", found.end())
    line = found.string[found.string.rfind("\n", 0, found.start()) + 1 : line_end if line_end >= 0 else None]
    if ", but you have" in line:
        return None  # pip's resolver ("x 1.0 requires torch==2.1.0, but you have torch 2.2.0"): its own rules read it
    if WENT_ON.search(line):
        return None  # "requires numpy>=1.26, falling back to ...": a warning the run went past
    spelled = found.group("pkg").lower()
    package = _SPELLED_AS.get(spelled, spelled)
    tied = tied_to_a_build(package)
    op, version, have, pre = found.group("op"), found.group("version"), found.group("have"), found.group("pre")
    want = f"{op}{version}{pre or ''}" + re.sub(r"[ v]", "", found.group("more") or "")
    kept = within_its_major(want)  # the range to install: within the major release it names
    older = op in ("<=", "<")
    found_said = f" (the log says {have} is installed)" if have else ""
    what = (
        "is not that release"
        if op == "=="
        else "is newer than what that code takes"
        if older
        else "is older than what that code needs"
    )
    if pre:
        how = (
            f" {package}{want} is a pre-release: install it from the project's nightly index or source, as its "
            "documentation says, or use a release of the library that needs a released one."
        )
    elif tied:
        how = (
            f" {package} is tied to one torch build: install the {package} release made for the installed torch, "
            "from the index the installed torch came from (a CUDA build stays one: torch.version.cuda says which), "
            "or upgrade torch, torchvision and torchaudio together from that index."
        )
    else:
        how = f" Install {package}{kept}, or a release of the library made for the installed one."
    bare = not pre and not tied
    return Lead(
        f"A library's own check asks for {package}{want}{found_said}: the installed {package} {what}.{how}",
        {"package": package, "want": want, **({"have": have} if have else {})},
        install((package, kept), upgrade=not older) if bare else None,
        next=(_THE_BUILD_TO_MATCH if tied else f"python -m pip show {package}",),
    )


# Any library's error that ends in the command that fixes it ("`tiktoken` is required to read a `tiktoken` file.
# Install it with `pip install tiktoken`", "Please update with `pip install -U kernels`"): the command's package. Only
# an error's own words: not a command the log echoes (a shell's "+ pip install", a Dockerfile's RUN, a CI step), not a
# notice or a warning the program went past, not a URL, a file or a VCS checkout in place of a name.
_ECHOED = re.compile(r"\s*(?:[+$>#]\s|RUN\b|Run\b|run:|Step \d|\[notice\])")
_AN_ERROR = re.compile(r"[A-Z]\w*Error\b|\bERROR\b|\b[Ee]rror\b|Exception\b|\bFATAL\b")
_INDEX_OPTIONS = re.compile(
    r"--(?:index-url|extra-index-url|find-links|pre|no-build-isolation|no-deps|no-binary|only-binary|config-settings|"
    r"global-option)\b|\s-[fiC]\s"
)


@rule(
    "module-not-found",
    r"\b(?<!pip )(?:[Ii]nstall(?:ed|ing)?|required|requires|not available|missing|[Uu]pdate|[Uu]pgrade|[Pp]lease)\b"
    r"[^\n]{0,120}?`?pip install (?P<upgrade>-U |--upgrade )?['\"]?(?P<hint>[A-Za-z][\w.\[\],<>=~!+-]{0,80})"
    r"(?P<after>[^\n]{0,200})",
    source="the libraries' own words: https://github.com/huggingface/transformers/blob/main/src/transformers/"
    "integrations/tiktoken.py ('Install it with `pip install tiktoken`'), https://github.com/huggingface/diffusers/"
    "blob/main/src/diffusers/models/attention_dispatch.py ('Please update with `pip install -U kernels`')",
    confidence=0.7,
)
def pip_command_in_the_error(found: re.Match[str], failure: Failure) -> Lead | None:
    start = found.string.rfind("\n", 0, found.start()) + 1
    line = found.string[start : found.end()]
    if _ECHOED.match(line) or "&&" in line or WENT_ON.search(line):
        return None
    if failure.kind != "exception" and not _AN_ERROR.search(line):
        return None  # a notice, a help text, a warning: not the failure
    hint, after = found.group("hint").rstrip(".,;`'\""), found.group("after")
    whole = hint == found.group("hint")  # nothing was trimmed: `after` follows the name directly
    name = re.match(r"[A-Za-z0-9._-]+", hint)
    if name is None or (whole and after[:1] in (":", "/")) or "+" in hint.split("[", 1)[0]:
        return None  # git+https://..., https://..., a local path: not a project's name
    project = name.group(0)
    if project.lower() in _NOT_A_PACKAGE | {"pip", "git", "http", "https", "file"} or project.endswith(
        (".txt", ".whl", ".gz", ".zip")
    ):
        return None
    if whole and re.match(r"\s*@", after):
        return None  # PEP 508's "name @ git+https://...": a checkout, not the release on PyPI
    spec = hint[len(project) :]
    project = DISTRIBUTION_OF.get(project, project)  # "pip install sklearn": scikit-learn is the project
    extras = re.match(r"\[[\w.,-]{1,80}\]", spec)
    extra = extras.group(0) if extras else ""
    want = spec[len(extra) :]
    if not want and whole:
        # "pip install 'transformers[torch] >= 4.40'": a range written with spaces, still the command's
        spaced = re.match(r"\s*(?P<range>[<>=!~]=?\s?\d[\w.]{0,40}(?:\s?,\s?[<>=!~]=?\s?\d[\w.]{0,40}){0,3})", after)
        want = re.sub(r"\s", "", spaced.group("range")) if spaced else ""
    options = _INDEX_OPTIONS.search(after) is not None
    pinned = bool(want) and version_range(want) is None  # "protobuf<=3.20.x": pip refuses it
    older = want.startswith("<")
    upgrade = (bool(found.group("upgrade")) or bool(want)) and not older
    if tied_to_a_build(project) or options or pinned:
        return Lead(
            f"A library needs {project}{extra}{want} and says so with its own pip command"
            + (", from an index or with options its command names" if options else "")
            + (
                f": {project} is tied to one torch build, so install the release made for the installed torch, from "
                "the index the installed torch came from"
                if tied_to_a_build(project)
                else ""
            )
            + ". Run the command the message gives, in the interpreter that failed.",
            {"package": project, **({"want": want} if want else {})},
            family="version-mismatch" if upgrade else None,
            next=(f"python -m pip show {project}",),
        )
    return Lead(
        f"A library needs {project}{extra}{want}"
        + (
            ": the installed one is newer than that"
            if older
            else ": it is not installed in this interpreter, or the installed one is older"
            if upgrade
            else ", which is not installed in this interpreter"
        )
        + ". Install it as the message says.",
        {"package": project, **({"want": want} if want else {})},
        install((project + extra, within_its_major(want) if want else ""), upgrade=upgrade),
        family="version-mismatch" if upgrade or older else None,
        next=(f"python -m pip show {project}",),
    )


@rule(
    "api-version-skew",
    # stable_baselines3/common/base_class.py (BaseAlgorithm.__init__): "The algorithm only supports
    # {supported_action_spaces} as action spaces but {self.action_space} was provided"
    r"only supports \(?(?P<classes>(?:<class '[\w.]{1,120}'>,?\s{0,4}){1,8})\)? as (?P<what>action|observation) "
    r"spaces? but (?P<given>[A-Z]\w{0,40})\(",
    source="https://github.com/DLR-RM/stable-baselines3/blob/master/stable_baselines3/common/base_class.py "
    "(supported_action_spaces); https://github.com/DLR-RM/stable-baselines3/releases/tag/v2.0.0 (Gymnasium)",
    confidence=0.85,
)
def space_of_another_gym(found: re.Match[str], failure: Failure) -> Lead:
    """A space refused though the algorithm takes a space of its very name: the same class from two packages (gym's
    and Gymnasium's), so the isinstance check fails; a space of another kind is the algorithm's limit, the code's."""
    classes = re.findall(r"<class '([\w.]+)'>", found.group("classes"))
    given = found.group("given")
    named = [c for c in classes if c.rsplit(".", 1)[-1] == given]
    if not named:
        takes = ", ".join(c.rsplit(".", 1)[-1] for c in classes)
        return Lead(
            yours(
                failure,
                f"The algorithm takes {takes} {found.group('what')} spaces and was given a {given} (DQN takes Discrete "
                "only; SAC, TD3 and DDPG take Box only): choose an algorithm made for this space, or change the "
                "environment's space (a wrapper that discretises or flattens it).",
            ),
            {"space": given, "takes": takes},
            family="user-code-error",
            verdict="not-environment",
        )
    checks = named[0].split(".", 1)[0]
    other = "gymnasium" if checks == "gym" else "gym"
    fix = (
        "install stable-baselines3 2.0 or later (python -m pip install 'stable-baselines3>=2.0'), which takes "
        "Gymnasium environments, or build the environment with gym"
        if checks == "gym"
        # SB3 2.x wraps a gym.Env itself (through shimmy) before this check: what reaches it is a Gymnasium
        # environment, or a VecEnv, whose spaces were made with gym's classes
        else "make the environment's spaces with Gymnasium's classes (from gymnasium import spaces), or use "
        "stable-baselines3 1.x with gym"
    )
    return Lead(
        f"The {found.group('what')} space is a {given}, the very kind the algorithm takes, and was refused: the "
        f"algorithm checks it against {checks}'s {given} ({named[0]}), and the environment made its space with "
        f"{other}'s. stable-baselines3 1.x is written for gym, 2.0 and later for Gymnasium: {fix}.",
        {"package": "stable-baselines3", "checks": checks, "space": given},
        verdict="environment",
        next=("python -m pip show stable-baselines3 gym gymnasium shimmy",),
    )


@rule(
    "api-version-skew",
    r"this __dict__ descriptor does not support '_DictWrapper' objects",
    # TensorFlow's _DictWrapper (the attribute tracking of tf.Module and Keras layers) is a wrapt ObjectProxy whose
    # __getattribute__ relied on an exception being swallowed. wrapt 1.15.0 stopped swallowing it (tensorflow#59869,
    # wrapt#231); typing_extensions 4.6 and later (and Python 3.12's own typing) look the attribute up through
    # inspect.getattr_static in their Protocol checks and meet the same (typing_extensions#216, tensorflow#62217,
    # tensorflow#63548)
    source="https://github.com/tensorflow/tensorflow/issues/59869; https://github.com/GrahamDumpleton/wrapt/issues/231"
    "; https://github.com/python/typing_extensions/issues/216; https://github.com/tensorflow/tensorflow/issues/62217"
    "; https://github.com/tensorflow/tensorflow/issues/63548",
    confidence=0.75,
)
def tensorflow_dict_wrapper_under_newer_wrapt(found: re.Match[str], failure: Failure) -> Lead:
    shown = failure.code_shown + " " + " ".join(f"{f.file} {f.function}" for f in failure.frames)
    protocol = "typing_extensions" in shown or "getattr_static" in shown or "_ProtocolMeta" in shown
    versions = ("python -m pip list 2>/dev/null | grep -i -e wrapt -e typing.extensions -e tensorflow -e keras",)
    if protocol:
        return Lead(
            "TensorFlow's tracking wrapper of a dict attribute (_DictWrapper, a wrapt proxy) failed inside a "
            "Protocol check: typing_extensions 4.6 or later (and Python 3.12's own typing) looks attributes up in a "
            "way this TensorFlow's wrapper was not written for (python/typing_extensions#216). With TensorFlow 2.12 "
            "or older, pin it back: pip install 'typing_extensions<4.6'; on Python 3.12, check that the TensorFlow "
            "release supports it. Not your code.",
            {"package": "typing_extensions", "library": "tensorflow"},
            next=(*versions, "python --version"),
        )
    return Lead(
        "TensorFlow's tracking wrapper of a dict attribute (_DictWrapper, a wrapt proxy) failed: a package it is "
        "built on now raises where the release this TensorFlow was written against was silent. Most often wrapt "
        "1.15.0 or later under TensorFlow 2.12 or older (pip install 'wrapt<1.15'); typing_extensions 4.6 or later "
        "and Python 3.12 meet the same wrapper (tensorflow/tensorflow#62217): the versions below say which. Not your "
        "code.",
        {"package": "wrapt", "library": "tensorflow"},
        next=(*versions, "python --version"),
    )
