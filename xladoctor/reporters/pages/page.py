"""The page every HTML report shares: one self-contained file, its stylesheet and script inlined, nothing fetched.

A Content-Security-Policy allows only that one stylesheet and that one script (by their sha256) and no request at
all, so even a string that escaped escaping could neither run nor load anything; escaping is still the defence
(every report string passes `esc`, which scrubs it first: xladoctor.sanitize).
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources

from xladoctor import __version__
from xladoctor.reporters.html import esc


@cache
def asset(name: str) -> str:
    """page.css or page.js, shipped beside this module."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def policy() -> str:
    """No source may load anything; the inline stylesheet and script run by hash; the favicon is an empty data URL
    (else the browser asks the file system for /favicon.ico)."""
    return (
        f"default-src 'none'; style-src {_sha256(asset('page.css'))}; script-src {_sha256(asset('page.js'))}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def page(kind: str, title: str, header: str, body: str, created: str | None = None, wide: bool = False) -> str:
    """A whole HTML document. `header` and `body` are HTML made by the components (every string escaped there);
    `kind` names the report (check, compare, explain, profile) for styles and tests."""
    made = f" from a snapshot taken {esc(created)}" if created else ""
    classes = f"report-{esc(kind)}" + (" wide" if wide else "")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy()}">\n'
        f'<meta name="generator" content="xladoctor {esc(__version__)}">\n'
        f"<title>{esc(title)}</title>\n"
        '<link rel="icon" href="data:,">\n'
        f"<style>{asset('page.css')}</style>\n"
        "</head>\n"
        f'<body class="{classes}" data-report="{esc(kind)}">\n'
        f"<header>{header}</header>\n<main>\n{body}\n</main>\n"
        f"<footer>Written by xladoctor {esc(__version__)}{made}. This file loads nothing from the network.</footer>\n"
        f"<script>{asset('page.js')}</script>\n"
        "</body>\n</html>\n"
    )
