"""Every kind of HTML report in a real headless Chromium (scripts/ensure_browser.sh installs Debian's): it loads
with no console message and no request but the file itself, what failed and which workers differ is on screen, the
script's sorting, filter and copy buttons work and the page reads without them, on a desktop, on a phone and
printed; hostile inputs add nothing and run nothing; a 256-worker comparison renders in under 2 s and weighs under
2 MB. Screenshots and PDFs are kept in tests/artifacts/html (or $XLADOCTOR_TEST_ARTIFACTS/html)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import reports
from cdp import INSTALL_HINT, Browser, Tab, find_chromium
from conftest import FACTS_DIR, run_cli
from hostile_pages import check_page, collective_page, compare_page, explain_page, hang_page, profile_page
from html_tree import parse

from xladoctor.reporters.pages.collective import render_collective_html
from xladoctor.reporters.pages.hang import render_hang_html
from xladoctor.reporters.pages.profile import render_profile_html
from xladoctor.reporters.profile_report import recompiled_steps

# also `integration`: like the framework venvs, Chromium is something a fresh machine must install (as root), so
# the fast path `-m "not integration"` needs neither (scripts/test_needs.py)
pytestmark = [pytest.mark.browser, pytest.mark.integration]
FLEET_SIZE = 256
HANG_CASES = ("gloo-dataloader", "gloo-skip")
PHONE = 390
LOGS = FACTS_DIR.parent / "signatures" / "reports"
OUTLIER_CELLS = [
    *("✖ 2.8.0", "✖ 2.8.0", "✖ CUDA", "✖ 580.159.04", "✖ 1", "✖ NVIDIA H200"),
    *("1: torch-xla-torch-mismatch", "1: torch-xla-torch-mismatch", "1: pjrt-device"),
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the session; its absence fails the tests (they are what checks the HTML)."""
    executable = find_chromium()
    if executable is None:
        pytest.fail(f"chromium is not installed, and the HTML reports are tested in it: {INSTALL_HINT}")
    started = Browser(executable)
    try:
        yield started
    finally:
        started.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """$XLADOCTOR_TEST_ARTIFACTS/html, else tests/artifacts/html (ignored by git): screenshots, PDFs, timings."""
    root = Path(os.environ.get("XLADOCTOR_TEST_ARTIFACTS") or FACTS_DIR.parent / "artifacts")
    folder = root / "html"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _cli_page(folder: Path, name: str, *args: str) -> Path:
    target = folder / f"{name}.html"
    ran = run_cli(*args, "--format", "html", "-o", str(target), timeout=600)
    assert ran.returncode in (0, 1) and target.exists(), ran.stderr
    return target


