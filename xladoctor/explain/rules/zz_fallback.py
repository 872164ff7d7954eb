"""Last words: when no specific rule reads a record, its exception type and its vocabulary still point at a family
(an ImportError of a library is most often an API of another release; "not supported" is a gap; "out of memory" is
memory). Each is a weak lead (confidence under 0.6, so any specific candidate elsewhere in the log outranks it),
read only for records no other rule read."""

from __future__ import annotations

import re

from xladoctor.explain.platforms import unbuilt_here
from xladoctor.explain.records import IMPORT_ALIASES, Failure, Frame
from xladoctor.explain.rules import DISTRIBUTION_OF, KNOWN_IMPORTS, WENT_ON_WORDS, Lead, rule
from xladoctor.explain.verdict import native_call
from xladoctor.fix import install
from xladoctor.sanitize import scrubbed_head

# Import names that libraries import optionally (try: import X / except ImportError: pass) and use later: a name
# of these left undefined in a library's frame is a package that did not import. Only names whose PyPI project is the
# one people install (not apex, which on PyPI is another project, nor cupy or mmcv, whose installs are per CUDA)
_IMPORT_NAMES = frozenset({
    *KNOWN_IMPORTS, "sympy", "psutil", "requests", "onnx", "librosa", "soundfile", "kornia", "numba", "pynvml", "nvtx",
})  # fmt: skip

SOURCE = "xladoctor's structure rules: the exception type and the words of its message (docs/explain.md)"


@rule(
    "api-version-skew",
    r"^(?:[\w.]*\.)?(?:ImportError|AttributeError): (?P<message>[^\n]{3,300})",
    source=SOURCE,
    confidence=0.5,
    on="fallback",
)
def import_or_attribute(found: re.Match[str], failure: Failure) -> Lead | None:
    if failure.raised_in_user_code and failure.type.endswith("AttributeError"):
        return None  # the user's own objects
    if found.group("message").startswith("'NoneType' object"):
        return None  # a value that is None (a file that did not load, a call that returned nothing): not a version
    if "circular import" in found.group("message"):
        return None  # a module imported from inside itself: its own rule (versions.py, circular_import)
    deleter = _deleting_frame(failure)
    if deleter is not None:
        return Lead(
            f"{deleter.owner}'s own code deletes an attribute the object does not have "
            f"({scrubbed_head(deleter.code.strip(), 120)} "
            f"at {deleter.short()}): a `del` that assumes a state its own earlier code did not set, a defect of "
            f"{deleter.owner} (no other package's release changes what {deleter.owner} set itself). Update "
            f"{deleter.owner} to a release that fixes it, or report it there with these lines.",
            {"package": deleter.owner or ""},
            verdict="framework-bug",
            family="framework-internal-error",
            next=(f"python -m pip show {deleter.owner}",),
        )
    return Lead(
        f"{failure.type} inside {failure.library or 'a library'}: {scrubbed_head(found.group('message'), 160)}. Code "
        "written for another release of a package it uses (an API that moved) is the usual cause: compare the "
        "versions it was made with to the installed ones.",
        {"package": failure.library or ""},
        verdict="environment",
        next=("python -m pip list 2>/dev/null | head -100",),
    )


def _deleting_frame(failure: Failure) -> Frame | None:
    """The library frame whose `del obj.name` raised the AttributeError (past the object's __delattr__), when the
    traceback shows one: the attribute it deletes is one its own code was to have set."""
    frames = [f for f in failure.frames if f.function != "__delattr__"]
    if not frames or not failure.type.endswith("AttributeError"):
        return None
    last = frames[-1]
    if last.user or last.owner in (None, "python") or not re.match(r"\s*del\s+[\w.\[\]'\"]+\s*$", last.code):
        return None
    return last


