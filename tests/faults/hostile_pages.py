"""HTML reports of every kind made from inputs that hold hostile strings in every place a report echoes: planted
credentials (planted.py), markup that would close the script or style element, add an image, an SVG or a link that
runs script, attribute breakouts, terminal control sequences, NUL and bidirectional overrides. Used by
test_html_hostile.py (read back in Python) and tests/browser/ (loaded in Chromium: nothing may run or be added)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from conftest import FACTS_DIR, load_json
from planted import in_context, plant_snapshot, planted_environment

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.report import Report
from xladoctor.diagnosis.selection import select_checks
from xladoctor.explain.engine import explain_stream
from xladoctor.facts import facts_from_json
from xladoctor.findings import Alternative, Finding, Status
from xladoctor.fix import Fix
from xladoctor.fleet.compare import compare_fleet
from xladoctor.fleet.skew import Worker
from xladoctor.profile.analysis import build_report
from xladoctor.profile.launch import RunOutcome
from xladoctor.profile.records import read_records
from xladoctor.remedy.plan import Plan
from xladoctor.reporters.pages.check import render_check_html
from xladoctor.reporters.pages.compare import render_compare_html
from xladoctor.reporters.pages.explain import render_explain_html
from xladoctor.reporters.pages.profile import render_profile_html
from xladoctor.smoke.model import SmokeResult

# Each would run script, fetch something or add an element if it reached the page unescaped; window.__xd_pwned is
# what they set.
MARKUP = (
    '</script><script>window.__xd_pwned=1</script><img src=x onerror="window.__xd_pwned=2">'
    '<svg onload="window.__xd_pwned=3"></svg><a href="javascript:window.__xd_pwned=4">x</a>'
    '"\'><iframe src="https://example.invalid/"></iframe></style><style>body{display:none}</style><!--'
)
CONTROLS = "\x1b]0;owned\x07\x1b[2J\x1b[31m\x00\x08\r\u202eevil\u202c\u2066x\u2069"
HOSTILE = f"{MARKUP} {CONTROLS} {' '.join(in_context())}"
ESCAPED = "&lt;/script&gt;&lt;script&gt;window.__xd_pwned=1&lt;/script&gt;"  # how MARKUP must read in the page
T29 = FACTS_DIR / "real-torch29-xla29.json"


def check_page() -> str:
    """A real diagnosis of a planted snapshot, plus a finding of each status and smoke results of each status whose
    every string is hostile, and a plan of hostile commands, cells, conflicts and notes."""
    doc = plant_snapshot(load_json(T29), planted_environment())
    doc["python"]["executable"] += MARKUP
    facts = facts_from_json(doc)
    base = run_diagnosis(facts, select_checks())
    findings = tuple(
        Finding(
            f"hostile-{status.value}", f"area {MARKUP}", status, f"title {HOSTILE}", f"detail\n{HOSTILE}",
            {"text": HOSTILE, HOSTILE: [HOSTILE]}, (f"export X='{HOSTILE}'",),
            (f"https://example.invalid/{MARKUP}", f"javascript:{MARKUP}"),
            alternatives=(Alternative(f"when {HOSTILE}", Fix(), (HOSTILE,)),),
        )
        for status in Status
    )  # fmt: skip
    smoke = tuple(
        SmokeResult(f"smoke {MARKUP}", status, HOSTILE, 1.0, verified=HOSTILE, cause=HOSTILE,
                    evidence=(HOSTILE, *in_context()), metrics={HOSTILE: HOSTILE}, refs=(HOSTILE,),
                    remediation=(HOSTILE,))
        for status in Status
    )  # fmt: skip
    plan = Plan(
        (HOSTILE,), (HOSTILE,), (HOSTILE,), base.plan.installer, base.plan.platform, notes=(HOSTILE,), cells=(HOSTILE,)
    )
    return render_check_html(Report(facts, (*base.findings, *findings), plan, smoke))


def compare_page() -> str:
    """Four workers, two of them outliers whose labels and differing values are hostile (XLA_FLAGS,
    LD_LIBRARY_PATH), with every worker's own diagnosis (--each)."""
    base = load_json(T29)
    hostile_env = json.loads(json.dumps(base))
    hostile_env["env"]["XLA_FLAGS"] = f"--xla_dump_to=/tmp/{MARKUP} {HOSTILE}"
    hostile_pkg = json.loads(json.dumps(base))
    next(d for d in hostile_pkg["distributions"] if d["name"] == "torch-xla")["version"] = "2.8.0"  # validated
    hostile_pkg["env"]["LD_LIBRARY_PATH"] = f"/opt/{MARKUP}:{HOSTILE}"
    workers = [
        Worker("worker-1.json", "snaps/worker-1.json", facts_from_json(base)),
        Worker(f"worker-2{MARKUP}.json", f"snaps/{MARKUP}", facts_from_json(hostile_env)),
        Worker("worker-3.json", "snaps/worker-3.json", facts_from_json(base)),
        Worker(f"worker-4{CONTROLS}.json", "snaps/worker-4.json", facts_from_json(hostile_pkg)),
    ]
    return render_compare_html(compare_fleet(workers), each=True)