@pytest.fixture(scope="session")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One page of each kind from real inputs, made as a user makes them where the CLI can."""
    folder = tmp_path_factory.mktemp("pages")
    names = ("real-torch29-xla29", "real-torch213-xla29", "real-torch29-xla29-pjrt-cuda")
    real = [str(FACTS_DIR / f"{n}.json") for n in names]
    fleet = map(str, reports.write_fleet(folder / "snaps", FLEET_SIZE))
    log = str(LOGS / "nccl-802-unhandled-cuda-error.log")
    colab = "colab-tpu-torch-upgraded"  # a notebook platform: the plan as notebook cells too
    made = {
        "check": _cli_page(folder, "check", "check", "--facts", str(FACTS_DIR / "real-torch213-xla29.json")),
        "check-colab": _cli_page(folder, "check-colab", "check", "--facts", str(FACTS_DIR / f"{colab}.json")),
        "explain": _cli_page(folder, "explain", "explain", log, "--no-facts"),
        "compare": _cli_page(folder, "compare", "compare", *real),
        "compare-256": _cli_page(folder, "compare-256", "compare", *fleet),
    }
    for case in ("compile-pitfalls-torch-2.13", "xla-pitfalls-torch-xla-2.9"):
        path = folder / f"profile-{case}.html"
        path.write_text(render_profile_html(reports.profile_report(case)))
        made[f"profile-{case}"] = path
    for case in HANG_CASES:
        path = folder / f"hang-{case}.html"
        path.write_text(render_hang_html(reports.hang_report(case)))
        made[f"hang-{case}"] = path
    for name, case in (("collective", "two-nodes-torch-skew"), ("collective-missing", "node-never-joins")):
        path = folder / f"{name}.html"
        path.write_text(render_collective_html(reports.collective_report(case)))
        made[name] = path
    return made


@pytest.fixture
def opened(browser: Browser) -> Iterator[list[Tab]]:
    tabs: list[Tab] = []
    yield tabs
    for tab in tabs:
        tab.close()


def _open(browser: Browser, opened: list[Tab], path: Path, width: int = 1280, **kw: Any) -> Tab:
    tab = browser.open(path.as_uri(), width=width, height=900, mobile=width < 600, **kw)
    opened.append(tab)
    browser.pump(0.2)  # messages logged just after load
    return tab


def _clean(tab: Tab, path: Path) -> None:
    assert tab.console_problems() == []
    assert tab.requests() == [path.as_uri()]  # the file itself, nothing else


def _visible(tab: Tab, selector: str) -> list[dict[str, Any]]:
    """Each element the selector finds: whether it takes space on the page, its displayed text and background."""
    return tab.evaluate(
        f"""Array.from(document.querySelectorAll({json.dumps(selector)})).map(e => {{
            const box = e.getBoundingClientRect(), style = getComputedStyle(e);
            return {{shown: box.width > 0 && box.height > 0 && style.visibility !== "hidden",
                     text: e.innerText, background: style.backgroundColor, color: style.color}};
        }})"""
    )


KINDS = ["check", "check-colab", "explain", "compare", "compare-256", "collective", "collective-missing"] + [
    f"profile-{c}" for c in ("compile-pitfalls-torch-2.13", "xla-pitfalls-torch-xla-2.9")
]
KINDS += [f"hang-{c}" for c in HANG_CASES]


@pytest.mark.parametrize("kind", KINDS)
def test_each_report_loads_clean_on_a_desktop_a_phone_and_paper(
    kind: str, pages: dict[str, Path], browser: Browser, opened: list[Tab], artifacts: Path
) -> None:
    path = pages[kind]
    for width in (PHONE, 1280):  # the desktop last: it is printed below
        tab = _open(browser, opened, path, width)
        _clean(tab, path)
        assert tab.evaluate("document.body.dataset.report") == kind.split("-")[0]
        # nothing but the scrolling tables is wider than the screen
        assert tab.evaluate("document.documentElement.scrollWidth") <= width, kind
        tab.screenshot(artifacts / f"{kind}-{width}.png")
    tab.emulate_print()
    assert all(not e["shown"] for e in _visible(tab, "button.copy, .filter"))
    folded = _visible(tab, "details.print-open:not([open]) > :not(summary)")
    assert all(e["shown"] for e in folded)  # what is folded on screen is printed
    tab.screenshot(artifacts / f"{kind}-print.png")
    tab.emulate_print(False)
    pdf = tab.pdf(artifacts / f"{kind}-print.pdf")
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 5000
    _clean(tab, path)


def test_the_failure_and_its_fix_are_on_screen(pages: dict[str, Path], browser: Browser, opened: list[Tab]) -> None:
    tab = _open(browser, opened, pages["check"], PHONE)
    [card] = _visible(tab, "article.finding.s-fail")
    assert card["shown"] and card["text"].startswith("✖ torch-xla · torch_xla 2.9.0 is built for torch 2.9")
    assert tab.evaluate("document.querySelector('article.finding').getBoundingClientRect().top") < 900  # first screen
    [plan] = _visible(tab, "#plan pre")
    assert plan["shown"] and plan["text"].endswith("torch==2.9.0+cpu torch_xla==2.9.0")


def test_the_copy_button_copies_the_commands(pages: dict[str, Path], browser: Browser, opened: list[Tab]) -> None:
    tab = _open(browser, opened, pages["check"])
    browser.call("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    tab.call("Page.bringToFront")
    expected = tab.evaluate("document.querySelector('#plan pre').textContent")
    tab.evaluate("document.querySelector('#plan button.copy').click()")
    browser.pump(0.3)
    assert tab.evaluate("document.querySelector('#plan button.copy').textContent") in ("Copied", "Press Ctrl+C")
    assert tab.evaluate("navigator.clipboard.readText()") == expected
    _clean(tab, pages["check"])


def test_without_scripts_the_page_reads_the_same(pages: dict[str, Path], browser: Browser, opened: list[Tab]) -> None:
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    tab = Tab(browser, target, session)
    opened.append(tab)
    tab.call("Emulation.setScriptExecutionDisabled", {"value": True})
    tab.call("Page.enable")
    tab.call("Page.navigate", {"url": pages["compare-256"].as_uri()})
    tab.wait_for("Page.loadEventFired")
    assert tab.evaluate("document.querySelector('button.copy').hidden")  # the page's script did not run
    assert all(not e["shown"] for e in _visible(tab, "button.copy, .filter"))  # they would do nothing
    outliers = _visible(tab, "td.out")
    assert sorted(e["text"] for e in outliers) == sorted(OUTLIER_CELLS) and all(e["shown"] for e in outliers)
    assert all(e["shown"] for e in _visible(tab, "tr.fixrow pre"))
    assert all(e["shown"] for e in _visible(tab, "#findings li"))


def test_a_256_worker_comparison_renders_fast_and_shows_every_outlier(
    pages: dict[str, Path], browser: Browser, opened: list[Tab], artifacts: Path
) -> None:
    path = pages["compare-256"]
    size = path.stat().st_size
    tab = _open(browser, opened, path)
    # from the start of navigation to the second frame after the load event: parsed, styled, laid out and painted
    rendered_ms = tab.evaluate(
        "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))))"
    )
    load_ms = tab.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
    (artifacts / "compare-256-timing.json").write_text(
        json.dumps({"bytes": size, "load_event_ms": load_ms, "rendered_ms": rendered_ms, "workers": FLEET_SIZE})
    )
    assert size < 2_000_000 and rendered_ms < 2000, (size, rendered_ms)
    assert tab.evaluate("document.querySelectorAll('#grid tbody').length") == FLEET_SIZE
    # 4 outlier workers: 2 torch_xla, 1 PJRT_DEVICE, 1 driver + GPU count + GPU model; and 3 of them fail checks of
    # their own (a torch_xla for another torch, a PJRT_DEVICE without a device): each cell tinted and bold
    outliers = _visible(tab, "td.out")
    assert sorted(e["text"] for e in outliers) == sorted(OUTLIER_CELLS)
    for cell in outliers:
        assert cell["shown"] and cell["background"] not in ("rgba(0, 0, 0, 0)", "transparent")
    quiet = _visible(tab, "td.q")[0]
    assert quiet["background"] == "rgba(0, 0, 0, 0)" and quiet["color"] != outliers[0]["color"]
    # the workers that differ are the first rows, each with its fix
    first = tab.evaluate("Array.from(document.querySelectorAll('#grid tbody')).slice(0, 4).map(b => b.id)")
    assert first == ["w-17", "w-18", "w-101", "w-200"]
    # the header stays in view while the grid scrolls
    tab.evaluate("document.querySelector('.grid-wrap').scrollTop = 3000")
    top = tab.evaluate(
        "[document.querySelector('.grid-wrap').getBoundingClientRect().top,"
        " document.querySelector('#grid thead th').getBoundingClientRect().top]"
    )
    assert abs(top[0] - top[1]) <= 2, top
    tab.evaluate("document.querySelector('.grid-wrap').scrollTop = 0")
    tab.screenshot(artifacts / "compare-256-viewport.png", full_page=False)


def test_a_collective_shows_the_skewed_node_and_the_missing_one(
    pages: dict[str, Path], browser: Browser, opened: list[Tab], artifacts: Path
) -> None:
    """Node 1 ran torch 2.13 against node 0's 2.9 (the collective passed, the skew fails); in another run node 1
    never joined: each is on screen, the skewed torch cell tinted in the nodes' grid."""
    tab = _open(browser, opened, pages["collective"])
    outliers = _visible(tab, "td.out")
    assert any(e["text"].startswith("✖ 2.13.0") for e in outliers), [e["text"] for e in outliers]
    assert all(e["shown"] and e["background"] not in ("rgba(0, 0, 0, 0)", "transparent") for e in outliers)
    failed = [e["text"] for e in _visible(tab, "article.finding.s-fail") if e["shown"]]
    assert any("collective-runtime-skew" in t or "torch" in t for t in failed), failed
    assert [e["text"] for e in _visible(tab, "#collectives td:nth-child(2)")] == ["gloo"] * 4
    tab.screenshot(artifacts / "collective-skew-viewport.png", full_page=False)
    tab = _open(browser, opened, pages["collective-missing"], PHONE)
    cards = [e for e in _visible(tab, "article.finding.s-fail") if "node 1 never joined" in e["text"]]
    assert len(cards) == 1 and cards[0]["shown"]
    assert tab.evaluate("document.querySelector('article.finding.s-fail').getBoundingClientRect().top") < 900


