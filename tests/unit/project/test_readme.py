"""The README and docs/ say what the code does: generated samples and the list of checks are current, every check,
signature and hang finding is named, and the README stays a five-minute read."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from xladoctor.diagnosis.registry import all_checks
from xladoctor.matrix.signatures import load_signatures

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text()
DOCS = ROOT / "docs"


def _script_check(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), "--check"], capture_output=True, text=True)


def _section(text: str, heading: str) -> str:
    """From `heading` (a whole heading line) to the next heading of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    body = text.split(f"\n{heading}\n", 1)[1]
    return re.split(rf"\n#{{1,{len(level)}}} ", body, maxsplit=1)[0]


def test_the_sample_report_and_json_are_generated_from_the_fixture() -> None:
    result = _script_check("readme_samples.py")  # the report in README.md, the JSON in docs/ci.md
    assert result.returncode == 0, result.stderr
    assert "<!-- sample:report " in README and "<!-- sample:json " in (DOCS / "ci.md").read_text()


def test_the_list_of_checks_is_generated_from_the_registry() -> None:
    result = _script_check("docs_checks.py")
    assert result.returncode == 0, result.stderr


def test_every_check_has_its_row_in_what_it_checks() -> None:
    table = (DOCS / "checks.md").read_text().split("<!-- checks ", 1)[1].split("<!-- /checks -->", 1)[0]
    missing = [c.id for c in all_checks() if f"| `{c.id}` | {c.title} |" not in table]
    assert missing == []


def test_the_signature_count_is_the_bundled_one() -> None:
    texts = [README, *(p.read_text() for p in sorted(DOCS.glob("*.md")))]
    counts = {int(n) for text in texts for n in re.findall(r"compat_matrix/signatures/\)?, (\d+) of them", text)}
    assert counts == {len(load_signatures())}


def test_every_hang_finding_has_its_row_in_the_hang_page() -> None:
    section = _section((DOCS / "hang.md").read_text(), "## Each finding names the ranks, the op and the line")
    ids = {
        node.value
        for path in (ROOT / "xladoctor" / "profile" / "hang").glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"hang-[a-z-]+", node.value)
    }
    assert ids and [i for i in sorted(ids) if f"`{i}`" not in section] == []


def test_the_readme_is_a_five_minute_read() -> None:
    assert len(README.split()) <= 3000  # as `wc -w` counts
    headings = [line for line in README.splitlines() if line.startswith("## ")]
    sample = next(i for i, h in enumerate(headings) if "report" in h)
    tests = next(i for i, h in enumerate(headings) if "tests" in h)
    assert sample < tests  # what it gives before how to develop it
    assert README.count("bash scripts/test.sh") >= 2 and 'bash scripts/test.sh -m "not integration"' in README
    assert all(word in README for word in ("apt-get", "chromium", "GB of disk", "Time:"))  # the prerequisites


def test_every_command_has_one_row_in_the_commands_table() -> None:
    help_text = subprocess.run(
        [sys.executable, "-m", "xladoctor", "--help"], capture_output=True, text=True, check=True
    ).stdout
    commands = re.findall(r"^  (\w+) ", help_text.split("Commands:", 1)[1].split("\n\n", 1)[0], re.M)
    table = _section(README, "## Each command has one line here and a page in docs/")
    rows = [line for line in table.splitlines() if line.startswith("| `xladoctor")]
    assert commands and len(rows) == len(commands)
    for command, row in zip(commands, rows, strict=True):  # in `xladoctor --help`'s order
        assert re.match(rf"\| `xladoctor(` / `xladoctor)? {command}\b", row), (command, row)
        assert re.search(r"\]\(docs/[a-z-]+\.md(#[a-z0-9-]+)?\) \|$", row), row
