"""One verdict for a log: every record read by every family rule (and the catalogue's signatures), then the root
cause chosen among the candidates, with the family that decided it, a confidence, a verdict class, the fix, and,
when nothing decides, the one record that matters and the command to run next.

How the root is chosen: errors before warnings; specific families before the generic fall-backs; within a chain
of Python exceptions, the first (it caused or preceded the others); across the log, the earliest (what comes later
repeats or follows from it: a rank's OOM before the others' watchdog timeouts).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from xladoctor.explain import similar
from xladoctor.explain.cut import cut_at_import
from xladoctor.explain.records import CONSOLE_SCRIPT, IMPORT_ALIASES, Failure, at_match, clean, file_name, is_metric
from xladoctor.explain.rules import LOCAL_TOPS, VERDICTS, Lead, Rule, load_rules
from xladoctor.explain.rules.builds import BUILD_BOX, BUILD_ISOLATION, isolated_build_lacks
from xladoctor.explain.scan import ERROR_WORDS, PLAIN_FAILURE_WORDS
from xladoctor.fix import Fix
from xladoctor.sanitize import cut as cut_at_a_word
from xladoctor.sanitize import scrub, scrubbed_head

# Families that name a cause only as a last resort: they are what is left when nothing specific matched.
_GENERIC = frozenset({"hang-timeout", "cuda-illegal-access"})
# Python's own error types that, raised in the user's code with nothing more specific said, are the user's bug.
_USER_TYPES = frozenset(
    {"ValueError", "TypeError", "IndexError", "KeyError", "AssertionError", "ZeroDivisionError", "NameError",
     "UnboundLocalError", "AttributeError", "FileNotFoundError", "NotImplementedError", "RecursionError"}
)  # fmt: skip


@lru_cache(maxsize=1)
def families() -> dict[str, dict[str, str]]:
    text = resources.files("xladoctor.compat_matrix").joinpath("failures", "families.json").read_text("utf-8")
    return {row["family"]: row for row in json.loads(text)["rows"]}


@dataclass(frozen=True)
class Candidate:
    """One possible root cause: a family, read from one record by one rule (or signature)."""

    family: str
    verdict: str
    cause: str
    confidence: float
    failure: Failure
    rule: str  # "missing-library:shared_object_missing" or "catalogue:torch-xla-undefined-symbol"
    params: Mapping[str, Any] = field(default_factory=dict)
    fix: Fix | None = None
    next: tuple[str, ...] = ()
    source: str = ""
    note: str | None = None
    remediation: tuple[str, ...] = ()  # already rendered (a signature's own commands)
    observation: bool = False  # Lead.observation: decides only where no exception comes after it

    @property
    def rank(self) -> tuple[int, int, int, int, int]:
        """Smaller is more likely the root: errors first, specific families, the chain's first, the earliest."""
        f = self.failure
        return (
            int(f.warning),
            # the last words' rules (zz_fallback.py) read what nothing else did: behind every other reading
            2 if self.rule in last_words() else int(self.family in _GENERIC or self.confidence < 0.6),
            f.line if f.position == 0 else f.line,
            f.position,
            -int(self.confidence * 100),
        )


@lru_cache(maxsize=1)
def warning_rules() -> tuple[Rule, ...]:
    """The rules that read a log of warnings alone (rules/warnings_only.py)."""
    return tuple(r for r in load_rules() if r.on == "warnings")


@lru_cache(maxsize=1)
def warnings_only() -> frozenset[str]:
    """The ids of warning_rules()."""
    return frozenset(r.id for r in warning_rules())


@lru_cache(maxsize=1)
def last_words() -> frozenset[str]:
    """The ids of the rules of last words (rules/zz_fallback.py: read only where no other rule read a record)."""
    return frozenset(r.id for r in load_rules() if r.on == "fallback")


def _verdict_of(family: str, lead: Lead) -> str:
    verdict = lead.verdict or families().get(family, {}).get("verdict", "unknown")
    return verdict if verdict in VERDICTS else "unknown"


STRICT_RULES = "XLADOCTOR_STRICT_RULES"  # "1": a rule that raises is an error, not a reading lost


