"""Write compat_matrix/failures/attribute-history.json: which attributes the classes of the libraries people use most
gained or lost, release by release, read from the released wheels' own source.

What: for each distribution below, in one release of each minor series (each release for jax, which changed its API
within 0.4.x, and for optax and timm, whose releases within a series move their API), every class of its Python
source (.py and .pyi files) with the public attributes it has there: the functions, classes and names its body
defines, the `self.X = ...` its methods set, and (within the same wheel) what its bases give it; and every module path
of the wheel. An attribute that some release of a class has and another release of it lacks is written down with
the series that had it; attributes every release had are left out (no error can be about them).

Why: `'LlamaAttention' object has no attribute 'num_heads'` reads, from the traceback alone, like a typo or a
library's defect; it is code written for another release of transformers (every release read from 4.30 to 4.47 has
it, 4.48 dropped it). explain's rule (explain/rules/versions.py: attribute_that_came_and_went) looks the class and the
attribute up here and names the releases that had it; a module path is looked up the same way (`No module named
'torch._six'`). Nothing is typed by hand: the facts are the wheels' source, parsed with `ast`.

Usage (needs PyPI; standard library and pip only; wheels are cached):
  python scripts/attribute_history.py [--cache ~/.cache/xladoctor/api-wheels] [--only transformers,peft]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api_history import releases, wheel  # noqa: E402  (one reading of PyPI and one wheel cache for both tables)

OUT = Path(__file__).resolve().parent.parent / "compat_matrix" / "failures" / "attribute-history.json"
GENERATED_BY = "scripts/attribute_history.py"


@dataclass(frozen=True)
class Target:
    distribution: str  # the PyPI name
    oldest: str  # the first series read
    packages: tuple[str, ...]  # the top-level import names whose source is read
    patches: bool = False  # every release its own series (jax changed its API within 0.4.x)
    # wheels for another platform where this one's are very large (the source is the same): pip's --platform
    platforms: tuple[str, ...] = ()


TARGETS = (
    Target("transformers", "4.30", ("transformers",)),
    Target("diffusers", "0.14", ("diffusers",)),
    Target("peft", "0.3", ("peft",)),
    Target("accelerate", "0.20", ("accelerate",)),
    Target("huggingface-hub", "0.14", ("huggingface_hub",)),
    Target("trl", "0.7", ("trl",)),
    Target("sentence-transformers", "2.2", ("sentence_transformers",)),
    Target("datasets", "2.10", ("datasets",)),
    Target("keras", "2.12", ("keras",)),
    Target("jax", "0.4.10", ("jax",), patches=True),
    Target("flax", "0.6", ("flax",)),
    Target("optax", "0.1.5", ("optax",), patches=True),  # its API moves within a minor series
    Target("protobuf", "3.20", ("google",)),
    Target("pytorch-lightning", "1.6", ("pytorch_lightning",)),
    Target("lightning", "2.0", ("lightning",)),
    Target("timm", "0.9", ("timm",), patches=True),  # 1.0.x is one minor series of many releases
    Target("ultralytics", "8.0", ("ultralytics",)),
    Target("torch", "2.0", ("torch",), platforms=("macosx_11_0_arm64", "macosx_14_0_arm64")),
    Target("torchvision", "0.15", ("torchvision",)),  # the series that pair with torch 2.0 on
    Target("bitsandbytes", "0.39", ("bitsandbytes",)),  # 4-bit (QLoRA) came in 0.39
)


def _set_on_self(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The X of every `self.X = ...` (and `self.X: T = ...`, `self.X += ...`) in a method, nested blocks included."""
    if not function.args.args:
        return set()
    me = function.args.args[0].arg
    found: set[str] = set()
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name) and leaf.value.id == me:
                    found.add(leaf.attr)
    return found


@dataclass
class ClassRead:
    attributes: set[str]
    bases: tuple[str, ...]  # the simple names of its bases
    dynamic: bool  # it answers unknown names itself (__getattr__): an absent attribute proves nothing