@rule(
    "version-mismatch",
    r"(?i)(?:incompatible|not compatible|mismatch|built (?:for|with|against)|compiled (?:for|with|against)"
    r"|requires?)[^\n]{0,80}?\bversions?\b|\bversions?\b[^\n]{0,80}?(?:incompatible|not compatible|mismatch|not "
    r"supported|too old|too new)"
    # a named thing that "is an outdated version" (a plugin's check of what it runs in); not a CLI's nag about its
    # own "outdated API Version"
    r"|\bis an? (?:outdated|out-of-date) version\b",
    source=SOURCE,
    confidence=0.5,
    on="fallback",
)
def versions_do_not_fit(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"Versions that do not fit together: {scrubbed_head(failure.text, 200)}. Install the releases made for "
        f"each other.",
        {},
        verdict="environment",
    )


@rule(
    "unsupported-op",
    # not Python's own "unsupported operand type(s) for +" (Objects/abstract.c): a value of the wrong type, no op
    # that a backend lacks; nor the socket errno EAFNOSUPPORT, "Address family not supported by protocol" (a host
    # without IPv6, which torch's store logs as it goes on with IPv4)
    r"(?i)\b(?:(?<!address family )not (?:yet |currently )?supported|not implemented"
    r"|unsupported(?! operand type)|not handled)\b"
    r"|than (?:is |are )?currently supported"
    r"|\b(?:does|do)(?: not|n't) (?:yet |currently )?support\b"
    r"|File a feature request",
    source=SOURCE,
    confidence=0.45,
    on="fallback",
)
def not_supported(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"Something the framework does not support here: {scrubbed_head(failure.text, 200)}.",
        {},
        verdict="framework-bug",
    )


@rule(
    "out-of-memory",
    r"(?i)out of (?:device |host |gpu )?memory|\bOOM\b|cannot allocate memory",
    source=SOURCE,
    confidence=0.55,
    on="fallback",
)
def memory_words(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"Memory ran out: {scrubbed_head(failure.text, 200)}. Use less at once (batch size, precision, offloading).",
        {},
        verdict="not-environment",
    )