def _read(rule: Rule, failure: Failure, fallback: bool = False, warnings: bool = False) -> Candidate | None:
    if (rule.on == "warnings") != warnings:
        return None  # the warnings' rules read only a log of warnings alone (warnings_alone), nothing else does
    # an exception's own line quoted with no traceback ("TypeError: x" under "Error encountered:") is read by the
    # exceptions' rules too: its type is Python's, only its frames are missing
    kind = "exception" if failure.kind == "line" and failure.type and rule.on == "exception" else failure.kind
    if not warnings and ((rule.on == "fallback") != fallback or rule.on not in ("any", "fallback", kind)):
        return None
    haystack = failure.haystack
    if not rule.literals_in(haystack, haystack.lower() if rule.folded else haystack):
        return None
    found = rule.pattern.search(haystack)
    if found is None:
        return None
    failure = at_match(failure, found.start())
    try:
        lead = rule.read(found, failure)
    except Exception:  # noqa: BLE001 - a rule's bug costs its own reading, never the verdict
        if os.environ.get(STRICT_RULES) == "1":
            raise  # the tests set it: a rule that raises on any log they explain (the corpus's too) fails them
        return None
    if lead is None:
        return None
    family = lead.family or rule.family
    confidence = lead.confidence if lead.confidence is not None else rule.confidence
    if failure.warning:
        confidence *= 0.8
    return Candidate(
        family, _verdict_of(family, lead), lead.cause, confidence, failure, rule.id, dict(lead.params), lead.fix,
        lead.next, rule.source, lead.note, observation=lead.observation,
    )  # fmt: skip


def _structural(failure: Failure) -> Candidate | None:
    """What the structure alone tells when no rule read the record: an exception of Python's own kinds raised in
    the user's code is the user's bug; anything else is a lead, not a cause."""
    if failure.kind != "exception" or failure.wrapper or failure.warning:
        return None
    short = failure.type.rsplit(".", 1)[-1]
    frame = failure.user_frame
    if short == "NotImplementedError" and frame is not None and native_call(frame.code):
        return None  # raised inside what the user's line called (a native op): a library's gap (zz_fallback.py)
    if failure.raised_in_user_code and short in _USER_TYPES and frame is not None:
        return Candidate(
            "user-code-error", "not-environment",
            f"{short} raised in your code at {frame.short()}" + (f" (`{frame.code}`)" if frame.code else "") + ": "
            f"{scrubbed_head(failure.message.splitlines()[0], 200) if failure.message else short}. "
            "Not an environment problem.",
            0.6, failure, "structure:raised-in-user-code", {"where": frame.short(), "type": short},
        )  # fmt: skip
    return None


# the short names code gives the frameworks it calls ("np.", "F."), and the frameworks whose ops are native code
_ALIASES = {**IMPORT_ALIASES, "lax": "jax", "cp": "cupy"}
_NATIVE_OPS = frozenset({"torch", "numpy", "tensorflow", "jax", "jaxlib", "cupy", "cv2", "scipy", "torchvision"})


def native_call(code: str) -> str | None:
    """The framework whose op the user's line calls (`torch.sparse_csr_tensor(...)` -> torch), when the line, as
    the traceback shows it, raises nothing itself: an exception whose innermost frame is that line came from inside
    the op, native code with no Python frames. None for a raise, an assert, or a call of anything else (a function
    of the user's would have shown its own frame; a traceback cut short shows no more)."""
    code = code.strip()
    if not code or code.startswith(("raise", "assert")):
        return None
    call = re.search(r"\b([A-Za-z_]\w*)(?:\.\w+)+\s*\(", code)
    package = _ALIASES.get(call.group(1), call.group(1)) if call else None
    return package if package in _NATIVE_OPS else None


GUESS = "structure:raised-in-library"  # the rule id of the last resort's guess (library_guess): no cause decided
FRAMELESS = "structure:frameless-exception"  # the last resort's last guess (frameless_guess)
BARE_ATTRIBUTE = "structure:bare-missing-attribute"  # a missing attribute pasted as a bare line (attribute_guess)
CUT_AT_IMPORT = "structure:cut-at-import"  # a traceback cut after a package's import-time frame (cut_import_guess)
REFUSED_INPUT = "structure:refused-its-input"  # a library's check of what it was given (refused_input_guess)
# the last resort's guesses: a family offered, none decided
GUESSES = frozenset(
    {GUESS, similar.GUESS, similar.FAINT_GUESS, FRAMELESS, CUT_AT_IMPORT, BARE_ATTRIBUTE, REFUSED_INPUT}
)
# Exceptions whose kind itself says what failed around the program (a file, a library's loading, a connection, the
# memory, the user's interrupt) or that a library raises on purpose for a gap (NotImplementedError): never guessed
# to be a library's own defect.
_NOT_A_DEFECT = frozenset(
    {"ImportError", "ModuleNotFoundError", "OSError", "IOError", "FileNotFoundError", "FileExistsError",
     "PermissionError", "IsADirectoryError", "NotADirectoryError", "ConnectionError", "ConnectionRefusedError",
     "ConnectionResetError", "ConnectionAbortedError", "BrokenPipeError", "TimeoutError", "MemoryError",
     "OutOfMemoryError", "KeyboardInterrupt", "SystemExit", "CalledProcessError", "NotImplementedError",
     "SyntaxError", "IndentationError", "EOFError", "UnicodeDecodeError", "UnicodeEncodeError", "DistributionNotFound",
     "PackageNotFoundError", "SSLError", "HTTPError", "URLError", "ProxyError", "ReadTimeout", "ConnectTimeout",
     "CancelledError", "SignalException", "ChildFailedError"}
)  # fmt: skip


