"""Package facts, gathered inside the target interpreter from metadata alone.

Runs as `python -c <this source> MARKER` in the environment being diagnosed. It must not import
xladoctor (absent there) nor any framework (slow, and may crash); it reads files only. Python 3.8+
and stdlib only. Its JSON goes between MARKER-BEGIN and MARKER-END so that anything else printed
on stdout (a sitecustomize, a .pth file) is ignored.
"""

import ast
import glob
import json
import mmap
import os
import platform
import stat
import struct
import sys
import sysconfig

# Files a package writes about itself, read as text (never imported): version and build facts.
SELF_DECLARED_FILES = {
    "torch": "torch/version.py",
    "torch_xla": "torch_xla/version.py",
    "jax": "jax/version.py",
    "jaxlib": "jaxlib/version.py",
    "triton": "triton/__init__.py",
    "tensorflow": "tensorflow/python/platform/build_info.py",
}
MAX_SELF_DECLARED_BYTES = 200000
# Distributions whose bundled shared libraries are listed (and checked to exist).
# Tools a distribution bundles, relative to its location: checked to exist (Triton compiles with its ptxas).
BUNDLED_TOOLS = {"triton": ("triton/backends/nvidia/bin/ptxas",)}
SHARED_LIB_OWNERS = ("torch", "torch-xla", "triton", "tensorflow", "tf-", "jax", "jaxlib", "nvidia-", "libtpu")
# Distributions whose executables the frameworks call by name from PATH (torch.utils.cpp_extension runs
# `ninja --version`): where each one was installed, from RECORD, so a check can tell "not on PATH" apart.
EXECUTABLE_OWNERS = ("ninja",)


def _cut(text, limit, tail=False):
    """At most `limit` characters, cut at white space: a token cut in two would escape the redaction later."""
    if len(text) <= limit:
        return text
    part = text[-limit:] if tail else text[:limit]
    edge = (
        min((i for i in (part.find(" "), part.find("\n")) if i >= 0), default=-1)
        if tail
        else max(part.rfind(" "), part.rfind("\n"))
    )
    return ("..." + part[edge + 1 :] if edge >= 0 else "...") if tail else (part[:edge] + "..." if edge > 0 else "...")


def _is_dict_call(node):
    """`collections.OrderedDict([...])` or `dict([...])`, as TensorFlow's build_info.py writes it."""
    func = getattr(node, "func", None)
    name = getattr(func, "attr", None) or getattr(func, "id", None)
    return isinstance(node, ast.Call) and name in ("OrderedDict", "dict") and len(node.args) == 1 and not node.keywords


def _dict_call_argument(node):
    return node.args[0] if _is_dict_call(node) else node


def _json_dict(pairs):
    """A list of (key, value) pairs as a dict of JSON-safe values, or None."""
    out = {}
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
            return None
        key, value = pair
        if isinstance(value, tuple):
            value = list(value)
        if (
            value is None
            or isinstance(value, (str, bool, int, float))
            or (isinstance(value, list) and all(isinstance(x, str) for x in value))
        ):
            out[key] = value
    return out


def constant_assignments(path):
    """Top-level `NAME = <literal>` assignments of a Python file, without executing it."""
    try:
        with open(path, "rb") as handle:
            source = handle.read(MAX_SELF_DECLARED_BYTES)
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return None
    values = {}
    for node in tree.body:
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for target in targets:
            if isinstance(target, ast.Name):
                try:
                    literal = ast.literal_eval(_dict_call_argument(value))
                except ValueError:
                    continue
                if isinstance(literal, (list, tuple)) and _is_dict_call(value):
                    literal = _json_dict(literal)
                    if literal is not None:
                        values[target.id] = literal
                    continue
                if literal is None or isinstance(literal, (str, bool, int, float)):
                    values[target.id] = literal
                elif isinstance(literal, (list, tuple)) and all(isinstance(x, str) for x in literal):
                    values[target.id] = list(literal)
    return values


def marker_environment():
    """PEP 508 marker values of this interpreter (as packaging.markers.default_environment)."""
    impl = sys.implementation
    iver = f"{impl.version.major}.{impl.version.minor}.{impl.version.micro}"
    if impl.version.releaselevel != "final":
        iver += impl.version.releaselevel[0] + str(impl.version.serial)
    return {
        "implementation_name": impl.name,
        "implementation_version": iver,
        "os_name": os.name,
        "platform_machine": platform.machine(),
        "platform_release": platform.release(),
        "platform_system": platform.system(),
        "platform_version": platform.version(),
        "python_full_version": platform.python_version(),
        "platform_python_implementation": platform.python_implementation(),
        "python_version": ".".join(platform.python_version_tuple()[:2]),
        "sys_platform": sys.platform,
    }


