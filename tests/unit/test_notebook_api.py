"""xladoctor.diagnose(), its report's HTML and text, and the %xladoctor magic (no kernel needed here)."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json

import xladoctor
from xladoctor.api import DiagnoseError, DiagnosisReport, LineProgress
from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.report import Report
from xladoctor.diagnosis.selection import select_checks
from xladoctor.exitcodes import ExitCode
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding, Status
from xladoctor.magic import MagicUsageError, load_ipython_extension, parse_line, xladoctor_magic
from xladoctor.options import DEFAULT_TIMEOUT_S
from xladoctor.remedy.plan import build_plan
from xladoctor.smoke.model import SmokeResult

RESTART = (
    "then restart the kernel (Runtime &gt; Restart session): a running kernel keeps the modules it has already "
    "imported and the variables it has set"
)


def _report(case: str) -> DiagnosisReport:
    facts = facts_from_json(load_json(FACTS_DIR / f"{case}.json"))
    return DiagnosisReport(run_diagnosis(facts, select_checks()))


def test_report_exposes_the_diagnosis() -> None:
    report = _report("colab-tpu-torch-upgraded")
    assert report.exit_code is ExitCode.FAILED
    assert report.summary == {s.value: sum(f.status is s for f in report.findings) for s in Status}
    assert report.summary["fail"] == 1 and report.summary["ok"] > 10
    assert [f.id for f in report.findings if f.status is Status.FAIL] == ["torch-xla-torch-mismatch"]
    assert report.plan.commands == ("/usr/bin/python3 -m pip install 'torch_xla[tpu]==2.9.0'",)
    assert (report.platform.name, report.platform.accelerator) == ("colab", "tpu")
    assert report.to_json()["plan"]["cells"] == ["!/usr/bin/python3 -m pip install 'torch_xla[tpu]==2.9.0'"]
    assert report.smoke == ()


def test_html_groups_findings_by_area_and_shows_the_plan_as_cells() -> None:
    page = _report("colab-tpu-torch-upgraded")._repr_html_()
    assert page.startswith('<div class="xladoctor-report"><p><b>xladoctor</b> diagnosing <code>/usr/bin/python3</code>')
    assert "(Colab, TPU)" in page
    assert '<table class="xladoctor-findings">' in page
    assert '>torch-xla</th></tr><tr><td style="padding:2px 8px;text-align:left;vertical-align:top">' in page
    assert "torch_xla 2.8.1 is built for torch 2.8, but torch 2.9.0 is installed" in page
    assert "<code>torch-xla-torch-mismatch</code>" in page
    assert "<h4>Fix plan (pip; as notebook cells, run in order)</h4>" in page
    assert "<pre style='margin:2px 0'>!/usr/bin/python3 -m pip install &#x27;torch_xla[tpu]==2.9.0&#x27;</pre>" in page
    assert page.endswith(f"<p><b>note:</b> {RESTART}</p></div></div>")
    summary = _report("colab-tpu-torch-upgraded").summary
    assert f"<b>Summary:</b> {summary['ok']} ok, 1 fail, {summary['skip']} skip" in page
    assert "skipped" not in page  # skipped checks are left out, as on the terminal without -v


def test_html_escapes_and_redacts_every_string() -> None:
    base = _report("real-torch29-xla29").report
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    bad = Finding("evil", "x<y>", Status.FAIL, f"<script>alert(1)</script> {token}", detail='"&"', remediation=("a<b",))
    smoke = SmokeResult("matmul", Status.FAIL, "<cpu>", 1.25, cause=f"token={token}", evidence=("<trace>",))
    page = DiagnosisReport(Report(base.facts, (bad,), build_plan((bad,), base.facts), (smoke,)))._repr_html_()
    assert "<script>" not in page and token not in page and "<trace>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &lt;redacted&gt;" in page
    assert ">x&lt;y&gt;</th>" in page and "&quot;&amp;&quot;" in page and "a&lt;b" in page
    assert '<table class="xladoctor-smoke">' in page
    assert ">&lt;cpu&gt;</td>" in page and ">1.2 s</td>" in page and "token=&lt;redacted&gt;" in page


def test_text_is_the_terminal_report_without_colour() -> None:
    report = _report("colab-tpu-torch-upgraded")
    text = str(report)
    assert text == repr(report) == report.text()
    assert text.startswith("xladoctor diagnosing /usr/bin/python3\n")
    assert "\x1b[" not in text
    assert text.endswith(
        "Fix plan (pip; Colab, TPU; paste in order):\n"
        "  /usr/bin/python3 -m pip install 'torch_xla[tpu]==2.9.0'\n"
        "  in a notebook cell:\n"
        "  !/usr/bin/python3 -m pip install 'torch_xla[tpu]==2.9.0'\n"
        "  note: then restart the kernel (Runtime > Restart session): a running kernel keeps the modules it has "
        "already imported and the variables it has set\n"
        "  then re-run: xladoctor check --python /usr/bin/python3\n"
    )


def test_line_progress_writes_one_line_per_event() -> None:
    out = io.StringIO()
    progress = LineProgress(out)
    progress.started("matmul")
    progress.finished(
        "matmul", [SmokeResult("matmul", Status.OK, "cpu", 1.0), SmokeResult("matmul", Status.WARN, "cuda:0", 1.0)]
    )
    assert out.getvalue() == "xladoctor: smoke test matmul started\nxladoctor: smoke test matmul: ok, warn\n"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "",
            {
                "python": None,
                "only": None,
                "skip": None,
                "strict": False,
                "smoke": True,
                "timeout": DEFAULT_TIMEOUT_S,
                "expect_gpus": None,
                "expect_mig": None,
                "kernel_log": None,
                "dcgm": None,
            },
        ),
        (
            "--no-smoke",
            {
                "python": None,
                "only": None,
                "skip": None,
                "strict": False,
                "smoke": False,
                "timeout": DEFAULT_TIMEOUT_S,
                "expect_gpus": None,
                "expect_mig": None,
                "kernel_log": None,
                "dcgm": None,
            },
        ),
        (
            "--smoke compile,xla --python '/opt/my env/bin/python' --timeout 30",
            {
                "python": "/opt/my env/bin/python",
                "only": None,
                "skip": None,
                "strict": False,
                "smoke": ["compile,xla"],
                "timeout": 30.0,
                "expect_gpus": None,
                "expect_mig": None,
                "kernel_log": None,
                "dcgm": None,
            },
        ),
        (
            "--only torch-xla --skip gpu --strict --smoke matmul --smoke xla",
            {
                "python": None,
                "only": ["torch-xla"],
                "skip": ["gpu"],
                "strict": True,
                "smoke": ["matmul", "xla"],
                "timeout": DEFAULT_TIMEOUT_S,
                "expect_gpus": None,
                "expect_mig": None,
                "kernel_log": None,
                "dcgm": None,
            },
        ),
        (
            "--no-smoke --expect-gpus 8 --expect-mig off --kernel-log /var/log/kern.log",
            {
                "python": None,
                "only": None,
                "skip": None,
                "strict": False,
                "smoke": False,
                "timeout": DEFAULT_TIMEOUT_S,
                "expect_gpus": 8,
                "expect_mig": "off",
                "kernel_log": "/var/log/kern.log",
                "dcgm": None,
            },
        ),
    ],
)
def test_magic_line_becomes_diagnose_arguments(line: str, expected: dict[str, Any]) -> None:
    assert parse_line(line) == expected


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--bogus", "unrecognized arguments: --bogus"),
        ("--no-smoke --smoke xla", "argument --smoke: not allowed with argument --no-smoke"),
        ("--timeout soon", "argument --timeout: invalid float value: 'soon'"),
        ("--python 'unclosed", 'cannot parse "--python \'unclosed": No closing quotation'),
    ],
)
def test_bad_magic_lines_are_one_clear_error(line: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(MagicUsageError) as raised:
        parse_line(line)
    assert str(raised.value) == message
    assert xladoctor_magic(line) is None
    assert capsys.readouterr() == ("", f"%xladoctor: error: {message}\n")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "--smoke nope",
            "unknown smoke test 'nope'; valid: matmul, compile, triton, xla, tensorflow, tf-xla-devices, jax",
        ),
        ("--python /no/such/python --no-smoke", "--python /no/such/python: no such interpreter"),
        ("--only nope --no-smoke", "unknown check or area 'nope'"),
        ("--timeout 0 --no-smoke", "--timeout 0: must be a positive number of seconds"),
        ("--timeout nan --no-smoke", "--timeout nan: must be a positive number of seconds"),
    ],
)
def test_bad_diagnose_arguments_are_one_clear_error(
    line: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert xladoctor_magic(line) is None
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"%xladoctor: error: {message}") and err.count("\n") == 1


def test_diagnose_rejects_an_empty_smoke_selection() -> None:
    with pytest.raises(DiagnoseError, match="^--smoke: name at least one smoke test, or use --no-smoke for none$"):
        xladoctor.diagnose(smoke="")
    with pytest.raises(
        ValueError,
        match=(
            "^unknown option smokes; valid: python, smoke, only, skip, timeout, strict, "
            "expect_gpus, expect_mig, kernel_log, dcgm$"
        ),
    ):
        xladoctor.diagnose(smokes=False)


def test_diagnose_runs_the_static_checks_of_this_interpreter() -> None:
    report = xladoctor.diagnose(smoke=False, only="environment")
    assert isinstance(report, DiagnosisReport)
    assert [f.id for f in report.findings] == ["target-interpreter", "ml-stack-inventory"]
    assert report.facts.target.requested == sys.executable
    assert report.platform.name == "local"  # pytest is no Jupyter kernel
    assert report.exit_code is ExitCode.OK


def test_load_ext_registers_the_line_magic() -> None:
    calls: list[tuple[Any, ...]] = []

    class Shell:
        def register_magic_function(self, func: Any, magic_kind: str, magic_name: str) -> None:
            calls.append((func, magic_kind, magic_name))

    xladoctor.load_ipython_extension(Shell())
    assert calls == [(xladoctor_magic, "line", "xladoctor")]
    calls.clear()
    load_ipython_extension(Shell())  # `%load_ext xladoctor.magic` works too
    assert calls == [(xladoctor_magic, "line", "xladoctor")]


def test_import_xladoctor_stays_light() -> None:
    code = (
        "import sys, xladoctor; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('xladoctor', 'rich', 'typer', 'packaging')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "['xladoctor', 'xladoctor.options']\n"


def test_the_notebook_options_are_the_clis() -> None:
    """diagnose(), the magic and `check` take the options declared once in xladoctor.options."""
    import inspect

    from xladoctor.cli.check import check
    from xladoctor.options import OPTIONS

    api = inspect.signature(xladoctor.diagnose).parameters
    assert [n for n in api if n != "progress"] == [o.name for o in OPTIONS]
    assert {n: p.default for n, p in api.items() if n != "progress"} == {o.name: o.default for o in OPTIONS}
    cli = inspect.signature(check).parameters
    assert cli["timeout"].default == DEFAULT_TIMEOUT_S
    assert {"python", "smoke", "no_smoke", "only", "skip", "timeout", "strict"} <= set(cli)