def _raiser(failure: Failure) -> str | None:
    """The library whose own code raised it: the innermost frame that is not the standard library's (a builtin
    raising on what the caller passed is the caller's), or the package its exception class lives in when the log
    shows no frames. None when the user's code is the innermost caller, or nothing says whose it is."""
    for frame in reversed(failure.frames):
        if frame.owner == "python":
            continue
        return frame.owner  # None: the user's code
    if failure.frames or "." not in failure.type:
        return None
    top = failure.type.split(".", 1)[0]
    return None if top in ("builtins", "__main__") else top


def _maybe_a_defect(failure: Failure) -> bool:
    """What the last resort's guesses of a defect may read: an exception of its own (not a wrapper's, not a warning)
    whose kind names nothing around the program."""
    if failure.kind != "exception" or failure.wrapper or failure.warning or not failure.type:
        return False
    return failure.type.rsplit(".", 1)[-1] not in _NOT_A_DEFECT


def library_guess(failure: Failure) -> Candidate | None:
    """The last resort when no family, signature or structure decides: an exception of no environmental kind,
    raised in a library's own code (or of a library's own class) and not in the user's, is most often that library's
    defect or a gap of it for this input. A guess, said as one, with the lowest confidence and no verdict class."""
    if not _maybe_a_defect(failure):
        return None
    library = _raiser(failure)
    if library is None:
        return None  # raised by the user's code, or the log shows nothing of where: no reading of whose it is
    where = f" (at {failure.last_frame.short()})" if failure.last_frame is not None else ""
    # the user's call that led into it: what a report to the library shows first, and the call to check
    frame = failure.user_frame
    yours = "not by yours"
    if frame is not None:
        yours = f"not by yours (your call into it: {frame.short()}" + (f", `{frame.code}`)" if frame.code else ")")
    return Candidate(
        "framework-internal-error", "unknown",
        f"No family or signature knows this error. It was raised by {library}'s own code{where}, {yours}, and "
        "its kind says nothing of the environment. The likely readings: a bug of that library, or a gap of it for "
        "this input; or a call of it written for another of its releases. Search its issue tracker for the message, "
        "compare its installed version with the one the calling code names, and try its latest release.",
        0.3, failure, GUESS, {"library": library or "", "type": failure.type},
    )  # fmt: skip


# The idioms of a check of what a function was given, as libraries word them when they refuse a caller's argument,
# option or data ("must be provided", "is not allowed", "missing 1 required positional argument", "Please specify").
# A type check ("must be of type") is left out: a framework's own internals raise it as often as a caller's value.
_INPUT_CHECK = re.compile(
    r"\bmust be (?:provided|specified|given|set|passed|positive|non-?negative|greater than|less than|at (?:least|most)"
    r"|divisible by|in range|in \[)|\bmust (?:consist of|have the same length)|\b(?:is|are) not allowed\b"
    r"|\b(?:is|are) required\b"
    r"|\bmissing \d{1,2} required (?:positional|keyword-only) argument|\b[Pp]lease (?:provide|specify|set|pass)\b"
    r"|\bcannot be (?:empty|None|null)\b"
)
# Left out: a value outside a list the library knows ("must be one of [...], got longrope", "invalid choice"), most
# often a newer value than the installed library knows (a model's config of a later release); a type a builtin
# requires ("an integer is required"), a library run on a Python it predates as often as a wrong argument.
# What the environment gives and not the call: an environment variable (OPENAI_API_KEY), a login or token, a key.
_ENVIRONMENT_NAMED = re.compile(
    r"environment variable|os\.environ|\$[A-Z][A-Z0-9_]{2,}|\b[A-Z][A-Z0-9]*_(?:API_KEY|TOKEN|HOME|PATH|SECRET)\b"
    r"|\b(?:access|auth|api|hf|hub) token\b|\blog ?in\b|\bapi_key\b"
    # what "is required" asks of the machine, not of the call: hardware, a package, a credential
    r"|(?i:\b(?:cuda|gpus?|tpus?|driver|package|module|library|token|key|licen[cs]e|internet)\b[^\n]{0,60}\b"
    r"(?:is|are) required\b)"
)
# A builtin's type check, by its shape ("an integer is required", "a bytes-like object is required", "a string is
# required, not int"): a library run on a Python it predates as often as a wrong argument
_BUILTIN_TYPE_CHECK = re.compile(r"an? [\w-]{1,30}(?: object)? is required\b")