def read_pyvenv_cfg():
    path = os.path.join(sys.prefix, "pyvenv.cfg")
    values = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, sep, value = line.partition("=")
                if sep:
                    values[key.strip()] = value.strip()
    except OSError:
        return None
    return values


def os_release():
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if line.startswith("PRETTY_NAME="):
                        return line.split("=", 1)[1].strip().strip('"')
        except OSError:
            continue
    return None


CONDA_PACKAGES = (
    "cuda-cudart",
    "cudatoolkit",
    "cudnn",
    "cuda-nvcc",
    "libcublas",
    "nccl",
    "libgomp",
    "llvm-openmp",
    "pytorch",
    "tensorflow",
    "jaxlib",
    "triton",
)


def conda_packages(prefix):
    """Versions of the conda packages that bring CUDA or OpenMP libraries, from conda-meta/*.json names."""
    found = {}
    try:
        names = os.listdir(os.path.join(prefix, "conda-meta"))
    except OSError:
        return found
    for filename in names:
        if not filename.endswith(".json"):
            continue
        parts = filename[: -len(".json")].rsplit("-", 2)
        if len(parts) == 3 and parts[0] in CONDA_PACKAGES:
            found[parts[0]] = parts[1]
    return found


FATBIN_MAGIC = 0xBA55ED50
# Libraries whose embedded CUDA fatbins list the GPU architectures a framework was compiled for.
FATBIN_LIBRARIES = {"torch": "torch/lib/libtorch_cuda.so"}


