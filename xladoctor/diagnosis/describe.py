"""What a check is, read from the check itself: the registry (id, area, title, the typed inputs it reads, its
prerequisites) and its code (the statuses it can give, the fixes it can suggest, the sources it cites, why it
matters). `xladoctor checks` and the per-check tests (tests/checks/) read this; nothing about a check is written
twice.

The code is read with `ast`, from the check function and the functions of its module it calls (a check often
yields its outcomes from a helper), never by running it.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from xladoctor.diagnosis.inputs import INPUTS, type_name
from xladoctor.diagnosis.registry import Check

# The Fix constructors of xladoctor/fix.py, as the command each stands for ("…" where a value is computed).
_FIX_SHAPES = {
    "export": "export {0}=…",
    "unset": "unset {0}",
    "set_or_unset": "export {0}=… (or unset {0})",
    "prepend_path": "export {0}=…:${0}",
    "install": "pip install {0}…",
    "reinstall_exactly": "pip install --force-reinstall {0}…",
    "uninstall": "pip uninstall {0}",
    "system_install": "{0} install …",
    "remove_path": "rm -r …",
    "shell": "a shell command",
}
STATUS_ORDER = ("ok", "warn", "fail", "skip")


@dataclass(frozen=True)
class Description:
    check: Check
    why: str  # the check's docstring, else its module's first paragraph
    statuses: tuple[str, ...]  # in STATUS_ORDER
    fixes: tuple[str, ...]  # the commands it can suggest, as shapes ("export PJRT_DEVICE=…")
    sources: tuple[str, ...]  # the URLs it cites
    source_file: str  # checks/pjrt.py


@dataclass(frozen=True)
class InputDoc:
    """One input of one check, as the docs show it."""

    name: str  # the parameter: distributions, env, gpus, torch, ...
    type_name: str  # as the check takes it: 'Distribution | None' where it judges the absence itself
    description: str  # one line
    variables: tuple[str, ...] = ()  # for env: the variables the check declares ('*': every one)


def check_inputs(check: Check) -> tuple[InputDoc, ...]:
    """The inputs `check` reads, in parameter order: `INPUTS[name].type_name` and `.description` describe an input
    on its own; `check.requires` holds each prerequisite's skip reason, in the order they are tested."""
    hints = typing.get_type_hints(check.function)
    return tuple(
        InputDoc(name, type_name(hints[name]), INPUTS[name].description, check.env if name == "env" else ())
        for name in check.inputs
    )


@cache
def _module_tree(module: str) -> dict[str, ast.AST] | None:
    """The module's functions, and its named module-level values (a table of functions is followed like a call)."""
    try:
        source = inspect.getsource(sys.modules[module])
    except (OSError, TypeError, KeyError):
        return None
    found: dict[str, ast.AST] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found[node.target.id] = node.value
        elif isinstance(node, ast.Assign) and not isinstance(node.value, ast.Constant):
            found.update((t.id, node.value) for t in node.targets if isinstance(t, ast.Name))
    return found


@cache
def _module_strings(module: str) -> dict[str, str]:
    """Module-level NAME = "https://..." constants (the upstream sources checks cite by name)."""
    try:
        tree = ast.parse(inspect.getsource(sys.modules[module]))
    except (OSError, TypeError, KeyError):
        return {}
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
        elif isinstance(node, ast.ImportFrom):  # a source named where it is kept (matrix/xid.py's XID_CATALOG)
            for alias in node.names:
                value = getattr(sys.modules[module], alias.asname or alias.name, None)
                if isinstance(value, str):
                    found[alias.asname or alias.name] = value
    return found


def _reached(check: Check) -> Iterator[ast.AST]:
    """Every node of the check function and of the module's functions it names, transitively."""
    functions = _module_tree(check.function.__module__) or {}
    todo, seen = [check.function.__name__], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        for node in ast.walk(functions[name]):
            if isinstance(node, ast.Name):
                todo.append(node.id)
            yield node


def _statuses(check: Check, nodes: list[ast.AST]) -> tuple[str, ...]:
    found = set()
    for node in nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Status":
            found.add(node.attr.lower())
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name):
            if node.exc.func.id == "Skip":
                found.add("skip")
    if check.requires:  # an unmet prerequisite skips it
        found.add("skip")
    found.discard("error")  # a check's own bug, never a verdict it gives
    return tuple(s for s in STATUS_ORDER if s in found)


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Tuple) and node.elts:
        return _literal(node.elts[0])
    return None


def _fixes(nodes: list[ast.AST]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FIX_SHAPES:
            first = _literal(node.args[0]) if node.args else None
            shape = _FIX_SHAPES[node.func.id]
            found[shape.format(first) if first is not None else shape.replace("{0}…", "…").replace("{0}", "…")] = None
    return tuple(found)


def _sources(check: Check, nodes: list[ast.AST]) -> tuple[str, ...]:
    constants = _module_strings(check.function.__module__)
    found: dict[str, None] = {}
    for node in nodes:
        value = None
        if isinstance(node, ast.Name) and node.id in constants:
            value = constants[node.id]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
        # a bare "https://" is code testing a scheme (`source.startswith("https://")`), not a source
        if value is not None and value.startswith("https://") and len(value.split()[0]) > len("https://"):
            found[value.split()[0]] = None
    return tuple(found)


def _why(check: Check) -> str:
    own = inspect.getdoc(check.function)
    if own:
        return own
    module_doc = inspect.getdoc(sys.modules[check.function.__module__]) or ""
    return module_doc.split("\n\n", 1)[0]


def describe(check: Check) -> Description:
    nodes = list(_reached(check))
    path = inspect.getsourcefile(check.function) or ""
    short = "checks/" + path.rsplit("/", 1)[-1] if path else check.function.__module__
    return Description(
        check,
        textwrap.dedent(_why(check)).strip(),
        _statuses(check, nodes),
        _fixes(nodes),
        _sources(check, nodes),
        short,
    )
