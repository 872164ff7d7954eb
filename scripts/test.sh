#!/usr/bin/env bash
# Install everything the tests need and run them: the project's own venv (.venv), the real framework
# venvs the integration tests diagnose (built once and cached, see tests/envs.py), the headless Chromium the HTML
# reports are tested in (Debian's chromium, installed once), lint, types, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
.venv/bin/python tests/envs.py
bash scripts/ensure_browser.sh
.venv/bin/python -m ruff check xladoctor checks tests scripts
.venv/bin/python -m mypy
.venv/bin/python -m pytest "$@"
