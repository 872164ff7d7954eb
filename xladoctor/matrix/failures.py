"""The failure tables of compat_matrix/failures/: CUDA runtime and driver error codes (read from NVIDIA's headers
and libcudart by scripts/failure_tables.py), NCCL's results, the shared libraries each wheel ships (from their
RECORD files) and the ones the system provides. Loaded once, looked up by what a log says."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class ErrorCode:
    """One code of CUDA's runtime or driver API, or of NCCL."""

    api: str  # "cuda-runtime" | "cuda-driver" | "nccl"
    code: int
    name: str  # cudaErrorNoKernelImageForDevice, CUDA_ERROR_NO_DEVICE, ncclSystemError
    string: str  # what the library's ...GetErrorString returns ("" for the driver API)
    meaning: str
    kind: str  # environment | not-environment | unknown (the table's "class")


@dataclass(frozen=True)
class Library:
    library: str  # soname: libcudnn.so.9
    package: str  # nvidia-cudnn-cu12 | torch | "the NVIDIA driver"
    note: str = ""
    apt: str | None = None
    wheel: bool = True
    source: str = ""


@dataclass(frozen=True)
class Header:
    """A C/C++ header (or a folder of them) a build includes, and the system package that installs it."""

    header: str  # "zlib.h", or a folder: "glm/"
    provider: str  # what it is: "GLM, the OpenGL Mathematics header library"
    apt: str  # its Debian/Ubuntu package
    source: str


def _doc(name: str) -> dict[str, Any]:
    text = resources.files("xladoctor.compat_matrix").joinpath("failures", f"{name}.json").read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


@lru_cache(maxsize=1)
def error_codes() -> tuple[ErrorCode, ...]:
    found: list[ErrorCode] = []
    for name, api in (
        ("cuda-runtime-errors", "cuda-runtime"),
        ("cuda-driver-errors", "cuda-driver"),
        ("nccl-results", "nccl"),
    ):
        for row in _doc(name)["rows"]:
            found.append(
                ErrorCode(api, int(row["code"]), row["name"], row.get("string") or "", row["meaning"], row["class"])
            )
    return tuple(found)


@lru_cache(maxsize=1)
def _by_name() -> dict[str, ErrorCode]:
    return {e.name: e for e in error_codes()}


@lru_cache(maxsize=1)
def _by_string() -> dict[str, ErrorCode]:
    """cudaGetErrorString's and ncclGetErrorString's texts, lower-cased, longest first when one holds another."""
    return {e.string.lower(): e for e in error_codes() if e.string and e.string != "no error"}


def code_named(name: str) -> ErrorCode | None:
    return _by_name().get(name)


@lru_cache(maxsize=1)
def _by_stem() -> dict[str, ErrorCode]:
    """Each string without the advice an upstream release appended to it: NCCL 2.27 says "unhandled system error
    (run with NCCL_DEBUG=INFO for details)" and "internal error - please report this issue ...", where older
    releases (and torch's messages that quote them) say "unhandled system error" and "internal error"."""
    stems: dict[str, ErrorCode] = {}
    for string, code in _by_string().items():
        stem = re.split(r" \(| - ", string, maxsplit=1)[0]
        if stem != string and len(stem) >= 12:
            stems.setdefault(stem, code)
    return stems


def code_saying(text: str) -> ErrorCode | None:
    """The code whose error string `text` starts with (torch prints "CUDA error: <string>"), or, for a text that
    holds no more than a string's words without their appended advice, or the start of one string only (a quote cut
    short), the code of that string."""
    lowered = text.lower().strip()
    best: ErrorCode | None = None
    for string, code in _by_string().items():
        if lowered.startswith(string) and (best is None or len(string) > len(best.string)):
            best = code
    if best is None:
        for stem, code in _by_stem().items():
            if lowered == stem or (lowered.startswith(stem) and not lowered[len(stem)].isalnum()):
                return code
    if best is None and len(lowered) >= 24:  # a quote cut short ("no kernel image is available for execution")
        cut = [code for string, code in _by_string().items() if string.startswith(lowered)]
        if len({c.name for c in cut}) == 1:
            return cut[0]
    return best


@lru_cache(maxsize=1)
def _libraries() -> dict[str, Library]:
    table: dict[str, Library] = {}
    for row in _doc("libraries")["rows"]:
        table.setdefault(row["library"], Library(row["library"], row["package"], source=f"RECORD of {row['package']}"))
    for row in _doc("system-libraries")["rows"]:
        table[row["library"]] = Library(
            row["library"],
            row["provider"],
            row["note"],
            row.get("apt"),
            row["provider"] == "the libtpu wheel",
            row["source"],
        )
    return table


