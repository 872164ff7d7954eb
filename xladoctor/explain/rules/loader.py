"""The dynamic loader: a library that is not there, a symbol it lacks, a C/C++ runtime that is too old, on Linux,
macOS and Windows. What ships each library is a table (compat_matrix/failures/libraries.json, read from the
wheels' RECORD files; system-libraries.json for the driver and the system's own)."""

from __future__ import annotations

import re
import shlex

from xladoctor.explain.records import (
    COMPILED_TOP_MODULES,
    Failure,
    file_name,
    installed_package,
    is_distribution_file,
    owner_of,
)
from xladoctor.explain.rules import DISTRIBUTION_OF, Lead, installable, rule
from xladoctor.fix import Fix, install, shell, system_install
from xladoctor.matrix.failures import library_named
from xladoctor.sanitize import scrubbed_head

# glibc elf/dl-load.c: "cannot open shared object file"; dl-lookup.c: "undefined symbol: %s";
# dl-version.c: "version `%s' not found (required by %s)"
GLIBC = "https://sourceware.org/git/?p=glibc.git;a=blob;f=elf/dl-load.c"
DLERROR = "https://sourceware.org/git/?p=glibc.git;a=blob;f=elf/dl-lookup.c"
# CPython Python/dynload_win.c: "DLL load failed while importing %s: %s"; torch/__init__.py _load_dll_libraries
WINDOWS = "https://github.com/python/cpython/blob/main/Python/dynload_win.c"
DYLD = "https://developer.apple.com/documentation/xcode (dyld: 'Library not loaded')"
# Itanium C++ ABI mangling: _ZN <length><name> ... ; the first names are the namespace
_NAMESPACES = {
    "c10": "torch", "at": "torch", "torch": "torch", "caffe2": "torch", "xla": "torch_xla or jaxlib",
    "torch_xla": "torch_xla", "tensorflow": "tensorflow", "tsl": "tensorflow", "absl": "abseil (bundled by the "
    "framework)", "pybind11": "pybind11", "triton": "triton", "mlir": "the MLIR of jaxlib or triton", "llvm": "LLVM",
}  # fmt: skip
# a Python extension built in a source checkout (a project's python/ or build/ folder, a module's compiled part);
# a system library is none (Mesa's drivers link LLVM too), nor a wheel's file (records.installed_package)
_SOURCE_BUILD = re.compile(r"[/\\](?:python|build|src)[/\\]|[/\\]_C[/\\]|\.cpython-\d+")
_SYSTEM_LIBRARY = re.compile(r"^/(?:usr/)?(?:local/)?lib(?:32|64)?/|^/opt/rocm")
# LLVM's C API (llvm-c/*.h: LLVMInitializeX86Target, LLVMCreateTargetMachine): its functions are not mangled;
# llvmlite's own exports (LLVMPY_*) are its, not LLVM's
_LLVM_C_API = re.compile(r"LLVM(?!PY_)[A-Z]\w{2,200}")


def _fix_for(library: str) -> tuple[str, Fix | None]:
    """Who ships `library`, in words, and how to put it back."""
    found = library_named(library)
    if found is None:
        return (
            f"No package of the table ships {library}: find which one should (`ldd` on the library that needs it)",
            shell(f"ldconfig -p | grep -F {library.split('.so')[0]}  # is any copy on the loader's path?"),
        )
    if not found.wheel and found.apt:
        return f"{library} comes from {found.package} ({found.note})", system_install("apt", found.apt)
    if not found.wheel:
        return f"{library} comes from {found.package}: {found.note}", None
    exact = found.library == library
    what = (
        found.package
        if exact
        else f"the {found.package.rsplit('-cu', 1)[0]} wheel for your CUDA ({found.package} ships {found.library})"
    )
    return f"{library} is shipped by {what}", install((found.package, "")) if exact else None


# torch's own shared libraries (torch/lib/): an extension linked against them finds them only once torch has loaded
# them, and finds libtorch_cuda_cu/libtorch_cuda_cpp only in the older torch builds that split libtorch_cuda in two
# (BUILD_SPLIT_CUDA, https://github.com/pytorch/pytorch/pull/49050; deleted in October 2022,
# https://github.com/pytorch/pytorch/pull/87502)
_TORCH_OWN = re.compile(
    r"lib(?:c10|c10_cuda|c10_hip|torch|torch_cpu|torch_cuda|torch_cuda_cu|torch_cuda_cpp|torch_hip|torch_python|shm)\.so$"
)
_TORCH_SPLIT = ("libtorch_cuda_cu.so", "libtorch_cuda_cpp.so")


def _torch_own_library(library: str, failure: Failure) -> Lead:
    extension = failure.last_frame.code.split()[-1] if failure.last_frame and failure.last_frame.code else ""
    which = f" ({extension})" if extension and extension.isidentifier() else ""
    if library in _TORCH_SPLIT:
        cause = (
            f"{library} is a library only older torch builds have (they split libtorch_cuda.so in two until late "
            f"2022): the compiled extension that asks for it{which} was built against an older torch than the one "
            "installed. Rebuild it against this torch (reinstall the package from source with --no-build-isolation, "
            "or install its wheel built for this torch)."
        )
    elif failure.frames and all(frame.owner in (None, "python") for frame in failure.frames):
        # the loader finds a library already loaded by its soname: once torch is imported, its own libraries are
        # never missing. Imported by the user's code alone (no library's frame on the way), the extension came first.
        return Lead(
            f"{library} is torch's own library (torch/lib/), loaded by `import torch`; your code imported the "
            f"compiled extension that needs it{which} before torch, so the loader looked for it on its own path and "
            "did not find it. Import torch first (`import torch`, then the extension): the installation is not at "
            "fault.",
            {"library": library, "package": "torch", "extension": extension},
            verdict="not-environment",
            next=("python -c 'import torch; print(torch.__version__, torch.__file__)'",),
        )
    else:
        cause = (
            f"{library} is torch's own library (torch/lib/): the compiled extension that asks for it{which} is loaded "
            "before torch is (import torch first), or was built against a torch of another environment or release. "
            "Import torch before it; if that does not help, rebuild it against the installed torch."
        )
    return Lead(
        cause,
        {"library": library, "package": "torch", "extension": extension},
        next=("python -c 'import torch; print(torch.__version__, torch.__file__)'",),
    )


@rule(
    "missing-library",
    r"(?P<library>lib[\w.+-]{1,80}?\.so(?:\.[\w.]{1,20})?)(?P<deleted> \(deleted\))?: cannot open shared object file",
    source=GLIBC,
    confidence=0.95,
)
def shared_object_missing(found: re.Match[str], failure: Failure) -> Lead:
    library = found.group("library")
    if found.groupdict().get("deleted"):
        return _deleted_library(found, library)
    return library_missing(library, failure)


def library_missing(library: str, failure: Failure) -> Lead:
    """What a missing `library` means and who ships it."""
    if _TORCH_OWN.match(library):
        return _torch_own_library(library, failure)
    who, fix = _fix_for(library)
    return Lead(
        f"The dynamic loader could not find {library}. {who}; it is missing, or its folder is not on the loader's "
        "path (a wheel installed without its nvidia-* dependencies, an LD_LIBRARY_PATH that points elsewhere).",
        {"library": library},
        fix,
        next=("python -m pip list 2>/dev/null | grep -i -E 'nvidia|torch|jax|tensorflow'", "echo $LD_LIBRARY_PATH"),
    )