def explain_page() -> str:
    """A log whose known-signature lines and error-like lines carry the hostile strings."""
    lines = [
        f"ImportError: /x/_XLAC.so: undefined symbol: _ZN5torch8autograd10deleteNodeEPNS0_4NodeE {HOSTILE}",
        f"RuntimeError: {HOSTILE}",
        f"Cuda failure 802 'system not yet initialized' {HOSTILE}",
    ]
    explanation = explain_stream(f"run{MARKUP}.log", io.BytesIO("\n".join(lines).encode()), None)
    return render_explain_html(explanation)


def profile_page(folder: Path) -> str:
    """Records of one process whose code lines, argv, causes, op names and hook errors are hostile."""
    where = {"file": f"/w/{MARKUP}.py", "line": 3, "function": f"f{MARKUP}", "code": f"x = t.item()  # {HOSTILE}"}
    events = [
        {"kind": "process", "pid": 7, "ppid": 1, "argv": ["train.py", f"--token={HOSTILE}"], "cwd": "/w",
         "python": "3.11.7", "ranks": {"RANK": "0"}},
        {"kind": "steps_begin", "t": 0.0, "step": 1},
        {"kind": "xla_early_execution", "location": where, "cause": HOSTILE, "graph_hash": CONTROLS, "step": 1},
        {"kind": "graph_break", "location": where, "reason": HOSTILE, "hints": [HOSTILE], "gb": "gb0001", "step": 1},
        {"kind": "hook_error", "where": f"hook {MARKUP}", "error": f"ValueError: {HOSTILE}", "step": 1},
        {"kind": "step", "index": 1, "source": f"torch_xla.sync() {MARKUP}", "t": 1.0, "step": 1,
         "xla": {"compiles": 1, "executions": 2, "transfers": 0, "compile_s": 0.1, "fallbacks": {HOSTILE: 1}}},
        {"kind": "step", "index": 2, "source": "torch_xla.sync()", "t": 2.0, "step": 2,
         "xla": {"compiles": 1, "executions": 1, "transfers": 1, "compile_s": 0.1, "fallbacks": {}}},
    ]  # fmt: skip
    (folder / "proc-7.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    report = build_report(RunOutcome(("python", "train.py", f"--password={HOSTILE}"), 1, 1.0), read_records(folder))
    return render_profile_html(report)


def collective_page() -> str:
    """A recorded two-node run whose host names, interfaces, launcher argv and nodes' environments are hostile
    (tests/collective/two-nodes-torch-skew.json, node 1 on another torch, with the strings planted)."""
    from xladoctor.collective.analysis import analyze
    from xladoctor.collective.observed import observed_from_json
    from xladoctor.reporters.pages.collective import render_collective_html

    doc = load_json(FACTS_DIR.parent / "collective" / "two-nodes-torch-skew.json")
    for unit in doc["units"]:
        unit["host"] = f"node{MARKUP}"
        unit["hello"]["host"] = f"node{MARKUP}"
        unit["hello"]["preflight"]["interfaces"][f"eth{MARKUP}"] = [HOSTILE]
    doc["launcher"]["argv"] = [*doc["launcher"]["argv"], f"--token={HOSTILE}"]
    for facts in doc["facts"].values():
        facts["env"]["XLA_FLAGS"] = f"--xla_dump_to=/tmp/{MARKUP} {HOSTILE}"
    return render_collective_html(analyze(observed_from_json(doc)))


def hang_page() -> str:
    """A recorded stall whose host, subject, thread names, frames, code lines, notes and Flight Recorder entries are
    hostile (tests/hang/gloo-dataloader.json with the strings planted)."""
    from xladoctor.profile.hang.analysis import Context, judge
    from xladoctor.profile.hang.model import HangReport
    from xladoctor.profile.hang.replay import ranks_from_json
    from xladoctor.reporters.pages.hang import render_hang_html

    doc = load_json(FACTS_DIR.parent / "hang" / "gloo-dataloader.json")
    for rank in doc["ranks"]:
        rank["host"] = f"node{MARKUP}"
        rank["activity"]["code"] = f"x = batch  # {HOSTILE}"
        rank["activity"]["location"]["file"] = f"/w/{MARKUP}.py"
        for thread in rank["threads"]:
            thread["name"] = f"worker{MARKUP}"
            for frame in thread["frames"]:
                frame["function"] = f"f{MARKUP}"
        for entry in rank["flight_recorder"]:
            entry["location"]["file"] = f"/w/{MARKUP}.py"
            entry["op"] = f"all_reduce{MARKUP}"
        for helper in rank["helpers"]:
            helper["role"] = f"worker {HOSTILE}"
    ranks = tuple(ranks_from_json(doc))
    findings = judge(ranks, Context(5.0), "/w")
    report = HangReport("stall", ("torchrun", f"--token={HOSTILE}"), f"host{MARKUP}", tuple(findings), ranks, 5.0,
                        5.0, "/w", (f"pid 1: {HOSTILE}",), "2026-01-01T00:00:00+00:00")  # fmt: skip
    return render_hang_html(report)