def _hrefs(tab: Tab) -> list[str]:
    """Where the timeline's recompiled steps lead."""
    return tab.evaluate("Array.from(document.querySelectorAll('svg.timeline a')).map(a => a.getAttribute('href'))")


def _order(tab: Tab) -> list[str]:
    return tab.evaluate("Array.from(document.querySelectorAll('#grid tbody')).map(b => b.id)")


def test_the_grid_sorts_and_filters(pages: dict[str, Path], browser: Browser, opened: list[Tab]) -> None:
    tab = _open(browser, opened, pages["compare-256"])
    columns = tab.evaluate(
        "Array.from(document.querySelectorAll('#grid thead tr:first-child th')).map(t => t.textContent)"
    )
    tab.evaluate("document.querySelector('#grid th[data-col=\"0\"]').click()")  # the order given
    assert _order(tab) == [f"w-{i}" for i in range(1, FLEET_SIZE + 1)]
    tab.evaluate("document.querySelector('#grid th[data-col=\"0\"]').click()")  # again: reversed
    assert _order(tab) == [f"w-{i}" for i in range(FLEET_SIZE, 0, -1)]
    pjrt = columns.index("PJRT_DEVICE")
    tab.evaluate(f"document.querySelector('#grid th[data-col=\"{pjrt}\"]').click()")  # the outlier first
    assert _order(tab)[0] == "w-101"
    sorted_by = tab.evaluate("document.querySelector('#grid th[aria-sort]').textContent")
    assert sorted_by == "PJRT_DEVICE"
    assert tab.evaluate("document.querySelector('#grid th[aria-sort]').getAttribute('aria-sort')") == "ascending"
    # each worker's fix moved with it
    assert tab.evaluate("document.querySelector('#w-101 tr.fixrow pre').textContent") == "export PJRT_DEVICE=CPU"
    tab.evaluate("const box = document.querySelector('input[data-filter]'); box.click()")
    shown = tab.evaluate(
        "Array.from(document.querySelectorAll('#grid tbody')).filter(b => b.getClientRects().length).map(b => b.id)"
    )
    assert sorted(shown) == ["w-101", "w-17", "w-18", "w-200"]
    _clean(tab, pages["compare-256"])