def refused_input_guess(failure: Failure) -> Candidate | None:
    """The last resort when a library's own check refused what it was given: an exception of no environmental kind
    whose message is worded as a check of an argument, an option or the data ("must be provided", "is not allowed"),
    raised by a library the user's code called directly (or pasted without frames). Such reports were the user's
    input far more often than the library's defect in the development part of xladoctor's labelled corpus (4 of 4
    when this guess was written, where the defect guesses had read them); a refusal between two libraries (one
    library's call into another) is not read here: it is most often one written for another release of the other.
    Nor is one at import (a library imported on a release it predates), nor one that names what the environment
    gives (a variable, a login)."""
    if not _maybe_a_defect(failure) or failure.raised_in_user_code:
        return None
    said = failure.message.splitlines()[0] if failure.message else ""
    check = _INPUT_CHECK.search(said)
    if check is None or _ENVIRONMENT_NAMED.search(said) or _BUILTIN_TYPE_CHECK.match(said):
        return None
    library = _raiser(failure)
    caller = failure.caller_of(library, past_standard_library=True) if library is not None else None
    if failure.frames and (caller is None or not caller.user):
        return None  # raised where no library of the user's call is seen, or inside one library's call of another
    code = caller.code.strip() if caller is not None else ""
    statements = [part.strip() for part in code.split("#", 1)[0].split(";") if part.strip()]
    if statements and all(part.startswith(("import ", "from ")) for part in statements):
        return None  # at import: the library's code ran on releases it was not written for as often
    by = f"{library}'s check" if library else "a library's check"
    if caller is not None and CONSOLE_SCRIPT.search(caller.file):
        # a console script's entry point: what it was given is the command line
        command = file_name(caller.file.removesuffix("__main__.py").rstrip("/\\"))
        call = f" (your command line: {command})"
    else:
        call = f" (your call: {caller.short()}" + (f", `{code}`)" if code else ")") if caller else ""
    return Candidate(
        "user-code-error", "not-environment",
        f"{by} refused what it was given{call}: \"{scrubbed_head(said, 200)}\". The message is worded as a check of an "
        "argument, an option or the data passed to it, so the likeliest cause is the call's input: the arguments, the "
        "configuration or the files it reads. Not an environment problem, unless the calling code was written for "
        "another release of that library (compare its documentation for the installed version).",
        0.3, failure, REFUSED_INPUT, {"check": check.group(0), "library": library or "", "type": failure.type},
    )  # fmt: skip


def cut_import_guess(failure: Failure, tail: str) -> Candidate | None:
    """The last resort for a log that ends inside a traceback (its error line cut off), when the last frame is an
    installed package's module at import and its statement uses another package: read as code written for another
    release of that package, the most common such failure (the three of this shape that nothing else read in the
    development part of xladoctor's labelled corpus when this guess was written). A guess, said as one; what it asks
    for first is the error line that would decide."""
    if failure.type:
        return None  # an exception's own line was read: nothing was cut
    cut = cut_at_import(tail)
    if cut is None:
        return None
    package, other, statement = cut.package, cut.other, scrubbed_head(cut.statement, 200)
    return Candidate(
        "api-version-skew", "unknown",
        f"The log stops before the error's own line: its last frame is {package}'s module running at import "
        f"({cut.frame.short()}), at `{statement}`, which uses {other}. An error raised while one installed package "
        f"imports another is most often {package}'s code written for another release of {other}: a name or an "
        f"attribute that {package} expects and the installed {other} lacks or no longer has (or {other} itself failed "
        f"to import). The error line decides it: run `python -c \"import {package}\"` to see it whole, then compare "
        f"the installed {other} with the versions {package} supports (`python -m pip show {package} {other}`, and "
        f"{package}'s release notes); an upgrade of {package}, or {other} pinned to the release it was written for, is "
        "the usual fix.",
        0.3, failure, CUT_AT_IMPORT, {"package": package, "library": other, "statement": statement},
    )  # fmt: skip


_MESSAGE_QUOTED = 400  # characters of a message a guess quotes past its first line
# Lines after an exception's message that are not its own: another exception, the interpreter's "Exception ignored
# in", a logger's level or timestamp, a tool's lower-case tag ("wandb: "), a rule, a job runner's frame ("--- Job")
_NOT_THE_MESSAGE = re.compile(
    r"(?:[\w.]{1,100}(?:Error|Exception|Warning|Interrupt|Exit)\b:?|Exception ignored in\b|Traceback \(most recent"
    r"|\[?(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b|\d{4}-\d\d-\d\d|[a-z][\w-]{1,30}: |-{3}|={3}|#{1,3} )"
)


def _goes_on(failure: Failure) -> str:
    """A message that runs past its first line (the record shows that one), quoted whole: no rule read it, so its
    own words (an option it names, what it asks for) are what the reader has."""
    lines: list[str] = []
    for line in failure.message.splitlines():
        if lines and (not line.strip() or _NOT_THE_MESSAGE.match(line.strip())):
            break  # a blank line, or what a logger, a tool or the interpreter printed after the message
        lines.append(line.strip())
    if len(lines) < 2:
        return ""
    return f' The whole message: "{cut_at_a_word(scrub(" ".join(lines)), _MESSAGE_QUOTED)}"'


