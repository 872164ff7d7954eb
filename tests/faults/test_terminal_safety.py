"""Output that cannot attack the terminal or the CI: control sequences planted in variables, a log, a file
name, a snapshot and a child's output never reach stdout or stderr; JUnit stays well-formed XML; a GitHub
annotation stays one workflow command.

The text is read as bytes and must decode as UTF-8 (so no stray 0x80-0x9f byte): "no control byte" means no
code point in C0 but tab and newline, DEL, C1 (U+0080-U+009F, where the 8-bit CSI 0x9b lives), and no ESC.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import FACTS_DIR, load_json
from planted import fake_python

from xladoctor.reporters.annotations import _data, _property
from xladoctor.sanitize import one_line, strip_controls, xml_text

# OSC 0 (window title), OSC 8 (hyperlink), DCS (a terminfo query), APC, PM, SOS, 7- and 8-bit CSI (clear screen,
# colour), an 8-bit OSC ended by an 8-bit ST, BEL, BS, VT, FF, CR, DEL, NEL, a lone ESC, a bidi override
CONTROLS = (
    "\x1b]0;pwned-title\x07\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\x1bP+q544e\x1b\\\x1b_apc\x1b\\"
    "\x1b^pm\x1b\\\x1bXsos\x1b\\\x9b2J\x1b[31m\x9d0;t8\x9c\x07\x08\x0b\x0c\r\x7f\x85\x1b\u202e"
)
INJECTION = "\n::error title=pwned::injected\r\n::add-mask::x%0A::warning::smuggled"
SCRUBBED_AWAY = ("pwned-title", "evil.example", "+q544e", "apc", "t8")  # the payloads of control strings
_BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
REPLAYED = FACTS_DIR / "real-torch29-xla29-unknown-xla-flag.json"


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """`python -m xladoctor ARGS` with its output as bytes; values may hold surrogates (undecodable bytes)."""
    merged = {**os.environ, **(env or {})}
    argv = [sys.executable, "-m", "xladoctor", *args]
    return subprocess.run(argv, capture_output=True, env=merged, timeout=120)


def _terminal_safe(raw: bytes) -> str:
    text = raw.decode("utf-8")  # strict: a stray 0x80-0x9f byte would not decode
    bad = sorted({f"U+{ord(c):04X}" for c in _BAD.findall(text)})
    assert not bad, f"control characters reached the output: {bad}"
    assert not any(payload in text for payload in SCRUBBED_AWAY)
    return text


def _planted_env() -> dict[str, str]:
    return {
        "XLA_FLAGS": f"--xla_dump_to=/tmp/{CONTROLS}x --xla_bogus{CONTROLS}flag=1{INJECTION}",
        "LD_LIBRARY_PATH": f"/opt/{CONTROLS}/lib:/usr/lib",
        "TORCH_HOME": f"/cache/{CONTROLS}\udc9b\udcff",  # undecodable bytes 0x9b 0xff, as os.environ holds them
        "PJRT_DEVICE": f"CPU{CONTROLS}",
    }


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The torch_xla snapshot with control sequences, NUL, U+FFFE/U+FFFF and a lone surrogate in what a report
    echoes: XLA_FLAGS (the unknown-flag finding and its fix), the interpreter path, a probe error."""
    doc = load_json(REPLAYED)
    doc["env"] = {k: v.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for k, v in _planted_env().items()}
    doc["env"]["XLA_FLAGS"] += " --xla_nul\x00\ufffe\uffff\ud800=1"
    doc["python"]["executable"] = f"/home/{CONTROLS}\x00/bin/python"
    doc["target"]["requested"] = doc["python"]["executable"]
    doc["probes"].append({"name": "planted", "ok": False, "duration_s": 0.1, "error": f"{CONTROLS}\x00{INJECTION}"})
    path = tmp_path_factory.mktemp("controls") / "snapshot.json"
    path.write_text(json.dumps(doc))  # json.dumps escapes them all as \\uXXXX: the file itself is plain
    return path


@pytest.mark.parametrize("args", [("check",), ("check", "-v")])
def test_a_replayed_snapshot_in_text(snapshot: Path, args: tuple[str, ...]) -> None:
    result = _run(*args, "--facts", str(snapshot), env={"GITHUB_ACTIONS": "true"})
    assert result.returncode == 1, result.stderr
    text = _terminal_safe(result.stdout + result.stderr)
    assert "xla-flags-unknown" in text and "--xla_dump_to=/tmp/" in text


def test_a_live_run_with_controls_in_the_environment() -> None:
    result = _run("check", "-v", "--no-smoke", env=_planted_env())
    assert result.returncode in (0, 1), result.stderr
    _terminal_safe(result.stdout + result.stderr)
    snapshot = _run("snapshot", env=_planted_env())
    env = json.loads(snapshot.stdout)["env"]
    assert env["LD_LIBRARY_PATH"] == "/opt/clickx/lib:/usr/lib".replace("x", "")  # payloads and controls gone
    assert env["TORCH_HOME"] == "/cache/click\ufffd\ufffd"  # undecodable bytes show as U+FFFD