@pytest.mark.parametrize("case", ["compile-pitfalls-torch-2.13", "xla-pitfalls-torch-xla-2.9"])
def test_the_timeline_marks_recompiled_steps_and_leads_to_their_finding(
    case: str, pages: dict[str, Path], browser: Browser, opened: list[Tab]
) -> None:
    report = reports.profile_report(case)
    [process] = [p for p in report.processes if p.steps]
    tab = _open(browser, opened, pages[f"profile-{case}"])
    bands = _visible(tab, "svg.timeline rect.recompiled")
    assert len(bands) == len(recompiled_steps(report, process)) > 0 and all(b["shown"] for b in bands)
    links = _hrefs(tab)
    assert links and all(tab.evaluate(f"!!document.querySelector({json.dumps(h)})") for h in links)
    tab.evaluate("document.querySelector('svg.timeline a rect').dispatchEvent(new MouseEvent('click', {bubbles: 1}))")
    browser.pump(0.2)
    assert tab.evaluate("location.hash") == links[0]
    target = tab.evaluate("document.querySelector(':target').innerText")
    assert "recompil" in target and target.startswith(("!", "✖"))
    _clean(tab, pages[f"profile-{case}"])


def _hostile(kind: str, folder: Path) -> str:
    if kind == "profile":
        return profile_page(folder)
    pages = {"check": check_page, "compare": compare_page, "explain": explain_page, "collective": collective_page}
    return {**pages, "hang": hang_page}[kind]()


