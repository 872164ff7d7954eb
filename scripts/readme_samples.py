"""Write the sample report (README.md) and the sample JSON (docs/ci.md) from a recorded fixture, so they never drift.

    .venv/bin/python scripts/readme_samples.py          # rewrite the samples in README.md and docs/ci.md
    .venv/bin/python scripts/readme_samples.py --check  # exit 1 when either differs (tests/unit/project/test_readme.py)

The fixture is tests/facts/real-torch213-xla29.json: a real snapshot of torch 2.13.0 beside torch_xla 2.9.0, replayed
as `xladoctor check --facts` would, with the recorded venv's path shown as /home/me/envs/xla.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xladoctor.diagnosis.pipeline import run_diagnosis  # noqa: E402
from xladoctor.diagnosis.selection import select_checks  # noqa: E402
from xladoctor.facts import facts_from_json  # noqa: E402
from xladoctor.reporters.json_report import report_to_json  # noqa: E402
from xladoctor.reporters.terminal import render_text  # noqa: E402

FIXTURE = ROOT / "tests" / "facts" / "real-torch213-xla29.json"
README = ROOT / "README.md"
CI_PAGE = ROOT / "docs" / "ci.md"
SHOWN_AS = "/home/me/envs/xla"
COMMAND = f"$ xladoctor check --python {SHOWN_AS}/bin/python --no-smoke"
LONGEST = 110  # characters of a string the JSON sample shows; longer ones end in "..."


def _facts_text() -> str:
    doc = json.loads(FIXTURE.read_text())
    doc.pop("_about", None)
    prefix = doc["python"]["prefix"]
    return json.dumps(doc).replace(prefix, SHOWN_AS)


def _report() -> Any:
    return run_diagnosis(facts_from_json(json.loads(_facts_text())), select_checks())


def sample_text() -> str:
    buffer = io.StringIO()
    render_text(_report(), Console(file=buffer, width=200, color_system=None, force_terminal=False, soft_wrap=True))
    return f"{COMMAND}\n{buffer.getvalue().rstrip()}\n"


def _cut(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= LONGEST else value[: LONGEST - 3] + "..."
    if isinstance(value, list):
        return [_cut(v) for v in value]
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    return value


def sample_json() -> str:
    """The JSON report with only the findings that did not pass, and long strings cut."""
    doc = report_to_json(_report())
    doc["findings"] = [f for f in doc["findings"] if f["status"] in ("fail", "warn", "error")]
    return json.dumps(_cut(doc), indent=2) + "\n"


def _block(name: str, language: str, body: str) -> str:
    opening = f"<!-- sample:{name} (written by scripts/readme_samples.py) -->"
    return f"{opening}\n```{language}\n{body}```\n<!-- /sample:{name} -->"


def rewrite(page: str, name: str, language: str, body: str) -> str:
    pattern = re.compile(rf"<!-- sample:{name} .*?<!-- /sample:{name} -->", re.S)
    found = pattern.search(page)
    if found is None:
        raise SystemExit(f"no <!-- sample:{name} --> block where it belongs")
    return page[: found.start()] + _block(name, language, body) + page[found.end() :]


def main(argv: list[str]) -> int:
    stale = []
    for path, name, language, body in (
        (README, "report", "text", sample_text()),
        (CI_PAGE, "json", "json", sample_json()),
    ):
        current = path.read_text()
        wanted = rewrite(current, name, language, body)
        if wanted == current:
            continue
        if "--check" in argv:
            stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(wanted)
    if stale:
        print(f"{', '.join(stale)}: samples are stale: run .venv/bin/python scripts/readme_samples.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
