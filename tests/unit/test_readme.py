"""The README says what the code does: generated samples are current, every check and signature is counted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from xladoctor.diagnosis.registry import all_checks
from xladoctor.matrix.signatures import load_signatures

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_the_sample_report_and_json_are_generated_from_the_fixture() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "readme_samples.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_every_check_has_its_row_in_what_it_checks() -> None:
    table = README.split("## What it checks", 1)[1].split("\n## ", 1)[0]
    missing = [c.id for c in all_checks() if f"`{c.id}`" not in table]
    assert missing == []


def test_the_signature_count_is_the_bundled_one() -> None:
    counts = {int(n) for n in re.findall(r"compat_matrix/signatures/\)?, (\d+) of them", README)}
    assert counts == {len(load_signatures())}


def test_every_hang_finding_has_its_row_in_when_a_job_hangs() -> None:
    import ast

    section = README.split("## When a job hangs", 1)[1].split("\n## ", 1)[0]
    ids = {
        node.value
        for path in (ROOT / "xladoctor" / "profile" / "hang").glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"hang-[a-z-]+", node.value)
    }
    assert ids and [i for i in sorted(ids) if f"`{i}`" not in section] == []
