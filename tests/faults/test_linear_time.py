"""Scrubbing takes linear time whatever the input: a coarse guard (1 MiB of hostile text well under 2 s, where
the regular expressions this replaced took minutes on 128 KiB). scripts/bench_redact.py measures it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import run_cli
from planted import fake_python

from xladoctor.redact import REDACTED
from xladoctor.sanitize import json_text, scrub

MIB = 1 << 20
BOUND_S = 2.0
# Runs that make a backtracking pattern rescan (letters, dashes, '@', ':', '/', '='), and the literal prefixes
# and separators each rule starts on, repeated so that every position starts a candidate.
HOSTILE = {
    "letters": "a",
    "mixed case and digits": "aB3",
    # many separate random-looking runs: each one's check must look back in place, not copy the text before it
    "random runs": "aB3dE5gH7jK9mN1pQ3sT5vW7 ",
    "dashes": "-",
    "at signs": "@",
    "colons": ":",
    "slashes": "/",
    "equals": "=",
    "all of them": "a-@:/=",
    "schemes": "://",
    "user info": "https://u:p@",
    "hosts and ports": "://a:1/",
    "secret keys": "password=",
    "open quotes": 'password="',
    "keys": "a=",
    "flags": "--token ",
    "bearer": "Bearer ",
    "token prefixes": "ghp_",
    "jwt prefixes": "eyJa-",
    "private key headers": "-----BEGIN PRIVATE KEY-----",
    "base64": "aB3+/",
    "path windows": "ab12" * 10 + "/",
    "hex": "0a",
    "escapes": "\x1b",
    "control strings": "\x1b]",
    "8-bit CSI": "\x9b",
}


@pytest.mark.parametrize("unit", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_mebibyte_of_hostile_text_is_scrubbed_in_linear_time(unit: str) -> None:
    text = (unit * (MIB // len(unit) + 1))[:MIB]
    started = time.perf_counter()
    scrub(text)
    assert time.perf_counter() - started < BOUND_S


def test_a_document_of_hostile_strings_is_written_in_linear_time() -> None:
    doc = {name: (unit * (MIB // 8 // len(unit) + 1))[: MIB // 8] for name, unit in list(HOSTILE.items())[:8]}
    started = time.perf_counter()
    json.loads(json_text(doc))
    assert time.perf_counter() - started < BOUND_S


def test_a_huge_error_message_from_the_target_is_reported_quickly(tmp_path: Path) -> None:
    """A failing import whose message is a 20,000-character line and a 128 KiB line of letters and dashes."""
    first = "ImportError: password=hunter2 " + "x-" * 10_000 + " token=hunter3\n"
    message = first + ("a" * 64 + "-" * 64) * 1024 + "\n"
    python = fake_python(tmp_path, message)
    started = time.monotonic()
    result = run_cli("check", "--python", python, "--json")
    assert time.monotonic() - started < 30  # with the interpreter start; the redaction alone took minutes
    assert result.returncode == 1, result.stderr
    assert f"password={REDACTED}" in result.stdout and "hunter2" not in result.stdout
    assert "hunter3" not in result.stdout  # redacted, and then cut: a line is kept to SHOWN_CHARS