def _class_read(node: ast.ClassDef) -> ClassRead:
    attributes: set[str] = set()
    dynamic = False
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            attributes.add(item.name)
            dynamic = dynamic or item.name == "__getattr__"
            attributes |= _set_on_self(item)
        elif isinstance(item, ast.ClassDef):
            attributes.add(item.name)
        elif isinstance(item, ast.Assign):
            attributes |= {t.id for t in item.targets if isinstance(t, ast.Name)}
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            attributes.add(item.target.id)
    bases = tuple(
        b.id if isinstance(b, ast.Name) else b.attr for b in node.bases if isinstance(b, (ast.Name, ast.Attribute))
    )
    return ClassRead(attributes, bases, dynamic)


def classes(path: Path, target: Target) -> dict[str, ClassRead]:
    """Every class of the wheel's source by its simple name, with what its bases in the same wheel give it. Two
    classes of one name in two modules are read as one (an error names a class by its simple name only)."""
    own: dict[str, ClassRead] = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            if not member.endswith((".py", ".pyi")) or member.split("/", 1)[0] not in target.packages:
                continue
            try:
                tree = ast.parse(archive.read(member))
            except (SyntaxError, ValueError):
                continue  # a file for another Python (a vendored py2 module): not this history's concern
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    read = _class_read(node)
                    seen = own.setdefault(node.name, ClassRead(set(), (), False))
                    seen.attributes |= read.attributes
                    seen.bases = tuple(dict.fromkeys(seen.bases + read.bases))
                    seen.dynamic = seen.dynamic or read.dynamic
    flat: dict[str, ClassRead] = {}

    def resolve(name: str, path: tuple[str, ...]) -> ClassRead:
        if name in flat:
            return flat[name]
        read = own[name]
        merged = ClassRead(set(read.attributes), read.bases, read.dynamic)
        for base in read.bases:
            if base in own and base not in path:
                inherited = resolve(base, (*path, base))
                merged.attributes |= inherited.attributes
                merged.dynamic = merged.dynamic or inherited.dynamic
        flat[name] = merged
        return merged

    for name in own:
        resolve(name, (name,))
    return flat


# `__path__.append(os.path.join(os.path.dirname(__file__), "api"))` in a package's __init__.py (Keras 3.3 on): the
# modules of that folder import under the package's own name too (keras.backend is keras/api/backend)
_PATH_ADDED = re.compile(r"__path__\.(?:append|insert)\([^\n]*?[\"'](\w+)[\"']\s*\)")


def modules(path: Path, target: Target) -> set[str]:
    """The importable module paths of the wheel's packages: its .py files and compiled extensions, and the folders
    that hold them ("torch._C" from torch/_C.cpython-311-darwin.so, "transformers.models.gemma" from its folder), and
    the same under a package's name where its __init__.py adds a folder of it to its __path__."""
    found: set[str] = set()
    added: dict[str, str] = {}  # "keras/api/" -> "keras/"
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        for member in names:
            if member.endswith("/__init__.py") and member.split("/", 1)[0] in target.packages:
                for folder in _PATH_ADDED.findall(archive.read(member).decode("utf-8", "replace")):
                    package = member.removesuffix("__init__.py")
                    added[f"{package}{folder}/"] = package
    aliases = [
        package + member.removeprefix(prefix)
        for member in names
        for prefix, package in added.items()
        if member.startswith(prefix)
    ]
    for member in [*names, *aliases]:
        parts = member.split("/")
        if parts[0] not in target.packages or ".dist-info" in member:
            continue
        name = parts[-1]
        stem = name.split(".", 1)[0]
        if not name.endswith((".py", ".so", ".pyd")) or not stem.isidentifier():
            continue
        path_parts = parts[:-1] if stem == "__init__" else [*parts[:-1], stem]
        for depth in range(1, len(path_parts) + 1):  # a folder of modules is a module too (a namespace at least)
            found.add(".".join(path_parts[:depth]))
    return found