_STEM = re.compile(r"^(lib[A-Za-z0-9_+-]+?)(?:[._-]\d[\w.]*)?\.(?:so|dylib|dll)")


def stem_of(library: str) -> str:
    found = _STEM.match(library)
    return found.group(1) if found else library.split(".", 1)[0]


def library_named(library: str) -> Library | None:
    """Who ships `library`: the exact soname, else another version of it (libcudnn.so.8 -> the cuDNN wheels)."""
    table = _libraries()
    if library in table:
        return table[library]
    stem = stem_of(library)
    same = [lib for name, lib in sorted(table.items()) if stem_of(name) == stem]
    return same[-1] if same else None


@dataclass(frozen=True)
class ParameterHistory:
    """One keyword parameter of one library class's constructor across its releases (api-history.json)."""

    package: str  # the distribution (trl, transformers, pytorch-lightning)
    cls: str  # SFTTrainer
    parameter: str
    first: str  # the first minor series that took it ("0.7")
    last: str  # the last one ("0.12")
    latest: str  # the newest series that has the class (a class that went refuses everything after)
    oldest: str  # the oldest series read that has it
    renamed_to: str = ""  # the new name a deprecation gave it
    var_keyword: bool = False  # some release takes **kwargs: an unknown name was not always refused
    next_series: str = ""  # the first series that refuses it: the package's next one after `last` ("" for none)

    @property
    def removed(self) -> bool:
        return self.last != self.latest

    @property
    def added(self) -> bool:
        return self.first != self.oldest


@lru_cache(maxsize=1)
def _api_history() -> dict[str, list[dict[str, Any]]]:
    by_class: dict[str, list[dict[str, Any]]] = {}
    for row in _doc("api-history")["rows"]:
        by_class.setdefault(row["class"], []).append(row)
    return by_class


def _taken_by_an_outside_base(row: dict[str, Any], parameter: str) -> bool:
    """A field the class inherits from another package's class (trl's configs from transformers' TrainingArguments):
    whether it is taken depends on that package's release too, so this row's history alone cannot say. A class with
    an __init__ of its own in every release declares what it takes."""
    if not row.get("dataclass"):
        return False
    for base in row.get("bases", []):
        for other in _api_history().get(base, []):
            if other["package"] != row["package"] and parameter in other["parameters"]:
                return True
    return False


def parameter_history(cls: str, parameter: str) -> list[ParameterHistory]:
    """What each library's class named `cls` did with `parameter`: one entry per package whose class took it in some
    release (none: no release of any took it, a typo or an argument of the user's own class)."""
    found: list[ParameterHistory] = []
    for row in _api_history().get(cls, []):
        entry = row["parameters"].get(parameter)
        if entry is None or _taken_by_an_outside_base(row, parameter):
            continue
        series = row["releases"]
        every = row.get("package_series") or series  # the first series after `last` may lack the class itself
        after = dict(zip(every, every[1:], strict=False)).get(entry["last"], "")
        found.append(
            ParameterHistory(
                row["package"], cls, parameter, entry["first"], entry["last"], series[-1], series[0],
                entry.get("renamed_to", ""), bool(row.get("var_keyword_in")), after,
            )
        )  # fmt: skip
    return found


@lru_cache(maxsize=1)
def history_classes() -> frozenset[str]:
    return frozenset(_api_history())


@dataclass(frozen=True)
class ReleaseRuns:
    """Something of a library that some of its releases had (attribute-history.json): the runs of series that had
    it, among the series read."""

    package: str  # the distribution (transformers, keras, protobuf)
    imports: tuple[str, ...]  # its top-level import names (google for protobuf)
    had: tuple[tuple[str, str], ...]  # the runs of series that had it, (first, last); () when no release read had it
    series: tuple[str, ...]  # the series read in which it could be (those of its class, for an attribute), oldest first

    @property
    def first(self) -> str:
        return self.had[0][0] if self.had else ""

    @property
    def last(self) -> str:
        return self.had[-1][1] if self.had else ""

    @property
    def added(self) -> bool:
        """Older releases lacked it."""
        return bool(self.had) and self.first != self.series[0]

    @property
    def removed(self) -> bool:
        """Newer releases lack it."""
        return bool(self.had) and self.last != self.series[-1]

    @property
    def after(self) -> str:
        """The first series after the last one that had it ("" when the newest has it)."""
        later = self.series[self.series.index(self.last) + 1 :] if self.last in self.series else ()
        return later[0] if later else ""


