"""Write docs/checks.md's list of checks from the registry, the same source as `xladoctor checks`, so it is never
written twice by hand.

    .venv/bin/python scripts/docs_checks.py          # rewrite the generated part of docs/checks.md
    .venv/bin/python scripts/docs_checks.py --check  # exit 1 when docs/checks.md differs
                                                     # (tests/unit/project/test_readme.py)

What a check says about itself (its title, its docstring as "why", the inputs it reads, the statuses it can give,
the sources it cites) is read by xladoctor/diagnosis/describe.py; to change a row, change the check.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xladoctor.diagnosis.describe import describe  # noqa: E402
from xladoctor.diagnosis.registry import all_checks  # noqa: E402
from xladoctor.reporters.checks_text import checks_document  # noqa: E402

PAGE = ROOT / "docs" / "checks.md"
NAME = "checks"


def _cell(text: str) -> str:
    """One Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _row(check: dict[str, Any]) -> str:
    sources = ", ".join(f"[{n}]({url})" for n, url in enumerate(check["sources"], 1)) or "-"
    reads = ", ".join(f"`{i['name']}`" for i in check["reads"]) or "-"
    module = f"[{check['module']}](../{check['module']})"
    why = _cell(check["why"])
    return (
        f"| `{check['id']}` | {_cell(check['title'])} | {why} | {reads} | {', '.join(check['statuses'])} "
        f"| {module} | {sources} |"
    )


def generated() -> str:
    """The list of checks, one table per area, areas in alphabetical order as `xladoctor checks` lists them."""
    document = sorted(checks_document([describe(c) for c in all_checks()]), key=lambda c: str(c["area"]))
    lines = [f"{len(document)} checks, each shown here as `xladoctor checks ID` explains it.", ""]
    area = None
    for check in document:
        if check["area"] != area:
            area = check["area"]
            count = sum(1 for c in document if c["area"] == area)
            if len(lines) > 2:
                lines.append("")
            lines += [
                f"### The `{area}` area has {count} check{'s' if count > 1 else ''}",
                "",
                "| check | what it looks at | why it matters | reads | can give | defined in | sources |",
                "| --- | --- | --- | --- | --- | --- | --- |",
            ]
        lines.append(_row(check))
    return "\n".join(lines) + "\n"


def rewrite(page: str) -> str:
    pattern = re.compile(rf"<!-- {NAME} .*?<!-- /{NAME} -->", re.S)
    found = pattern.search(page)
    if found is None:
        raise SystemExit(f"{PAGE.relative_to(ROOT)} has no <!-- {NAME} --> block")
    block = f"<!-- {NAME} (written by scripts/docs_checks.py) -->\n{generated()}<!-- /{NAME} -->"
    return page[: found.start()] + block + page[found.end() :]


def main(argv: list[str]) -> int:
    current = PAGE.read_text()
    wanted = rewrite(current)
    if "--check" in argv:
        if wanted != current:
            print("docs/checks.md is stale: run .venv/bin/python scripts/docs_checks.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