def _elf_section(handle, wanted):
    """(offset, size) of a section of a 64-bit little-endian ELF file, or None."""
    header = handle.read(64)
    if header[:4] != b"\x7fELF" or header[4] != 2:
        return None
    shoff = struct.unpack_from("<Q", header, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", header, 0x3A)
    handle.seek(shoff)
    table = handle.read(shentsize * shnum)
    sections = [struct.unpack_from("<IIQQQQ", table, i * shentsize) for i in range(shnum)]
    handle.seek(sections[shstrndx][4])
    names = handle.read(sections[shstrndx][5])
    for name_at, _type, _flags, _addr, offset, size in sections:
        if names[name_at : names.index(b"\0", name_at)] == wanted:
            return offset, size
    return None


def _positional_reader(handle):
    """read(size, offset) of an open file: one pread() where there is one. libtorch_cuda.so has ~2,800 entries
    spread over 900 MB; a seek and a buffered 8 KB read for each took twice as long (a map of the file, too:
    a page fault each)."""
    if hasattr(os, "pread"):
        fd = handle.fileno()
        return lambda size, offset: os.pread(fd, size, offset)

    def read(size, offset):
        handle.seek(offset)
        return handle.read(size)

    return read


def fatbin_archs(path, max_entries=200000):
    """GPU architectures embedded in a shared library's .nv_fatbin, without loading it.

    The section is a run of fatbin containers (magic 0xBA55ED50, a header, then entries); each entry
    header gives its kind (1 PTX, 2 ELF cubin) and its sm_ number. Only the headers are read.
    Returns {"cubin": {"80": count, ...}, "ptx": {...}} or None.
    """
    counts = {"cubin": {}, "ptx": {}}
    try:
        with open(path, "rb") as handle:
            found = _elf_section(handle, b".nv_fatbin")
            if found is None:
                return None
            read = _positional_reader(handle)
            start, size = found
            pos, end, seen = start, start + size, 0
            while pos + 16 <= end and seen < max_entries:
                magic, _version, header_size, body_size = struct.unpack("<IHHQ", read(16, pos))
                if magic != FATBIN_MAGIC:
                    pos += 8  # containers are 8-byte aligned
                    continue
                entry, stop = pos + header_size, pos + header_size + body_size
                while entry + 32 <= stop and seen < max_entries:
                    head = read(32, entry)
                    kind, _unused, entry_header, entry_size = struct.unpack_from("<HHIQ", head, 0)
                    arch = struct.unpack_from("<I", head, 28)[0]
                    if entry_header == 0:
                        break
                    bucket = counts["ptx" if kind == 1 else "cubin"]
                    bucket[str(arch)] = bucket.get(str(arch), 0) + 1
                    entry += entry_header + entry_size
                    seen += 1
                pos = stop
    # OverflowError: pread() of an offset past 2**63 (a hostile section header), where a seek said ValueError
    except (OSError, struct.error, ValueError, IndexError, OverflowError):
        return None
    return counts


# Flag names in TF_XLA_FLAGS / XLA_FLAGS are looked up as string literals in each framework's own
# libraries (registered flags such as "tf_xla_auto_jit" or "xla_dump_to" are NUL-terminated strings
# there); only the names the user set are sought. Patterns are relative to the dist's location.
FLAG_LIBRARIES = {
    "tensorflow": ("tensorflow/libtensorflow_cc.so.2", "tensorflow/libtensorflow_framework.so.2"),
    "torch_xla": ("_XLAC*.so",),
    "jaxlib": ("jaxlib/*.so", "jaxlib/**/*.so"),
}
FLAG_VARIABLES = {"TF_XLA_FLAGS": ("tensorflow",), "XLA_FLAGS": ("tensorflow", "torch_xla", "jaxlib")}


def flag_names(value):
    """Flag names in a TF_XLA_FLAGS / XLA_FLAGS value: '--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit' -> [...]."""
    names = []
    for token in value.split():
        if token.startswith("-"):
            name = token.lstrip("-").split("=", 1)[0]
            if name and name not in names:
                names.append(name)
    return names


def known_in_libraries(location, names, patterns):
    """For each name, whether any library holds it as a NUL-terminated string (mmap, no load)."""
    found = dict((n, False) for n in names)
    paths = sorted({p for pattern in patterns for p in glob.glob(os.path.join(location, pattern), recursive=True)})
    if not paths:
        return None
    for path in paths:
        try:
            with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                for name in names:
                    needle = name.encode() + b"\0"
                    start = data.find(needle)
                    while start > 0 and not found[name]:
                        before = data[start - 1 : start]
                        if not (before.isalnum() or before == b"_"):
                            found[name] = True
                        start = data.find(needle, start + 1)
        except (OSError, ValueError):
            return None
    return found


def named_string_lists(path, wanted):
    """String-list literals assigned to NAME anywhere in a file (torch_xla's `deprecated_env_vars`)."""
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(MAX_SELF_DECLARED_BYTES))
    except (OSError, SyntaxError, ValueError):
        return None
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple)):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in wanted:
                    try:
                        value = ast.literal_eval(node.value)
                    except ValueError:
                        continue
                    if all(isinstance(x, str) for x in value):
                        found[target.id] = list(value)
    return found


# Entry-point groups that register backends (torch_xla finds its PJRT device plugins through this one).
ENTRY_POINT_GROUPS = ("torch_xla.plugins",)


def plugin_entry_points(dist):
    try:
        points = dist.entry_points
    except Exception:  # a malformed entry_points.txt must not hide the distribution
        return {}
    found = {}
    for point in points:
        if point.group in ENTRY_POINT_GROUPS:
            found.setdefault(point.group, []).append(point.name)
    return found


# XRT-era and retired variables: whether the installed torch_xla still reads one is decided by looking
# for its name in torch_xla's own Python files and compiled extension, only for the ones that are set.
RETIRED_CANDIDATES = (
    "XRT_TPU_CONFIG",
    "XRT_DEVICE_MAP",
    "XRT_WORKERS",
    "XRT_MESH_SERVICE_ADDRESS",
    "XRT_LOCAL_WORKER",
    "XRT_SHARD_WORLD_SIZE",
    "XRT_SHARD_ORDINAL",
    "XRT_MULTI_PROCESSING_DEVICE",
    "XRT_START_LOCAL_SERVER",
    "GPU_NUM_DEVICES",
    "XLA_USE_BF16",
    "XLA_USE_F16",
    "XLA_DOWNCAST_BF16",
    "XLA_USE_32BIT_LONG",
)


