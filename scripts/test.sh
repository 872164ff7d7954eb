#!/usr/bin/env bash
# Install everything the tests need and run them: the project's own venv (.venv), the real framework
# venvs the integration tests diagnose (built once and cached, see tests/envs.py), lint, types, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
.venv/bin/python tests/envs.py
.venv/bin/python -m ruff check xladoctor checks tests scripts
.venv/bin/python -m mypy
.venv/bin/python -m pytest "$@"
