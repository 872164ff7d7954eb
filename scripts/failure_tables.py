"""Write the failure tables the `explain` engine reads: compat_matrix/failures/*.json.

What: four JSON tables, each {"title", "source", "generated_by", "rows"}:
  cuda-runtime-errors.json  every cudaError_t value: code, name, cudaGetErrorString's text, the header's doc comment
  cuda-driver-errors.json   every CUresult value (CUDA_ERROR_*): code, name, the header's doc comment
  nccl-results.json         every ncclResult_t value: code, name, ncclGetErrorString's text, the header's comment
  libraries.json            every shared library an installed wheel's RECORD lists, and the wheel that ships it
Each error row also carries a "class": "environment" (the install, driver, device or system configuration is at
fault), "not-environment" (the user's program or its resources) or "unknown"; that judgement is ours, written down
below as explicit name -> (class, reason) tables, and everything not named there is "unknown".

Why: an error message names a code, an error string or a library file; to explain it, xladoctor needs the exact
text NVIDIA's libraries print and which wheel a library comes from. None of it is typed by hand: codes, names and
doc comments are parsed from the headers the NVIDIA wheels install (driver_types.h, cuda.h, nccl.h), the strings
come from calling cudaGetErrorString / cudaGetErrorName / ncclGetErrorString in the installed libcudart.so.12 and
libnccl.so.2 through ctypes (no GPU or driver is needed for those), and libraries from each wheel's RECORD.

Usage (standard library only, Python 3.11):
  python scripts/failure_tables.py --env ~/.cache/xladoctor/test-envs/torch29-xla29-<hash>
--env is a venv with torch's CUDA build (nvidia-*-cu12 wheels, torch, torch_xla). Libraries are also read from
jaxlib and tensorflow(-cpu) in the venvs given by --extra-env (repeatable); without it, the sibling venvs
jax-cpu-* and tensorflow-cpu-* next to --env are used.
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import email.parser
import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

GENERATED_BY = "scripts/failure_tables.py"
OUT_DIR = Path(__file__).resolve().parent.parent / "compat_matrix" / "failures"

ENVIRONMENT = "environment"
NOT_ENVIRONMENT = "not-environment"
UNKNOWN = "unknown"

# Files read from the --env venv's site-packages.
DRIVER_TYPES_H = "nvidia/cuda_runtime/include/driver_types.h"
CUDA_H = "nvidia/cuda_runtime/include/cuda.h"
CUDA_RUNTIME_API_H = "nvidia/cuda_runtime/include/cuda_runtime_api.h"
LIBCUDART = "nvidia/cuda_runtime/lib/libcudart.so.12"
NCCL_H = "nvidia/nccl/include/nccl.h"
LIBNCCL = "nvidia/nccl/lib/libnccl.so.2"

# Where each enum is declared: the regex's "body" group is the text between its braces.
RUNTIME_ENUM = re.compile(r"enum\s+__device_builtin__\s+cudaError\s*\{(?P<body>[^{}]*)\}\s*;")
DRIVER_ENUM = re.compile(r"typedef\s+enum\s+cudaError_enum\s*\{(?P<body>[^{}]*)\}\s*CUresult\s*;")
NCCL_ENUM = re.compile(r"typedef\s+enum\s*\{(?P<body>[^{}]*)\}\s*ncclResult_t\s*;")

# Enumerators that are not results a call can return.
SENTINELS = {"ncclNumResults": "the number of ncclResult_t values, not a result"}

# The class of a code: name -> (class, one-line reason). A name not listed is "unknown".
# Listed are only codes whose cause is clear from the header's own description. Codes that either side can cause
# stay "unknown", among them: cudaErrorInvalidDevice / CUDA_ERROR_INVALID_DEVICE (a wrong ordinal, or fewer visible
# devices than the program expects), cudaErrorInvalidDeviceFunction (missing, or not built for this architecture),
# CUDA_ERROR_NOT_INITIALIZED (cuInit never called, e.g. after fork, or cuInit failed), cudaErrorInvalidPtx,
# cudaErrorLaunchFailure, cudaErrorLaunchTimeout, cudaErrorNotSupported, cudaErrorContained, ncclUnhandledCudaError,
# ncclInternalError and ncclRemoteError (a peer exited, or the network failed). Successes are "unknown" too.
CUDA_RUNTIME_CLASS: dict[str, tuple[str, str]] = {
    # environment: the install, driver, device or system configuration
    "cudaErrorInitializationError": (ENVIRONMENT, "the CUDA driver and runtime could not be initialized"),
    "cudaErrorStubLibrary": (ENVIRONMENT, "a stub libcuda was loaded instead of the real driver"),
    "cudaErrorInsufficientDriver": (ENVIRONMENT, "the installed driver is older than the CUDA runtime"),
    "cudaErrorCallRequiresNewerDriver": (ENVIRONMENT, "the call needs a newer driver than the one installed"),
    "cudaErrorDevicesUnavailable": (ENVIRONMENT, "devices are busy or unavailable (compute mode, other processes)"),
    "cudaErrorNoDevice": (ENVIRONMENT, "no CUDA-capable device is visible to the process"),
    "cudaErrorDeviceNotLicensed": (ENVIRONMENT, "the device is not licensed for this use"),
    "cudaErrorSoftwareValidityNotEstablished": (ENVIRONMENT, "the driver's software validity checks failed"),
    "cudaErrorStartupFailure": (ENVIRONMENT, "the CUDA runtime failed during its own startup"),
    "cudaErrorNoKernelImageForDevice": (ENVIRONMENT, "the build has no kernel for this GPU's architecture"),
    "cudaErrorDeviceAlreadyInUse": (ENVIRONMENT, "an exclusive-thread device is already in use"),
    "cudaErrorECCUncorrectable": (ENVIRONMENT, "the device reported an uncorrectable ECC memory error"),
    "cudaErrorNvlinkUncorrectable": (ENVIRONMENT, "the device reported an uncorrectable NVLink error"),
    "cudaErrorJitCompilerNotFound": (ENVIRONMENT, "the PTX JIT compiler library is missing from the driver install"),
    "cudaErrorUnsupportedPtxVersion": (ENVIRONMENT, "the PTX is newer than the installed driver can compile"),
    "cudaErrorJitCompilationDisabled": (ENVIRONMENT, "PTX JIT compilation is disabled in this configuration"),
    "cudaErrorSharedObjectSymbolNotFound": (ENVIRONMENT, "a shared library lacks a symbol: mismatched versions"),
    "cudaErrorSharedObjectInitFailed": (ENVIRONMENT, "a shared library failed to initialise"),
    "cudaErrorOperatingSystem": (ENVIRONMENT, "an operating-system call failed"),
    "cudaErrorNotPermitted": (ENVIRONMENT, "the operation is not permitted in this system configuration"),
    "cudaErrorSystemNotReady": (ENVIRONMENT, "the system is not ready (e.g. fabric manager or driver services)"),
    "cudaErrorSystemDriverMismatch": (ENVIRONMENT, "the display driver and the CUDA driver versions do not match"),
    "cudaErrorCompatNotSupportedOnDevice": (ENVIRONMENT, "CUDA forward compatibility is not supported on this device"),
    "cudaErrorMpsConnectionFailed": (ENVIRONMENT, "the MPS client could not connect to the MPS server"),
    "cudaErrorMpsRpcFailure": (ENVIRONMENT, "the MPS client-server RPC failed"),
    "cudaErrorMpsServerNotReady": (ENVIRONMENT, "the MPS server is not ready"),
    "cudaErrorMpsMaxClientsReached": (ENVIRONMENT, "the MPS server's client limit is reached"),
    "cudaErrorMpsMaxConnectionsReached": (ENVIRONMENT, "the MPS server's connection limit is reached"),
    # not-environment: the user's program or its resources
    "cudaErrorInvalidValue": (NOT_ENVIRONMENT, "an argument of the call is out of range"),
    "cudaErrorMemoryAllocation": (NOT_ENVIRONMENT, "out of memory: the program asked for more than is free"),
    "cudaErrorInvalidConfiguration": (NOT_ENVIRONMENT, "the launch asks for more threads or shared memory than exist"),
    "cudaErrorInvalidPitchValue": (NOT_ENVIRONMENT, "a pitch argument is out of range"),
    "cudaErrorInvalidSymbol": (NOT_ENVIRONMENT, "a symbol argument is not a valid name"),
    "cudaErrorInvalidHostPointer": (NOT_ENVIRONMENT, "a host pointer argument is invalid"),
    "cudaErrorInvalidDevicePointer": (NOT_ENVIRONMENT, "a device pointer argument is invalid"),
    "cudaErrorInvalidMemcpyDirection": (NOT_ENVIRONMENT, "the memcpy direction argument is invalid"),
    "cudaErrorInvalidResourceHandle": (NOT_ENVIRONMENT, "a handle argument (stream, event, ...) is invalid"),
    "cudaErrorIllegalAddress": (NOT_ENVIRONMENT, "a kernel accessed an illegal memory address"),
    "cudaErrorLaunchOutOfResources": (NOT_ENVIRONMENT, "the launch needs more registers or resources than exist"),
    "cudaErrorAssert": (NOT_ENVIRONMENT, "a device-side assert failed in a kernel"),
    "cudaErrorHardwareStackError": (NOT_ENVIRONMENT, "a kernel corrupted or overflowed its stack"),
    "cudaErrorIllegalInstruction": (NOT_ENVIRONMENT, "a kernel executed an illegal instruction"),
    "cudaErrorMisalignedAddress": (NOT_ENVIRONMENT, "a kernel accessed a misaligned address"),
    "cudaErrorInvalidAddressSpace": (NOT_ENVIRONMENT, "a kernel used an address in the wrong address space"),
    "cudaErrorInvalidPc": (NOT_ENVIRONMENT, "a kernel's program counter became invalid"),
    "cudaErrorCooperativeLaunchTooLarge": (NOT_ENVIRONMENT, "a cooperative launch asks for more blocks than fit"),
}

CUDA_DRIVER_CLASS: dict[str, tuple[str, str]] = {
    # environment
    "CUDA_ERROR_STUB_LIBRARY": (ENVIRONMENT, "a stub libcuda was loaded instead of the real driver"),
    "CUDA_ERROR_DEVICE_UNAVAILABLE": (ENVIRONMENT, "the device is busy or unavailable (compute mode, other processes)"),
    "CUDA_ERROR_NO_DEVICE": (ENVIRONMENT, "no CUDA-capable device is visible to the process"),
    "CUDA_ERROR_DEVICE_NOT_LICENSED": (ENVIRONMENT, "the device is not licensed for this use"),
    "CUDA_ERROR_NO_BINARY_FOR_GPU": (ENVIRONMENT, "the build has no kernel for this GPU's architecture"),
    "CUDA_ERROR_ECC_UNCORRECTABLE": (ENVIRONMENT, "the device reported an uncorrectable ECC memory error"),
    "CUDA_ERROR_NVLINK_UNCORRECTABLE": (ENVIRONMENT, "the device reported an uncorrectable NVLink error"),
    "CUDA_ERROR_JIT_COMPILER_NOT_FOUND": (ENVIRONMENT, "the PTX JIT compiler library is missing from the driver"),
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": (ENVIRONMENT, "the PTX is newer than the installed driver can compile"),
    "CUDA_ERROR_JIT_COMPILATION_DISABLED": (ENVIRONMENT, "PTX JIT compilation is disabled in this configuration"),
    "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND": (ENVIRONMENT, "a shared library lacks a symbol: mismatched versions"),
    "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED": (ENVIRONMENT, "a shared library failed to initialise"),
    "CUDA_ERROR_OPERATING_SYSTEM": (ENVIRONMENT, "an operating-system call failed"),
    "CUDA_ERROR_NOT_PERMITTED": (ENVIRONMENT, "the operation is not permitted in this system configuration"),
    "CUDA_ERROR_SYSTEM_NOT_READY": (ENVIRONMENT, "the system is not ready (e.g. fabric manager or driver services)"),
    "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH": (ENVIRONMENT, "the display driver and the CUDA driver versions do not match"),
    "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE": (ENVIRONMENT, "CUDA forward compatibility is unsupported here"),
    "CUDA_ERROR_MPS_CONNECTION_FAILED": (ENVIRONMENT, "the MPS client could not connect to the MPS server"),
    "CUDA_ERROR_MPS_RPC_FAILURE": (ENVIRONMENT, "the MPS client-server RPC failed"),
    "CUDA_ERROR_MPS_SERVER_NOT_READY": (ENVIRONMENT, "the MPS server is not ready"),
    "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED": (ENVIRONMENT, "the MPS server's client limit is reached"),
    "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED": (ENVIRONMENT, "the MPS server's connection limit is reached"),
    # not-environment
    "CUDA_ERROR_INVALID_VALUE": (NOT_ENVIRONMENT, "an argument of the call is out of range"),
    "CUDA_ERROR_OUT_OF_MEMORY": (NOT_ENVIRONMENT, "out of memory: the program asked for more than is free"),
    "CUDA_ERROR_INVALID_HANDLE": (NOT_ENVIRONMENT, "a handle argument is invalid"),
    "CUDA_ERROR_ILLEGAL_ADDRESS": (NOT_ENVIRONMENT, "a kernel accessed an illegal memory address"),
    "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES": (NOT_ENVIRONMENT, "the launch needs more registers or resources than exist"),
    "CUDA_ERROR_ASSERT": (NOT_ENVIRONMENT, "a device-side assert failed in a kernel"),
    "CUDA_ERROR_HARDWARE_STACK_ERROR": (NOT_ENVIRONMENT, "a kernel corrupted or overflowed its stack"),
    "CUDA_ERROR_ILLEGAL_INSTRUCTION": (NOT_ENVIRONMENT, "a kernel executed an illegal instruction"),
    "CUDA_ERROR_MISALIGNED_ADDRESS": (NOT_ENVIRONMENT, "a kernel accessed a misaligned address"),
    "CUDA_ERROR_INVALID_ADDRESS_SPACE": (NOT_ENVIRONMENT, "a kernel used an address in the wrong address space"),
    "CUDA_ERROR_INVALID_PC": (NOT_ENVIRONMENT, "a kernel's program counter became invalid"),
    "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE": (NOT_ENVIRONMENT, "a cooperative launch asks for more blocks than fit"),
}

NCCL_CLASS: dict[str, tuple[str, str]] = {
    "ncclSystemError": (ENVIRONMENT, "a system call failed: network, shared memory, limits or the device setup"),
    "ncclInvalidArgument": (NOT_ENVIRONMENT, "the program passed an invalid argument"),
    "ncclInvalidUsage": (NOT_ENVIRONMENT, "the program used the API wrongly (call order, mismatched ranks)"),
}


@dataclass(frozen=True)
class Enumerator:
    """One `NAME = value` of a C enum, with the comment that documents it ("" when none)."""

    name: str
    value: int
    comment: str


@dataclass(frozen=True)
class Dist:
    """An installed distribution: its normalised name, version, dist-info folder and site-packages."""

    name: str
    version: str
    dist_info: Path
    site_packages: Path

    @property
    def label(self) -> str:
        return f"{self.name}=={self.version}"

    def record(self) -> list[str]:
        """The paths the wheel's RECORD lists, relative to site-packages."""
        with (self.dist_info / "RECORD").open(newline="", encoding="utf-8") as handle:
            return [row[0] for row in csv.reader(handle) if row]