def frameless_guess(failure: Failure) -> Candidate | None:
    """The last resort's last guess: an exception of no environmental kind, pasted without the frames that would
    say whose code raised it, that no family, signature or likeness reads. Such reports were most often a framework's
    own defect in the development part of xladoctor's labelled corpus (5 of 13 when this guess was written; code
    written for another release and a back-end's gap came next, 2 each). A guess by that base rate, said as one with
    the lowest confidence; what it asks for first is the traceback that would decide."""
    if failure.frames or not _maybe_a_defect(failure) or failure.type == "Error":
        return None  # a bare "Error:" is a tool's line (a shell, node, a launcher), not an exception class
    return Candidate(
        "framework-internal-error", "unknown",
        f"No family or signature knows this error, and the log shows no frames of where {failure.type} was raised. "
        "Errors of this shape that nothing reads were most often a framework's own defect; the next readings are "
        "code written for another release of a library, or an operation a back-end does not implement. The frames "
        "decide it: run it again with the whole traceback (the lines above the error, from \"Traceback (most recent "
        "call last)\"), then search the issue tracker of the library whose code raised it for the message, and try "
        "that library's latest release." + _goes_on(failure),
        0.2, failure, FRAMELESS, {"type": failure.type},
    )  # fmt: skip


# Python's words for an attribute an object lacks (Objects/object.c, PyObject_GenericGetAttr); a None is a value that
# did not load, never a release
_MISSING_ATTRIBUTE = re.compile(
    r"'(?P<object>(?!NoneType')[\w.]{1,120})' object has no attribute '(?P<name>\w{1,120})'"
)


# Python's own types: a value of the wrong kind ('list' object has no attribute 'shape'), no library's release
_BUILTIN_TYPES = frozenset({
    "list", "tuple", "dict", "set", "frozenset", "str", "bytes", "bytearray", "int", "float", "complex", "bool",
    "NoneType", "function", "method", "builtin_function_or_method", "module", "type", "generator", "coroutine",
    "property", "staticmethod", "classmethod", "range", "slice", "object", "cell", "code", "frame", "mappingproxy",
    "dict_keys", "dict_values", "dict_items", "map", "filter", "zip", "enumerate", "memoryview", "ellipsis",
})  # fmt: skip


def attribute_guess(failure: Failure) -> Candidate | None:
    """A missing attribute pasted as a bare line, with neither its exception's name nor the frames that would say
    whose code asked for it (an application's pop-up, a node's error box: "'ControlNet' object has no attribute
    'device'"). Where the exception's name is there, the rules read it (most often code written for another release
    of the library that makes such objects: 14 of the 21 such lines of the development part of xladoctor's labelled
    corpus when this was written; a library's own defect 5, the user's code 2); bare, the same base rate is a guess,
    said as one, and its first step asks for the traceback that decides."""
    if failure.kind == "exception" or failure.frames or failure.warning:
        return None
    found = _MISSING_ATTRIBUTE.search(failure.text)
    if found is None or "Did you mean" in failure.text:
        return None  # Python's own hint of a near name: a typo
    top, cls = found.group("object").split(".", 1)[0], found.group("object").rsplit(".", 1)[-1]
    if top in LOCAL_TOPS or top == "__main__" or cls in _BUILTIN_TYPES:
        return None  # the project's own classes ('models.yolo.Model', the script's '__main__.Net'), Python's own types
    what = f"{found.group('object')}.{found.group('name')}"
    return Candidate(
        "api-version-skew", "unknown",
        f"Code asked a {found.group('object')} object for {found.group('name')}, which it does not have, and the log "
        "shows neither the exception nor the frames of whose code asked. Lines of this shape were most often code "
        f"written for another release of the library that makes {found.group('object')} objects (a plug-in or "
        "script older or newer than the library it runs on); next, that library's own defect. The traceback "
        "decides: run it again from a terminal (or open the application's console or log file), then compare the "
        "release of the code that asks with the one of the library it asks.",
        0.2, failure, BARE_ATTRIBUTE, {"object": found.group("object"), "name": found.group("name"), "asked": what},
    )  # fmt: skip


def candidates(records: Sequence[Failure], rules: Iterable[Rule] | None = None) -> list[Candidate]:
    """Every candidate of every record, in log order."""
    rules = list(rules if rules is not None else load_rules())
    found: list[Candidate] = []
    for failure in records:
        if failure.wrapper:
            continue  # the error it carries is its own record
        read = [c for c in (_read(r, failure) for r in rules) if c is not None]
        if not read:
            structural = _structural(failure)
            read = [structural] if structural is not None else []
        if not read:
            read = [c for c in (_read(r, failure, fallback=True) for r in rules) if c is not None]
        found.extend(_best_per_family(read))
    return found