@rule(
    "disk-or-permission",
    r"(?i)permission denied|access is denied|read-only file system|operation not permitted",
    source=SOURCE,
    confidence=0.5,
    on="fallback",
)
def permission_words(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(f"An access was refused: {scrubbed_head(failure.text, 200)}.", {}, verdict="environment")


@rule(
    "hang-timeout",
    r"(?i)\btimed? ?out\b|\btimeout\b|deadline exceeded|watchdog",
    source=SOURCE,
    confidence=0.45,
    on="fallback",
)
def timeout_words(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"Something waited past its limit: {scrubbed_head(failure.text, 200)}. A rank or a peer that never "
        "answered: collect the stacks of every process while it hangs.",
        {},
        verdict="unknown",
        next=("xladoctor profile --stall-after 120 -- ...",),
    )


# absl::StatusCode names, as XLA, JAX, TensorFlow and torch_xla print a failed status ("INTERNAL: ..."): what the
# code alone says when no specific rule read the message (absl/status/status.h). RESOURCE_EXHAUSTED and
# UNIMPLEMENTED have rules of their own (resources.py, backends.py).
_STATUS_FAMILIES = {
    "INTERNAL": ("framework-internal-error", "framework-bug", "an internal error of the framework or its compiler"),
    "UNAVAILABLE": ("nccl-network", "environment", "a service or peer it needs did not answer (the coordinator, "
                    "another host, the TPU runtime)"),
    "DEADLINE_EXCEEDED": ("hang-timeout", "unknown", "an operation waited past its deadline"),
    "PERMISSION_DENIED": ("disk-or-permission", "environment", "an access was refused"),
}  # fmt: skip


# TensorFlow raises a failed status as an exception class of its own (errors_impl.py): the same codes by name.
_TF_STATUS_CLASSES = {
    "InternalError": "INTERNAL",
    "UnavailableError": "UNAVAILABLE",
    "DeadlineExceededError": "DEADLINE_EXCEEDED",
    "PermissionDeniedError": "PERMISSION_DENIED",
}


@rule(
    "framework-internal-error",
    r"(?<![\w.])(?P<code>INTERNAL|UNAVAILABLE|DEADLINE_EXCEEDED|PERMISSION_DENIED): (?P<message>[^\n]{3,300})"
    r"|errors_impl\.(?P<tf>InternalError|UnavailableError|DeadlineExceededError|PermissionDeniedError): "
    r"(?P<tf_message>[^\n]{3,300})",
    source="https://github.com/abseil/abseil-cpp/blob/master/absl/status/status.h (absl::StatusCode); "
    "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/framework/errors_impl.py (TensorFlow's "
    "exception class of each code)",
    confidence=0.5,
    on="fallback",
)
def status_code(found: re.Match[str], failure: Failure) -> Lead:
    code = found.group("code") or _TF_STATUS_CLASSES[found.group("tf")]
    message = found.group("message") or found.group("tf_message")
    family, verdict, meaning = _STATUS_FAMILIES[code]
    return Lead(
        f"The framework's runtime returned {code} ({meaning}): {scrubbed_head(message, 200)}.",
        {"code": code},
        verdict=verdict,
        family=family,
        next=("TF_CPP_MIN_LOG_LEVEL=0 TF_CPP_VMODULE=... python ...  # XLA's log lines before the status",),
    )


@rule(
    "framework-internal-error",
    r"PassManager::run failed",
    source="https://github.com/triton-lang/triton/blob/main/python/src/ir.cc (a pass of Triton's MLIR pipeline failed)",
    confidence=0.55,
    on="fallback",
)
def mlir_pass_failed(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "A pass of Triton's compiler pipeline failed on this kernel (PassManager::run failed): a case the compiler "
        "does not handle for this kernel and GPU, a bug or gap of Triton; the lines before it name the pass. Report "
        "it to Triton with the kernel (or the torch.compile program), or try another Triton release.",
        {"compiler": "Triton", "owner": "Triton"},
        verdict="framework-bug",
        next=("MLIR_ENABLE_DUMP=1 python ...  # the IR before each pass: the one that failed is the last",),
    )


@rule(
    "unsupported-op",
    r"^(?:[\w.]*\.)?NotImplementedError(?:: (?P<message>[^\n]{1,300}))?",
    source="https://docs.python.org/3/library/exceptions.html#NotImplementedError (a method or case the library "
    "has not written yet)",
    confidence=0.47,  # over not_supported's words: this one names the library
    on="fallback",
)
def not_implemented_in_library(found: re.Match[str], failure: Failure) -> Lead | None:
    """A library's NotImplementedError is a case it has not written: a gap of it, whatever its words (a
    converter's "scale parameter is not handled"). The user's own is their abstract method left unwritten."""
    frame = failure.user_frame
    native = native_call(frame.code) if failure.raised_in_user_code and frame is not None else None
    if failure.raised_in_user_code and not native:
        return None  # the user's own `raise NotImplementedError`: a method of theirs left unwritten
    library = native or failure.library
    message = (found.group("message") or "").strip()
    return Lead(
        f"{library or 'A library'} has not implemented this case"
        + (f": {scrubbed_head(message, 200)}" if message else "")
        + ". A gap of the library, not of your install: avoid that argument or op, or use a release that adds it.",
        {"package": library or ""},
        verdict="framework-bug",
    )


def _optional_module(name: str, failure: Failure) -> str | None:
    """The module an undefined name stands for, when the frame's line uses it as one (`expr: sympy.Expr`) and it is
    a package's import name or the alias code gives it (np, tf): a library's optional import that failed. Not when
    the stack runs that package's own code (it imported; the name is a file's own missing import)."""
    frame = failure.last_frame
    # only a package's own alias: `F` and `nn` undefined are a missing `import torch.nn.functional as F` in the
    # library's file (its defect), not torch missing, which would have failed its import first
    module = IMPORT_ALIASES.get(name, name) if name not in ("F", "nn", "K") else name
    if frame is None or module not in _IMPORT_NAMES or not re.search(rf"(?<![\w.]){re.escape(name)}\.\w", frame.code):
        return None
    if any(f.owner == module for f in failure.frames):
        return None  # its own frames are in the stack: it is installed and imported
    return module


@rule(
    "api-version-skew",
    r"^(?:[\w.]*\.)?NameError: name '(?P<name>\w{1,100})' is not defined",
    source="https://docs.python.org/3/library/exceptions.html#NameError",
    confidence=0.45,
    on="fallback",
)
def name_missing_in_library(found: re.Match[str], failure: Failure) -> Lead | None:
    """A released library's code does not misspell its own names: a name it cannot find there is one it imports
    or generates from another package (a typing helper that moved, a class of transformers it patches), which the
    installed release of that package does not define."""
    frame = failure.last_frame
    if frame is None or frame.user or not frame.owner or frame.owner == "python":
        return None
    name = found.group("name")
    module = _optional_module(name, failure)
    if module is not None:
        distribution = DISTRIBUTION_OF.get(module, module)
        unbuilt = unbuilt_here(module, failure)
        said = (
            f"{frame.owner}'s code uses the module {name} ({frame.short()}), which it imports only when the import "
            f"works (an optional import, skipped when it fails): {module} did not import here, most often because it "
            "is not installed (else it is installed but refused: too old for the library, or broken; the command "
            "below shows its own error)."
        )
        if unbuilt is not None:
            return Lead(
                f"{said} On {unbuilt.name} it is not a matter of installing it: {unbuilt.said}",
                {"package": unbuilt.instead or distribution, "caller": frame.owner, "name": name, "module": module},
                install((unbuilt.instead, "")) if unbuilt.instead else None,
                verdict="environment",
                family="module-not-found",
            )
        return Lead(
            f"{said} Install {distribution}.",
            {"package": distribution, "caller": frame.owner, "name": name, "module": module},
            install((distribution, "")),
            verdict="environment",
            family="module-not-found",
            next=(f"python -c 'import {module}'  # the error that the library's optional import hid",),
        )
    return Lead(
        f"{frame.owner}'s code uses {name}, which is not defined where it runs ({frame.short()}): a name it takes "
        f"from another package it was written against (transformers, typing, torch) and that the installed release "
        f"of it does not have. Install the {frame.owner} release made for the installed packages (upgrade it), or "
        "pin the other package to the one it was written for.",
        {"package": frame.owner, "name": name},
        verdict="environment",
        next=(f"python -m pip show {frame.owner}",),
    )


# The environment variables that configure the stack (the prefixes xladoctor's own allow-list reads, and ROCm's),
# named by an error as the subject of a complaint about its value: "PYTORCH_CUDA_ALLOC_CONF: max_split_size_mb 10
# is too small", "Invalid value for XLA_FLAGS". Named as advice instead ("set PYTORCH_CUDA_ALLOC_CONF=... to
# avoid fragmentation", "Compile with TORCH_USE_CUDA_DSA"), it is not the cause: the words before it say which.
_CONFIG_VARIABLE = (
    r"(?:PJRT|XLA|PT_XLA|TPU|TF|TORCH|PYTORCH|TORCHINDUCTOR|TORCHDYNAMO|TRITON|CUDA|CUDNN|NCCL|JAX|OMP|MKL|HSA|HIP|ROCR|MIOPEN"
    r"|GLOO|MASTER)_[A-Z0-9_]{2,40}"
)
_COMPLAINT = (
    r"(?:invalid|must be|must not|unknown|unrecognized|unrecognised|unsupported|not a valid|not valid|expected|too "
    r"small|too large|too big|cannot|can't|could not parse|failed to parse|malformed|bad value|incorrect|wrong)"
)


@rule(
    "bad-configuration",
    rf"(?<![Ss]et )(?<![Ss]etting )(?<!export )(?<!with )(?<![Pp]ass )\b(?P<variable>{_CONFIG_VARIABLE})\b"
    rf"[^\n]{{0,80}}?\b{_COMPLAINT}\b"
    rf"|\b{_COMPLAINT}\b[^\n]{{0,40}}?(?:value|setting)s?(?: of| for| in)? (?:the )?(?:environment variable )?"
    rf"['\"`]?(?P<variable2>{_CONFIG_VARIABLE})\b",
    source=SOURCE,
    confidence=0.5,
    on="fallback",
)
def config_variable_refused(found: re.Match[str], failure: Failure) -> Lead | None:
    """An environment variable of the stack named as what is wrong: its value is one the framework refuses."""
    variable = found.group("variable") or found.group("variable2")
    return Lead(
        f"The framework refused the value of {variable} ({scrubbed_head(failure.text.strip(), 200)}): the variable is "
        "set in this environment (a shell profile, a container image, a job script) to something this release does "
        "not take. Check what it is set to and unset or correct it.",
        {"variable": variable},
        verdict="environment",
        next=(f"env | grep {variable}",),
    )


# A GPU's architecture named in the words of a refusal: "only supports devices of CUDA Capability >= 7.0, but your
# device is of CUDA capability 6.1", "SM89 or newer is required for FP8", "sm_120 is not supported", "not built with
# CUDA kernel binaries compatible with compute capability 12.0". Whatever library wrote it, an architecture and a
# requirement side by side say the GPU and the build (or the kernel) do not fit; the specific rules (cuda.py) read the
# wordings they know, this reads the others.
_ARCHITECTURE = (
    r"\b(?:sm_?\d{2,3}[a-z]?|SM ?\d{2,3}[a-z]?|compute_\d{2,3}[a-z]?|gfx\d{3,4}[a-z]?)\b"
    r"|\b(?:cuda |compute |gpu |device )capability\b|\bcapability \(?\d{1,2}(?:\.|, ?)\d\)?"
    r"|\b(?:Volta|Turing|Ampere|Hopper|Blackwell|Ada Lovelace)(?: (?:GPUs?|architecture|arch))?\b"
)
_REQUIREMENT = re.compile(
    r"(?i)\bonly (?:supports?|supported|available|runs?|works?)\b|\brequire[sd]?\b|\bneeds?\b|\bor (?:newer|higher"
    r"|later|above|greater)\b|>=|\bat least\b|\btoo old\b|\bnot supported\b|\bunsupported\b|\bnot compatible\b"
    r"|\bincompatible\b|\bno kernel\b|\bnot built (?:with|for)\b|\bwas compiled for\b|\bnot (?:yet )?support\b"
)


@rule(
    "gpu-arch-unsupported",
    rf"(?i){_ARCHITECTURE}",
    source="https://docs.nvidia.com/cuda/cuda-c-programming-guide/#compute-capabilities (what each GPU "
    "architecture can run); https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html (AMD's gfx targets)",
    confidence=0.55,  # over the words of a gap ("not supported", 0.45) and of versions (0.5): it names the GPU's
    on="fallback",
)
def architecture_refused(found: re.Match[str], failure: Failure) -> Lead | None:
    requirement = _REQUIREMENT.search(failure.haystack)
    if requirement is None or _WENT_ON.search(failure.haystack):
        return None  # an architecture named with nothing refused (a device listing), or a warning it went on from
    return Lead(
        f"The GPU's architecture and what this code needs do not fit "
        f"({scrubbed_head(failure.text.strip(), 200)}): the build or "
        "the kernel was made for other GPU architectures, or needs a newer GPU than this one. Use a build that "
        "includes this GPU's architecture (its compute capability), or the option or kernel the library offers for "
        "older GPUs.",
        {"architecture": found.group(0)},
        verdict="environment",
        next=('python -c "import torch; print(torch.cuda.get_device_capability(), torch.cuda.get_arch_list())"',),
    )


# a line that goes on to say what the program does instead: a warning it went on from, not the failure (cuda.py's
# words, and a version check's "accepting this combination")
_WENT_ON = re.compile(WENT_ON_WORDS + r"|\b(?:accepting|continuing|proceeding)\b")


# Two versions that a check says disagree, whatever library wrote the check: a requirement with its specifier
# ("requires transformers>=4.45.0, but the installed version is 4.40.2", "peft>=0.14 needed, you have 0.10.0"), or
# two named releases and the words of a refusal between them ("vLLM 0.8.5 was built against torch 2.6.0 but torch
# 2.7.0 is installed", "Triton 3.0.0 is not compatible with torch 2.6.0"). The specific rules (versions_checks.py)
# read the checks they know by name; this reads a check by its shape. The names are what a fix changes.
_RELEASE = r"\d+(?:\.\d+){1,3}(?:(?:\.?post|\.?dev|rc|a|b)\d+)?(?:\+[\w.]+)?"
_NAME = r"[A-Za-z][\w-]{0,40}(?:\.[A-Za-z][\w-]{0,20})?"
_SPECIFIED = re.compile(rf"(?P<name>{_NAME}) ?(?P<op>>=|<=|==|~=|!=|>|<) ?v?(?P<release>{_RELEASE})\b")
_NAMED_RELEASE = re.compile(rf"\b(?P<name>{_NAME})(?: \(?v(?:ersion)?\)?)?,? \(?v?(?P<release>{_RELEASE})\)?")
_INSTALLED = re.compile(
    r"(?i)\b(?:installed|you have|found|detected|current(?:ly)?|loaded|got|running|is)\b[^\n]{0,40}?\d+\.\d+"
)
_DISAGREE = re.compile(
    r"(?i)\b(?:not compatible|incompatible|mismatch(?:es|ed)?|does(?: not|n't) match|built (?:for|against|with)"
    r"|compiled (?:for|against|with)|expected|requires?|required|needs?|needed|newer than|older than)\b"
)
# the CUDA libraries a framework links (cuda.py's family for them): their release disagreeing is that family's
_CUDA_LIBRARY = re.compile(r"(?i)^(?:cudnn|cublas(?:lt)?|cufft|cusparse|cusolver|curand|nccl|nvjitlink|cupti)$")


# words that stand before a release without naming a package ("compiled with 11.7", "found 9.1.0", "version 2.1")
_NOT_A_NAME = frozenset(
    "with than is was are be version versions v found got have has and or but to of for from as at by on in expected "
    "require requires required need needs needed installed detected current currently running loaded using use "
    "against the this that your you release releases".split()
)


def _releases(text: str) -> list[tuple[str, str]]:
    found = ((m.group("name"), m.group("release")) for m in _NAMED_RELEASE.finditer(text))
    return [(name, release) for name, release in found if name.lower() not in _NOT_A_NAME]


@rule(
    "version-mismatch",
    r"\d+\.\d+[^\n]{0,200}?\d+\.\d+",  # two versions on the line: the checks' shape starts there
    source="https://packaging.python.org/en/latest/specifications/version-specifiers/ (a requirement's "
    "specifier); the version checks libraries run at import (transformers' utils/versions.py require_version, "
    "jax's version check, vLLM's and xformers' build checks)",
    confidence=0.6,  # over the words of an ImportError (0.5) and of a gap (0.45): two releases are named
    on="fallback",
)
def releases_disagree(found: re.Match[str], failure: Failure) -> Lead | None:
    text = failure.haystack
    if _WENT_ON.search(text):
        return None  # a check that said it went on ("accepting this combination"): not what stopped the program
    if re.search(_ARCHITECTURE, text, re.IGNORECASE) and _REQUIREMENT.search(text):
        return None  # compute capabilities, not releases: the GPU's architecture (architecture_refused reads it)
    specified = _SPECIFIED.search(text)
    if specified is not None and specified.group("name").lower() in ("python", "py"):
        return None  # a Python requirement is the resolver's (requires-python), read by install.py
    if specified is not None and _INSTALLED.search(text[specified.end() :] + " " + text[: specified.start()]):
        names = [specified.group("name")]
    else:
        names = list(dict.fromkeys(name for name, _ in _releases(text)))
        releases = set(re.findall(rf"(?<![\w.]){_RELEASE}", text))
        if not names or len(releases) < 2 or _DISAGREE.search(text) is None:
            return None  # no package named, one release, or two with nothing said to disagree (a banner, a listing)
    library = next((n for n in names if _CUDA_LIBRARY.match(n)), None)
    return Lead(
        f"Two releases that do not fit together ({scrubbed_head(failure.text.strip(), 200)}): install the release of "
        f"{' and '.join(names[:2])} that the check asks for, the one each was made for.",
        {"packages": ", ".join(names[:3])},
        verdict="environment",
        family="cuda-library-mismatch" if library else None,
        next=(f"python -m pip list 2>/dev/null | grep -i -E '{'|'.join(re.escape(n) for n in names[:3])}'",),
    )