class TableError(Exception):
    """An artefact is missing or does not say what the script expects: it stops with exit 2 and one line."""


_ENUM_TOKEN = re.compile(
    r"""
      (?P<comment>/\*.*?\*/)
    | (?P<line_comment>//[^\n]*)
    | (?P<member>(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<value>-?(?:0[xX][0-9a-fA-F]+|\d+)))
    | (?P<comma>,)
    | (?P<space>\s+)
    | (?P<other>.)
    """,
    re.S | re.X,
)
_SHARED_LIBRARY = re.compile(r"\.so(?:\.\d+)*$")
_ABBREVIATIONS = ("i.e.", "e.g.", "etc.", "vs.", "cf.")


def normalise(name: str) -> str:
    """PEP 503 name: lower case, runs of '-', '_' and '.' made one '-'."""
    return re.sub(r"[-_.]+", "-", name).lower()


def clean_comment(raw: str) -> str:
    """The text of a C comment: delimiters and each line's leading '*' dropped, whitespace collapsed."""
    if raw.startswith("//"):
        text = raw[2:]
    else:
        text = raw[2:-2]
        text = text.removeprefix("*").removeprefix("<")
        text = "\n".join(re.sub(r"^\s*\*(?!/)", "", line) for line in text.splitlines())
    return " ".join(text.split())


