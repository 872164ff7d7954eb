"""Write compat_matrix/failures/api-history.json: which keyword parameters the constructors and functions people
call most take, release by release, read from the released wheels' own source.

What: for each class below (trl's trainers and configs, transformers' Trainer and TrainingArguments, Lightning's
Trainer, accelerate's Accelerator, peft's LoraConfig), in one release of each minor series, the parameters its
constructor takes: the `__init__` signature, or a dataclass's fields (its bases' within the same package included),
plus the old names a `@deprecate_kwarg("old", new_name="new")` decorator still accepts; and for each function or
method below (huggingface_hub's hf_hub_download and snapshot_download, diffusers' pipelines' __call__, peft's
get_peft_model, jax's jit and its kin read release by release, Keras's fit, evaluate and predict under Keras 2's and
Keras 3's names), the keyword parameters of its signature, keyed by the qualified name Python's TypeError uses.
Each row keeps, per parameter, the first and last minor series that took it and the new name a deprecation gave
it.

Why: `SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'` is raised at the user's own call, so the
traceback alone reads as their typo; it is code written for another release of the library (trl renamed the
argument). explain's rule (explain/rules/versions.py: constructor_parameter_history) looks the class and the
argument up here and says which release removed or added it. Nothing is typed by hand: the facts are the wheels'
source, parsed with `ast`.

Usage (needs PyPI; standard library and pip only):
  python scripts/api_history.py [--cache ~/.cache/xladoctor/api-wheels]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "compat_matrix" / "failures" / "api-history.json"
GENERATED_BY = "scripts/api_history.py"


@dataclass(frozen=True)
class Target:
    distribution: str  # the PyPI name
    oldest: str  # the first minor series read ("4.30")
    files: tuple[str, ...]  # wheel paths (regular expressions) whose classes are read
    classes: str  # a regular expression over class names: which classes of those files are kept
    # a regular expression over the qualified names of functions and methods ("hf_hub_download",
    # "StableDiffusionPipeline.__call__"): which callables of those files are kept, by the name Python's TypeError
    # gives them (a function's __qualname__, from Python 3.10 on)
    callables: str = "(?!)"
    # a decorator that accepts an old keyword for the functions it wraps, in the releases whose source of it still
    # holds a marker: (decorator, the file that defines it, the marker, old name, new name)
    accepting_decorators: tuple[tuple[str, str, str, str, str], ...] = ()
    # every release its own series: jax changed its API within 0.4.x, which a minor series would hide
    patches: bool = False
    # one API under different qualified names across releases (Keras 2's Model.fit is Keras 3's
    # TensorFlowTrainer.fit): (a pattern over qualified names, the name its history is kept under); every name seen
    # gets a row with the one history
    aliases: tuple[tuple[str, str], ...] = ()


TARGETS = (
    Target("trl", "0.7", (r"trl/trainer/\w+\.py",), r"\w+(?:Trainer|Config)"),
    Target(
        "transformers",
        "4.30",
        (
            r"transformers/trainer\.py",
            r"transformers/trainer_seq2seq\.py",
            r"transformers/training_args\.py",
            r"transformers/training_args_seq2seq\.py",
        ),
        r"Trainer|Seq2SeqTrainer|TrainingArguments|Seq2SeqTrainingArguments",
    ),  # fmt: skip
    Target("pytorch-lightning", "1.6", (r"pytorch_lightning/trainer/trainer\.py",), r"Trainer"),
    Target("lightning", "1.8", (r"lightning/pytorch/trainer/trainer\.py",), r"Trainer"),
    Target("accelerate", "0.12", (r"accelerate/accelerator\.py",), r"Accelerator"),
    Target(
        "peft",
        "0.3",
        (
            r"peft/tuners/lora\.py",
            r"peft/tuners/lora/config\.py",
            r"peft/config\.py",
            r"peft/utils/config\.py",
            r"peft/mapping\.py",
            r"peft/mapping_func\.py",
            r"peft/peft_model\.py",
        ),
        r"LoraConfig|PeftConfig|PeftConfigMixin",
        r"get_peft_model|PeftModel\.from_pretrained",
    ),  # fmt: skip
    Target(
        "huggingface-hub",
        "0.10",
        (
            r"huggingface_hub/file_download\.py",
            r"huggingface_hub/_snapshot_download\.py",
            r"huggingface_hub/_login\.py",
        ),
        "(?!)",
        r"hf_hub_download|snapshot_download|login",
        # @validate_hf_hub_args turns use_auth_token= into token= (utils/_validators.py,
        # smoothly_deprecate_use_auth_token) until huggingface_hub 1.0 dropped it
        (
            (
                "validate_hf_hub_args",
                "huggingface_hub/utils/_validators.py",
                "smoothly_deprecate_use_auth_token",
                "use_auth_token",
                "token",
            ),
        ),
    ),  # fmt: skip
    Target(
        "jax",
        "0.4",
        (r"jax/_src/api\.py", r"jax/_src/ad_checkpoint\.py"),
        "(?!)",
        r"jit|vmap|grad|value_and_grad|pmap|device_put|checkpoint|jacfwd|jacrev|eval_shape",
        patches=True,
    ),
    Target(
        "keras",
        "2.11",
        (r"keras/(?:src/)?engine/training\.py", r"keras/src/backend/(?:tensorflow|jax|torch)/trainer\.py"),
        "(?!)",
        r"(?:Model|TensorFlowTrainer|JAXTrainer|TorchTrainer)\.(?:fit|evaluate|predict)",
        aliases=((r"(?:Model|TensorFlowTrainer|JAXTrainer|TorchTrainer)\.(fit|evaluate|predict)", r"Model.\1"),),
    ),
    Target(
        "diffusers",
        "0.10",
        (r"diffusers/pipelines/.+\.py",),
        "(?!)",
        r"\w+Pipeline\.__call__",
    ),
)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def releases(distribution: str, oldest: str, patches: bool = False) -> dict[str, list[str]]:
    """The final releases of each minor series from `oldest` on, as PyPI lists them (a yanked one too: pip index
    lists it and pip download refuses it, so the caller takes the first it can download)."""
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", distribution], capture_output=True, text=True, check=True
    ).stdout
    found = re.search(r"Available versions: (.+)", listed)
    versions = [v.strip() for v in found.group(1).split(",")] if found else []
    final = sorted((v for v in versions if re.fullmatch(r"\d+\.\d+(\.\d+)?", v)), key=_key)
    per_series: dict[str, list[str]] = {}
    for version in final:
        series = version if patches else ".".join(version.split(".")[:2])
        if _key(version) >= _key(oldest):
            per_series.setdefault(series, []).append(version)
    return per_series


def wheel(distribution: str, version: str, cache: Path, platforms: tuple[str, ...] = ()) -> Path:
    """The cached wheel of that release, downloaded first if need be; `platforms`: pip's --platform tags, for a wheel
    of another platform whose Python source is the same and whose size is not (torch's macOS wheels)."""
    name = re.sub(r"[-.]", "_", distribution)
    have = sorted(cache.glob(f"{name}-{version}-*.whl"))
    if not have:
        platform = [f"--platform={p}" for p in platforms] + (["--python-version=3.11"] if platforms else [])
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", *platform,
             "-d", str(cache), f"{distribution}=={version}"],
            check=True, capture_output=True,
        )  # fmt: skip
        have = sorted(cache.glob(f"{name}-{version}-*.whl"))
    return have[0]


