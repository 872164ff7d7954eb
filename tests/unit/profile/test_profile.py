"""`xladoctor profile` without frameworks: the launcher, the hooks' start-up chain, records that are broken, and
the command's usage errors and exit statuses (real subprocesses of this interpreter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
from conftest import run_cli

from xladoctor.profile.analysis import build_report, exit_status
from xladoctor.profile.launch import RunOutcome
from xladoctor.profile.records import read_records
from xladoctor.reporters.profile_report import profile_document, profile_schema


def _script(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "program.py"
    path.write_text(text)
    return path


def test_the_program_keeps_its_output_and_its_exit_status(tmp_path: Path) -> None:
    program = _script(tmp_path, "import sys\nprint('to stdout')\nprint('to stderr', file=sys.stderr)\nsys.exit(7)\n")
    ran = run_cli("profile", "--", sys.executable, str(program))
    assert ran.returncode == 7
    assert ran.stdout == "to stdout\n"
    assert ran.stderr.startswith("to stderr\n")
    assert "exited with status 7" in ran.stderr and "partial report" in ran.stderr


def test_the_environment_sitecustomize_still_runs_and_sys_path_is_unchanged(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("MARK = 'theirs'\n")
    program = _script(
        tmp_path,
        "import sitecustomize, sys\nprint(sitecustomize.MARK, any('xladoctor-profile' in p for p in sys.path))\n",
    )
    ran = run_cli("profile", "--", sys.executable, str(program), env={"PYTHONPATH": str(theirs)})
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "theirs False\n"


def test_a_json_report_validates_and_names_the_python_processes(tmp_path: Path) -> None:
    program = _script(tmp_path, "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'pass'])\n")
    out = tmp_path / "p.json"
    ran = run_cli("profile", "--format", "json", "-o", str(out), "--", sys.executable, str(program))
    assert ran.returncode == 0, ran.stderr
    document = json.loads(out.read_text())
    jsonschema.validate(document, profile_schema())
    assert document["helper_processes"] == 2  # the program and its child, neither used a framework
    assert [f["id"] for f in document["findings"]] == ["program-exit", "profile-nothing-observed"]


def test_usage_errors_and_commands_that_cannot_run(tmp_path: Path) -> None:
    assert run_cli("profile").returncode == 2
    json_to_stdout = run_cli("profile", "--format", "json", "--", sys.executable, "-c", "pass")
    assert json_to_stdout.returncode == 2 and "needs -o FILE" in json_to_stdout.stderr
    missing = run_cli("profile", "--", "no-such-command-xladoctor")
    assert missing.returncode == 127 and "command not found" in missing.stderr
    not_executable = _script(tmp_path, "print(1)\n")
    os.chmod(not_executable, 0o644)
    assert run_cli("profile", "--", str(not_executable)).returncode == 126
    assert run_cli("profile", "--format", "junit", "--", "true").returncode == 2


def test_profile_schema_is_published() -> None:
    ran = run_cli("schema", "profile")
    assert ran.returncode == 0 and json.loads(ran.stdout)["title"] == "xladoctor profile report"


def test_broken_record_files_are_read_line_by_line(tmp_path: Path) -> None:
    head = {
        "kind": "process",
        "pid": 41,
        "ppid": 1,
        "argv": ["x.py"],
        "cwd": "/w",
        "python": "3.11.7",
        "ranks": {"RANK": "1"},
    }
    step = {
        "kind": "step",
        "index": 1,
        "source": "torch_xla.sync()",
        "t": 1.0,
        "step": 1,
        "xla": {"compiles": 1, "executions": 1, "transfers": 0, "compile_s": 0.5, "fallbacks": {"histc": 1}},
    }
    lines = [json.dumps(head), "{not json", json.dumps([1, 2]), json.dumps(step), '{"kind": "step", "ind']
    (tmp_path / "proc-41.jsonl").write_text("\n".join(lines))  # the last line was cut by a crash
    (tmp_path / "proc-42.jsonl").write_bytes(b"\xff\xfe garbage\n")
    [record] = read_records(tmp_path)
    assert record.rank == 1 and record.malformed_lines == 3 and not record.exited
    report = build_report(RunOutcome(("python", "x.py"), -9, 2.0), [record])
    assert report.exit_status == 137 and exit_status(report) == 137
    [process] = report.processes
    assert process.steps[0].fallbacks == {"histc": 1} and process.steps[0].compiles == 1
    jsonschema.validate(json.loads(json.dumps(profile_document(report))), profile_schema())
    assert report.notes == ("rank 1: 3 unreadable record line(s) were skipped",)


def test_python_dash_m_and_its_children_are_watched(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(
        "import subprocess, sys\nprint('main runs')\nsubprocess.run([sys.executable, '-c', 'print(2)'], check=True)\n"
    )
    out = tmp_path / "p.json"
    ran = subprocess.run(
        [sys.executable, "-m", "xladoctor", "profile", "--format", "json", "-o", str(out), "--",
         sys.executable, "-m", "pkg"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[3])},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "main runs\n2\n"
    assert json.loads(out.read_text())["helper_processes"] == 2