@rule(
    "missing-library",
    r"(?<![\w.+-])(?P<library>(?!lib)[A-Za-z_][\w.+-]{0,80}?\.so(?:\.[\w.]{1,20})?): cannot open shared object file",
    source=GLIBC,
    confidence=0.8,
)
def own_module_missing(found: re.Match[str], failure: Failure) -> Lead:
    """A shared object not named lib*: a package's own compiled module (an extension, a config library it builds),
    which no system package or CUDA wheel provides. Its package's install is incomplete."""
    library = found.group("library")
    if "torch_extensions" in failure.haystack[max(0, found.start() - 300) : found.start()]:
        # torch.utils.cpp_extension's JIT build folder (~/.cache/torch_extensions/<py>_<cu>/<op>/): the op was to
        # be compiled on first use, and the build did not produce it
        return Lead(
            f"{library} is an op compiled on first use (torch.utils.cpp_extension's JIT build, under "
            "~/.cache/torch_extensions), and its build did not produce it: the compiler failed earlier in the log "
            "(ninja/nvcc/c++ output: a missing CUDA toolkit or compiler, nvcc of another CUDA than torch's), or a "
            "rank loaded it while another was still building it. Fix that build (or install the package with the "
            "op prebuilt, DeepSpeed: DS_BUILD_<OP>=1 pip install deepspeed), then delete the op's folder there.",
            {"library": library},
            family="build-failure",
            next=("ls ~/.cache/torch_extensions/*/", "which nvcc && nvcc --version", "python -c 'import torch; "
                  "print(torch.version.cuda)'"),
        )  # fmt: skip
    return Lead(
        f"The dynamic loader could not find {library}, a compiled module of a package's own build (not a system or "
        "CUDA library): that package's install is incomplete or for another platform (a source build that skipped "
        "it, a wheel of another variant, a folder moved after the build). Install the package's prebuilt wheel for "
        "this platform and accelerator, or rebuild it from a tagged release.",
        {"library": library},
        next=(f"python -m pip show -f PACKAGE | grep -F '{library.split('.so')[0]}'", "python -m pip check"),
    )


# A wheel's vendored libraries sit in "<package>.libs/" (auditwheel repair: https://github.com/pypa/auditwheel).
_VENDORED_BY = re.compile(r"/(?P<owner>[\w.-]{1,80})\.libs/$")


def _deleted_library(found: re.Match[str], library: str) -> Lead:
    """The kernel shows a mapped file that was removed since as "PATH (deleted)" (proc(5), /proc/PID/maps): the
    library was there when a process loaded it, and the environment's files were changed under the running job."""
    owner_found = _VENDORED_BY.search(found.string[max(0, found.start() - 200) : found.start()])
    owner = owner_found.group("owner") if owner_found else ""
    whose = f"{owner}'s vendored copy of {library}" if owner else library
    return Lead(
        f"{whose} was deleted while a process still used it (the kernel marks its path '(deleted)'): the "
        "environment's files were removed or replaced under a running process (pip or conda reinstalling, upgrading "
        "or cleaning up this environment while the job ran, or a half-finished install). Nothing is wrong with the "
        f"code: reinstall {owner or 'the package that ships it'} at the same version "
        "(pip install --force-reinstall --no-deps 'PACKAGE==VERSION' with the version pip show prints; conda: conda "
        "install --force-reinstall 'PACKAGE=VERSION') and restart the job; avoid installing into an environment a "
        "job is running from.",
        {"library": library, "owner": owner, "deleted": True},
        next=(f"python -m pip show {owner or 'PACKAGE'}", "python -m pip check"),
        confidence=0.85,
    )


@rule(
    "missing-library",
    r"Could not load (?:dynamic )?library '?(?P<library>lib[\w.+-]{1,80}?\.so(?:\.[\w.]{1,20})?)'?",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/tsl/platform/default/dso_loader.cc",
    confidence=0.9,
)
def dynamic_library_not_loaded(found: re.Match[str], failure: Failure) -> Lead | None:
    if "undefined symbol" in failure.haystack[found.end() : found.end() + 400]:
        return None  # found, but it lacks a symbol: two builds mixed (the undefined-symbol rule reads it)
    lead = shared_object_missing(found, failure)
    warning = failure.warning or failure.text.startswith(("W", "I"))
    note = (
        "TensorFlow goes on without the GPU when it cannot load it: harmless on a machine without one."
        if warning
        else None
    )
    return Lead(lead.cause, lead.params, lead.fix, confidence=0.75 if warning else None, next=lead.next, note=note)


@rule(
    "missing-library",
    r"Unable to load (?:any of )?\{?(?P<library>lib[\w.+-]{1,80}?\.so(?:\.[\w.]{1,20})?)",
    source="https://github.com/NVIDIA/cudnn-frontend (cudnn's loader: 'Unable to load any of {libcudnn...}')",
    confidence=0.9,
)
def unable_to_load(found: re.Match[str], failure: Failure) -> Lead:
    return shared_object_missing(found, failure)