def _decorator_name(decorator: ast.expr) -> str:
    """The name a decorator is written with: deprecate_kwarg for @deprecate_kwarg(...) and @x.deprecate_kwarg(...)."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return getattr(target, "id", "") or getattr(target, "attr", "")


def _deprecated_names(function: ast.FunctionDef) -> dict[str, str]:
    """old -> new for each @deprecate_kwarg("old", new_name="new") on the function (transformers' and trl's)."""
    found: dict[str, str] = {}
    for decorator in function.decorator_list:
        if not isinstance(decorator, ast.Call) or _decorator_name(decorator) != "deprecate_kwarg":
            continue
        if decorator.args and isinstance(decorator.args[0], ast.Constant):
            new = next((k.value for k in decorator.keywords if k.arg == "new_name"), None)
            if isinstance(new, ast.Constant) and isinstance(new.value, str):
                found[str(decorator.args[0].value)] = new.value
    return found


def _init_field(item: ast.AnnAssign) -> bool:
    """A dataclass field the constructor takes: not a ClassVar, not field(init=False)."""
    if "ClassVar" in ast.unparse(item.annotation):
        return False
    value = item.value
    if isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", "")) == "field":
        return not any(k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                       for k in value.keywords)  # fmt: skip
    return True


@dataclass
class Shape:
    parameters: dict[str, str]  # name -> the new name a deprecation gives it ("" when none)
    var_keyword: bool  # **kwargs: unknown names are not refused by the signature
    bases: tuple[str, ...]
    dataclass: bool


def _callable_shape(function: ast.FunctionDef, method: bool, accepting: dict[str, tuple[str, str]]) -> Shape:
    """A function's (a method's, its first parameter left out) keyword parameters, with the old names a decorator
    of it accepts in this release (`accepting`: decorator -> (old, new))."""
    args = function.args
    positional = [*args.posonlyargs, *args.args][1 if method else 0 :]
    # positional-only ones cannot be given by keyword
    parameters = {arg.arg: "" for arg in [*positional, *args.kwonlyargs] if arg not in args.posonlyargs}
    parameters.update(_deprecated_names(function))
    for decorator in {_decorator_name(d) for d in function.decorator_list} & set(accepting):
        old, new = accepting[decorator]
        parameters.setdefault(old, new)
    return Shape(parameters, args.kwarg is not None, (), False)


def _shape(node: ast.ClassDef) -> Shape:
    is_dataclass = any(
        (getattr(d, "id", "") == "dataclass") or (isinstance(d, ast.Call) and getattr(d.func, "id", "") == "dataclass")
        for d in node.decorator_list
    )
    parameters: dict[str, str] = {}
    var_keyword = False
    init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is not None:
        constructor = _callable_shape(init, True, {})  # a method: self left out
        parameters, var_keyword = constructor.parameters, constructor.var_keyword
    elif is_dataclass:
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and _init_field(item):
                parameters[item.target.id] = ""
    bases = tuple(b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases)
    return Shape(parameters, var_keyword, bases, is_dataclass or init is None)


def shapes(path: Path, target: Target) -> dict[str, Shape]:
    """Every kept class of one wheel, a dataclass's fields merged with its bases' of the same wheel."""
    found: dict[str, Shape] = {}
    callables: dict[str, Shape] = {}
    with zipfile.ZipFile(path) as archive:
        accepting = {
            decorator: (old, new)
            for decorator, where, marker, old, new in target.accepting_decorators
            if where in archive.namelist() and marker in archive.read(where).decode("utf-8", "replace")
        }
        for name in archive.namelist():
            if not any(re.fullmatch(pattern, name) for pattern in target.files):
                continue
            tree = ast.parse(archive.read(name))
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    found.setdefault(node.name, _shape(node))
                    for item in node.body:
                        qualname = f"{node.name}.{item.name}" if isinstance(item, ast.FunctionDef) else ""
                        if qualname and re.fullmatch(target.callables, qualname):
                            callables.setdefault(qualname, _callable_shape(item, True, accepting))
                elif isinstance(node, ast.FunctionDef) and re.fullmatch(target.callables, node.name):
                    callables.setdefault(node.name, _callable_shape(node, False, accepting))
    for shape in found.values():  # fields a dataclass inherits from a base of this wheel
        seen = set()
        ancestors = list(shape.bases)
        bases = list(shape.bases)
        while bases:
            base = bases.pop()
            if base in found and base not in seen and shape.dataclass and found[base].dataclass:
                seen.add(base)
                shape.parameters = {**found[base].parameters, **shape.parameters}
                bases.extend(found[base].bases)
                ancestors.extend(found[base].bases)
        shape.bases = tuple(dict.fromkeys(ancestors))  # another package's base (TrainingArguments) at any depth
    kept = {k: v for k, v in found.items() if re.fullmatch(target.classes, k) and v.parameters}
    return {**kept, **{k: v for k, v in callables.items() if v.parameters}}


@dataclass
class ClassHistory:
    """One class across the releases read: the series that have it, each parameter's first and last series."""

    package: str
    name: str
    releases: list[str] = field(default_factory=list)
    parameters: dict[str, dict[str, str]] = field(default_factory=dict)
    bases: set[str] = field(default_factory=set)
    var_keyword_in: list[str] = field(default_factory=list)
    dataclass: bool = False  # a dataclass in some release: it takes the fields of its bases, other packages' too

    def add(self, minor: str, shape: Shape) -> None:
        self.releases.append(minor)
        self.dataclass = self.dataclass or shape.dataclass
        self.bases |= set(shape.bases)
        if shape.var_keyword:
            self.var_keyword_in.append(minor)
        for parameter, new in shape.parameters.items():
            entry = self.parameters.setdefault(parameter, {"first": minor, "last": minor})
            entry["last"] = minor
            if new:
                entry["renamed_to"] = new

    def row(self, read: str, latest: str, callable_: bool) -> dict[str, object]:
        parameters = self.parameters
        if callable_:
            # a function's parameter that every release read takes is never refused: only the changed ones are kept
            # (hundreds of pipelines' __call__ would otherwise fill the table with names nothing looks up)
            span = (self.releases[0], self.releases[-1])
            parameters = {k: v for k, v in parameters.items() if (v["first"], v["last"]) != span or "renamed_to" in v}
        return {
            "package": self.package, "class": self.name, "releases": self.releases, "parameters": parameters,
            "bases": sorted(self.bases), "var_keyword_in": self.var_keyword_in, "latest": latest, "read": read,
            "dataclass": self.dataclass, **({"callable": True} if callable_ else {}),
        }  # fmt: skip