# A line that says something failed: the error words and the plain words of failure (scan.ERROR_WORDS,
# PLAIN_FAILURE_WORDS: not after a letter, digit or underscore, so NCCL_ASYNC_ERROR_HANDLING names no error), a
# launcher's signals and exit codes, a logger's or glog's error level behind a rank's or a Ray worker's tag, a crash
_QUIET_WORDS = ("WARN", "Warning", "warning", "Error", "ERROR", "error:", "Exception")
_LOUD = re.compile(
    r"(?i)(?<![a-z0-9_])(?:"
    + "|".join(
        re.escape(w.strip()) for w in dict.fromkeys((*ERROR_WORDS, *PLAIN_FAILURE_WORDS)) if w not in _QUIET_WORDS
    )
    + r"|error\b|fatal\b|critical\b|cancell?ed\b|killed\b|terminate called|traceback|core dumped|sigterm|sigint|nan\b"
    r"|death signal|exitcode|exit code [1-9]|exit status [1-9])"
    r"|(?-i:(?:Error|Exception)\b)"
    r"|^\W*(?:(?:\[(?:rank|default)\d+\]:?|\([\w.]*\s?pid=\d+[^)]*\))\s*)*(?:\[?[EF]\d{4}\b|\[[EF][ \]])"
)


def warnings_alone(text: str) -> Candidate | None:
    """The reading of a log of warnings alone (rules/warnings_only.py), `text` being the whole log: one of its lines
    is a warning such a rule reads, and no other line says that something failed (each read as printed, its prefixes
    on; a metric's "val error: 0.03" is none); else None. Strict on purpose: these lines end failed runs too."""
    read: list[Candidate] = []
    for number, raw in enumerate(text.split("\n"), 1):  # lines as the rest of the engine counts them
        line = clean(raw).strip()
        if not line:
            continue
        failure = Failure("line", "", line, number, line, warning=True)
        found = next(((r, c) for r in warning_rules() if (c := _read(r, failure, warnings=True)) is not None), None)
        if found is not None:
            # the warning's own words ("cannot be initialized", "not supported") are no failure's; the rest of its
            # line is read as any other line (an exception that quotes it: "RuntimeError: ... [::]:29500 ...")
            said = found[0].pattern.search(line)
            if _LOUD.search(raw.replace(said.group(0), " ") if said is not None else raw):
                return None
            read.append(found[1])
        elif _LOUD.search(raw) and not is_metric(line):
            return None
    return max(read, key=lambda c: (c.confidence, -c.failure.line)) if read else None


def _best_per_family(read: list[Candidate]) -> list[Candidate]:
    best: dict[str, Candidate] = {}
    for candidate in read:
        kept = best.get(candidate.family)
        if kept is None or candidate.confidence > kept.confidence:
            best[candidate.family] = candidate
    return list(best.values())


def root(found: Sequence[Candidate], records: Sequence[Failure] = ()) -> Candidate | None:
    """The root cause among the candidates (see the module's docstring); `records`, all the log's, for what a
    candidate's surroundings say of it."""
    if not found:
        return None
    by_chain: dict[int, list[Candidate]] = {}
    for candidate in found:
        by_chain.setdefault(candidate.failure.chain, []).append(candidate)
    # within a chain, the first exception's candidates come first, unless only later ones name a cause
    ordered = sorted(found, key=lambda c: c.rank)
    chosen = _with_frames(ordered[0], ordered)
    return (
        _explained_by_warning(chosen, ordered)
        or _explained_by_build(chosen, ordered, records)
        or _diagnosed_after(chosen, ordered)
        or chosen
    )


# A failure a framework diagnoses on the lines right after it: XLA's and TensorFlow's cuda_diagnostics.cc, after a
# failed cuInit, compares the kernel driver with the libcuda.so loaded; the comparison is the cause cuInit's error is
# the symptom of.
# A native crash's words, and the debugger's backtrace pasted right after them (in the crash line's record, or a
# record of its own), which names where it stopped.
_BACKTRACE = frozenset({"framework-internal-error:gdb_backtrace"})
_DIAGNOSED_BY = {
    "accelerator-unavailable:cuinit_failed": frozenset({"cuda-driver-too-old:driver_and_libcuda_differ"}),
    "framework-internal-error:segfault": _BACKTRACE,
    "framework-internal-error:native_crash_words": _BACKTRACE,
}
_DIAGNOSIS_WITHIN = 5  # lines after the failure


def _diagnosed_after(chosen: Candidate, ordered: Sequence[Candidate]) -> Candidate | None:
    diagnoses = _DIAGNOSED_BY.get(chosen.rule)
    if diagnoses is None:
        return None
    return next(
        (
            c
            for c in ordered
            if c.rule in diagnoses
            and not (c.rule in _BACKTRACE and c.family != chosen.family)  # one that waits (a hang) reads no crash
            and 0 <= c.failure.line - chosen.failure.line <= _DIAGNOSIS_WITHIN  # in the record's lines, or after
        ),
        None,
    )