def first_sentences(text: str, count: int = 2) -> str:
    """The first `count` sentences: a sentence ends at '.', '!' or '?' followed by white space and a capital,
    a backslash (a Doxygen command), ':' (a Doxygen link) or the end, unless the word is an abbreviation or a
    single letter (the "a." of a list)."""
    found = 0
    for match in re.finditer(r"[.!?](?=\s+[A-Z\\:]|\s*$)", text):
        word = text[: match.end()].rsplit(" ", 1)[-1]
        if word.lower() in _ABBREVIATIONS or re.fullmatch(r"[A-Za-z]\.", word):  # "i.e.", or a list's "a."
            continue
        found += 1
        if found == count:
            return text[: match.end()].strip()
    return text.strip()


def parse_enum(text: str, pattern: re.Pattern[str], where: str) -> list[Enumerator]:
    """Every `NAME = value` between the braces `pattern` finds in `text`, each with the comment before it (or a
    trailing `/**< ... */` after it). Anything else in the body (a preprocessor line, an enumerator without an
    explicit value) is an error, so a header that changed shape fails loudly rather than losing rows."""
    match = pattern.search(text)
    if match is None:
        raise TableError(f"{where}: no enum matching {pattern.pattern!r}")
    members: list[Enumerator] = []
    pending = ""
    for token in _ENUM_TOKEN.finditer(match.group("body")):
        kind = token.lastgroup
        if kind in ("comment", "line_comment"):
            raw = token.group(kind)
            if raw.startswith("/**<") and members:
                last = members[-1]
                members[-1] = Enumerator(last.name, last.value, clean_comment(raw))
            else:
                pending = clean_comment(raw)
        elif kind == "member":
            value = token.group("value")
            number = int(value, 16) if value.lower().lstrip("-").startswith("0x") else int(value, 10)
            members.append(Enumerator(token.group("name"), number, pending))
            pending = ""
        elif kind == "other":
            body = match.group("body")
            context = body[max(0, token.start() - 40) : token.start() + 40]
            raise TableError(f"{where}: unexpected text in the enum near {context!r}")
    if not members:
        raise TableError(f"{where}: the enum has no members")
    names = [member.name for member in members]
    if len(set(names)) != len(names):
        raise TableError(f"{where}: an enumerator is declared twice")
    return members