def mentions(location, names):
    """Whether torch_xla's files name each variable (Python sources and its _XLAC extension)."""
    left = set(names)
    found = dict((n, False) for n in names)
    roots = [os.path.join(location, "torch_xla")]
    files = [os.path.join(location, f) for f in os.listdir(location) if f.startswith("_XLAC") and f.endswith(".so")]
    for root in roots:
        for folder, _dirs, names_here in os.walk(root):
            files.extend(os.path.join(folder, f) for f in names_here if f.endswith((".py", ".so")))
    for path in files:
        if not left:
            break
        try:
            with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                for name in list(left):
                    if data.find(name.encode()) >= 0:
                        found[name] = True
                        left.discard(name)
        except (OSError, ValueError):
            continue
    return found


# Lists a package keeps in its own source: torch_xla/__init__.py warns about `deprecated_env_vars`.
DECLARED_LISTS = {"torch_xla": ("torch_xla/__init__.py", ("deprecated_env_vars",))}


def python_facts():
    in_venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
    conda = os.path.isdir(os.path.join(sys.prefix, "conda-meta"))
    libc = platform.libc_ver()
    return {
        "executable": sys.executable,
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cache_tag": sys.implementation.cache_tag,
        "abiflags": getattr(sys, "abiflags", ""),
        "gil_disabled": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "env_kind": "venv" if in_venv else ("conda" if conda else "system"),
        "conda_meta": conda,
        "pyvenv_cfg": read_pyvenv_cfg(),
        "sys_path": [p for p in sys.path],
        "purelib": sysconfig.get_paths().get("purelib"),
        "user_site": _user_site(),
        "marker_env": marker_environment(),
        "os": os_release(),
        "libc": "{} {}".format(*libc).strip() if libc[0] else None,
        "machine": platform.machine(),
        "system": platform.system(),
        "conda_packages": conda_packages(sys.prefix) if conda else {},
        "include": sysconfig.get_paths().get("include"),
        "python_h": os.path.exists(os.path.join(sysconfig.get_paths().get("include") or "", "Python.h")),
        "externally_managed": None if in_venv else externally_managed(),
    }


def externally_managed():
    """PEP 668: the EXTERNALLY-MANAGED file in the stdlib folder marks a Python whose packages the system's
    package manager owns (Debian 12, Ubuntu 23.04+, Fedora 38+); pip refuses to install there."""
    try:
        marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
    except Exception:
        return None
    return marker if os.path.isfile(marker) else None


def _user_site():
    try:
        import site

        return {"path": site.getusersitepackages(), "enabled": bool(site.ENABLE_USER_SITE)}
    except Exception as exc:  # some embedded interpreters lack parts of site
        return {"path": None, "enabled": False, "error": repr(exc)}


def _top_level(path):
    """The first component of a RECORD path, or None for a path outside the distribution's own names."""
    if not path or path.startswith(("..", "/")):
        return None
    first = path.replace("\\", "/").split("/", 1)[0]
    if first.endswith((".dist-info", ".data", ".egg-info")) or first == "__pycache__":
        return None
    return first


def record_top_levels(record_lines):
    """First path components named in RECORD (its lines): the importable names a distribution owns.

    torch's RECORD has ~14,000 lines, nearly all under a few folders: a line whose text before its first "/" holds
    no comma or backslash has that text, stripped as the path is, for first component, so each such prefix is
    judged once (this took a third of the probe's time, line by line)."""
    tops, has_init = [], set()
    judged = {}  # the text before a line's first "/" -> its first component, or None when the line is skipped
    for line in record_lines:
        head, slash, rest = line.partition("/")
        if slash and head in judged:
            first = judged[head]
        elif slash and "," not in head and "\\" not in head:
            # the path is line.split(",", 1)[0].strip().strip('"'): the head loses only its leading blanks and
            # quotes, and an empty head is a path that starts with "/"
            first = judged[head] = _top_level(head.lstrip().lstrip('"') + "/")
        else:
            path = line.split(",", 1)[0].strip().strip('"')
            first = _top_level(path)
            if first is not None and first not in tops:
                tops.append(first)
            parts = path.replace("\\", "/").split("/")
            if first is not None and len(parts) == 2 and parts[1] == "__init__.py":
                has_init.add(first)
            continue
        if first is None:
            continue
        if first not in tops:
            tops.append(first)
        # the whole path is FIRST/__init__.py: what follows the "/" ends, once stripped as the path is, there
        if "__init__.py" in rest and rest.split(",", 1)[0].rstrip().rstrip('"') == "__init__.py":
            has_init.add(first)
    return tops, sorted(has_init)