@pytest.mark.parametrize("kind", ["check", "compare", "explain", "profile", "collective", "hang"])
def test_hostile_strings_add_nothing_and_run_nothing(
    kind: str, tmp_path: Path, browser: Browser, opened: list[Tab], artifacts: Path
) -> None:
    page = _hostile(kind, tmp_path)
    path = tmp_path / f"hostile-{kind}.html"
    path.write_text(page)
    tab = _open(browser, opened, path)
    _clean(tab, path)  # a blocked inline script or image would be a console error
    assert tab.evaluate("typeof window.__xd_pwned") == "undefined"
    assert tab.evaluate("document.scripts.length") == 1
    assert tab.evaluate("document.querySelectorAll('img, iframe, object, embed, style').length") == 1  # the style
    handlers = tab.evaluate(
        "Array.from(document.querySelectorAll('*')).flatMap(e => Array.from(e.attributes)"
        ".filter(a => a.name.startsWith('on') || a.value.trim().toLowerCase().startsWith('javascript:'))"
        ".map(a => e.tagName + ' ' + a.name))"
    )
    assert handlers == []
    # the browser's document has the structure the reporter wrote
    expected = parse(page)
    for selector, tag, css in (("article.finding", "article", "finding"), ("section", "section", None)):
        assert tab.evaluate(f"document.querySelectorAll('{selector}').length") == len(expected.find_all(tag, css))
    assert tab.evaluate("document.body.dataset.report") == kind
    assert tab.evaluate("getComputedStyle(document.body).display") == "block"
    assert "</script><script>window.__xd_pwned=1</script>" in tab.evaluate("document.body.innerText")
    tab.screenshot(artifacts / f"hostile-{kind}-1280.png")


@pytest.mark.integration
def test_a_real_profile_of_a_torch_xla_program_as_html(
    real_env: Any, tmp_path: Path, browser: Browser, opened: list[Tab], artifacts: Path
) -> None:
    import os

    from envs import python_of

    program = FACTS_DIR.parent / "integration" / "programs" / "xla_pitfalls.py"
    out = tmp_path / "profile.html"
    path = f"{python_of(real_env('torch29-xla29')).parent}{os.pathsep}{os.environ['PATH']}"
    ran = run_cli(
        "profile", "--format", "html", "-o", str(out), "--", "python", str(program),
        env={"PATH": path, "PJRT_DEVICE": "CPU"}, timeout=600,
    )  # fmt: skip
    assert ran.returncode == 0 and "done" in ran.stdout, ran.stderr
    tab = _open(browser, opened, out)
    _clean(tab, out)
    assert len(_visible(tab, "article.finding.s-warn")) == 3  # recompilation, host sync, CPU fallback
    steps = tab.evaluate("Array.from(document.querySelectorAll('svg.timeline rect.recompiled')).length")
    assert steps == 4  # steps 3-6 compiled a new graph
    links = set(_hrefs(tab))
    assert len(links) == 1 and "xla-recompilation" in links.pop()
    tab.screenshot(artifacts / "profile-real-xla-pitfalls-1280.png")


@pytest.mark.integration
def test_a_real_smoke_failure_as_html(
    real_env: Any, tmp_path: Path, browser: Browser, opened: list[Tab], artifacts: Path
) -> None:
    from envs import python_of

    out = tmp_path / "check.html"
    python = python_of(real_env("torch213-xla29"))
    ran = run_cli("check", "--python", str(python), "--smoke", "xla", "--format", "html", "-o", str(out), timeout=600)
    assert ran.returncode == 1, ran.stderr
    tab = _open(browser, opened, out, PHONE)
    _clean(tab, out)
    [smoke] = _visible(tab, "#smoke article.finding.s-fail")
    assert smoke["shown"] and smoke["text"].startswith("✖ xla")
    assert "_XLAC" in smoke["text"]  # the cause, read from the child's own output
    tab.screenshot(artifacts / "check-real-smoke-failure-390.png")
