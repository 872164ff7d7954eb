"""Redaction never touches a real flag, and the `export ..._FLAGS='...'` fix lines stay valid shell."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.redact import REDACTED
from xladoctor.sanitize import scrub

REAL_FLAGS = ("--xla_debug_buffer_assignment_show_max=100", "--xla_dump_to=/tmp/x", "--tf_xla_auto_jit=2")


@pytest.mark.parametrize("flag", REAL_FLAGS)
def test_a_real_flag_is_left_alone(flag: str) -> None:
    assert scrub(flag) == flag
    assert scrub(f"export XLA_FLAGS='{flag} --api_key=abc'") == f"export XLA_FLAGS='{flag} --api_key={REDACTED}'"


def _exports(text: str, name: str) -> list[list[str]]:
    """Every `export NAME=...` command of a report, as the shell splits it."""
    found = []
    for line in text.splitlines():
        command = line.strip().removeprefix("$ ")
        if command.startswith(f"export {name}="):
            found.append(shlex.split(command))  # raises on an open quote
    return found


def _replay(tmp_path: Path, case: str, variable: str, flags: str, known: dict[str, bool]) -> tuple[str, str]:
    doc = load_json(FACTS_DIR / f"{case}.json")
    doc["env"][variable] = flags
    for dist in doc["distributions"]:
        if dist.get("known_flags"):
            dist["known_flags"] = {variable: known}
    path = tmp_path / f"{case}.json"
    path.write_text(json.dumps(doc))
    text = run_cli("check", "--facts", str(path), "-v").stdout
    report = json.loads(run_cli("check", "--facts", str(path), "--json").stdout)
    return text, "\n".join(c for f in report["findings"] for c in f["remediation"])


def test_xla_flags_fix_keeps_the_real_flags_and_stays_shell_valid(tmp_path: Path) -> None:
    flags = f"{REAL_FLAGS[0]} {REAL_FLAGS[1]} --xla_bogus_flag=1 --api_key=s3cr3t-value"
    known = {"xla_debug_buffer_assignment_show_max": True, "xla_dump_to": True, "xla_bogus_flag": False}
    text, commands = _replay(tmp_path, "real-torch29-xla29-unknown-xla-flag", "XLA_FLAGS", flags, known)
    assert "s3cr3t-value" not in text + commands
    expected = ["export", f"XLA_FLAGS={REAL_FLAGS[0]} {REAL_FLAGS[1]} --api_key={REDACTED}"]
    for output in (text, commands):
        exports = _exports(output, "XLA_FLAGS")
        assert expected in exports  # the unknown flag's fix: every other flag, unchanged
        assert all(len(e) == 2 for e in exports)


def test_tf_xla_flags_fix_keeps_the_real_flag(tmp_path: Path) -> None:
    known = {"tf_xla_auto_jit": True, "tf_xla_bogus_flag": False}
    flags = f"{REAL_FLAGS[2]} --tf_xla_bogus_flag=1"
    text, commands = _replay(tmp_path, "real-tensorflow-cpu-unknown-tf-xla-flag", "TF_XLA_FLAGS", flags, known)
    for output in (text, commands):
        assert ["export", f"TF_XLA_FLAGS={REAL_FLAGS[2]}"] in _exports(output, "TF_XLA_FLAGS")
