"""The tree tells the flow: stages in folders, imports that only point down the pipeline (CONTRIBUTING.md)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "xladoctor"

# Lower ranks never import higher ones. Front ends -> pipeline -> stages -> facts -> contracts.
RANKS = {
    "contracts": 0,  # errors, exitcodes, options, redact, sanitize, proc, signals, findings, fix (the Fix model)
    "facts": 1,
    "matrix": 2,
    "probes": 2,
    "remedy": 3,
    "smoke": 4,
    "diagnosis": 5,
    "checks": 5,
    "explain": 6,
    "fleet": 6,
    "profile": 6,
    "collective": 6,
    "reporters": 7,
    "api": 8,  # xladoctor.api, xladoctor.magic: the notebook front ends
    "cli": 9,
}
STAGES = {
    *("probes", "facts", "matrix", "diagnosis", "remedy", "smoke"),
    *("explain", "fleet", "profile", "collective", "reporters", "cli"),
}
CONTRACTS = {"errors", "exitcodes", "options", "redact", "sanitize", "proc", "signals", "findings", "fix"}


def layer(module: str) -> str:
    parts = module.split(".")
    if parts == ["xladoctor"]:
        return "contracts"  # `from xladoctor import __version__`
    if parts[1] in STAGES:
        return parts[1]
    if parts[1] in ("checks",):
        return "checks"
    if parts[1] in CONTRACTS:
        return "contracts"
    if parts[1] in ("api", "magic"):
        return "api"
    if parts[1] == "__main__":
        return "cli"
    raise AssertionError(f"{module}: a module outside every layer")


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "scripts" in path.relative_to(PACKAGE).parts:  # run inside the target interpreter; import nothing of ours
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        found.append((name, path))
    found += [(f"xladoctor.checks.{p.stem}", p) for p in sorted((ROOT / "checks").glob("*.py"))]
    return found


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "xladoctor":
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.split(".")[0] == "xladoctor")
    return names


def test_imports_point_down_the_pipeline() -> None:
    wrong = []
    for module, path in _modules():
        if module == "xladoctor":
            continue  # the package: __version__, and diagnose()/the magic imported when called
        for imported in _imports(path):
            if RANKS[layer(imported)] > RANKS[layer(module)]:
                wrong.append(f"{module} ({layer(module)}) imports {imported} ({layer(imported)})")
    assert not wrong, "\n".join(wrong)


def test_nothing_outside_cli_imports_cli() -> None:
    users = [m for m, p in _modules() if layer(m) != "cli" and any(layer(i) == "cli" for i in _imports(p))]
    assert users == []


def test_the_top_level_holds_entry_points_and_contracts_only() -> None:
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == {"__init__", "__main__", "api", "magic"} | CONTRACTS
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and not p.name.startswith("__")} == STAGES


def test_a_layer_violation_is_caught(tmp_path: Path) -> None:
    """The rule above really fails: a fact module that imports the pipeline."""
    bad = tmp_path / "bad.py"
    bad.write_text("from xladoctor.diagnosis.pipeline import diagnose\n")
    [imported] = _imports(bad)
    assert RANKS[layer(imported)] > RANKS[layer("xladoctor.facts.bad")]
