"""`profile --stall-after` and `hang` on real processes that need no framework (the standard library only, so they
run in the fast suite): the hook's dump and faulthandler through its channel, a stalled program reported at once and
stopped, bad input refused in one line; the framework cases are in tests/integration/test_hang_real.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest
from conftest import run_cli

from xladoctor.profile.hang import channel
from xladoctor.profile.hang.stacks import from_faulthandler, from_hook
from xladoctor.profile.launch import hooked_environment, install_hooks
from xladoctor.reporters.hang_report import hang_schema
from xladoctor.reporters.profile_report import profile_schema

SLEEPER = "import time\nprint('ready', flush=True)\nwhile True:\n    time.sleep(0.2)  # <- sleep\n"


def _started(tmp_path: Path, code: str) -> tuple[subprocess.Popen[str], Path]:
    """A Python process with the profile hooks armed for a stall watch, once it has printed `ready`."""
    records = tmp_path / "records"
    records.mkdir()
    env = hooked_environment(os.environ, install_hooks(tmp_path), records, stall_after_s=5.0)
    script = tmp_path / "program.py"
    script.write_text(code)
    child = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    time.sleep(0.5)  # into its loop
    return child, records


def test_the_hooks_thread_answers_a_dump_with_every_thread(tmp_path: Path) -> None:
    child, records = _started(tmp_path, SLEEPER)
    try:
        dump = channel.request_dump(records, child.pid, 1, 10.0)
        assert dump is not None and dump["pid"] == child.pid
        [thread] = from_hook(dump)  # the hook's own thread is left out
        assert thread.main and [(f.line, f.function, f.user) for f in thread.frames] == [(4, "<module>", True)]
        assert dump["flight_recorder"] == {"available": False, "why": "torch.distributed is not imported"}
        assert channel.request_dump(records, child.pid + 10**6, 2, 1.0) is None  # nobody listens there
    finally:
        child.kill()
        child.wait()


def test_faulthandler_answers_when_only_a_signal_can(tmp_path: Path) -> None:
    child, records = _started(tmp_path, SLEEPER)
    try:
        head = json.loads((records / f"proc-{child.pid}.jsonl").read_text().splitlines()[1])
        assert head["kind"] == "stall_watch" and channel.catches(child.pid, head["fault_signal"])
        text = channel.fault_dump(records, child.pid, head["fault_signal"], 5.0)
        assert text is not None
        [thread] = from_faulthandler(text, str(head["thread"]))
        assert thread.main and (thread.frames[0].line, thread.frames[0].function) == (4, "<module>")
        assert child.poll() is None  # the signal dumped the stacks and the program goes on
    finally:
        child.kill()
        child.wait()


def test_no_signal_goes_to_a_process_that_does_not_catch_it() -> None:
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as child:
        try:
            time.sleep(0.3)
            assert channel.fault_dump(Path("/nonexistent"), child.pid, 40, 1.0) is None
            assert child.poll() is None  # SIGRTMIN+6 would have killed it
        finally:
            child.kill()


def test_a_stalled_program_is_reported_at_once_and_stopped(tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    program = tmp_path / "program.py"
    program.write_text(SLEEPER)
    started = time.monotonic()
    ran = run_cli(
        *("profile", "--stall-after", "2", "--stall-action", "stop", "--format", "json", "-o", str(out)),
        *("--", sys.executable, str(program)),
        timeout=120,
    )
    took = time.monotonic() - started
    assert ran.returncode == 143, ran.stderr  # stopped by SIGTERM, as a shell reports it
    assert took < 60
    document = json.loads(out.read_text())
    jsonschema.validate(document, profile_schema())
    [stall] = document["stalls"]
    jsonschema.validate(stall, hang_schema())
    [finding] = stall["findings"]
    assert finding["id"] == "hang-stuck" and finding["culprits"] == [f"pid {stall['ranks'][0]['pid']}"]
    assert finding["title"].endswith("sleeping at program.py:4") or finding["title"].endswith(
        f"sleeping at {program}:4"
    )
    assert 2 <= stall["stalled_s"] < 4 and stall["took_s"] < 30
    exit_finding = next(f for f in document["findings"] if f["id"] == "program-exit")
    assert "was stopped by xladoctor after the stall (--stall-action stop; exit status 143)" in exit_finding["title"]


def test_a_program_that_keeps_printing_is_not_stalled(tmp_path: Path) -> None:
    program = tmp_path / "program.py"
    program.write_text("import time\nfor i in range(8):\n    print(i, flush=True)\n    time.sleep(0.5)\n")
    ran = run_cli("profile", "--stall-after", "1.5", "--", sys.executable, str(program), timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert "no rank made progress" not in ran.stderr and ran.stdout == "".join(f"{i}\n" for i in range(8))


@pytest.mark.parametrize(
    "args, message",
    [
        (("hang",), "hang needs the processes to examine: xladoctor hang PID... (or --job LAUNCHER_PID)"),
        (("hang", "0"), "0: not a process id"),
        (("hang", "99999999"), "no process with pid 99999999"),
        (("hang", "--job", "99999999"), "--job 99999999: no such process"),
        (("hang", "1", "--job", "1"), "give either PIDs or --job PID, not both"),
        (("profile", "--stall-action", "stop", "--", "true"), "--stall-action needs --stall-after SECONDS"),
        (("profile", "--stall-after", "0", "--", "true"), "--stall-after 0: give seconds between 1 and 604800"),
        (("profile", "--stall-after", "nan", "--", "true"), "--stall-after nan: give seconds between 1 and 604800"),
        (("hang", "1", "--format", "junit"), "--format junit is for `check`; hang prints text, json or html"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    ran = run_cli(*args)
    assert (ran.returncode, ran.stderr) == (2, f"xladoctor: error: {message}\n")


def test_schema_hang_is_the_published_one() -> None:
    ran = run_cli("schema", "hang")
    assert ran.returncode == 0 and json.loads(ran.stdout) == hang_schema()