def record_shared_libs(record_lines):
    """RECORD paths of shared libraries (libfoo.so, libfoo.so.1, _C.cpython-311-x86_64-linux-gnu.so)."""
    libs = []
    for line in record_lines:
        if ".so" not in line:  # the file name is part of the line: most lines are sources, headers, data
            continue
        path = line.split(",", 1)[0].strip().strip('"')
        name = path.rsplit("/", 1)[-1]
        if not path.startswith(("..", "/")) and (name.endswith(".so") or ".so." in name):
            libs.append(path)
    return libs


def record_executables(record_lines, location):
    """{name: absolute path} of the files RECORD installed into a bin/ (Scripts/ on Windows) folder."""
    found = {}
    for line in record_lines:
        path = line.split(",", 1)[0].strip().strip('"').replace("\\", "/")
        parts = path.split("/")
        if len(parts) >= 2 and parts[-2] in ("bin", "Scripts") and parts[-1]:
            full = os.path.normpath(os.path.join(location, path))
            if os.path.exists(full):
                found[parts[-1].rsplit(".exe", 1)[0]] = full
    return found


_RESOLVED = {}  # folder -> its resolved, case-normalised path: most distributions share a handful of folders


def _resolved(folder):
    if folder not in _RESOLVED:
        _RESOLVED[folder] = os.path.normcase(os.path.realpath(folder))
    return _RESOLVED[folder]


def path_index(location, sys_path):
    norm = _resolved(location)
    for index, entry in enumerate(sys_path):
        if _resolved(entry or os.getcwd()) == norm:
            return index
    return -1


# A dist-info file bigger than this, or not a regular file (a link to /dev/zero, a FIFO), is not read: reading
# it would take the probe's memory or time, and no real one comes close (torch's RECORD is about 1 MB).
MAX_METADATA_FILE_BYTES = 32 << 20
METADATA_FILES = ("METADATA", "PKG-INFO", "RECORD", "WHEEL", "INSTALLER", "entry_points.txt", "top_level.txt")


def check_metadata_files(dist):
    """Raise ValueError for a metadata file that must not be read (the caller records the dist as broken)."""
    folder = getattr(dist, "_path", None)
    if folder is None:
        return
    for name in METADATA_FILES:
        path = os.path.join(str(folder), name)
        try:
            info = os.stat(path)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path} is not a regular file")
        if info.st_size > MAX_METADATA_FILE_BYTES:
            raise ValueError(f"{path} is {info.st_size >> 20} MB, far larger than any real one")


def _requires(dist, meta):
    """dist.requires without parsing METADATA a second time: it is the Requires-Dist of the metadata already read
    (importlib.metadata's _read_dist_info_reqs), else an egg-info's requires.txt, which dist.requires reads."""
    declared = meta.get_all("Requires-Dist") if meta is not None else None
    if declared:
        return list(declared)
    if dist.read_text("requires.txt") is None:  # then dist.requires is None: nothing declared either way
        return []
    return list(dist.requires or [])