@dataclass(frozen=True)
class AttributeHistory(ReleaseRuns):
    """One attribute of one library class that some releases had and others lacked."""

    cls: str = ""  # DynamicCache
    attribute: str = ""  # get_max_length


@dataclass(frozen=True)
class ModuleHistory(ReleaseRuns):
    """One module path of a library across its releases."""

    module: str = ""  # torch._six

    @property
    def always(self) -> bool:
        return self.had == ((self.series[0], self.series[-1]),)


def _runs_of(runs: str, every: list[str]) -> tuple[tuple[str, str], ...]:
    """Runs of indexes into the package's list of series ("0-17,30-53"), as the (first, last) series they name."""
    pairs = (run.partition("-") for run in filter(None, runs.split(",")))
    return tuple((every[int(first)], every[int(last)]) for first, _, last in pairs)


def _series_of(runs: str, every: list[str]) -> tuple[str, ...]:
    """The series named by runs of indexes into the package's list."""
    return tuple(s for first, last in _runs_of(runs, every) for s in every[every.index(first) : every.index(last) + 1])


@lru_cache(maxsize=1)
def _attribute_history() -> dict[str, tuple[dict[str, int], dict[str, Any]]]:
    """package -> (class name -> its index in the package's list, the package's table)."""
    return {
        package: ({name: index for index, (name, _) in enumerate(read["classes"])}, read)
        for package, read in _doc("attribute-history")["packages"].items()
    }


def attribute_history(cls: str, attribute: str) -> list[AttributeHistory]:
    """What each library's class named `cls` did with `attribute`, one entry per package whose class had it in some
    releases and lacked it in others (none: every release had it, or none did, or no table knows the class)."""
    found: list[AttributeHistory] = []
    for package, (index_of, read) in _attribute_history().items():
        index = index_of.get(cls)
        if index is None:
            continue
        every = read["series"]
        for runs, indexes in read["changed"].get(attribute, {}).items():
            if str(index) in indexes.split(","):
                found.append(
                    AttributeHistory(
                        package, tuple(read["imports"]), _runs_of(runs, every),
                        _series_of(read["classes"][index][1], every), cls=cls, attribute=attribute,
                    )
                )  # fmt: skip
    return found


def module_history(module: str) -> ModuleHistory | None:
    """What the releases read of the library that owns `module`'s top-level package did with it; None when no table
    knows that package (protobuf is known only under google.protobuf: google is a namespace many share)."""
    top = module.split(".", 1)[0]
    for package, (_, read) in _attribute_history().items():
        if top not in read["imports"] or (top == "google" and not module.startswith("google.protobuf.")):
            continue
        every = read["series"]
        had = _runs_of(read["modules"].get(module, ""), every)
        return ModuleHistory(package, tuple(read["imports"]), had, tuple(every), module=module)
    return None


@dataclass(frozen=True)
class GpuModel:
    """An NVIDIA GPU model as a log names it (gpu-models.json), with its compute capability."""

    name: str  # as the log wrote it ("RTX 5070")
    capability: str  # "12.0"
    architecture: str  # "Blackwell"


@lru_cache(maxsize=1)
def _gpu_patterns() -> tuple[tuple[re.Pattern[str], str, str], ...]:
    return tuple(
        (re.compile(row["pattern"], re.IGNORECASE), row["capability"], row["architecture"])
        for row in _doc("gpu-models")["rows"]
    )


def gpu_named(text: str) -> GpuModel | None:
    """The first NVIDIA GPU model `text` names, by the table's order (its most specific patterns first)."""
    for pattern, capability, architecture in _gpu_patterns():
        found = pattern.search(text)
        if found is not None:
            return GpuModel(found.group(0), capability, architecture)
    return None


def first_capability(architecture: str) -> str | None:
    """The lowest compute capability of the GPUs of an architecture ("Ampere" -> "8.0", "Ada" -> "8.9"), by the
    table's rows whose architecture's name begins with it."""
    found = [capability for _, capability, name in _gpu_patterns() if name.split(" (")[0].startswith(architecture)]
    return min(found, key=lambda c: tuple(int(part) for part in c.split("."))) if found else None


@lru_cache(maxsize=1)
def _headers() -> tuple[Header, ...]:
    rows = [Header(r["header"], r["provider"], r["apt"], r["source"]) for r in _doc("system-headers")["rows"]]
    return tuple(sorted(rows, key=lambda h: len(h.header), reverse=True))


def header_provider(header: str) -> Header | None:
    """Who installs an #include (system-headers.json): the longest entry that is the header or a folder above it."""
    return next(
        (h for h in _headers() if header == h.header or (h.header.endswith("/") and header.startswith(h.header))),
        None,
    )