def _first_wheel(distribution: str, versions: list[str], cache: Path) -> tuple[str, Path] | None:
    """The first release of a series whose wheel downloads (the first may be yanked), and that wheel."""
    for version in versions:
        try:
            return version, wheel(distribution, version, cache)
        except subprocess.CalledProcessError:
            continue
    return None


def _canonical(target: Target, name: str) -> str:
    for pattern, canonical in target.aliases:
        if re.fullmatch(pattern, name):
            return re.sub(pattern, canonical, name)
    return name


def history(target: Target, cache: Path) -> list[dict[str, object]]:
    series: list[str] = []
    per_class: dict[str, ClassHistory] = {}
    names: dict[str, set[str]] = {}  # canonical name -> the qualified names it was read under
    for minor, versions in releases(target.distribution, target.oldest, target.patches).items():
        got = _first_wheel(target.distribution, versions, cache)
        if got is None:
            continue  # no wheel of that series downloads: it is left out, not guessed
        series.append(got[0])
        read: set[str] = set()
        for name, shape in shapes(got[1], target).items():
            canonical = _canonical(target, name)
            names.setdefault(canonical, set()).add(name)
            if canonical not in read:  # one shape a release (Keras 3's three trainers take the same keywords)
                read.add(canonical)
                per_class.setdefault(canonical, ClassHistory(target.distribution, canonical)).add(minor, shape)
    if not series:
        return []
    minors = [v if target.patches else ".".join(v.split(".")[:2]) for v in series]
    latest = minors[-1]
    rows = []
    for c in per_class.values():
        callable_ = re.fullmatch(target.callables, c.name) is not None
        row = c.row(f"{series[0]} .. {series[-1]}", latest, callable_)
        if row["parameters"]:
            for name in sorted(names.get(c.name, {c.name})):
                rows.append({**row, "class": name, "package_series": minors})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "xladoctor" / "api-wheels")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, object]] = []
    for target in TARGETS:
        rows.extend(history(target, args.cache))
        print(f"{target.distribution}: {sum(1 for r in rows if r['package'] == target.distribution)} classes")
    doc = {
        "title": "Keyword parameters of the constructors and functions people call most, per minor release (first and "
        "last series that took each one, the new name a deprecation gave it)",
        "source": "the released wheels on PyPI (the first release of each minor series), their source parsed with "
        "ast: __init__ and function signatures, dataclass fields, @deprecate_kwarg decorators",
        "generated_by": GENERATED_BY,
        "rows": rows,
    }
    head = json.dumps({k: v for k, v in doc.items() if k != "rows"}, indent=1, ensure_ascii=False)[:-2]
    body = ",\n".join("  " + json.dumps(row, ensure_ascii=False, sort_keys=True) for row in rows)
    OUT.write_text(f'{head},\n "rows": [\n{body}\n ]\n}}\n', encoding="utf-8")  # a class a line: readable diffs
    print(f"wrote {OUT} ({len(rows)} classes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