def distribution_facts(dist, sys_path):
    check_metadata_files(dist)
    meta = dist.metadata
    name = meta.get("Name") if meta is not None else None
    try:
        location = str(dist.locate_file(""))
    except Exception:
        location = ""
    record = dist.read_text("RECORD")
    lines = record.splitlines() if record else []  # split once for the three readers below
    tops, packages = record_top_levels(lines) if record else ([], [])
    missing = [t for t in tops if not os.path.exists(os.path.join(location, t))]
    key = (name or "").lower().replace("_", "-")
    libs = record_shared_libs(lines) if record and key.startswith(SHARED_LIB_OWNERS) else []
    missing_libs = [lib for lib in libs if not os.path.exists(os.path.join(location, lib))]
    wheel = dist.read_text("WHEEL") or ""
    tags = [ln.split(":", 1)[1].strip() for ln in wheel.splitlines() if ln.startswith("Tag:")]
    installer = (dist.read_text("INSTALLER") or "").strip() or None
    info_dir = getattr(dist, "_path", None)
    facts = {
        "name": name or "",
        "version": (meta.get("Version") if meta is not None else None) or "",
        "location": location,
        "metadata_dir": str(info_dir) if info_dir is not None else None,
        "path_index": path_index(location, sys_path) if location else -1,
        "installer": installer,
        "requires": _requires(dist, meta),
        "requires_python": meta.get("Requires-Python") if meta is not None else None,
        "wheel_tags": tags,
        "record_present": record is not None,
        "top_level": tops,
        "packages": packages,
        "missing_top_level": missing,
        "shared_libs": libs,
        "missing_shared_libs": missing_libs,
        "bundled_tools": {rel: os.path.exists(os.path.join(location, rel)) for rel in BUNDLED_TOOLS.get(key, ())},
        "executables": record_executables(lines, location) if record and key in EXECUTABLE_OWNERS else {},
        "self_declared": None,
    }
    norm = (name or "").lower().replace("-", "_")
    facts["entry_points"] = plugin_entry_points(dist)
    retired = [v for v in RETIRED_CANDIDATES if os.environ.get(v)]
    facts["env_var_mentions"] = mentions(location, retired) if norm == "torch_xla" and retired else None
    declared_lists = DECLARED_LISTS.get(norm)
    facts["declared_lists"] = (
        named_string_lists(os.path.join(location, declared_lists[0]), declared_lists[1]) if declared_lists else None
    )
    framework = "tensorflow" if "tensorflow" in tops else norm
    facts["known_flags"] = None
    if framework in FLAG_LIBRARIES:
        for variable, frameworks in FLAG_VARIABLES.items():
            names = flag_names(os.environ.get(variable, ""))
            if framework in frameworks and names:
                known = known_in_libraries(location, names, FLAG_LIBRARIES[framework])
                facts["known_flags"] = facts["known_flags"] or {}
                facts["known_flags"][variable] = known
    library = FATBIN_LIBRARIES.get(norm)
    facts["cuda_archs"] = None
    if library and os.path.exists(os.path.join(location, library)):
        facts["cuda_archs"] = fatbin_archs(os.path.join(location, library))
    for module, relative in SELF_DECLARED_FILES.items():
        if norm == module or (module == "tensorflow" and module in tops):
            facts["self_declared"] = {
                "file": relative,
                "values": constant_assignments(os.path.join(location, relative)),
            }
    return facts


# --- distributions, found and read as importlib.metadata finds and reads them ---------------------------------
# importlib.metadata costs this probe two thirds of its time: its import (email, zipfile, pathlib: ~40 ms) and an
# email-package parse of each METADATA, long description included (~1.3 ms a distribution). What follows reads the
# same folders in the same order and the same header values, from the headers alone; importlib.metadata is still
# imported, lazily, for the rare cases this does not cover (a zip archive on sys.path, an egg-info requires.txt).
# tests/unit/probes/test_probe_packages.py holds it to importlib.metadata on real environments and odd folders.


def _normalized(name):
    """importlib.metadata's Prepared.normalize: runs of -_. become one "_", lower-cased."""
    out, run = [], False
    for char in name.lower():
        if char in "-_.":
            if not run:
                out.append("_")
            run = True
        else:
            out.append(char)
            run = False
    return "".join(out)


def _pure(path):
    """The path as pathlib writes it (no empty or "." parts, no trailing "/"), which importlib.metadata reports."""
    lead = "//" if path.startswith("//") and not path.startswith("///") else ("/" if path.startswith("/") else "")
    parts = [part for part in path.split("/") if part not in ("", ".")]
    return (lead + "/".join(parts)) or "."


def _is_header_name(name):
    """email's header line: printable ASCII but ":" before the colon (feedparser's headerRE), space excluded."""
    return name.isascii() and name.isprintable() and " " not in name


class Headers:
    """The header block of a METADATA / PKG-INFO text, read as email.message_from_string (policy compat32) reads it:
    folded lines joined as they are, the first blank line (or a line that is no header) ends it."""

    def __init__(self, text):
        self._items = []
        text = text or ""
        blank = text.find("\n\n")  # the end of the headers: the long description that follows is never split
        lines = (text[: blank + 1] if blank >= 0 else text).split("\n")
        # lines end at "\n" alone, as email's parser splits them (text mode made every line end one): str.splitlines
        # would also split a License value at a \x85 or \u2028 and lose the headers after it
        for line in [line + "\n" for line in lines[:-1]] + lines[-1:]:
            if line[:1] in (" ", "\t") and self._items:
                name, value = self._items[-1]
                self._items[-1] = (name, value + line)
                continue
            name, colon, value = line.partition(":")
            if not colon or not _is_header_name(name):
                break  # a blank line, or the start of a body without one
            self._items.append((name, value.lstrip(" \t")))
        self._items = [(name.lower(), value.rstrip("\r\n")) for name, value in self._items]

    def get(self, name, default=None):
        wanted = name.lower()
        return next((value for key, value in self._items if key == wanted), default)

    def get_all(self, name):
        wanted = name.lower()
        return [value for key, value in self._items if key == wanted] or None


