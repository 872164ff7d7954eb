"""The command line as a user runs it: a real subprocess, exact exit codes, one-line errors."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import jsonschema
import pytest
from conftest import FACTS_DIR, run_cli


def _one_line_error(result, needle: str, hint: str | None = None) -> None:
    """One error line, and a `hint:` line only where there is a name to suggest (as uv and pip do)."""
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("xladoctor: error: ") and needle in lines[0], result.stderr
    assert lines[1:] == ([f"hint: {hint}"] if hint else []), result.stderr


def test_version_and_help_document_exit_codes() -> None:
    assert run_cli("--version").stdout.strip() == "xladoctor 0.1.0"
    help_text = run_cli("--help").stdout
    assert "Exit codes: 0 nothing failed; 1 a check or smoke test failed" in " ".join(help_text.split())


def test_bare_command_means_check_on_the_running_interpreter() -> None:
    result = run_cli()
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"xladoctor diagnosing {sys.executable}" in result.stdout
    assert "Summary:" in result.stdout


def test_json_report_validates_against_the_published_schema() -> None:
    schema = json.loads(run_cli("schema").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    for args in (
        ("--json",),
        ("check", "--format", "json", "--facts", str(FACTS_DIR / "colab-tpu-torch-upgraded.json")),
    ):
        result = run_cli(*args)
        report = json.loads(result.stdout)
        jsonschema.validate(report, schema)
        assert result.stderr == ""
    assert report["summary"] == {
        s: sum(f["status"] == s for f in report["findings"]) for s in ("ok", "warn", "fail", "skip", "error")
    }
    assert report["summary"]["fail"] == 1 and report["summary"]["ok"] > 10
    assert report["plan"]["commands"] == ["/usr/bin/python3 -m pip install 'torch_xla[tpu]==2.9.0'"]
    assert report["plan"]["platform"] == {
        "name": "colab",
        "accelerator": "tpu",
        "notebook": True,
        "hosted": True,
        "restart": "Runtime > Restart session",
        "evidence": ["COLAB_RELEASE_TAG is set", "1 TPU chip(s) in /dev"],
    }
    assert report["plan"]["cells"] == ["!/usr/bin/python3 -m pip install 'torch_xla[tpu]==2.9.0'"]
    assert report["plan"]["notes"] == [
        "then restart the kernel (Runtime > Restart session): a running kernel keeps the modules it has already "
        "imported and the variables it has set"
    ]


@pytest.mark.parametrize(
    ("args", "needle", "hint"),
    [
        (("--only", "nope"), "unknown check or area 'nope'", "`xladoctor checks` lists them"),
        (("--only", "torch-xla-mismatch"), "unknown check or area 'torch-xla-mismatch'",
         "did you mean 'torch-xla-torch-mismatch' or 'torch-triton-mismatch' or 'nvcc-torch-cuda-mismatch'?"),
        (("--skip", "torch-xla,nope2"), "unknown check or area 'nope2'", "`xladoctor checks` lists them"),
        (("--smoke", "matmull"), "unknown smoke test 'matmull'; valid: matmul, compile,", "did you mean 'matmul'?"),
        (("matrix", "torch-nothing"), "unknown relation 'torch-nothing'; valid: conflicting-distributions",
         "did you mean 'torch-triton' or 'torch-python' or 'torch_xla-python'?"),
    ],
)  # fmt: skip
def test_an_unknown_name_is_one_line_and_a_did_you_mean_hint(args: tuple[str, ...], needle: str, hint: str) -> None:
    _one_line_error(run_cli(*args), needle, hint)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--bogus",), "No such option: --bogus"),
        (("--format", "yaml"), "'yaml' is not one of 'text', 'json', 'junit'"),
        (("--python", "/nonexistent/bin/python"), "--python /nonexistent/bin/python: no such interpreter"),
        (("--python", "/tmp"), "--python /tmp: not an executable file"),
        (("--timeout", "-1"), "--timeout -1: must be a positive number of seconds"),
        (
            ("snapshot", "-o", "/nonexistent-dir/x.json"),
            "--output /nonexistent-dir/x.json: the folder /nonexistent-dir does not exist",
        ),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(args: tuple[str, ...], needle: str) -> None:
    _one_line_error(run_cli(*args), needle)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"schema_version": 1, "xladoctor_ver', "not valid JSON (truncated or corrupted?)"),
        ("[1, 2]", "not a facts snapshot: the top level must be a JSON object"),
        ('{"hello": 1}', "not a facts snapshot: 'schema_version' is missing"),
        ('{"schema_version": 99}', "facts schema_version 99 is newer than this xladoctor understands (1)"),
        (
            '{"schema_version": 1, "xladoctor_version": "0.1.0", "created_at": "x", "target": {"requested": "p", '
            '"ok": "yes"}}',
            "facts.target.ok: expected bool, got str",
        ),
        (
            '{"schema_version": 1, "xladoctor_version": "0.1.0", "created_at": "x", "target": {"requested": "p", '
            '"ok": true}, "distributions": {}}',
            "facts.distributions: expected a list",
        ),
        ("\udcff", "cannot read it"),
    ],
)
def test_malformed_facts_file_is_one_line_and_exit_2(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "facts.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    _one_line_error(run_cli("check", "--facts", str(path)), needle)


def test_missing_facts_file_and_conflicting_options() -> None:
    _one_line_error(run_cli("check", "--facts", "/nonexistent/facts.json"), "cannot read it (FileNotFoundError")
    _one_line_error(run_cli("check", "--facts", "x.json", "--python", sys.executable), "cannot be used together")


def test_facts_from_stdin() -> None:
    text = (FACTS_DIR / "torch-xla-without-torch.json").read_text()
    result = run_cli("check", "--facts", "-", "--json", input=text)
    assert result.returncode == 1
    assert [f["id"] for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"] == [
        "torch-xla-torch-mismatch"
    ]


def test_snapshot_then_replay_gives_identical_findings(tmp_path: Path) -> None:
    snap = tmp_path / "snap.json"
    written = run_cli("snapshot", "-o", str(snap))
    assert written.returncode == 0 and written.stderr.strip() == f"wrote {snap}"
    assert json.loads(snap.read_text())["schema_version"] == 1
    # a live diagnosis and the replay of the facts it saved agree finding for finding
    used = tmp_path / "used.json"
    live = run_cli("check", "--json", "--save-facts", str(used))
    replay = run_cli("check", "--json", "--facts", str(used))
    live_doc, replay_doc = json.loads(live.stdout), json.loads(replay.stdout)
    assert live_doc["findings"] == replay_doc["findings"] and live_doc["plan"] == replay_doc["plan"]
    assert live.returncode == replay.returncode


def test_secrets_never_reach_snapshot_or_report() -> None:
    secrets = {
        "HF_TOKEN": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
        "PIP_INDEX_URL": "https://alice:pa55word@pypi.corp.example/simple",
        "XLA_FLAGS": "--xla_dump_to=/tmp/d --xla_api_key=s3cr3tvalue",
        "TORCH_HOME": "/tmp/ghp_abcdefghijklmnopqrstuvwxyz0123456789/cache",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    }
    for args in (("snapshot",), ("check", "--json"), ("check", "-v")):
        out = run_cli(*args, env=secrets).stdout
        for leaked in ("hf_AbCd", "pa55word", "s3cr3tvalue", "ghp_abcdef", "wJalrXUtn"):
            assert leaked not in out, (args, leaked)
    snap = json.loads(run_cli("snapshot", env=secrets).stdout)
    assert snap["env"]["XLA_FLAGS"] == "--xla_dump_to=/tmp/d --xla_api_key=<redacted>"
    assert "AWS_SECRET_ACCESS_KEY" not in snap["env"] and "HF_TOKEN" not in snap["env"]


def test_matrix_prints_rows_with_sources() -> None:
    text = run_cli("matrix", "torch-torch_xla").stdout
    assert "2.9.0" in text and "https://github.com/pytorch/xla/blob/v2.9.0/README.md" in text
    assert (
        "torch_xla=2.9.0  torch=2.9.0  python=3.10,3.11,3.12,3.13  source: https://github.com/pytorch/xla/blob/v2.9.0/README.md"
        in text
    )
    data = json.loads(run_cli("matrix", "torch-triton", "--format", "json").stdout)
    assert any(r["torch"] == "2.9.0" and r["triton"] == "==3.5.0" for r in data["torch-triton"]["rows"])


# --- a target interpreter that misbehaves becomes a finding, never a traceback -------------------


def _fake_python(tmp_path: Path, body: str) -> str:
    path = tmp_path / "bin" / "python"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("sleep 120", "timed out after"),
        ("kill -SEGV $$", "killed by SIGSEGV"),
        ("echo 'not json at all'; exit 0", "printed no result: not json at all"),
        ("echo 'Fatal Python error: init_fs_encoding' >&2; exit 1", "exited with status 1: Fatal Python error"),
    ],
)
def test_broken_target_interpreter_is_a_finding(tmp_path: Path, body: str, error: str) -> None:
    python = _fake_python(tmp_path, body)
    started = time.monotonic()
    result = run_cli("check", "--python", python, "--json", "--timeout", "2")
    assert time.monotonic() - started < 20
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    [failed] = [f for f in report["findings"] if f["status"] == "fail"]
    assert failed["id"] == "target-interpreter"
    assert error in failed["evidence"]["error"]
    assert failed["remediation"] == []  # not a venv whose base Python is gone: `venv --upgrade` would do harm


def test_a_venv_whose_base_python_is_gone_gets_the_venv_repair(tmp_path: Path) -> None:
    python = _fake_python(tmp_path, "exit 127")  # what the kernel's ENOENT for a dangling link looks like to us
    (tmp_path / "pyvenv.cfg").write_text(f"home = {tmp_path / 'gone'}\nversion = 3.11.7\n")
    report = json.loads(run_cli("check", "--python", python, "--json", "--timeout", "5").stdout)
    [failed] = [f for f in report["findings"] if f["status"] == "fail"]
    assert failed["remediation"] == [f"python3 -m venv --upgrade {tmp_path}"]
    assert failed["evidence"]["venv_base_exists"] is False
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "python3").touch()  # the base is there: something else is wrong, no venv repair
    report = json.loads(run_cli("check", "--python", python, "--json", "--timeout", "5").stdout)
    [failed] = [f for f in report["findings"] if f["status"] == "fail"]
    assert failed["remediation"] == []


def test_probe_ignores_noise_printed_around_its_markers(tmp_path: Path) -> None:
    noisy = tmp_path / "noisy"
    noisy.mkdir()
    (noisy / "sitecustomize.py").write_text("print('hello from sitecustomize'); print('{\"fake\": 1}')\n")
    python = _fake_python(tmp_path, f'PYTHONPATH={noisy} exec {sys.executable} "$@"')
    result = run_cli("snapshot", "--python", python)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {k: doc["target"][k] for k in ("requested", "ok", "error")} == {
        "requested": python,
        "ok": True,
        "error": None,
    }
    assert str(noisy) in doc["python"]["sys_path"]