def site_packages(env: Path) -> Path:
    """The one lib/pythonX.Y/site-packages of a venv."""
    found = sorted(env.glob("lib/python*/site-packages"))
    if len(found) != 1:
        raise TableError(f"{env}: expected one lib/python*/site-packages, found {len(found)}")
    return found[0]


def dists(sp: Path, pattern: str) -> list[Dist]:
    """The distributions in `sp` whose dist-info folder matches `pattern`, read from their METADATA."""
    result = []
    for dist_info in sorted(sp.glob(pattern)):
        metadata = email.parser.HeaderParser().parsestr((dist_info / "METADATA").read_text(encoding="utf-8"))
        name, version = metadata.get("Name"), metadata.get("Version")
        if not name or not version:
            raise TableError(f"{dist_info}/METADATA: no Name or Version")
        result.append(Dist(normalise(name), version, dist_info, sp))
    return result


def owner(sp: Path, path: str) -> Dist:
    """The installed distribution whose RECORD lists `path`."""
    for dist in dists(sp, "*.dist-info"):
        if path in dist.record():
            return dist
    raise TableError(f"{sp}: no installed wheel's RECORD lists {path}")


def read(sp: Path, path: str) -> str:
    file = sp / path
    if not file.is_file():
        raise TableError(f"{file}: not found")
    return file.read_text(encoding="utf-8", errors="strict")