_BUILD_HINT_LINES = 20  # how far after the error uv's hint comes (the build's stderr, a blank line, the hint)
_BUILD_BOX_BEFORE = 40  # lines from the box's first line (the installer's) to an error of the build's output
_BUILD_BOX_AFTER = 12  # lines from that error to the box's last line (pip's "[end of output]", uv's hint)


def _inside_a_build(failure: Failure, records: Sequence[Failure]) -> bool:
    """The record lies inside the boxed output of a package's build, as pip and uv print it (builds.BUILD_BOX)."""
    return any(
        -_BUILD_BOX_BEFORE <= other.line - failure.line <= _BUILD_BOX_AFTER
        and other.line != failure.line
        and BUILD_BOX.search(other.message) is not None
        for other in records
    )


def _explained_by_build(
    chosen: Candidate, ordered: Sequence[Candidate], records: Sequence[Failure] = ()
) -> Candidate | None:
    """A missing module that the installer's next lines say a package's build imported without declaring it (uv's
    hint after the build's stderr), or that a package's build printed inside the installer's box around its output:
    the build's isolation, not the interpreter, lacks it."""
    if chosen.family != "module-not-found":
        return None
    module = str(chosen.params.get("module", "")).split(".", 1)[0]
    if module and _inside_a_build(chosen.failure, records):
        lead = isolated_build_lacks(module)  # the package it names is the log's to say (logfacts.with_built_package)
        return Candidate(
            "build-failure", "environment", lead.cause, chosen.confidence, chosen.failure,
            "build-failure:build_needs_module", dict(lead.params), lead.fix, lead.next, BUILD_ISOLATION,
        )  # fmt: skip
    return next(
        (
            c
            for c in ordered
            if c.family == "build-failure"
            and c.params.get("module") == module
            and 0 < c.failure.line - chosen.failure.line <= _BUILD_HINT_LINES
        ),
        None,
    )


def _with_frames(chosen: Candidate, ordered: Sequence[Candidate]) -> Candidate:
    """One failure the log shows twice, as an application's log line ("!!! Exception during processing !!! ...")
    and as its traceback: the same rule reads both, and the traceback's reading knows where it was raised."""
    if chosen.failure.frames:
        return chosen
    return next(
        (c for c in ordered if c.rule == chosen.rule and c.failure.frames and not c.failure.warning),
        chosen,
    )


# An error of these families is often only the symptom of a toolchain, driver or library that an earlier warning
# names exactly (XLA: "ptxas does not support CC 8.9" before CUDA_ERROR_INVALID_IMAGE; "Could not load dynamic
# library 'libcudnn.so.8'" before the backend reports no GPU). Such a warning, read by a specific rule, is the root.
_SYMPTOM_OF = {
    "gpu-arch-unsupported": frozenset({"cuda-library-mismatch", "cuda-driver-too-old"}),
    "accelerator-unavailable": frozenset({"missing-library", "cuda-driver-too-old", "cuda-library-mismatch"}),
    # pip's "No matching distribution" after its "Could not fetch URL ... CERTIFICATE_VERIFY_FAILED": nothing was
    # fetched to choose from
    "resolver-conflict": frozenset({"bad-configuration"}),
}
# ...and a reading that is a symptom of torch seeing no GPU whatever family it reads as: a GPU-saved checkpoint loaded
# without map_location (user-code-error where the machine has no GPU), after a warning that the GPU is there but
# cannot be used (a driver too old, none loaded, a CUDA that failed to start)
_SYMPTOM_OF_RULE = {
    "accelerator-unavailable:torch_sees_no_gpu": _SYMPTOM_OF["accelerator-unavailable"] | {"accelerator-unavailable"},
}
_EXPLAINING = 0.7  # a warning's confidence (after its discount) at least this: a specific rule, not a fall-back


def _explained_by_warning(chosen: Candidate, ordered: Sequence[Candidate]) -> Candidate | None:
    causes = _SYMPTOM_OF.get(chosen.family) or _SYMPTOM_OF_RULE.get(chosen.rule)
    if causes is None or chosen.failure.warning:
        return None
    return next(
        (
            c
            for c in ordered
            if c.failure.warning
            and c.family in causes
            and c.confidence >= _EXPLAINING
            and c.failure.line < chosen.failure.line
        ),
        None,
    )