def test_junit_is_well_formed_whatever_the_facts_hold(snapshot: Path) -> None:
    result = _run("check", "--facts", str(snapshot), "--format", "junit", "--strict")
    root = ET.fromstring(result.stdout)
    values = [v for e in root.iter() for v in (e.text or "", e.tail or "", *e.attrib.values())]
    assert not [v for v in values if _BAD.search(v) or re.search("[\ufffe\uffff\ud800-\udfff]", v)]
    assert any("xla-flags-unknown" in (e.get("name") or "") for e in root.iter("testcase"))


def test_annotations_stay_one_workflow_command_each(snapshot: Path) -> None:
    result = _run("check", "--facts", str(snapshot), "--json", env={"GITHUB_ACTIONS": "true"})
    report = json.loads(result.stdout)
    shown = [f for f in report["findings"] if f["status"] in ("fail", "warn", "error")]
    lines = result.stderr.decode("utf-8").splitlines()
    assert len(lines) == len(shown)  # the planted "\n::error title=pwned::..." stays inside one message
    assert all(re.fullmatch(r"::(error|warning) title=xladoctor [a-z0-9-]+::[^\r\n]*", line) for line in lines)
    assert any("%0A" in line for line in lines)  # the planted newlines were escaped, not written


def test_explain_a_log_and_a_file_name_holding_controls(tmp_path: Path) -> None:
    log = tmp_path / f"ctl-{CONTROLS.replace('/', '')}-\n-name.log"  # a file name holds no '/'

    lines = [
        f"RuntimeError: {CONTROLS} unexplained\x00failure {INJECTION}",
        f"ImportError: libc10.so{CONTROLS}: cannot open shared object file",
        f"ImportError: libc10.so: cannot open shared object file {CONTROLS}",
    ]
    log.write_bytes("\n".join(lines).encode("utf-8") + b"\n\x9b31m raw 8-bit CSI Error\n")
    for args in (("-v",), ()):
        result = _run("explain", str(log), "--no-facts", *args)
        assert result.returncode == 1, result.stderr
        text = _terminal_safe(result.stdout + result.stderr)
        assert "shared-library-missing" in text and "ctl-click-\\n-name.log" in text
    unexplained = tmp_path / "unexplained.log"
    unexplained.write_bytes(lines[0].encode("utf-8") + b"\n\x9b31m raw 8-bit CSI Error\n")
    text = _terminal_safe(_run("explain", str(unexplained), "--no-facts").stdout)
    assert "unexplainedfailure" in text


def test_a_child_whose_path_and_output_hold_controls(tmp_path: Path) -> None:
    folder = tmp_path / f"env-{CONTROLS.replace('/', '')}-\n-x"
    python = fake_python(folder, f"Traceback\nImportError: {CONTROLS}\x00 broken {INJECTION}\n")
    for args in (("check",), ("check", "-v")):
        result = _run(*args, "--python", python, env={"GITHUB_ACTIONS": "true"})
        assert result.returncode == 1, result.stderr
        text = _terminal_safe(result.stdout + result.stderr)
        assert "target-interpreter" in text and f"diagnosing {tmp_path}/env-click-\\n-x/bin/python" in text
    explained = _run("explain", str(folder / "message.txt"), "--python", python)
    _terminal_safe(explained.stdout + explained.stderr)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\x1b]0;title\x07b", "ab"),  # OSC ended by BEL
        ("a\x1b]8;;https://e.example/\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # OSC 8 hyperlink, ended by ST
        ("a\x9d0;title\x9cb", "ab"),  # 8-bit OSC and ST
        ("a\x1bP+q544e\x1b\\b \x1b_x\x1b\\ \x1b^x\x1b\\ \x1bXx\x1b\\", "ab   "),  # DCS, APC, PM, SOS
        ("a\x1b[1;31mred\x1b[0m \x9b2Jb", "ared b"),  # CSI, 8-bit CSI
        ("a\x1b]0;never ended\nnext", "a\nnext"),  # an unterminated string ends at the line
        ("a\x1b(Bb\x1b7c\x1b", "abc"),  # other escape sequences, a lone ESC
        ("tab\tnew\nline\r\x00\x07\x08\x7f\x85\u202eend", "tab\tnew\nlineend"),
        ("bytes \udc9b\udcff", "bytes \ufffd\ufffd"),  # undecodable bytes (surrogateescape)
        ("plain ✔ text", "plain ✔ text"),
    ],
)
def test_strip_controls(text: str, expected: str) -> None:
    assert strip_controls(text) == expected


def test_xml_and_one_line_text() -> None:
    assert xml_text("a\x00b\ufffe\uffff\x1b[31mc\ud800") == "ab" + "c\ufffd"
    assert one_line("a\nb\tc\x1b]0;t\x07") == "a\\nb c"
    escaped = _data("x\r\n::error title=pwned::y %0A")
    assert escaped == "x%0A::error title=pwned::y %250A" and "\n" not in escaped
    assert _property("xladoctor a,b:c\n") == "xladoctor a%2Cb%3Ac%0A"