class EntryPoint:
    def __init__(self, group, name):
        self.group, self.name = group, name


class InfoFolder:
    """A NAME.dist-info / NAME.egg-info folder (or an egg-info file), with the parts of importlib.metadata's
    PathDistribution that this probe uses."""

    def __init__(self, path):
        self._path = path
        self._metadata = None

    def read_text(self, filename):
        target = os.path.join(self._path, filename) if filename else self._path
        try:
            with open(target, encoding="utf-8") as handle:
                return handle.read()
        except (FileNotFoundError, IsADirectoryError, KeyError, NotADirectoryError, PermissionError):
            return None

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = Headers(self.read_text("METADATA") or self.read_text("PKG-INFO") or self.read_text(""))
        return self._metadata

    def locate_file(self, path):
        folder = os.path.dirname(self._path) or "."  # the folder on sys.path that holds it
        return os.path.join(folder, path) if path else folder

    @property
    def entry_points(self):
        """entry_points.txt as importlib.metadata's Sectioned reads it: [group] lines, then name = value lines."""
        points, group = [], None
        for raw in (self.read_text("entry_points.txt") or "").splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                group = line[1:-1].strip()
            elif group is not None:
                points.append(EntryPoint(group, line.partition("=")[0].strip()))
        return points

    @property
    def requires(self):
        """Requires-Dist, else an egg-info's requires.txt turned into markers: left to importlib.metadata."""
        import pathlib
        from importlib import metadata

        return metadata.PathDistribution(pathlib.Path(self._path)).requires


def _folder_children(root):
    """(children, is a folder) of a sys.path entry: None when it cannot be listed and is no file either."""
    try:
        return os.listdir(root or "."), True
    except Exception:
        return None, os.path.isfile(root or ".")


def distributions(sys_path):
    """The distributions of sys_path, in importlib.metadata.distributions()'s order (Python 3.10+: per entry, grouped
    by normalised name in listing order, then the EGG-INFO of an .egg folder)."""
    for entry in sys_path:
        children, listed = _folder_children(entry)
        if children is None:
            if listed:  # a zip archive: importlib.metadata reads those through zipfile
                from importlib import metadata

                yield from metadata.distributions(path=[entry])
            continue
        infos, eggs = {}, []
        base_is_egg = os.path.basename(entry).lower().endswith(".egg")
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                key = _normalized(low.rpartition(".")[0].partition("-")[0])
                infos.setdefault(key, []).append(child)
            elif base_is_egg and low == "egg-info":
                eggs.append(child)
        for child in [c for group in infos.values() for c in group] + eggs:
            yield InfoFolder(_pure(os.path.join(entry, child)) if entry else child)


def leftover_entries(sys_path):
    """`~name` folders that an interrupted pip uninstall leaves ("Ignoring invalid distribution")."""
    found = []
    for entry in sys_path:
        if not entry or not os.path.isdir(entry):
            continue
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        found.extend(os.path.join(entry, n) for n in sorted(names) if n.startswith("~"))
    return found


def main():
    marker = sys.argv[1]
    sys_path = list(sys.path)
    result = {"python": python_facts(), "distributions": [], "leftovers": leftover_entries(sys_path)}
    for dist in distributions(sys_path):
        try:
            result["distributions"].append(distribution_facts(dist, sys_path))
        except Exception as exc:  # one unreadable dist-info must not hide the others
            folder = str(getattr(dist, "_path", "") or "")
            result["distributions"].append(
                {
                    "name": "",
                    "version": "",
                    "location": os.path.dirname(folder),
                    "metadata_dir": folder or None,
                    "error": _cut(repr(exc), 500),
                }
            )
    sys.stdout.write("\n" + marker + "-BEGIN\n" + json.dumps(result) + "\n" + marker + "-END\n")
    sys.stdout.flush()


if __name__ == "__main__":  # run by the bootstrap (probes/target.py); imported by the tests of its readers
    main()
