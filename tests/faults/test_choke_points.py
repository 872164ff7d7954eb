"""The choke points hold by construction: no reporter (nor the snapshot writer) writes JSON, rich markup or
redacts by itself, so a new one goes through xladoctor.sanitize or is caught here. (Each output format is also
rendered with every planted secret in test_secret_reporters.py, for every value of OutputFormat.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "xladoctor"
WRITERS = sorted((PACKAGE / "reporters").glob("*.py")) + [PACKAGE / "facts" / "model.py"]


def _calls_and_imports(path: Path) -> tuple[set[str], set[str]]:
    calls, imports = set(), set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name):
                calls.add(f"{owner.id}.{node.func.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            imports.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            imports.update(a.name for a in node.names)
    return calls, imports


@pytest.mark.parametrize("path", WRITERS, ids=lambda p: p.name)
def test_output_is_written_through_the_sanitizer(path: Path) -> None:
    calls, imports = _calls_and_imports(path)
    assert not {"json.dumps", "json.dump"} & calls, "JSON output goes through xladoctor.sanitize.json_text"
    assert not {i for i in imports if i.startswith("xladoctor.redact")}, "use xladoctor.sanitize (scrub, scrub_json)"
    if path.name != "terminal.py":  # terminal._text and _line: scrub, then escape the rich markup
        assert "rich.markup.escape" not in imports, "rich text goes through xladoctor.reporters.terminal._text"
    if "ET.tostring" in calls:
        assert "_scrub" in path.read_text(), "every element and attribute passes the JUnit tree walk"