def load(sp: Path, path: str) -> ctypes.CDLL:
    file = sp / path
    if not file.is_file():
        raise TableError(f"{file}: not found")
    try:
        return ctypes.CDLL(str(file))
    except OSError as exc:
        raise TableError(f"{file}: cannot be loaded: {exc}") from exc


def string_function(library: ctypes.CDLL, name: str) -> Callable[[int], str]:
    """`const char* name(int)` from `library`, as a Python function of the code."""
    function = getattr(library, name)
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_char_p

    def call(code: int) -> str:
        result = function(code)
        if not isinstance(result, bytes):
            raise TableError(f"{name}({code}) returned NULL")
        return result.decode("utf-8")

    return call


def int_version(library: ctypes.CDLL, name: str) -> int:
    """`status name(int*)`, as cudaRuntimeGetVersion and ncclGetVersion are; the int it writes."""
    version = ctypes.c_int(0)
    status = getattr(library, name)(ctypes.byref(version))
    if status != 0:
        raise TableError(f"{name} returned {status}")
    return version.value


def header_define(text: str, name: str, where: str) -> int:
    match = re.search(rf"^\s*#\s*define\s+{name}\s+(\d+)\s*$", text, re.M)
    if match is None:
        raise TableError(f"{where}: no #define {name}")
    return int(match.group(1))