def likeness_guess(
    failure: Failure, tail: str, found: tuple[similar.Known, float] | None, faint: bool = False
) -> Candidate | None:
    """The last resort's first guess: the settled report of the corpus's development part the log's end (`tail`)
    reads most like (`found`: similar.likeliest of it), when it is near enough; its family offered with its
    thread's link, said as a guess. `faint`: the last guess of all, when the nearest is only faintly alike, said as a
    weaker one."""
    if failure.kind != "exception" and not any(word in failure.text for word in ERROR_WORDS):
        return None  # a record no error word marks (a device listing, a progress line): nothing failed there to liken
    if found is None or found[1] < (similar.FAINT if faint else similar.NEAR_ENOUGH):
        return None
    known, score = found
    if faint and not similar.shares_enough(tail, known):
        return None
    settled = known.settled if len(known.settled) <= 300 else known.settled[:297].rsplit(" ", 1)[0] + "..."
    how = "faintly, the nearest there is" if faint else "most"
    return Candidate(
        known.family, "unknown",
        f"No family or signature decides this failure. It reads {how} like a report settled as {known.family} "
        f"({known.source}): {settled} A guess by the likeness of words (cosine {score:.2f}), not a reading of "
        "your log: check that thread against the record below.",
        0.25 if faint else 0.35, failure, similar.FAINT_GUESS if faint else similar.GUESS,
        {"similar": known.source, "similarity": round(score, 2)},
    )  # fmt: skip


@dataclass(frozen=True)
class Diagnosis:
    """explain's one verdict."""

    verdict: str  # environment | not-environment | framework-bug | unknown
    family: str | None
    cause: str
    confidence: float
    line: int | None  # the log line of the record that decided it
    record: str  # that record's line, as shown
    decided_by: str  # the rule or signature
    params: Mapping[str, Any] = field(default_factory=dict)
    remediation: tuple[str, ...] = ()
    next: tuple[str, ...] = ()
    source: str = ""
    joined: tuple[str, ...] = ()  # what the environment's facts added, confirmed or contradicted
    contradicted: bool = False  # the facts say the log came from another environment
    others: tuple[str, ...] = ()  # the other families seen, for the reader

    @property
    def decided(self) -> bool:
        """A family decided the cause: not nothing, and not the last resort's guess of whose defect it is."""
        return self.family is not None and self.decided_by not in GUESSES

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "family": self.family,
            "cause": self.cause,
            "confidence": round(self.confidence, 2),
            "line": self.line,
            "record": self.record,
            "decided_by": self.decided_by,
            "params": {k: v for k, v in self.params.items() if v not in ("", None)},
            "remediation": list(self.remediation),
            "next": list(self.next),
            "source": self.source,
            "joined": list(self.joined),
            "contradicted": self.contradicted,
            "others": list(self.others),
        }


_COLLECT_NCCL = (
    "NCCL_DEBUG=INFO python ...  # NCCL says which step failed",
    "xladoctor collective  # a real all_reduce",
)
_COLLECT_COMPILE = (
    "TORCH_LOGS=+dynamo,graph_breaks,recompiles python ...",
    "xladoctor profile -- python ...  # graph breaks and recompiles at your lines",
)
_COLLECT_XLA = ("PT_XLA_DEBUG_LEVEL=2 python ...  # torch_xla's own analysis", "xladoctor profile -- python ...")
_COLLECT_CUDA = (
    "CUDA_LAUNCH_BLOCKING=1 python ...  # the error at the kernel that raised it",
    "xladoctor check  # the CUDA stack of this environment",
)
# an installer's failure (pip's resolver or build, conda's solver): its own full output and the installed set decide
_COLLECT_INSTALL = (
    "python -m pip check  # the installed requirements that do not fit together",
    "python -m pip install -v ...  # the installer's whole output: the first error in it is the one that matters",
    "conda info  # with conda: this platform and the channels it searches",
)
_INSTALLER_WORDS = (
    "pip install", "Solving environment", "PackagesNotFoundError", "UnsatisfiableError", "ResolutionImpossible",
    "No matching distribution", "requirements are unsatisfiable", "subprocess-exited-with-error",
    "Failed building wheel", "Failed to build",
)  # fmt: skip
_NEXT_BY_WORD = (
    (_INSTALLER_WORDS, _COLLECT_INSTALL),
    (("NCCL", "ProcessGroup", "torch.distributed", "c10d", "gloo", "rendezvous"), _COLLECT_NCCL),
    (("torch._dynamo", "torch._inductor", "torch.compile", "inductor", "BackendCompilerFailed"), _COLLECT_COMPILE),
    (("torch_xla", "XLA", "PJRT", "xla_"), _COLLECT_XLA),
    (("CUDA", "cuda", "cuDNN", "cublas"), _COLLECT_CUDA),
)


def next_steps(record: Failure) -> tuple[str, ...]:
    """What to run next when nothing decided the cause: by what the record talks about."""
    text = record.haystack + " " + " ".join(f.file for f in record.frames)
    for words, steps in _NEXT_BY_WORD:
        if any(w in text for w in words):
            return steps
    return ("xladoctor check  # rule out the environment first", "python -X faulthandler ...  # the stack of a crash")


def lead_record(records: Sequence[Failure]) -> Failure | None:
    """The record that matters when nothing decided: the last exception (what stopped the program), else the last
    error line."""
    errors = [r for r in records if not r.warning and not r.wrapper]
    exceptions = [r for r in errors if r.kind == "exception"]
    pool = exceptions or errors or list(records)
    return pool[-1] if pool else None