def _runs(had: list[bool]) -> str:
    """The runs of series (by their index in the package's list) in which something was there: "0-17,30-53"."""
    runs: list[list[int]] = []
    for index, present in enumerate(had):
        if present and (index == 0 or not had[index - 1]):
            runs.append([index, index])
        elif present:
            runs[-1][1] = index
    return ",".join(f"{a}-{b}" for a, b in runs)


def encode(series: list[str], read: list[dict[str, ClassRead]], paths: list[set[str]]) -> dict[str, object]:
    """The table of one package, kept small enough for a repository (transformers alone has half a million
    attribute changes, most of them its models' own): public attributes only, and for each attribute and each run of
    series, the classes (by their index in the package's class list) whose releases had it just then.

    classes: [[name, runs of series that have the class], ...]; changed: {attribute: {runs: "3,17,2001"}};
    modules: {module path: runs of series that have it}, every module of every series (what no release had is
    then known too)."""
    names: list[str] = []
    runs_of_class: list[str] = []
    grouped: dict[str, dict[str, list[int]]] = {}
    for name in sorted({n for r in read for n in r}):
        if any(r[name].dynamic for r in read if name in r):
            continue  # a class that answers unknown names itself (__getattr__): its history cannot tell
        present = [name in r for r in read]
        changed: dict[str, str] = {}
        for attribute in sorted({a for r in read if name in r for a in r[name].attributes}):
            if attribute.startswith("_"):
                continue  # private: what a library's users reach for is its public API
            had = [name in r and attribute in r[name].attributes for r in read]
            if had != present:  # some release of the class lacked it
                changed[attribute] = _runs(had)
        if not changed:
            continue
        index = len(names)
        names.append(name)
        runs_of_class.append(_runs(present))
        for attribute, runs in changed.items():
            grouped.setdefault(attribute, {}).setdefault(runs, []).append(index)
    return {
        "series": series,
        "read": f"{series[0]} .. {series[-1]}",
        "classes": [[n, r] for n, r in zip(names, runs_of_class, strict=True)],
        "changed": {a: {runs: ",".join(map(str, ix)) for runs, ix in by.items()} for a, by in sorted(grouped.items())},
        "modules": {m: _runs([m in p for p in paths]) for m in sorted(set().union(*paths))},
    }


def history(target: Target, cache: Path) -> dict[str, object] | None:
    series: list[str] = []
    read: list[dict[str, ClassRead]] = []
    paths: list[set[str]] = []
    for minor, versions in releases(target.distribution, target.oldest, target.patches).items():
        for version in versions:  # the first of the series that downloads (the first may be yanked)
            try:
                path = wheel(target.distribution, version, cache, target.platforms)
            except subprocess.CalledProcessError:
                continue
            series.append(minor)
            read.append(classes(path, target))
            paths.append(modules(path, target))
            print(f"  {target.distribution} {version}: {len(read[-1])} classes", flush=True)
            break
    if not series:
        return None
    return {**encode(series, read, paths), "imports": list(target.packages)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "xladoctor" / "api-wheels")
    parser.add_argument("--only", default="", help="comma-separated distributions: refresh just these")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    only = {n for n in args.only.split(",") if n}
    old = json.loads(OUT.read_text(encoding="utf-8"))["packages"] if OUT.exists() and only else {}
    packages: dict[str, object] = {}
    for target in TARGETS:
        if only and target.distribution not in only:
            if target.distribution in old:
                packages[target.distribution] = old[target.distribution]
            continue
        found = history(target, args.cache)
        if found is not None:
            packages[target.distribution] = found
            print(f"{target.distribution}: {len(found['classes'])} classes changed", flush=True)  # type: ignore[arg-type]
    doc = {
        "title": "Public attributes that some releases of a library's class had and others lacked, per minor series "
        "(the runs of series that had each one)",
        "source": "the released wheels on PyPI (the first release of each minor series; each release for jax, optax "
        "and timm; "
        "torch's macOS arm64 wheel, whose Python source is the Linux one's), their .py and .pyi source parsed with "
        "ast: methods, class-body names, self.X assignments, bases within the same wheel",
        "generated_by": GENERATED_BY,
        "packages": packages,
    }
    OUT.write_text(json.dumps(doc, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
