#!/usr/bin/env bash
# The HTML reports are tested in a real headless browser (tests/browser/): install Debian's chromium when it is
# missing. Idempotent and quiet; fails with one clear line when it cannot be installed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/ensure_browser.sh: chromium is missing and this system has no apt-get; install chromium" >&2
    exit 1
fi
sudo=()
if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "scripts/ensure_browser.sh: chromium is missing; run as root (or with sudo): apt-get install chromium" >&2
        exit 1
    fi
    sudo=(sudo -n)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium \
        >"$log" 2>&1 || { "${sudo[@]}" apt-get update -q >>"$log" 2>&1 && \
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium \
        >>"$log" 2>&1; }; }; then
    tail -n 20 "$log" >&2
    echo "scripts/ensure_browser.sh: could not install chromium (above: apt-get's last lines)" >&2
    exit 1
fi
command -v chromium >/dev/null 2>&1 || { echo "scripts/ensure_browser.sh: chromium installed but not on PATH" >&2; exit 1; }