def classify(name: str, table: dict[str, tuple[str, str]]) -> str:
    return table[name][0] if name in table else UNKNOWN


def check_class_names(table: dict[str, tuple[str, str]], members: Iterable[Enumerator], where: str) -> None:
    """Every name the class table lists must be an enumerator of the header: a rename upstream fails here."""
    missing = sorted(set(table) - {member.name for member in members})
    if missing:
        raise TableError(f"{where}: the class table names codes the header does not declare: {', '.join(missing)}")


def cuda_runtime_table(sp: Path) -> dict[str, object]:
    text = read(sp, DRIVER_TYPES_H)
    members = parse_enum(text, RUNTIME_ENUM, DRIVER_TYPES_H)
    check_class_names(CUDA_RUNTIME_CLASS, members, DRIVER_TYPES_H)
    cudart = load(sp, LIBCUDART)
    # The header and the library must be the same release: CUDART_VERSION against cudaRuntimeGetVersion.
    header_version = header_define(read(sp, CUDA_RUNTIME_API_H), "CUDART_VERSION", CUDA_RUNTIME_API_H)
    library_version = int_version(cudart, "cudaRuntimeGetVersion")
    if header_version != library_version:
        raise TableError(f"CUDART_VERSION {header_version} in the header, {library_version} from {LIBCUDART}")
    get_string = string_function(cudart, "cudaGetErrorString")
    get_name = string_function(cudart, "cudaGetErrorName")
    rows = []
    for member in sorted(members, key=lambda member: member.value):
        library_name = get_name(member.value)
        if library_name != member.name:
            raise TableError(f"{DRIVER_TYPES_H} says {member.value} is {member.name}, cudaGetErrorName: {library_name}")
        rows.append(
            {
                "code": member.value,
                "name": member.name,
                "string": get_string(member.value),
                "meaning": first_sentences(member.comment),
                "class": classify(member.name, CUDA_RUNTIME_CLASS),
            }
        )
    dist = owner(sp, DRIVER_TYPES_H)
    if owner(sp, LIBCUDART) != dist:
        raise TableError(f"{DRIVER_TYPES_H} and {LIBCUDART} come from different wheels")
    return {
        "title": "CUDA runtime API errors (cudaError_t): code, name, cudaGetErrorString text, header description, "
        "and whether the environment is at fault",
        "source": f"{dist.label}: {DRIVER_TYPES_H} (enum cudaError: codes, names, doc comments); "
        f"{LIBCUDART} (cudaGetErrorString, cudaGetErrorName; CUDA runtime {library_version})",
        "generated_by": GENERATED_BY,
        "rows": rows,
    }


def cuda_driver_table(sp: Path) -> dict[str, object]:
    text = read(sp, CUDA_H)
    members = parse_enum(text, DRIVER_ENUM, CUDA_H)
    check_class_names(CUDA_DRIVER_CLASS, members, CUDA_H)
    rows = [
        {
            "code": member.value,
            "name": member.name,
            "meaning": first_sentences(member.comment),
            "class": classify(member.name, CUDA_DRIVER_CLASS),
        }
        for member in sorted(members, key=lambda member: member.value)
    ]
    cuda_version = header_define(text, "CUDA_VERSION", CUDA_H)
    return {
        "title": "CUDA driver API errors (CUresult, CUDA_ERROR_*): code, name, header description, "
        "and whether the environment is at fault",
        "source": f"{owner(sp, CUDA_H).label}: {CUDA_H} (enum cudaError_enum, CUDA_VERSION {cuda_version})",
        "generated_by": GENERATED_BY,
        "rows": rows,
    }


def nccl_table(sp: Path) -> dict[str, object]:
    text = read(sp, NCCL_H)
    members = [member for member in parse_enum(text, NCCL_ENUM, NCCL_H) if member.name not in SENTINELS]
    check_class_names(NCCL_CLASS, members, NCCL_H)
    nccl = load(sp, LIBNCCL)
    header_version = header_define(text, "NCCL_VERSION_CODE", NCCL_H)
    library_version = int_version(nccl, "ncclGetVersion")
    if header_version != library_version:
        raise TableError(f"NCCL_VERSION_CODE {header_version} in the header, {library_version} from {LIBNCCL}")
    get_string = string_function(nccl, "ncclGetErrorString")
    rows = [
        {
            "code": member.value,
            "name": member.name,
            "string": get_string(member.value),
            "meaning": first_sentences(member.comment),
            "class": classify(member.name, NCCL_CLASS),
        }
        for member in sorted(members, key=lambda member: member.value)
    ]
    dist = owner(sp, NCCL_H)
    if owner(sp, LIBNCCL) != dist:
        raise TableError(f"{NCCL_H} and {LIBNCCL} come from different wheels")
    return {
        "title": "NCCL results (ncclResult_t): code, name, ncclGetErrorString text, header comment, "
        "and whether the environment is at fault",
        "source": f"{dist.label}: {NCCL_H} (ncclResult_t; NCCL_VERSION_CODE {header_version}); "
        f"{LIBNCCL} (ncclGetErrorString)",
        "generated_by": GENERATED_BY,
        "rows": rows,
    }


