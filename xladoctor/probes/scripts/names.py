"""Where a module lives in the target interpreter, and where its package's source defines a name: read as text.

Runs as `python -c <bootstrap> MARKER <this file> MODULE NAME` in the environment being diagnosed, for a log that
says MODULE lacks NAME (`cannot import name NAME from MODULE`, `module MODULE has no attribute NAME`). It never
imports MODULE or anything of the target's (an import runs the package's code, which can be slow, crash or do
anything); it finds the module with importlib's path finder, which reads folders only, and searches the source
files as text. Python 3.8+ and stdlib only; must not import xladoctor. Its JSON goes between MARKER-BEGIN and
MARKER-END, so that whatever a sitecustomize or a .pth file prints is ignored.
"""

import json
import os
import re
import stat
import sys
from importlib import machinery

# Bounds on the search of a package's files (transformers holds about 2,500 .py files, 40 MB): past them the
# answer says it stopped, and nothing is concluded from a name not seen.
MAX_FILES = 6000
MAX_BYTES = 96 << 20
MAX_FILE_BYTES = 4 << 20
SHOWN_FILES = 5
DYNAMIC_EXPORTS = re.compile(r"\bimport \*|def __getattr__|LazyModule|lazy_import|define_import_structure|lazy_loader")


def find_module(module, path):
    """The spec of each part of a dotted module found by the path finder alone, stopping at the first missing part:
    (found parts, spec of the last one found)."""
    parts = module.split(".")
    search, spec, found = path, None, []
    for index in range(len(parts)):
        try:
            part_spec = machinery.PathFinder.find_spec(".".join(parts[: index + 1]), search)
        except (ImportError, ValueError, OSError):
            part_spec = None
        if part_spec is None:
            break
        spec = part_spec
        found.append(parts[index])
        locations = spec.submodule_search_locations
        if index + 1 < len(parts):
            if not locations:
                break
            search = list(locations)
    return found, spec


def kind_of(spec):
    origin = spec.origin
    if spec.submodule_search_locations is not None and (not origin or origin == "namespace"):
        return "namespace"
    if origin and origin.endswith(tuple(machinery.EXTENSION_SUFFIXES)):
        return "compiled"
    if spec.submodule_search_locations is not None:
        return "package"
    return "module"


def read(path, limit=MAX_FILE_BYTES):
    """A regular file's first bytes as text; None for anything else (a FIFO named like a module would block)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def definition_pattern(name):
    """A name's definition in Python source: a class, a function, an assignment at any indentation."""
    word = re.escape(name)
    return re.compile(
        r"^[ \t]*(?:(?:async[ \t]+)?def|class)[ \t]+" + word + r"\b|^[ \t]*" + word + r"[ \t]*(?::[^=\n]*)?=(?!=)"
        r"|\bas[ \t]+" + word + r"\b",
        re.MULTILINE,
    )


def mention_pattern(name):
    """The name as a module's own file exports it: imported, listed in __all__ or in a lazy module's table."""
    word = re.escape(name)
    return re.compile(r"\bimport\b[^\n]*\b" + word + r"\b|[\"']" + word + r"[\"']")


def package_root(spec, found):
    """The folder of the top-level package (the whole package is searched, not only the module), or the file of a
    top-level module that is one file (its folder is site-packages, not its package)."""
    locations = spec.submodule_search_locations
    if locations:
        folder, levels = list(locations)[0], len(found) - 1
    elif len(found) > 1:
        folder, levels = os.path.dirname(spec.origin or ""), len(found) - 2
    else:
        return spec.origin
    for _ in range(levels):
        folder = os.path.dirname(folder)
    return folder


def walk(root):
    """os.walk of a package's folder, or of the one file of a single-file module."""
    if os.path.isfile(root):
        return [(os.path.dirname(root), [], [os.path.basename(root)])]
    return os.walk(root)


def search_package(root, name):
    """Which files under root (relative to its parent) define name, how many mention it at all (.py and the .pyi
    stubs that describe compiled parts), how many compiled extensions it holds, and whether every file was read."""
    pattern, word = definition_pattern(name), re.compile(r"\b" + re.escape(name) + r"\b")
    found = {"defined": [], "mentioned": 0, "compiled": 0, "files": 0, "complete": True}
    total = 0
    for folder, subfolders, names in walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in ("__pycache__", "tests", "test"))
        for file_name in sorted(names):
            if file_name.endswith(tuple(machinery.EXTENSION_SUFFIXES)):
                found["compiled"] += 1
            if not file_name.endswith((".py", ".pyi")):
                continue
            if found["files"] >= MAX_FILES or total > MAX_BYTES:
                found["complete"] = False
                return found
            found["files"] += 1
            path = os.path.join(folder, file_name)
            text = read(path)
            if text is None or name not in text or not word.search(text):
                total += len(text or "")
                continue
            total += len(text)
            found["mentioned"] += 1
            if pattern.search(text):
                found["defined"].append(os.path.relpath(path, os.path.dirname(root)))
    return found


def main():
    marker, module, name = sys.argv[1], sys.argv[2], sys.argv[3]
    here = os.getcwd()
    path = [p for p in sys.path if p and os.path.abspath(p) != here]
    found, spec = find_module(module, path)
    result = {"module": module, "name": name, "found": ".".join(found)}
    if spec is not None:
        kind = kind_of(spec)
        result.update({"kind": kind, "origin": spec.origin if kind != "namespace" else None})
        if len(found) == len(module.split(".")) and kind in ("package", "module"):
            own = read(spec.origin) or ""
            result["in_module"] = bool(
                name in own and (definition_pattern(name).search(own) or mention_pattern(name).search(own))
            )
            # names a module hands on without naming them: a star import, a module __getattr__, a lazy module's
            # table built from its files (transformers' define_import_structure): its file cannot say what it lacks
            result["dynamic_exports"] = bool(DYNAMIC_EXPORTS.search(own))
            searched = search_package(package_root(spec, found), name)
            result.update(
                {"defined_in": searched["defined"][:SHOWN_FILES], "defined_count": len(searched["defined"]),
                 "mentioned_count": searched["mentioned"], "compiled_count": searched["compiled"],
                 "complete": searched["complete"], "files": searched["files"]}
            )  # fmt: skip
    sys.stdout.write("\n" + marker + "-BEGIN\n" + json.dumps(result) + "\n" + marker + "-END\n")
    sys.stdout.flush()


if __name__ == "__main__":  # run by the bootstrap (probes/target.py)
    main()
