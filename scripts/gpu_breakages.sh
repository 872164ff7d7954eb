#!/usr/bin/env bash
# Break a GPU machine's stack on purpose, twice, and keep what xladoctor's smoke tests say about it.
# Usage: bash scripts/gpu_breakages.sh OUT_DIR  -- ONLY on a throwaway GPU machine: it hides Python.h and
# uninstalls triton from the interpreter it runs (put back afterwards as far as possible).
# 1. Python.h hidden: Triton's launcher stub and Inductor's C++ need it.
# 2. triton uninstalled: torch.compile on a GPU generates Triton kernels.
set -uo pipefail
out="${1:?usage: gpu_breakages.sh OUT_DIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
site=$(mktemp -d)
cp -r xladoctor "$site/xladoctor" && cp -r checks "$site/xladoctor/checks" && cp -r compat_matrix "$site/xladoctor/compat_matrix"
export PYTHONPATH="$site"
cd "$site"
include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
mv "$include/Python.h" "$include/Python.h.hidden"
"$python" -m xladoctor check --json --smoke compile,triton --timeout 300 >"$out/no-python-h.json" 2>"$out/no-python-h.stderr"
echo "no Python.h: exit $?" | tee "$out/summary.txt"
mv "$include/Python.h.hidden" "$include/Python.h"
triton=$("$python" -c 'import triton; print(triton.__version__)')
"$python" -m pip uninstall -y triton >"$out/uninstall.log" 2>&1
"$python" -m xladoctor check --json --smoke compile --timeout 300 >"$out/no-triton.json" 2>"$out/no-triton.stderr"
echo "triton $triton uninstalled: exit $?" | tee -a "$out/summary.txt"
for case in no-python-h no-triton; do
  "$python" - "$out/$case.json" <<'PY' | tee -a "$out/summary.txt"
import json, sys
report = json.load(open(sys.argv[1]))
for r in report["smoke"]:
    print(f"{r['status']:5} {r['name']:8} {r['device']} | {r['verified'] or r['cause']}")
    for line in r["evidence"][:2]:
        print(f"      > {line[:300]}")
    for command in r["remediation"]:
        print(f"      $ {command}")
PY
done