# Which wheels' shared libraries libraries.json lists: (dist-info glob, path prefix or "" for all, where it must
# be found: "env" = the --env venv, "extra" = one of the --extra-env venvs).
LIBRARY_SOURCES: tuple[tuple[str, str, str], ...] = (
    ("nvidia_*_cu12-*.dist-info", "", "env"),
    ("torch-*.dist-info", "torch/lib/", "env"),
    ("torch_xla-*.dist-info", "", "env"),
    ("jaxlib-*.dist-info", "", "extra"),
    ("tensorflow_cpu-*.dist-info", "", "extra"),
)


def libraries_table(env_sp: Path, extra_sps: Sequence[Path]) -> dict[str, object]:
    rows: set[tuple[str, str, str, str]] = set()
    read_from: list[str] = []
    for pattern, prefix, where in LIBRARY_SOURCES:
        found = dists(env_sp, pattern) if where == "env" else [d for sp in extra_sps for d in dists(sp, pattern)]
        if not found:
            raise TableError(f"no {pattern} in the {'--env' if where == 'env' else '--extra-env'} venvs")
        for dist in found:
            paths = [path for path in dist.record() if path.startswith(prefix) and _SHARED_LIBRARY.search(path)]
            if not paths:
                raise TableError(f"{dist.dist_info}/RECORD lists no shared library under {prefix or '.'}")
            for path in paths:
                rows.add((path.rsplit("/", 1)[-1], dist.name, dist.version, path))
            label = f"{dist.label} ({dist.dist_info.name}/RECORD{', ' + prefix + ' only' if prefix else ''})"
            if label not in read_from:
                read_from.append(label)
    return {
        "title": "Shared libraries (*.so, *.so.N) each installed wheel ships, from its RECORD",
        "source": "RECORD of " + "; ".join(read_from),
        "generated_by": GENERATED_BY,
        "rows": [
            {"library": library, "package": package, "version": version, "path": path}
            for library, package, version, path in sorted(rows)
        ],
    }


def write(out_dir: Path, filename: str, table: dict[str, object]) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    (out_dir / filename).write_text(text, encoding="utf-8")
    rows = table["rows"]
    assert isinstance(rows, list)
    return len(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--env", type=Path, required=True, help="venv with torch's CUDA build and nvidia-*-cu12")
    parser.add_argument(
        "--extra-env",
        type=Path,
        action="append",
        default=None,
        help="venv with jaxlib or tensorflow-cpu (repeatable; default: jax-cpu-* and tensorflow-cpu-* next to --env)",
    )
    parser.add_argument("--out", type=Path, default=OUT_DIR, help=f"output folder (default {OUT_DIR})")
    args = parser.parse_args(argv)
    env: Path = args.env.expanduser().resolve()
    try:
        sp = site_packages(env)
        extras: list[Path] = args.extra_env
        if extras is None:
            siblings = sorted(env.parent.glob("jax-cpu-*")) + sorted(env.parent.glob("tensorflow-cpu-*"))
            extras = [path for path in siblings if path.is_dir()]
        extra_sps = [site_packages(extra.expanduser().resolve()) for extra in extras]
        tables = {
            "cuda-runtime-errors.json": cuda_runtime_table(sp),
            "cuda-driver-errors.json": cuda_driver_table(sp),
            "nccl-results.json": nccl_table(sp),
            "libraries.json": libraries_table(sp, extra_sps),
        }
    except (TableError, OSError, UnicodeDecodeError) as exc:
        print(f"failure_tables: {exc}", file=sys.stderr)
        return 2
    for filename, table in tables.items():
        count = write(args.out, filename, table)
        print(f"{args.out / filename}: {count} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
