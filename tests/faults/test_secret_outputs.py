"""No planted credential reaches any output, whatever its source: allow-listed variables, a log given to
`explain` (and its file name), a replayed snapshot, a target interpreter's error output.

Every command runs as a user runs it (tests/conftest.py run_cli) and every output is searched, stdout and stderr
together, for any 10-character piece of every planted secret (planted.leaks).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FACTS_DIR, load_json, run_cli
from planted import SECRETS, fake_python, in_context, leaks, packed, plant_snapshot, planted_environment, secret

from xladoctor.redact import REDACTED

ENV: dict[str, str | None] = {**planted_environment(), "GITHUB_ACTIONS": "true"}
REPLAYED = FACTS_DIR / "real-torch29-xla29-unknown-xla-flag.json"  # torch_xla: XLA_FLAGS findings echo the variable
NOT_READ = ("HF_TOKEN", "WANDB_API_KEY", "AWS_SECRET_ACCESS_KEY", "HF_HOME", "XLA_TOKEN")


def _clean(*texts: str) -> None:
    found = leaks("\n".join(texts))
    assert not found, f"leaked: {found}"


def _run(*args: str, env: dict[str, str | None] | None = None, code: int | None = None) -> str:
    result = run_cli(*args, env=env)
    assert result.returncode in ((0, 1) if code is None else (code,)), result.stderr
    _clean(result.stdout, result.stderr)
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two planted snapshots of one job whose workers differ in XLA_FLAGS and LD_LIBRARY_PATH."""
    folder = tmp_path_factory.mktemp("planted")
    doc = load_json(REPLAYED)
    first, second = folder / "worker-0.json", folder / "worker-1.json"
    first.write_text(json.dumps(plant_snapshot(doc, planted_environment())))
    other = {**planted_environment(), "XLA_FLAGS": f"--xla_dump_to=/tmp/{secret('npm')}", "LD_LIBRARY_PATH": "/usr"}
    second.write_text(json.dumps(plant_snapshot(doc, other)))
    return first, second


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A log no signature explains (its error-like lines are shown) and one two signatures explain (their
    evidence lines and the cause built from the first are shown); the file names hold a secret too."""
    folder = tmp_path_factory.mktemp("logs")
    unexplained = folder / f"train-{secret('github-pat')}.log"
    unexplained.write_text("\n".join(["step 1 loss=0.5", *packed("RuntimeError: failed")]) + "\n")
    explained = folder / f"job-{secret('huggingface')}.log"
    chunks = packed("", 400)
    assert len(chunks) <= 6, "every secret must be in an evidence line: 3 lines a signature are kept"
    library = "ImportError: libc10.so: cannot open shared object file"
    symbol = f"ImportError: /x/_XLAC.x.so: undefined symbol: {secret('stripe-secret')}"  # the cause names it
    lines = [(library if n < 3 else symbol) + chunk for n, chunk in enumerate(chunks)]
    explained.write_text("\n".join(lines) + "\n")
    return unexplained, explained


def test_every_shape_is_planted_in_context_and_in_the_environment() -> None:
    assert set(leaks("\n".join(in_context()))) == set(SECRETS)
    read = [v for k, v in planted_environment().items() if k not in NOT_READ]
    assert set(leaks("\n".join(read))) == set(SECRETS)


def test_the_planted_variables_are_read_and_redacted() -> None:
    snapshot = json.loads(run_cli("snapshot", env=ENV).stdout)["env"]
    read = {k for k in planted_environment() if k not in NOT_READ}
    assert read <= set(snapshot) and not set(NOT_READ) & set(snapshot)
    assert all(REDACTED in snapshot[k] for k in read)
    assert snapshot["XLA_FLAGS"] == (
        f"--xla_dump_to=/tmp/x --xla_debug_buffer_assignment_show_max=100 --api_key={REDACTED} "
        f"password={REDACTED} --xla_bogus_flag=1"
    )
    assert snapshot["PIP_INDEX_URL"] == f"https://{REDACTED}@pypi.corp.example/simple"


@pytest.mark.parametrize(
    "args",
    [
        ("check",),
        ("check", "-v"),
        ("check", "--json"),
        ("check", "--format", "junit"),
        ("snapshot",),
    ],
)
def test_a_live_run_with_credentials_in_the_environment(args: tuple[str, ...]) -> None:
    _run(*args, env=ENV)  # GITHUB_ACTIONS=true: the annotations on stderr are searched too


def test_snapshot_files_and_saved_facts(tmp_path: Path) -> None:
    snapshot, saved = tmp_path / "snapshot.json", tmp_path / "saved.json"
    _run("snapshot", "-o", str(snapshot), env=ENV, code=0)
    _run("check", "--json", "--save-facts", str(saved), env=ENV)
    _clean(snapshot.read_text(), saved.read_text())


@pytest.mark.parametrize(
    "args",
    [
        ("-v",),
        ("--json",),
        ("--format", "junit", "--strict"),
    ],
)
def test_a_replayed_snapshot_holding_credentials(snapshots: tuple[Path, Path], args: tuple[str, ...]) -> None:
    output = _run("check", "--facts", str(snapshots[0]), *args, env={"GITHUB_ACTIONS": "true"}, code=1)
    assert "::error title=xladoctor xla-flags-unknown::" in output  # the annotations were written and searched


def test_a_replayed_snapshot_written_again(snapshots: tuple[Path, Path], tmp_path: Path) -> None:
    saved = tmp_path / "again.json"
    _run("check", "--facts", str(snapshots[0]), "--save-facts", str(saved), code=1)
    text = saved.read_text()
    _clean(text)
    assert json.loads(text)["env"]["PIP_INDEX_URL"] == f"https://{REDACTED}@pypi.corp.example/simple"


@pytest.mark.parametrize("args", [("-v", "--each"), ("--json", "--each")])
def test_compare_of_snapshots_holding_credentials(snapshots: tuple[Path, Path], args: tuple[str, ...]) -> None:
    output = _run("compare", *map(str, snapshots), *args, code=1)
    assert "fleet-env-skew" in output  # the differing variables are echoed, redacted


@pytest.mark.parametrize("verbose", [("-v",), ("--json",)])
def test_explain_a_log_holding_credentials(
    logs: tuple[Path, Path], snapshots: tuple[Path, Path], verbose: tuple[str, ...]
) -> None:
    unexplained, explained = logs
    shown = _run("explain", str(unexplained), "--no-facts", *verbose, code=0)
    assert shown.count(REDACTED) >= len(SECRETS)  # the error-like lines were shown, redacted
    found = _run("explain", str(explained), "--facts", str(snapshots[0]), *verbose, code=1)
    assert "shared-library-missing" in found and "torch-xla-undefined-symbol" in found


def _failing_import(tmp_path: Path) -> str:
    traceback = 'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
    message = "ImportError: cannot import name 'init' from 'plugin' | " + " | ".join(in_context())
    return fake_python(tmp_path, traceback + message + "\n")


@pytest.mark.parametrize(
    "args",
    [
        ("check",),
        ("check", "--json"),
        ("check", "--format", "junit"),
        ("snapshot",),
    ],
)
def test_a_failing_interpreter_whose_error_carries_credentials(tmp_path: Path, args: tuple[str, ...]) -> None:
    output = _run(*args, "--python", _failing_import(tmp_path), env={"GITHUB_ACTIONS": "true"})
    assert REDACTED in output.replace("&lt;", "<").replace("&gt;", ">")  # the message was shown, redacted


def test_explain_with_the_facts_of_a_failing_interpreter(tmp_path: Path, logs: tuple[Path, Path]) -> None:
    _run("explain", str(logs[1]), "--python", _failing_import(tmp_path), code=1)
