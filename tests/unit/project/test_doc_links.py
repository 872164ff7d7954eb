"""Every link in README.md, CONTRIBUTING.md and docs/*.md resolves: a relative link names a file or folder of the
checkout, and its #anchor a heading of the target page as GitHub spells it; an http(s) link is checked for its shape
only (no network in the tests)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1")  # a code span: its text is not Markdown
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:name|id)=\"([^\"]+)\"", re.I)


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks (a `# comment` in a shell block is no heading, `[x](y)` there no link)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(title: str) -> str:
    """GitHub's anchor for a heading: the rendered text, lower case, without punctuation, spaces as hyphens
    (github/cmark-gfm's html extension and github-slugger: keep letters, digits, `_`, `-` and spaces)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link in a heading renders as its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose_lines(text):
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")  # GitHub numbers a repeated heading
        found.update(HTML_ANCHOR.findall(line))
    return found


@cache
def anchors_of(path: Path) -> frozenset[str]:
    return frozenset(anchors(path.read_text(encoding="utf-8")))


def targets(text: str) -> list[str]:
    found = []
    for line in prose_lines(text):
        reference = REFERENCE.match(line)
        if reference:
            found.append(reference.group(1))
            continue
        line = INLINE_CODE.sub(lambda m: "x" * len(m.group(0)) if "](" in m.group(0) else m.group(0), line)
        found += LINK.findall(line) + AUTOLINK.findall(line)
    return found


def broken_links(page: Path, text: str, root: Path = ROOT) -> list[str]:
    """What in `text` (the page at `page`) does not resolve, one line each."""
    broken = []
    for target in targets(text):
        parsed = urlparse(target)
        if parsed.scheme in ("http", "https"):
            if not parsed.netloc or " " in target or "." not in parsed.netloc:
                broken.append(f"{target}: not a well-formed URL")
            continue
        if parsed.scheme == "mailto":
            continue
        if parsed.scheme:
            broken.append(f"{target}: a scheme the docs do not use")
            continue
        path_part, _, anchor = target.partition("#")
        resolved = (page.parent / unquote(path_part)).resolve() if path_part else page
        if path_part and (not resolved.exists() or not resolved.is_relative_to(root)):
            broken.append(f"{target}: no such file or folder in the checkout")
            continue
        if anchor:
            if resolved.suffix != ".md":
                broken.append(f"{target}: an anchor into a file that is not Markdown")
            elif anchor not in (anchors(text) if resolved == page else anchors_of(resolved)):
                broken.append(f"{target}: no heading of {resolved.relative_to(root)} has that anchor")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_link_resolves(page: Path) -> None:
    assert broken_links(page, page.read_text(encoding="utf-8")) == []


def test_the_docs_pages_are_there() -> None:
    names = {p.name for p in PAGES}
    assert {"check.md", "checks.md", "explain.md", "profile.md", "hang.md", "compare.md", "fleets.md"} <= names
    assert {"collective.md", "gate.md", "ci.md", "notebooks.md", "architecture.md", "matrix.md"} <= names


def test_slugs_follow_githubs_rules() -> None:
    assert slug("Multi-node jobs (collective)") == "multi-node-jobs-collective"
    assert slug("`xladoctor check` diagnoses an environment") == "xladoctor-check-diagnoses-an-environment"
    assert slug("The program's own exit code comes first") == "the-programs-own-exit-code-comes-first"
    assert (
        slug("Each command has one line here and a page in docs/")
        == "each-command-has-one-line-here-and-a-page-in-docs"
    )
    assert slug("Use [the tool](x.md) now") == "use-the-tool-now"
    assert anchors("# A\n## A\n```\n# not a heading\n```\n") == {"a", "a-1"}


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "there.md").write_text("# A heading that exists\n")
    page = tmp_path / "docs" / "page.md"
    text = (
        "# Here\n[ok](../there.md#a-heading-that-exists) [ok](#here) [ok](https://example.com/x) `[no](code.md)`\n"
        "[gone](../xladoctor/platform.py) [bad anchor](../there.md#elsewhere) [self](#nowhere) [url](https://nohost)\n"
        "```\n[in a block](ignored.md)\n```\n[ref]: ../missing.md\n"
    )
    page.write_text(text)
    assert broken_links(page, text, tmp_path) == [
        "../xladoctor/platform.py: no such file or folder in the checkout",
        "../there.md#elsewhere: no heading of there.md has that anchor",
        "#nowhere: no heading of docs/page.md has that anchor",
        "https://nohost: not a well-formed URL",
        "../missing.md: no such file or folder in the checkout",
    ]
