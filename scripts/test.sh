#!/usr/bin/env bash
# Install everything the tests need and run them: the project's own venv (.venv), the real framework
# venvs the integration tests diagnose (built once and cached, see tests/envs.py), the headless Chromium the HTML
# reports are tested in (Debian's chromium, installed once), lint, types, tests. Arguments go to pytest; the venvs
# and Chromium are installed only when the -m expression selects tests that use them (scripts/test_needs.py), so
# `bash scripts/test.sh -m "not integration"` installs neither.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
needs=$(.venv/bin/python scripts/test_needs.py "$@")
if grep -qx envs <<<"$needs"; then
    .venv/bin/python tests/envs.py
fi
if grep -qx browser <<<"$needs"; then
    bash scripts/ensure_browser.sh
fi
.venv/bin/python -m ruff check xladoctor checks tests scripts
.venv/bin/python -m mypy
.venv/bin/python -m pytest "$@"
