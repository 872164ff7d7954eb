"""`--format html` read back without a browser: each page is well-formed, self-contained, carries the same findings,
commands and cells as the JSON of the same run, and marks what the model says (outliers, recompiled steps).
tests/browser/ loads the same pages in a real Chromium."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from pathlib import Path

import pytest
from conftest import FACTS_DIR, run_cli
from html_tree import Element, injected, parse

from xladoctor.fleet.grid import fleet_grid
from xladoctor.reporters.pages.compare import render_compare_html
from xladoctor.reporters.pages.page import asset
from xladoctor.reporters.pages.profile import render_profile_html
from xladoctor.reporters.profile_report import recompiled_steps

sys.path.insert(0, str(Path(__file__).parent.parent / "browser"))
import reports  # noqa: E402  (tests/browser/reports.py: the real inputs)

MISMATCH = FACTS_DIR / "real-torch213-xla29.json"
COLAB = FACTS_DIR / "colab-tpu-torch-upgraded.json"
LOGS = FACTS_DIR.parent / "signatures" / "reports"


def _page(tmp_path: Path, *args: str, code: int = 1) -> tuple[str, Element]:
    target = tmp_path / "report.html"
    ran = run_cli(*args, "--format", "html", "-o", str(target))
    assert ran.returncode == code and ran.stdout == "" and ran.stderr == f"wrote {target}\n", ran.stderr
    text = target.read_text()
    return text, parse(text)


def _json(*args: str) -> dict:
    return json.loads(run_cli(*args, "--json").stdout)


def _pre(element: Element) -> list[str]:
    return [p.text for p in element.find_all("pre")]


def _self_contained(text: str, root: Element, kind: str) -> None:
    [body] = root.find_all("body")
    assert body.attrs["data-report"] == kind
    assert injected(root) == []
    # nothing to fetch: no src attribute anywhere, links only to anchors of the page or to http(s) references
    assert not [e for e in root.iter() if "src" in e.attrs]
    for element in root.find_all("link") + root.find_all("a"):
        assert re.match(r"(#|https?://|data:,$)", element.attrs["href"]), element.attrs
    # the policy allows exactly the inlined stylesheet and script, by hash
    [meta] = [m for m in root.find_all("meta") if m.attrs.get("http-equiv") == "Content-Security-Policy"]
    [style], [script] = root.find_all("style"), root.find_all("script")
    for element, name in ((style, "page.css"), (script, "page.js")):
        assert element.text == asset(name)
        digest = base64.b64encode(hashlib.sha256(element.text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in meta.attrs["content"]
    assert meta.attrs["content"].startswith("default-src 'none';")
    ids = [e.attrs["id"] for e in root.iter() if "id" in e.attrs]
    assert len(ids) == len(set(ids)), "duplicate element ids"
    for anchor in root.find_all("a"):
        if anchor.attrs["href"].startswith("#"):
            assert anchor.attrs["href"][1:] in ids, anchor.attrs["href"]


def test_check_page_has_the_findings_plan_and_rerun_of_the_json(tmp_path: Path) -> None:
    text, root = _page(tmp_path, "check", "--facts", str(MISMATCH))
    _self_contained(text, root, "check")
    doc = _json("check", "--facts", str(MISMATCH))
    shown = [f for f in doc["findings"] if f["area"] != "smoke"]
    # every finding has its line, failing ones their card with the detail and the commands
    for finding in shown:
        row = root.by_id(f"f-{finding['id']}")
        assert finding["title"] in row.text and f"s-{finding['status']}" in row.attrs["class"]
    failing = [f for f in shown if f["status"] in ("fail", "warn", "error")]
    assert [f["id"] for f in failing] == ["torch-xla-torch-mismatch"]
    card = root.by_id("f-card-torch-xla-torch-mismatch")
    assert "finding s-fail" in card.attrs["class"] and failing[0]["detail"] in card.text
    assert _pre(card)[0] == "\n".join(failing[0]["remediation"])
    assert len(root.find_all("article", "finding")) == len(failing)
    plan = root.by_id("plan")
    assert _pre(plan)[0] == "\n".join(doc["plan"]["commands"])
    assert f"xladoctor check --python {doc['target']['requested']}" in plan.text
    assert len(root.find_all("button", "copy")) == len(root.find_all("div", "cmds")) > 0
    skipped = sum(1 for f in shown if f["status"] == "skip")
    assert sum(int(s.text.split()[0]) for s in root.find_all("summary") if s.text.endswith(" skipped")) == skipped


def test_check_page_gives_the_notebook_cells_on_a_notebook_platform(tmp_path: Path) -> None:
    _, root = _page(tmp_path, "check", "--facts", str(COLAB))
    doc = _json("check", "--facts", str(COLAB))
    assert doc["plan"]["cells"]
    blocks = root.by_id("plan").find_all("div", "cmds")
    labels = [p.text for p in root.by_id("plan").find_all("p", "label")]
    assert labels == ["in a shell", "in a notebook cell"]
    assert [_pre(b)[0] for b in blocks] == ["\n".join(doc["plan"]["commands"]), "\n".join(doc["plan"]["cells"])]
    notes = [p.text for p in root.by_id("plan").find_all("p", "note")]
    assert notes == [f"note: {n}" for n in doc["plan"]["conflicts"] + doc["plan"]["notes"]]


def test_check_report_writes_html_beside_junit_from_one_run(tmp_path: Path) -> None:
    junit, page, doc = tmp_path / "j.xml", tmp_path / "r.html", tmp_path / "r.json"
    ran = run_cli(
        "check", "--facts", str(MISMATCH), "--format", "junit", "-o", str(junit),
        "--report", f"html:{page}", "--report", f"JSON:{doc}",
    )  # fmt: skip
    assert ran.returncode == 1 and ran.stderr.splitlines() == [f"wrote {junit}", f"wrote {page}", f"wrote {doc}"]
    assert junit.read_text().startswith("<?xml") and json.loads(doc.read_text())["summary"]["fail"] == 1
    assert 'data-report="check"' in page.read_text()


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("html", "give FORMAT:FILE"),
        ("pdf:x.pdf", "give FORMAT:FILE, FORMAT one of text, json, junit, html"),
        ("html:", "give FORMAT:FILE"),
        ("html:{out}", "names the same file as --output"),
        ("json:{facts}", "is the --facts snapshot"),
    ],
)
def test_check_report_refuses_what_it_cannot_write(tmp_path: Path, value: str, needle: str) -> None:
    out = tmp_path / "out.xml"
    given = value.format(out=out, facts=MISMATCH)
    ran = run_cli("check", "--facts", str(MISMATCH), "--format", "junit", "-o", str(out), "--report", given)
    assert ran.returncode == 2 and ran.stderr.startswith(f"xladoctor: error: --report {given}"), ran.stderr
    assert needle in ran.stderr and not out.exists()


def test_explain_page_leads_with_the_root_cause(tmp_path: Path) -> None:
    log = LOGS / "nccl-802-unhandled-cuda-error.log"
    text, root = _page(tmp_path, "explain", str(log), "--no-facts")
    _self_contained(text, root, "explain")
    doc = _json("explain", str(log), "--no-facts")
    verdict, *cards = root.find_all("article", "finding")
    assert verdict.attrs["id"] == "root-cause" and doc["diagnosis"]["cause"] in verdict.text
    assert verdict.find_all("h3")[0].text.startswith("✖ environment: the install, the drivers or the system's")
    assert [c.attrs["id"] for c in cards] == ["m-cuda-system-not-ready-802", "m-nccl-unhandled-cuda-error"]
    [primary] = [m for m in doc["matches"] if m["id"] == doc["primary"]]
    assert cards[0].find_all("h3")[0].text.startswith("✖ root cause: cuda-system-not-ready-802")
    assert primary["cause"] in cards[0].text and _pre(cards[0])[1] == "\n".join(primary["remediation"])
    assert f"{primary['evidence'][0]['line']}: {primary['evidence'][0]['text']}" == _pre(cards[0])[0]
    assert "follow-on: nccl-unhandled-cuda-error" in cards[1].text
    assert "1 known-benign signature" in root.by_id("benign").text and "nccl-net-plugin-not-found" in text


def test_explain_page_without_a_signature_shows_the_likeliest_lines(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text("starting\nRuntimeError: something nobody has seen before\n")
    _, root = _page(tmp_path, "explain", str(log), "--no-facts", code=0)
    verdict = root.by_id("verdict")
    assert "unknown: what the log shows does not decide it" in verdict.text
    assert "2: RuntimeError: something nobody has seen" in verdict.text


def test_compare_page_grid_marks_exactly_the_outliers_the_findings_name() -> None:
    fleet = reports.fleet(24, at=(5, 6, 11, 20))
    text = render_compare_html(fleet)
    root = parse(text)
    _self_contained(text, root, "compare")
    # the fleet findings' own evidence: per property, the workers whose value is not the majority's
    named: set[tuple[str, str]] = set()
    for finding in fleet.findings:
        majority = finding.evidence.get("majority", {})
        for prop, values in finding.evidence.get("per_worker", {}).items():
            named |= {(label, prop) for label, value in values.items() if value != majority[prop]}
    assert named == {
        ("worker-005.json", "torch_xla"),
        ("worker-006.json", "torch_xla"),
        ("worker-011.json", "PJRT_DEVICE"),
        ("worker-020.json", "NVIDIA driver"),
        ("worker-020.json", "GPU count"),
        ("worker-020.json", "GPU model"),
    }
    grid = root.by_id("grid")
    heads = [th.text for th in grid.find_all("thead")[0].find_all("tr")[0].find_all("th")]
    marked = set()
    for body in grid.find_all("tbody"):
        label = body.find_all("th")[0].text
        cells = body.find_all("tr")[0].find_all("td")[1:-1]  # the position and own checks columns aside
        marked |= {(label, heads[i + 2]) for i, cell in enumerate(cells) if "out" in cell.attrs["class"].split()}
    assert marked == named
    # the workers that differ come first, worst first, each with its fix (its plan's commands) under its row
    bodies = grid.find_all("tbody")
    order = [b.find_all("th")[0].text for b in bodies]
    assert order[:4] == ["worker-005.json", "worker-006.json", "worker-011.json", "worker-020.json"]
    assert order[4:] == [f"worker-{i:03d}.json" for i in range(1, 25) if i not in (5, 6, 11, 20)]
    plans = {p.worker: p.plan.commands for p in fleet.plans}
    assert set(plans) == {"worker-005.json", "worker-006.json", "worker-011.json"}  # a driver has no command
    for body in bodies:
        label = body.find_all("th")[0].text
        assert _pre(body) == (["\n".join(plans[label])] if label in plans else [])
    assert [b.attrs["class"] for b in bodies[:5]] == ["differs s-fail"] * 4 + ["same"]


def test_the_grid_has_the_key_columns_and_lists_what_no_worker_has() -> None:
    grid = fleet_grid(reports.fleet(3))
    assert [c.name for c in grid.columns] == [
        "torch", "torch_xla", "triton", "torch's CUDA runtime", "Python", "PJRT_DEVICE",
    ]  # fmt: skip
    assert grid.agreed_absent == (
        "jax", "jaxlib", "libtpu", "tensorflow", "NVIDIA driver", "GPU count", "GPU model", "TPU chips", "XLA_FLAGS",
        "TF_XLA_FLAGS",
    )  # fmt: skip
    assert all(not r.differs and not r.fix for r in grid.rows)


def test_compare_cli_writes_html_and_refuses_junit(tmp_path: Path) -> None:
    snaps = reports.write_fleet(tmp_path / "snaps", 3)
    _, root = _page(tmp_path, "compare", *map(str, snaps), code=0)
    assert len(root.by_id("grid").find_all("tbody")) == 3
    ran = run_cli("compare", *map(str, snaps), "--format", "junit")
    assert ran.returncode == 2 and "--format junit is for `check`; compare prints text, json or html" in ran.stderr


@pytest.mark.parametrize("case", sorted(p.name for p in reports.RECORDS.iterdir()))
def test_profile_page_marks_the_recompiled_steps_and_links_them(case: str) -> None:
    report = reports.profile_report(case)
    text = render_profile_html(report)
    root = parse(text)
    _self_contained(text, root, "profile")
    ids = {e.attrs["id"] for e in root.iter() if "id" in e.attrs}
    for process in report.processes:
        if not process.steps:
            continue
        section = root.by_id(f"p-{process.pid}")
        [svg] = section.find_all("svg")
        recompiled = recompiled_steps(report, process)
        assert len(svg.find_all("rect", "recompiled")) == len(recompiled)
        titles = [t.text for t in svg.find_all("title")]
        assert len(titles) == len(process.steps)  # one hover text per step (these runs are short)
        marked = [int(t.split(":")[0].split()[1]) for t in titles if t.endswith("; recompiled")]
        assert sorted(marked) == sorted(recompiled)
        for link in svg.find_all("a"):
            assert link.attrs["href"][1:] in ids and "recompil" in link.attrs["href"]
        rows = section.find_all("table")[0].find_all("tbody")[0].find_all("tr")
        assert [r.find_all("td")[0].text for r in rows] == [str(s.index) for s in process.steps]
    cards = root.find_all("article", "finding")
    assert len(cards) == sum(1 for f in report.findings if f.finding.status.value in ("warn", "fail", "error"))


def test_a_long_run_is_drawn_in_columns_of_several_steps() -> None:
    from dataclasses import replace

    from xladoctor.profile.model import Step
    from xladoctor.reporters.pages.timeline import MAX_COLUMNS, timeline_svg

    steps = [Step(i, "torch_xla.sync()", 0.01, compiles=int(i in (700, 701))) for i in range(1, 1001)]
    steps[699] = replace(steps[699], recompiles=1)
    svg = parse(timeline_svg(steps, {700: "f-1-xla-recompilation"}, "pid 1"))
    assert len(svg.find_all("title")) == -(-1000 // 4) <= MAX_COLUMNS  # 4 steps a column
    [band] = svg.find_all("a")
    assert band.attrs["href"] == "#f-1-xla-recompilation"
    assert band.find_all("title")[0].text.startswith("steps 697-700: ")
    assert "Each column sums 4 steps." in svg.find_all("figcaption")[0].text


def test_profile_html_needs_an_output_file_like_json() -> None:
    ran = run_cli("profile", "--format", "html", "--", "true")
    assert ran.returncode == 2 and ran.stderr == (
        "xladoctor: error: profile --format html needs -o FILE (or -o - for stdout): the program's own output "
        "goes to stdout\n"
    )


def test_html_is_refused_where_there_is_no_html_report() -> None:
    ran = run_cli("matrix", "--format", "html")
    assert ran.returncode == 2
    assert ran.stderr == "xladoctor: error: --format html is not available for `matrix`; it prints text or json\n"


def test_help_lists_check_first_and_the_commands_in_a_newcomers_order() -> None:
    ran = run_cli("--help")
    listed = re.findall(r"^  (\w+)  ", ran.stdout.split("Commands:")[1], flags=re.MULTILINE)
    assert listed == [
        *("check", "explain", "profile", "hang", "snapshot", "compare", "fleet", "collective", "gate"),
        *("checks", "matrix", "schema"),
    ]


@pytest.mark.parametrize("fmt", ["text", "json", "html"])
def test_compare_and_explain_write_any_format_to_a_file(tmp_path: Path, fmt: str) -> None:
    snaps = reports.write_fleet(tmp_path / "snaps", 2)
    log = LOGS / "nccl-802-unhandled-cuda-error.log"
    for args, code in (
        (("compare", *map(str, snaps)), 0),
        (("explain", str(log), "--no-facts"), 1),
    ):
        target = tmp_path / f"{args[0]}.{fmt}"
        ran = run_cli(*args, "--format", fmt, "-o", str(target))
        assert ran.returncode == code and ran.stdout == "" and ran.stderr == f"wrote {target}\n", ran.stderr
        printed = run_cli(*args, "--format", fmt)
        written = target.read_text()
        assert "\x1b[" not in written
        if fmt == "json":
            assert json.loads(written) == json.loads(printed.stdout)
        elif fmt == "html":
            assert written == printed.stdout and written.startswith("<!DOCTYPE html>")
        else:
            assert written.splitlines()[0] == printed.stdout.splitlines()[0]


def test_explain_refuses_to_write_over_its_log(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text("RuntimeError: x\n")
    ran = run_cli("explain", str(log), "--no-facts", "--format", "html", "-o", str(log))
    assert ran.returncode == 2 and "is the log to explain" in ran.stderr and log.read_text() == "RuntimeError: x\n"


@pytest.mark.parametrize("case", ["two-nodes-torch-skew", "node-never-joins", "wrong-numbers"])
def test_collective_page_has_the_findings_collectives_and_plans_of_the_json(case: str) -> None:
    from xladoctor.reporters.collective_report import render_collective_json
    from xladoctor.reporters.pages.collective import render_collective_html

    report = reports.collective_report(case)
    text = render_collective_html(report)
    root = parse(text)
    _self_contained(text, root, "collective")
    doc = json.loads(render_collective_json(report))
    for finding in doc["findings"]:  # collective's own and the fleet's, each with its line
        row = root.by_id(f"f-{finding['id']}")
        assert finding["title"] in row.text and f"s-{finding['status']}" in row.attrs["class"]
    failing = [f for f in doc["findings"] if f["status"] in ("fail", "warn", "error")]
    assert len(root.find_all("article", "finding")) == len(failing) > 0
    rows = root.by_id("collectives").find_all("tbody")[0].find_all("tr") if doc["collectives"] else []
    assert len(rows) == len(doc["collectives"])
    assert [r.find_all("td")[4].text for r in rows] == [f"{c['correct']}/{c['ranks']}" for c in doc["collectives"]]
    if doc["plans"]:  # each outlier node's commands, as in the JSON
        plans = root.by_id("plans")
        assert sorted(_pre(plans)) == sorted("\n".join(p["commands"]) for p in doc["plans"])


@pytest.mark.parametrize("case", sorted(p.stem for p in (FACTS_DIR.parent / "hang").glob("*.json")))
def test_hang_page_has_the_findings_groups_and_ranks_of_the_json(case: str) -> None:
    from xladoctor.reporters.hang_report import hang_document
    from xladoctor.reporters.pages.hang import render_hang_html

    report = reports.hang_report(case)
    text = render_hang_html(report)
    root = parse(text)
    _self_contained(text, root, "hang")
    doc = hang_document(report)
    cards = root.find_all("article", "finding")
    assert [c.find_all("code", "fid")[0].text for c in cards] == [f["id"] for f in doc["findings"]]
    for card, finding in zip(cards, doc["findings"], strict=True):
        assert finding["title"] in card.text
        assert _pre(card)[:1] == (["\n".join(finding["next_steps"])] if finding["next_steps"] else [])
    sections = root.by_id("ranks").find_all("section", "process")
    assert [s.find_all("h3")[0].text for s in sections] == [r["label"] for r in doc["ranks"]]
