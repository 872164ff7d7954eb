"""`xladoctor --help` and the usage errors stay light: the command modules import the diagnosis, the facts, the
reporters and rich when a command runs (issue 26, measured with `python -X importtime`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# what a command imports only when it runs; --help needs typer and the small modules of cli/
HEAVY = (
    "xladoctor.diagnosis.pipeline",
    "xladoctor.diagnosis.registry",
    "xladoctor.checks",
    "xladoctor.facts",
    "xladoctor.matrix",
    "xladoctor.probes",
    "xladoctor.remedy",
    "xladoctor.smoke",
    "xladoctor.reporters.console",
    "rich",
    "packaging",
    "psutil",
)
CODE = (
    "import json, sys\n"
    "from xladoctor.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stderr.write(json.dumps([code, sorted(sys.modules)]))\n"
)


@pytest.mark.parametrize("argv", [["--help"], ["check", "--help"], ["gate", "--help"], ["check", "--no-such-flag"]])
def test_help_and_usage_errors_import_no_stage(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", CODE, *argv], capture_output=True, text=True, timeout=60)
    code, modules = json.loads(done.stderr.splitlines()[-1])
    assert code == (2 if "--no-such-flag" in argv else 0)
    assert [m for m in modules if m.startswith(HEAVY)] == []
    # the redaction's patterns are compiled only to say an error (cli/main.py's _error)
    assert ("xladoctor.sanitize" in modules) == (code != 0)


def test_a_live_diagnosis_starts_its_probe_before_the_facts_are_imported() -> None:
    """The pipeline and a validated request import no fact: the probe child starts first, the imports run beside it."""
    code = (
        "import json, sys\n"
        "from xladoctor.diagnosis.pipeline import make_request\n"
        "make_request(smoke=False, expect_gpus=8, expect_mig='off')\n"
        "sys.stdout.write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert [m for m in json.loads(done.stdout) if m.startswith(("xladoctor.facts", "packaging"))] == []


def test_a_static_check_on_linux_does_not_import_psutil_nor_concurrent_futures() -> None:
    """psutil is 10-18 ms of imports and concurrent.futures 4-10: the static path reads CPUs and RAM from os
    (probes/resources.py) and runs its probes beside each other with xladoctor/proc.py's Beside; commands that watch
    processes (profile, hang, collective) and the smoke tests import them themselves."""
    code = (
        "import io, json, sys, contextlib\n"
        "from xladoctor.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = main(['check', '--no-smoke', '--json'])\n"
        "sys.stderr.write(json.dumps([code, sorted({'psutil', 'concurrent.futures'} & set(sys.modules))]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    code_, imported = json.loads(done.stderr.splitlines()[-1])
    assert code_ in (0, 1) and imported == []


def test_the_machine_s_cpus_and_ram_are_what_psutil_says() -> None:
    import os

    import psutil

    from xladoctor.probes.resources import physical_memory_bytes

    assert physical_memory_bytes() == psutil.virtual_memory().total
    assert os.cpu_count() == psutil.cpu_count(logical=True)
