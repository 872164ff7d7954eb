"""HTML reports of every kind whose inputs hold credentials, markup, control characters and bidirectional overrides
in every place they echo (hostile_pages.py): nothing leaks, nothing is added to the page, every hostile string reads
as text. tests/browser/test_browser_reports.py loads the same pages in Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_pages import ESCAPED, check_page, collective_page, compare_page, explain_page, hang_page, profile_page
from html_tree import injected, parse
from planted import leaks


def _pages(tmp_path: Path) -> dict[str, str]:
    builders = {"check": check_page, "compare": compare_page, "explain": explain_page, "collective": collective_page,
                "hang": hang_page}  # fmt: skip
    return {**{k: b() for k, b in builders.items()}, "profile": profile_page(tmp_path)}


@pytest.mark.parametrize("kind", ["check", "compare", "explain", "profile", "collective", "hang"])
def test_hostile_strings_read_as_text_and_leak_nothing(kind: str, tmp_path: Path) -> None:
    page = _pages(tmp_path)[kind]
    assert leaks(page) == []
    root = parse(page)  # well nested: no string closed an element or opened one
    assert injected(root) == []
    assert ESCAPED in page  # the markup is on the page, as text
    for character in ("\x1b", "\x00", "\x07", "\x08", "\r", "\u202e", "\u2066", "\x9b"):
        assert character not in page, repr(character)
    [body] = root.find_all("body")
    assert body.attrs["data-report"] == kind
    assert len(root.find_all("style")) == 1 and root.find_all("main")