# XLA's NCCL stub (jaxlib, TensorFlow) loads libnccl at the first collective; without it every NCCL call fails with
# this text in place of NCCL's own error string. On ROCm the same stub loads RCCL ("RCCL operation ... failed").
@rule(
    "missing-library",
    r"(?P<rccl>RCCL[^\n]{0,120})?Unable to load NCCL library",
    source="https://github.com/openxla/xla/blob/main/xla/tsl/cuda/nccl_stub.cc ('Unable to load NCCL library. "
    "Multi-GPU collectives will not work.')",
    confidence=0.9,
)
def nccl_stub_unloaded(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("rccl"):
        return Lead(
            "XLA could not load RCCL (librccl.so.1), ROCm's NCCL: every collective across GPUs fails without it. "
            "It comes with ROCm (the rccl package); another library that brought its own NCCL can also stand in "
            "its way (TensorFlow loaded in the same process).",
            {"library": "librccl.so.1"},
            None,
            next=("ldconfig -p | grep -F librccl", "echo $LD_LIBRARY_PATH"),
        )
    lead = library_missing("libnccl.so.2", failure)
    return Lead(
        "XLA could not load NCCL (libnccl.so.2), so every collective across GPUs fails. " + lead.cause,
        lead.params, lead.fix, next=lead.next,
    )  # fmt: skip


@rule(
    "missing-library",
    r"Library not loaded:? (?:@rpath/|@loader_path/|[\w./-]{0,200}/)?(?P<library>lib[\w.+-]{1,80}?\.dylib)",
    source=DYLD,
    confidence=0.9,
)
def dylib_not_loaded(found: re.Match[str], failure: Failure) -> Lead:
    library = found.group("library")
    fix = (
        shell("brew install libomp  # the OpenMP runtime torch and xgboost wheels load")
        if "libomp" in library
        else None
    )
    return Lead(
        f"macOS's loader (dyld) could not find {library}, which an installed extension links: install what ships it, "
        "or reinstall the wheel that brings it.",
        {"library": library},
        fix,
    )


_PLAIN_NAME = re.compile(r"[\w.+-]{1,120}")


@rule(
    "missing-library",
    r"Could not find module '(?P<path>[^'\n]{1,400})' \(or one of its dependencies\)",
    # ctypes.CDLL on Windows (Python 3.8+): the DLL, or a DLL it links, is not on the DLL search path, which no longer
    # includes PATH for dependencies (os.add_dll_directory adds a folder)
    source="https://github.com/python/cpython/blob/main/Modules/_ctypes/callproc.c (load_library: 'Could not find "
    "module ... (or one of its dependencies)'); https://docs.python.org/3/library/ctypes.html#loading-shared-libraries",
    confidence=0.85,
)
def ctypes_dll_not_found(found: re.Match[str], failure: Failure) -> Lead:
    path = found.group("path").replace("\\\\", "\\")
    dll = re.split(r"[\\/]", path)[-1]
    return Lead(
        f"Windows could not load {dll} or a DLL it depends on (Python's ctypes): when {path} exists, one of its "
        "dependencies is missing or not on the DLL search path, which from Python 3.8 on no longer takes them from "
        "PATH (the Microsoft Visual C++ Redistributable, a CUDA DLL, a compiler's runtime such as MinGW's). Install "
        "the runtime it needs, or add its folder with os.add_dll_directory(); when the file itself is missing, "
        "reinstall the package that ships it.",
        {"library": dll, "path": path},
        # the log's text goes into a command a person pastes only when it is a plain file name
        next=(
            f"dumpbin /dependents {dll if _PLAIN_NAME.fullmatch(dll) else 'FILE.dll'}  # in the DLL's folder, "
            "from a Visual Studio prompt: the DLLs it needs",
        ),
    )


@rule(
    "missing-library",
    r"^(?:[\w.]*\.)?OSError: (?P<name>[A-Za-z][\w+-]{1,40}) library not found",
    # a binding's own search for its system library failing (python-soundfile: ctypes.util.find_library('sndfile'))
    source="https://github.com/bastibe/python-soundfile/blob/master/soundfile.py ('sndfile library not found')",
    confidence=0.8,
    flags=re.MULTILINE,
)
def system_library_not_found(found: re.Match[str], failure: Failure) -> Lead:
    name = found.group("name")
    known = library_named(f"lib{name}.so")  # the table of who provides a system library (system-libraries.json)
    if known is not None and not known.wheel:
        who, fix = _fix_for(known.library)
        where = f"{who}."
    else:
        where = (
            "No wheel ships it. Install it with the system's package manager (its name varies: apt-cache search "
            f"lib{name}; on macOS brew search {name}) or from conda-forge (conda install -c conda-forge lib{name}), "
            "in the environment the program runs in."
        )
        fix = None
    return Lead(
        f"The system library lib{name} is not installed (a Python binding looked for it and found none). {where}",
        {"library": f"lib{name}"},
        fix,
        next=(f"python -c \"import ctypes.util; print(ctypes.util.find_library('{name}'))\"",),
    )


# ERROR_PROC_NOT_FOUND's text in Windows' other display languages (Chinese, Japanese, Korean, German, French,
# Spanish, Russian): the message of error 127 as FormatMessage gives it there
_PROC_NOT_FOUND = (
    r"找不到指定的程序|找不到指定的程式|指定されたプロシージャが見つかりません|지정된 프로시저를 찾을 수 없습니다"
    r"|Die angegebene Prozedur wurde nicht gefunden|La procédure spécifiée est introuvable"
    r"|No se encontró el procedimiento especificado|Не найдена указанная процедура"
)


@rule(
    "missing-library",
    r"(?:DLL load failed(?: while importing (?P<module>\w+))?|WinError 126\]?)[:,]? ?(?P<why>The specified module "
    r"could not be found|[^\n]{0,200})"
    # torch's own words when a DLL of its lib/ folder fails to load (torch/__init__.py, _load_dll_libraries)
    r"|loading [\"“'][^\"“”'\n]{1,260}\.dll[\"”'] or one of its dependencies"
    # Windows' own text for error 126 (ERROR_MOD_NOT_FOUND), pasted without the line that named it
    r"|\bThe specified module could not be found",
    source=WINDOWS,
    confidence=0.85,
)
def dll_load_failed(found: re.Match[str], failure: Failure) -> Lead:
    module = found.group("module") or ""
    # a console wraps the path anywhere (at "Error loading", or inside a folder's name) and a cut may take its
    # opening quote: the line breaks are the console's, not the path's
    # (from the last "loading" before the name: an earlier "while loading ..." in the same message is other text)
    dll = re.search(r'loading\s{0,3}["“]?(?P<dll>(?:(?!loading)[^"“”]){1,260}?\.dll)["”]', failure.haystack)
    where = dll.group("dll").replace("\n", "").replace("\\\\", "\\") if dll else ""
    name = file_name(where)
    what = f"{name} " if where else f"the extension module {module} " if module else "a DLL "
    shipped = re.search(r"[/\\](?:site|dist)-packages[/\\](?P<package>\w+)[/\\]", where)
    if shipped is not None and shipped.group("package") in ("nvidia",):
        shipped = None  # a namespace of several wheels (nvidia-cudnn-cu12, ...): no one package to reinstall
    why = found.group("why") or ""
    # WinError 127, Windows' "undefined symbol" (ERROR_PROC_NOT_FOUND), as pasted, as translated back to English, and
    # in the words of a Windows in another language (_PROC_NOT_FOUND)
    if re.search(
        r"(?i)specifi(?:ed|c) (?:procedure|program) could not be found|WinError 127\b|" + _PROC_NOT_FOUND,
        failure.haystack,
    ):
        return Lead(
            f"Windows loaded {what}but a function it needs is missing from a DLL it links: two builds of the same "
            "library (torch and a package built for another torch, two CUDA runtimes on PATH). Install the "
            "package's build made for the installed torch (or the torch it was built for).",
            {"module": module, "dll": where},
            verdict=None,
            confidence=0.8,
            family="undefined-symbol",
        )
    if "initialization routine failed" in why or "WinError 1114" in failure.haystack:
        return Lead(
            f"Windows could not initialise {what}(WinError 1114): the Microsoft Visual C++ Redistributable is missing "
            "or old, or two copies of a runtime DLL (libiomp5md, a CUDA DLL) are on PATH.",
            {"module": module, "dll": where, "library": "Visual C++ Redistributable"},
            shell("winget install Microsoft.VCRedist.2015+.x64  # the Visual C++ runtime the wheels link"),
        )
    package = DISTRIBUTION_OF.get(shipped.group("package"), shipped.group("package")) if shipped else ""
    return Lead(
        f"Windows could not load {what}or a DLL it depends on (WinError 126): the Microsoft Visual C++ "
        "Redistributable, a CUDA DLL, or the package's own DLLs are missing."
        + (
            f" {what}is one of {package}'s own files (its install folder): when the Visual C++ runtime is there, "
            f"{package}'s install is broken or incomplete; reinstall {package} (a new venv, from the same index "
            "it came from, so a CUDA build stays one)."
            if package
            else ""
        ),
        {"module": module, "dll": where, "library": "Visual C++ Redistributable"}
        | ({"package": package} if package else {}),
        shell("winget install Microsoft.VCRedist.2015+.x64  # the Visual C++ runtime the wheels link"),
        next=("python -c \"import os; print(os.environ['PATH'])\"  # a second CUDA or MKL first on PATH?",),
    )


@rule(
    "missing-library",
    r"WinError 1114\]?[^\n]{0,120}",
    source=WINDOWS,
    confidence=0.85,
)
def dll_initialisation_failed(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Windows could not initialise a DLL (WinError 1114), typically c10.dll or a CUDA DLL of torch: the Microsoft "
        "Visual C++ Redistributable is missing or old, or another program's copy of a runtime DLL comes first.",
        {"library": "Visual C++ Redistributable"},
        shell("winget install Microsoft.VCRedist.2015+.x64  # the Visual C++ runtime the wheels link"),
    )


def _namespace(symbol: str) -> str | None:
    """The first name of a mangled C++ symbol's nested name (`_ZN3c1010TensorImpl...` -> 'c10')."""
    found = re.match(r"_?_ZN?K?(\d{1,3})", symbol)
    if found is None:
        return None
    length, start = int(found.group(1)), found.end()
    return symbol[start : start + length] or None


# NVIDIA's CUDA libraries, by file name: one of them missing a symbol of another is a mixed set of releases
_CUDA_LIBRARY = re.compile(
    r"(?:^|[/\\])lib(?:cudnn\w*|cublas\w*|cusparse|cusolver|cufft|curand|nvJitLink|nvrtc|cudart)\.so"
)


# The C APIs of NVIDIA's libraries, by their names' prefixes (cudaGetDriverEntryPointByVersion, cublasLtMatmul,
# cusparseCreateCsr, ncclCommRegister, __nvJitLinkComplete_12_4): a symbol of one of them missing is that library
# loaded from another CUDA release than its caller was built with, whoever calls it (FAMILIES.md, cuda-library-mismatch)
_CUDA_APIS = (
    ("cudnn", "cuDNN"), ("cublasLt", "cuBLASLt"), ("cublas", "cuBLAS"), ("cusparseLt", "cuSPARSELt"),
    ("cusparse", "cuSPARSE"),
    ("cusolver", "cuSOLVER"), ("cufft", "cuFFT"), ("curand", "cuRAND"), ("cupti", "CUPTI"), ("nccl", "NCCL"),
    ("nvJitLink", "nvJitLink"), ("nvrtc", "NVRTC"), ("cuda", "CUDA runtime (libcudart)"),
)  # fmt: skip


def cuda_library_of(symbol: str) -> str | None:
    """The NVIDIA library whose C API a symbol belongs to, None for any other (a C++ name, the driver's cuXxx)."""
    name = symbol.lstrip("_")
    for prefix, library in _CUDA_APIS:
        if name.startswith(prefix) and name[len(prefix) : len(prefix) + 1].isupper():
            return library
    return None


def _cuda_api_missing(symbol: str, api: str, library: str, loaded: str = "", macos: bool = False) -> Lead:
    caller = library.replace("\\", "/").rsplit("/", 1)[-1] or "a library"
    which = f"the {api} loaded ({loaded})" if loaded else f"the {api} loaded"
    mixed = (
        "the CUDA libraries a macOS CUDA build of torch links (CUDA ended its macOS support with 10.2) come from "
        "another CUDA install than the one it was built against: install exactly that CUDA release"
        if macos
        else "it comes from another CUDA release than the one "
        f"{caller} was built with (a system CUDA or conda's on the loader's path before the nvidia-* wheels, or an "
        "older nvidia-* wheel than the framework pins). Keep one CUDA: the wheels' own, or the release the framework "
        "was built for"
    )
    return Lead(
        f"{caller} calls {scrubbed_head(symbol, 80)}, a function of {api}, and {which} lacks it: {mixed}.",
        {"symbol": symbol, "library": api, "caller": caller, **({"loaded": loaded} if loaded else {})},
        family="cuda-library-mismatch",
        next=(
            (
                f"otool -L {shlex.quote(library)}  # the CUDA libraries it links, and where"
                if library
                else "otool -L ...",
            )
            if macos
            else (
                "echo $LD_LIBRARY_PATH  # a system CUDA before the wheels'?",
                "python -m pip list 2>/dev/null | grep -i nvidia",
            )
        ),
    )


@rule(
    "undefined-symbol",
    r"(?:(?P<library>[^\s:'\"]{1,300}\.so[\w.]{0,20}): )?undefined symbol:(?: (?P<symbol>[\w$.@*]{1,2000})|[ \t]*$)"
    # the colon lost in a title or a retelling ("undefined symbol ncclCommRegister"): a C name, not a word of prose
    r"|\bundefined symbol (?P<bare>(?=[\w$]{0,200}[A-Z_0-9])[A-Za-z_$][\w$]{3,200})\b",
    source=DLERROR,
    confidence=0.9,
    flags=re.MULTILINE,
)
def undefined_symbol(found: re.Match[str], failure: Failure) -> Lead:
    # the symbol is missing when the log was cut right after "undefined symbol:" (a title, a truncated paste)
    symbol, library = found.group("symbol") or found.group("bare") or "", found.group("library") or ""
    if symbol.startswith("*Z"):
        symbol = symbol.replace("*", "_")  # a paste rendered as Markdown: "_ZN..._" became italics, "*ZN...*"
    version = re.match(r", version (?P<by>lib[\w.+-]{1,80})", failure.haystack[found.end() : found.end() + 120])
    by_cuda = version is not None and _CUDA_LIBRARY.search("/" + version.group("by")) is not None
    if (_CUDA_LIBRARY.search(library) and (version is None or by_cuda)) or (not library and by_cuda):
        # cuDNN's sub-libraries, cuSPARSE and nvJitLink: each is built with the others of its release, and one of
        # another release (two CUDA installs on the loader's path, a pip nvidia-* beside a system one) lacks a symbol
        # with no library named ("undefined symbol: __nvJitLinkCreate_12_8, version libnvJitLink.so.12"), the
        # versioned symbol alone says a CUDA library older than its caller's release was loaded
        name = library.replace("\\", "/").rsplit("/", 1)[-1] or "the library that needs it"
        other = version.group("by") if version else "the CUDA library that defines it"
        return Lead(
            f"{name} and {other} come from different CUDA releases: {name} needs {scrubbed_head(symbol, 80)}, which "
            f"the loaded {other} lacks. Two CUDA installs are mixed on the loader's path (a system CUDA in "
            "LD_LIBRARY_PATH before the nvidia-* wheels, or the reverse): keep one.",
            {"library": name, "other": other, "symbol": symbol},
            family="cuda-library-mismatch",
            next=("echo $LD_LIBRARY_PATH", "python -m pip list 2>/dev/null | grep -i nvidia", "ldconfig -p | grep -E "
                  "'libcudnn|libcublas|libnvJitLink|libcusparse'"),
        )  # fmt: skip
    api = cuda_library_of(symbol)
    if api is not None:
        return _cuda_api_missing(symbol, api, library, version.group("by") if version else "")
    namespace = _namespace(symbol)
    owner = _NAMESPACES.get(namespace or "") or (
        "CUDA's libraries" if symbol.startswith(("cuda", "cu", "cublas", "cudnn")) else
        "NCCL" if symbol.startswith("nccl") else
        "LLVM" if _LLVM_C_API.fullmatch(symbol) else None
    )  # fmt: skip
    if owner == "LLVM" and _built_in_a_source_folder(library):
        return _built_against_another_llvm(symbol, library)
    package = owner_of(library) if library else None
    top = installed_package(library) if library else None
    # pip gets the distribution only where one is known to ship the extension (apex's amp_C is not PyPI's apex)
    shipped = installable(COMPILED_TOP_MODULES.get(top, top).replace("-", "_")) if top else None
    name = library.replace("\\", "/").rsplit("/", 1)[-1] if library else "an extension"
    built = f"{package} ({name})" if package and package != "python" else name
    against = f"another version of {owner}" if owner else "another version of the library that defines it"
    return Lead(
        f"{built} was built against {against} than the one installed: the loaded library has no "
        f"{scrubbed_head(symbol, 80)}. Install the build of {package or 'that package'} made for the installed "
        f"{owner or 'library'} (or move {owner or 'the library'} to the release it was built for).",
        {
            "symbol": symbol,
            "library": library,
            "package": package or "",
            "namespace": namespace or "",
            "owner": owner or "",
        },
        install((shipped, ""), reinstall=True, no_deps=True)
        if shipped and package not in ("python", "torch") and is_distribution_file(library)
        else None,
        next=("python -m pip list 2>/dev/null | grep -i -E 'torch|xla|jax|tensorflow|flash|xformers|vllm'",),
    )


def _built_in_a_source_folder(library: str) -> bool:
    """A Python extension built in a source checkout: not a wheel's file, nor a system library."""
    in_source = _SOURCE_BUILD.search(library) is not None and _SYSTEM_LIBRARY.search(library) is None
    return in_source and installed_package(library) is None


def _built_against_another_llvm(symbol: str, library: str) -> Lead:
    """An extension built from a source checkout (not a wheel) missing an LLVM symbol: the LLVM its build linked (a
    hand-built one, LLVM_SYSPATH) lacks a component the code needs, or another LLVM is found at run time. Triton's
    scripts build LLVM with the targets it uses; an LLVM built by its own defaults or with fewer targets lacks them."""
    name = library.replace("\\", "/").rsplit("/", 1)[-1]
    return Lead(
        f"{name}, built from a source checkout, needs {scrubbed_head(symbol, 80)} from LLVM, and the LLVM it was "
        "linked with lacks it: that LLVM was built without a component or target the project uses (Triton's own "
        "scripts build LLVM with the targets it links), or another LLVM is found at run time. Build that LLVM again "
        "with the flags the project's build scripts or Dockerfiles use (LLVM_TARGETS_TO_BUILD), or let the "
        "project's build download its own prebuilt LLVM, then rebuild the extension.",
        {"symbol": symbol, "library": library, "owner": "LLVM", "component": "LLVM"},
        family="build-failure",
        next=(f"ldd {shlex.quote(library)} | grep -i llvm",),
    )


@rule(
    "undefined-symbol",
    r"Symbol not found: (?P<symbol>\S{1,400})",
    source="dyld (macOS): Symbol not found",
    confidence=0.85,
)
def symbol_not_found(found: re.Match[str], failure: Failure) -> Lead:
    symbol = found.group("symbol").strip("()")  # dyld prints "Symbol not found: (_name)" in newer macOS
    api = cuda_library_of(symbol)
    if api is not None:
        # "Referenced from: <UUID> /path" in newer macOS: the path is the caller
        referenced = re.search(r"Referenced from: (?:<[0-9A-Fa-f-]{8,40}> )?(?P<caller>\S{1,300})", failure.haystack)
        expected = re.search(r"Expected in: (?:<[0-9A-Fa-f-]{8,40}> )?(?P<loaded>\S{1,300})", failure.haystack)
        return _cuda_api_missing(
            symbol.lstrip("_"),
            api,
            referenced.group("caller") if referenced else "",
            expected.group("loaded") if expected else "",
            macos=True,
        )
    system = _MACOS_SYSTEM_LIBRARY.search(failure.haystack)
    if system is not None:
        # the symbol was expected in macOS's own runtime (libc++, libSystem): that macOS is older than the one the
        # library was built for, which dyld names ("which was built for Mac OS X 10.13")
        built = re.search(r"built for (?P<os>(?:Mac OS X|macOS) [\d.]{2,8})", failure.haystack)
        target = f" (it was built for {built.group('os')})" if built else ""
        return Lead(
            f"A library needs {scrubbed_head(symbol, 80)} from macOS's own {system.group('library')}, and this macOS's "
            f"copy lacks it: this macOS is older than the one the wheel was built for{target}. Update macOS, or "
            "install the last release of the package whose wheels still support this macOS.",
            {"symbol": symbol, "library": system.group("library"), "os": built.group("os") if built else ""},
            family="glibc-version",
            next=("sw_vers -productVersion  # this macOS",),
        )
    return Lead(
        f"An extension was built against another version of a library it links: "
        f"{scrubbed_head(found.group('symbol'), 80)} is "
        "not in the one installed. Install the build of that extension made for the installed library.",
        {"symbol": found.group("symbol")},
    )


# dyld's "Expected in:" naming one of macOS's own libraries, the C++ runtime and the system library above all
_MACOS_SYSTEM_LIBRARY = re.compile(
    r"Expected in: (?:<[0-9A-Fa-f-]{8,40}> )?/(?:usr/lib|System/Library/[\w./]{1,200})/"
    r"(?P<library>lib[\w.+]{1,60}\.dylib)"
)


# glibc 2.41 (January 2025) no longer gives a library the executable stack it asks for when the program does not
# have one: dlopen fails instead. The system's C library is newer than the wheel was built for; the library, not
# the system, is to change (built with -z noexecstack), or its flag cleared.
@rule(
    "glibc-version",
    r"(?P<library>[\w.+-]{1,120}\.so[\w.]{0,20}): cannot enable executable stack as shared object requires",
    source="https://github.com/conda-forge/pytorch-cpu-feedstock/issues/350 (glibc 2.41 refuses it; fixed by "
    "building with -Wl,-z,noexecstack, pull 355); https://sourceware.org/git/?p=glibc.git;a=blob;f=NEWS (2.41: "
    "dlopen and executable stacks)",
    confidence=0.95,
)
def executable_stack_refused(found: re.Match[str], failure: Failure) -> Lead:
    library = found.group("library")
    return Lead(
        f"{library} asks for an executable stack, which glibc 2.41 and newer no longer grant a library loaded by "
        "dlopen: the system's C library is newer than the one the package was built against. Install a release of "
        "the package built with a non-executable stack (most have rebuilt since 2025), clear the flag on the file "
        f"(`patchelf --clear-execstack {library}` with a recent patchelf, or `execstack -c`), or run it where glibc "
        "is older than 2.41 (a container).",
        {"library": library, "what": "glibc 2.41"},
        next=("ldd --version | head -1  # the system's glibc",),
    )


@rule(
    "glibc-version",
    # the opening backtick is optional: a paste rendered as Markdown eats it (it starts inline code)
    r"version [`'‘]?(?P<version>GLIBC(?:XX)?_[\d.]{1,12}|CXXABI_[\d.]{1,12})(?:' not found|’ not found)"
    r"(?: \(required by "
    r"(?P<by>[^)\s]{1,300})\))?",
    source="https://sourceware.org/git/?p=glibc.git;a=blob;f=elf/dl-version.c",
    confidence=0.95,
)
def runtime_too_old(found: re.Match[str], failure: Failure) -> Lead:
    # The loader quotes with ` and '; a localised or copied message has typographic quotes.
    version, by = found.group("version"), found.group("by") or "an installed extension"
    cxx = version.startswith(("GLIBCXX", "CXXABI"))
    runtime = "libstdc++ (the C++ runtime)" if cxx else "glibc (the C library)"
    old = re.search(r"(/[^\s:']{1,300}/lib(?:stdc\+\+\.so\.6|c\.so\.6))", failure.haystack)
    which = f" The one loaded is {old.group(1)}." if old else ""
    fix = (
        shell("conda install -y -c conda-forge 'libstdcxx-ng>=12'  # in a conda env, whose older libstdc++ comes first")
        if cxx
        else None
    )
    return Lead(
        f"{by} needs {version} from {runtime}, but the one loaded is older.{which} "
        + (
            "A conda environment's libstdc++ (or an LD_LIBRARY_PATH entry) often comes before the system's newer one."
            if cxx
            else "This host's glibc is older than the wheel's manylinux tag allows: use a newer OS image or an older "
            "wheel."
        ),
        {"version": version, "library": "libstdc++" if cxx else "glibc", "required_by": by},
        fix,
        next=("strings $(gcc -print-file-name=libstdc++.so.6) | grep GLIBCXX_3.4.3", "ldd --version | head -1"),
    )


@rule(
    "missing-library",
    r"Could not find TensorRT|TF-TRT Warning: Cannot dlopen some TensorRT libraries",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/compiler/tf2tensorrt/utils/py_utils.cc",
    confidence=0.6,
)
def tensorrt_missing(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "TensorFlow's TensorRT integration (TF-TRT) found no TensorRT libraries: harmless unless you convert models "
        "with TF-TRT; then install TensorRT of the version this TensorFlow was built with (and its libraries on the "
        "loader's path).",
        {"library": "TensorRT"},
    )


@rule(
    "missing-library",
    r"Could not load dynamic library '(?P<library>[\w.+-]{1,80}\.dll)'|(?P<library2>[\w.+-]{1,80}\.dll)(?: or one of "
    r"its dependencies)? (?:not found|was not found)|libcuda\.so cannot found",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/tsl/platform/windows/load_library.cc",
    confidence=0.85,
)
def dll_missing(found: re.Match[str], failure: Failure) -> Lead:
    library = found.group("library") or found.group("library2") or "libcuda.so"
    if library == "libcuda.so":
        return Lead(
            "Triton cannot find libcuda.so, the NVIDIA driver's library: no driver here, the container started "
            "without the GPU, or only libcuda.so.1 is present (ldconfig names it).",
            {"library": "libcuda.so"},
        )
    return Lead(
        f"Windows cannot find {library}: the CUDA/cuDNN runtime (or the Visual C++ runtime) it belongs to is not "
        "installed or not on PATH. TensorFlow 2.11+ has no GPU build for native Windows (use WSL2).",
        {"library": library},
    )


# cuDNN 8 loads its sub-libraries itself when first used, and says so in its own words: "Could not locate
# cudnn_ops_infer64_8.dll. Please make sure it is in your library path!" (8.0-8.2), "Could not load library
# cudnn_ops_infer64_8.dll. Error code 126" then "Please make sure ... is in your library path!" (8.3 and later) on
# Windows, "Could not load library libcudnn_cnn_infer.so.8. Error: ..." on Linux (that second half is the loader's,
# read by shared_object_missing). From 8.3 on, cuDNN on Windows also needs zlibwapi.dll (the cuDNN 8 install guide:
# "Installing Zlib"): error 126 is ERROR_MOD_NOT_FOUND, the DLL or one it needs.
@rule(
    "missing-library",
    r"Could not (?:locate|load library) (?P<library>[\w.+-]{1,80}\.dll)(?:\. Error code (?P<code>\d{1,5}))?"
    r"(?=[^\n]{0,8}\n?[^\n]{0,40}[Pp]lease make sure)",
    source="https://docs.nvidia.com/deeplearning/cudnn/archives/cudnn-890/install-guide/index.html (Windows: the "
    "cuDNN DLLs on PATH; Installing Zlib)",
    confidence=0.9,
)
def cudnn_dll_not_located(found: re.Match[str], failure: Failure) -> Lead:
    library = found.group("library")
    major = re.search(r"64_(\d+)\.dll$", library)
    which = f"cuDNN {major.group(1)}" if major else "cuDNN"
    zlib = (
        f" If {library} is on PATH, Windows could not load a DLL it needs (error {found.group('code')}): cuDNN 8.3 "
        "and later on Windows need zlibwapi.dll (NVIDIA's cuDNN 8 install guide, 'Installing Zlib')."
        if found.group("code") == "126" and major and major.group(1) == "8"
        else ""
    )
    return Lead(
        f"cuDNN could not load its part {library} ({which}): no {which} is on PATH. A package that needs {which} "
        f"(ctranslate2, onnxruntime-gpu, an older TensorFlow) often counts on the copy a torch build bundles in "
        f"torch\\lib, and a torch built with another cuDNN major version does not have this file. Install the "
        f"{which} that package was built for (its nvidia-cudnn wheel, or NVIDIA's installer) and put its bin folder "
        f"on PATH, or the package's release built for the cuDNN you have.{zlib}",
        {"library": library, "component": which},
        next=(
            "where cudnn*.dll",
            "where zlibwapi.dll",
            'python -m pip list | findstr /i "cudnn torch ctranslate2 onnxruntime"',
        ),  # fmt: skip
    )


# Any other program's words for one named library file it could not load (a package's own loader, onnxruntime,
# ctranslate2, a plugin system): the file name says which library and, by its suffix, which system's loader.
@rule(
    "missing-library",
    r"(?i)\b(?:could not|couldn't|cannot|can't|unable to|failed to) (?:load|open|find|locate|dlopen)(?: the)?"
    r"(?: (?:shared|dynamic|native|cuda))?(?: (?:library|libraries|object|dll|module|file))?:? ['\"`]?"
    r"(?P<library>[\w+-][\w.+-]{0,80}\.(?:so(?:\.\d[\d.]{0,12})?|dll|dylib))\b"
    # CTranslate2's own words: "Library cublas64_12.dll is not found or cannot be loaded"
    r"|\bLibrary (?P<library2>[\w+-][\w.+-]{0,80}\.(?:so(?:\.\d[\d.]{0,12})?|dll|dylib)) is not found",
    source="https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499- (126: the module or one "
    "it needs was not found); glibc elf/dl-load.c; dyld",
    confidence=0.7,
)
def library_not_loaded(found: re.Match[str], failure: Failure) -> Lead:
    library = found.group("library") or found.group("library2")
    if library.lower().endswith(".dll"):
        cuda = re.match(r"(?:cublas|cublasLt|cudart|cudnn\w*|cufft|curand|cusparse|nvrtc)64_(?P<major>\d{2})", library)
        release = (
            f" {library} is CUDA {cuda.group('major')}'s: a package built for CUDA {cuda.group('major')} (CTranslate2 "
            f"for faster-whisper, onnxruntime-gpu) needs that CUDA major version's libraries, whatever another CUDA "
            "torch brings."
            if cuda
            else ""
        )
        return Lead(
            f"Windows could not load {library}, or a DLL it depends on: the runtime it belongs to (CUDA, cuDNN, the "
            f"Visual C++ runtime, the package's own DLLs) is not installed, or its folder is not on PATH.{release}",
            {"library": library},
            next=(f"where {library}", "python -c \"import os; print(os.environ['PATH'])\""),
        )
    if library.lower().endswith(".dylib"):
        return Lead(
            f"macOS's loader could not load {library}: install what ships it, or reinstall the wheel that brings it.",
            {"library": library},
        )
    who, fix = _fix_for(library)
    return Lead(
        f"The process could not load {library}. {who}; it is missing, or its folder is not on the loader's path.",
        {"library": library},
        fix,
        next=(f"ldconfig -p | grep -F {library.split('.so')[0]}", "echo $LD_LIBRARY_PATH"),
    )


@rule(
    "undefined-symbol",
    r"WinError 127\]?|The specified procedure could not be found|symbol not found in flat namespace "
    r"'(?P<symbol>[^']{1,300})'",
    source="https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499- (ERROR_PROC_NOT_FOUND); "
    "https://developer.apple.com/metal/tensorflow-plugin/ (the tensorflow-metal and TensorFlow releases made together)",
    confidence=0.8,
)
def procedure_not_found(found: re.Match[str], failure: Failure) -> Lead:
    # macOS names the file it was loading ("dlopen(/.../x.so, 0x0006): symbol not found in flat namespace ..."): the
    # extension, and by its folder the package that ships it
    opened = _DLOPENED.search(failure.haystack)
    extension = opened.group("path").strip() if opened else ""
    package = _package_of_extension(extension)
    name = scrubbed_head(extension.rsplit("/", 1)[-1], 120)
    if package == "tensorflow-metal":
        return Lead(
            f"TensorFlow's Metal plugin ({name}, of tensorflow-metal) needs a function the "
            "loaded TensorFlow does not have: each tensorflow-metal release is built for one TensorFlow release. "
            "Install the pair Apple's table lists together (the tensorflow-metal made for the installed "
            "TensorFlow, or the TensorFlow it was made for), or uninstall tensorflow-metal to run on the CPU.",
            {"symbol": found.group("symbol") or "", "package": package, "library": extension},
            next=("python -m pip list 2>/dev/null | grep -i -E '^(tensorflow|tensorflow-metal|tensorflow-macos) '",),
        )
    which = f"{package}'s compiled extension ({name})" if package else "A compiled extension"
    return Lead(
        f"{which} needs a function its library does not have (WinError 127 / a missing symbol): it was built against "
        "another version of that library (torch, a CUDA runtime) than the one loaded. Install the extension's build "
        "for the installed version.",
        {"symbol": found.group("symbol") or "", **({"package": package} if package else {})},
    )


_DLOPENED = re.compile(r"dlopen\((?P<path>[^,\n]{1,400}), 0x[0-9A-Fa-f]{1,8}\)")


def _package_of_extension(path: str) -> str:
    """The distribution a compiled file under site-packages belongs to: its first folder there (the Metal plugin's
    tensorflow-plugins folder is tensorflow-metal's)."""
    folder = _SITE_PACKAGE.search(path)
    if folder is None:
        # a module of its own at site-packages' top (flash-attn's flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so)
        module = installed_package(path.strip("'\""))  # records.py strips the compiled module's ABI tag
        return COMPILED_TOP_MODULES.get(module, "") if module else ""
    name = folder.group("package")
    return "tensorflow-metal" if name == "tensorflow-plugins" else DISTRIBUTION_OF.get(name, name)


# Where an extension module of a package lives on Windows: site-packages\<package>\..._C.pyd
_SITE_PACKAGE = re.compile(r"site-packages[\\/]+(?P<package>[A-Za-z_][\w.-]{0,80})[\\/]")
# An MSVC-mangled name's scopes, innermost first: ?element_size@TensorIteratorBase@at@@QEBA_JH@Z is at::...
_MSVC_SCOPE = re.compile(r"@(?P<scope>[A-Za-z_]\w{0,40})(?=@)")


@rule(
    "undefined-symbol",
    # the name and the words can be broken over lines (a dialog box copied by hand), so the record may start at
    # "could not be located": the library alone is then what is read
    r"(?:[Tt]he (?:procedure entry point|ordinal)[ \t]*(?P<symbol>[^\n]{0,400}?)\s*)?could not be locate\w{0,2} in the "
    r"dynamic link library\s*(?P<library>[^\n]{3,400}?\.(?:pyd|dll|PYD|DLL))",
    source="https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499- (the loader's dialog "
    'for ERROR_PROC_NOT_FOUND: "The procedure entry point %1 could not be located in the dynamic link library '
    '%2")',
    confidence=0.85,
)
def entry_point_not_located(found: re.Match[str], failure: Failure) -> Lead:
    """Windows' own words for undefined_symbol: the extension (an _C.pyd of xformers, flash-attn, torchvision)
    imports a function of torch's DLLs that the installed torch does not export, so it was built for another
    torch. The mangled name's namespace (at::, c10::) says whose function it is."""
    symbol, library = (found.group("symbol") or "").strip(), found.group("library").strip()
    scopes = [m.group("scope").lower() for m in _MSVC_SCOPE.finditer(symbol.replace(" ", "_"))]
    owner = next((_NAMESPACES[s] for s in reversed(scopes) if s in _NAMESPACES), None)
    package_found = _SITE_PACKAGE.search(library)
    package = package_found.group("package") if package_found else None
    name = library.replace("\\", "/").rsplit("/", 1)[-1]
    built = f"{package} ({name})" if package else name
    against = f"another version of {owner}" if owner else "another version of the library it links"
    return Lead(
        f"{built} was built against {against} than the one installed: Windows could not find the function "
        f"{scrubbed_head(symbol, 80) or 'it imports'} in the loaded DLLs. Install the build of "
        f"{package or 'that package'} made "
        f"for the installed {owner or 'library'} (it must be updated whenever {owner or 'that library'} is), or "
        f"move {owner or 'the library'} back to the release it was built for.",
        {"symbol": symbol, "library": library, "package": package or "", "owner": owner or ""},
        install((package, ""), reinstall=True, no_deps=True) if package and package != "torch" else None,
        next=('python -m pip list 2>/dev/null | findstr /i "torch xformers flash"',),
    )


@rule(
    "missing-library",
    r"CUDA Setup failed despite GPU being available|bitsandbytes[^\n]{0,80}compiled without GPU support"
    r"|libbitsandbytes_cuda\d{2,3}\w*\.so",
    source="https://github.com/bitsandbytes-foundation/bitsandbytes/blob/main/bitsandbytes/cextension.py",
    confidence=0.8,
)
def bitsandbytes_native_library(found: re.Match[str], failure: Failure) -> Lead:
    """bitsandbytes loads a native library made for one CUDA release (libbitsandbytes_cuda121.so); a CUDA runtime it
    cannot find, or a release without a build for it, leaves it with none."""
    return Lead(
        "bitsandbytes could not load its CUDA library: it finds no CUDA runtime (libcudart) it has a build for, or the "
        "installed bitsandbytes is a CPU-only or too old release for this CUDA. Install a bitsandbytes release that "
        "ships a build for the installed CUDA (recent releases cover CUDA 11.8-12.x); `python -m bitsandbytes` says "
        "which library it looked for.",
        {"package": "bitsandbytes", "library": "libcudart"},
        next=("python -m bitsandbytes",),
    )


@rule(
    "missing-library",
    r"^(?:[\w.]*\.)?(?P<type>OSError|FileNotFoundError)\b(?::\s?(?P<message>[^\n]{0,300}))?",
    source="https://docs.python.org/3/library/ctypes.html#loading-shared-libraries (CDLL raises OSError when the "
    "loader cannot load the file or a library it needs)",
    confidence=0.7,
    on="exception",
)
def ctypes_could_not_load(found: re.Match[str], failure: Failure) -> Lead | None:
    """Raised inside ctypes.CDLL: a package loading its compiled library (torch.ops.load_library, a .pyd or .so) and
    the system loader refusing it, whatever the message says (it is often cut short, or in the system's language)."""
    frame = failure.last_frame
    if frame is None or frame.owner != "python" or "ctypes" not in frame.file.replace("\\", "/").split("/"):
        return None
    package = next((f.owner for f in reversed(failure.frames) if f.owner not in (None, "python", "torch")), None)
    package = package or next((f.owner for f in reversed(failure.frames) if f.owner not in (None, "python")), None)
    installable = package != "torch" and any(f.owner == package and f.installed for f in failure.frames)
    who = package or "A package"
    return Lead(
        f"{who} could not load its compiled library through ctypes "
        f"({scrubbed_head((found.group('message') or '').strip(), 120)}): "
        "the file, or a library it depends on, is missing, or it was built for another version of the library it "
        f"links (torch). Reinstall {package or 'the package'} from the same index and for the same release as torch.",
        {"package": package or "", "loader": "ctypes.CDLL"},
        install((package or "", ""), reinstall=True) if installable else None,
        next=("python -m pip list 2>/dev/null | grep -i -E 'torch|audio|vision'",),
    )


@rule(
    "version-mismatch",
    r"OMP: Error #15: Initializing (?P<new>[\w.+-]{1,80}), but found (?P<old>[\w.+-]{1,80}) already initialized",
    # LLVM's OpenMP runtime (and Intel's, which shares it): openmp/runtime/src/i18n/en_US.txt, DuplicateLibrary
    source="https://github.com/llvm/llvm-project/blob/main/openmp/runtime/src/i18n/en_US.txt (DuplicateLibrary)",
    confidence=0.85,
)
def two_openmp_runtimes(found: re.Match[str], failure: Failure) -> Lead:
    new, old = found.group("new"), found.group("old")
    which = (
        f"two copies of {new} (two packages each bundle their own)"
        if new == old
        else f"{old} and {new} (typically conda's MKL/intel-openmp beside a pip wheel's libomp)"
    )
    return Lead(
        f"Two OpenMP runtimes were loaded into one process: {which}. Install the stack from one source (torch, "
        "numpy and MKL all from conda, or all from pip, in a fresh environment) so that one runtime is loaded. "
        "KMP_DUPLICATE_LIB_OK=TRUE only hides it, and OpenMP's own message warns it may crash or give wrong results.",
        {"library": new, "loaded": old, "variable": "KMP_DUPLICATE_LIB_OK"},
        verdict="environment",
        next=(
            "python -m pip list 2>/dev/null | grep -i -e torch -e numpy -e mkl -e openmp",
            "conda list 2>/dev/null | grep -i -e mkl -e openmp",
        ),
    )


@rule(
    "cuda-library-mismatch",
    r"symbol (?P<symbol>\w{1,200}),? version (?P<version>[\w.+-]{1,80}) not defined in file (?P<file>[\w.+-]{1,80}) "
    r"with link time reference",
    # glibc elf/dl-lookup.c: a library was linked against a versioned symbol of FILE, and the FILE the loader found
    # has no such symbol at that version: it is another build of that library than the one linked against
    source="https://sourceware.org/git/?p=glibc.git;a=blob;f=elf/dl-lookup.c (with link time reference)",
    confidence=0.85,
)
def symbol_version_not_defined(found: re.Match[str], failure: Failure) -> Lead:
    symbol, file = found.group("symbol"), found.group("file")
    shipped = library_named(file)
    cuda = shipped is not None and shipped.package.startswith("nvidia-")
    whose = f" (pip ships it in {shipped.package})" if shipped is not None else ""
    return Lead(
        f"A library was linked against {file}'s {symbol}, and the {file} the loader found first is another build "
        f"of it{whose}: two copies of {file} from different releases are on this machine (a CUDA toolkit's and a "
        "wheel's, or two wheels, or a copy a package bundled), and the wrong one comes first on the loader's path. "
        "Keep one: remove the stray copy, or fix the order (LD_LIBRARY_PATH, the bundled libraries' folder).",
        {"library": file, "symbol": symbol, "variable": "LD_LIBRARY_PATH"},
        family=None if cuda else "version-mismatch",
        next=(
            f"ldd $(python -c 'import torch, os; print(os.path.dirname(torch.__file__))')/lib/*.so | grep {file}",
            "echo $LD_LIBRARY_PATH",
        ),  # fmt: skip
    )


@rule(
    "missing-library",
    r"^(?:[\w.]*UserWarning: )?Failed to find CUDA\.\s*$",  # its print's "WARNING: " is taken off as a prefix
    source="https://github.com/woct0rdho/triton-windows/blob/main/python/triton/windows_utils.py (find_cuda: the "
    "nvidia-* pip wheels, then CUDA_PATH, then the default install folder); settled as a CUDA 11 cudatoolkit in "
    "https://github.com/woct0rdho/triton-windows/issues/37",
    confidence=0.6,
    flags=re.MULTILINE,
)
def triton_windows_finds_no_cuda(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Triton for Windows found no CUDA toolkit to compile its kernels with: none in the nvidia-* pip wheels, "
        "CUDA_PATH unset or pointing nowhere, nothing in the default install folder (an old cudatoolkit of a conda "
        "environment does not count). Harmless while nothing is compiled with Triton; torch.compile and Triton "
        "kernels fail. Install a CUDA 12 toolkit and set CUDA_PATH to it, or install the nvidia-cuda-nvcc-cu12 and "
        "nvidia-cuda-runtime-cu12 wheels.",
        {"library": "CUDA toolkit", "variable": "CUDA_PATH"},
        next=("echo %CUDA_PATH%", "python -m pip list | findstr nvidia"),
    )


@rule(
    "missing-library",
    r"Could not load libtorchcodec\. Likely causes:",
    # torchcodec/_internally_replaced_utils.py (load_torchcodec_shared_libraries): it tries one libtorchcodec per
    # FFmpeg major version and lists each one's loader error after "[start of libtorchcodec loading traceback]"
    source="https://github.com/pytorch/torchcodec (load_torchcodec_shared_libraries; the README's table of the torch "
    "and FFmpeg versions each torchcodec release supports)",
    confidence=0.8,
)
def torchcodec_not_loaded(found: re.Match[str], failure: Failure) -> Lead:
    # an undefined symbol of torch's among the per-version errors is read by the undefined-symbol rule, more exactly
    return Lead(
        "torchcodec could not load its library for any FFmpeg it supports: FFmpeg's shared libraries (libavutil, "
        "libavcodec of a supported major version) are not installed or not on the loader's path (on Windows the "
        "'full-shared' build, whose DLLs must be on PATH), or the torchcodec release does not pair with the "
        "installed torch. Install a supported FFmpeg (conda install -c conda-forge ffmpeg, or the system's), or "
        "the torchcodec release made for this torch; the per-version loader errors in its message say which.",
        {"package": "torchcodec", "library": "FFmpeg"},
        next=("ffmpeg -version", "python -m pip list 2>/dev/null | grep -i -E '^(torch|torchcodec) '"),
    )


@rule(
    "missing-library",
    r"No such file or directory: '(?P<program>ffmpeg|ffprobe)'",
    # whisper (whisper/audio.py runs ffmpeg), pydub, torchaudio's and datasets' audio decoding: a program they run
    source="https://github.com/openai/whisper#setup (the ffmpeg command-line tool must be installed); "
    "https://ffmpeg.org/download.html",
    confidence=0.8,
)
def ffmpeg_program_missing(found: re.Match[str], failure: Failure) -> Lead:
    program = found.group("program")
    return Lead(
        f"The {program} program is not installed, or not on PATH: an audio or video library runs it to decode "
        "files, and no pip package of that library ships it. Install FFmpeg (apt install ffmpeg, brew install "
        "ffmpeg, conda install -c conda-forge ffmpeg, winget install ffmpeg) and open a new shell.",
        {"program": program, "library": "FFmpeg"},
        next=(f"{program} -version", f"command -v {program}"),
    )


# torchaudio 2.1 stopped bundling libsox and links the system's at run time, as it does FFmpeg's libraries
# (torchaudio/_extension/utils.py: _fail_since_no_sox, _fail_since_no_ffmpeg)
@rule(
    "missing-library",
    r"(?P<function>\w{1,80}) requires (?P<extension>sox|ffmpeg) extension which is not available",
    source="https://github.com/pytorch/audio/blob/main/src/torchaudio/_extension/utils.py; "
    "https://pytorch.org/audio/2.1/installation.html (optional dependencies: libsox, FFmpeg)",
    confidence=0.85,
)
def torchaudio_extension_unavailable(found: re.Match[str], failure: Failure) -> Lead:
    function, extension = found.group("function"), found.group("extension")
    if extension == "sox":
        return Lead(
            f"torchaudio's {function} needs its sox extension, which loads the system's libsox at run time: torchaudio "
            "2.1 and newer no longer bundle it, and this machine has none (or not under the name libsox.so). Install "
            "it (Debian/Ubuntu: sox and libsox-dev; macOS: brew install sox; conda: conda install -c conda-forge "
            "sox), or load audio through another backend (soundfile, FFmpeg). Windows has no sox backend.",
            {"library": "libsox", "package": "libsox-dev", "function": function},
            system_install("apt", "sox", "libsox-dev"),
            next=("ldconfig -p | grep -F libsox",),
        )
    return Lead(
        f"torchaudio's {function} needs its FFmpeg extension, which loads FFmpeg's shared libraries (libavutil, "
        "libavcodec, ...) at run time: none of a major release this torchaudio supports was found. Install FFmpeg's "
        "libraries (Debian/Ubuntu: ffmpeg; conda: conda install -c conda-forge ffmpeg), of a release torchaudio's "
        "installation page lists.",
        {"library": "FFmpeg", "package": "ffmpeg", "function": function},
        system_install("apt", "ffmpeg"),
        next=("ldconfig -p | grep -F libavutil",),
    )
