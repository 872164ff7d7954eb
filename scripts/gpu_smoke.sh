#!/usr/bin/env bash
# Run xladoctor's smoke tests for real on a GPU machine and keep what it said.
# Usage: bash scripts/gpu_smoke.sh OUT_DIR   (on a machine with an NVIDIA GPU and torch/triton installed)
# It puts xladoctor in a scratch folder, using the machine's own typer/rich/packaging/psutil (it may have no network),
# records a facts snapshot of the real GPU host, and runs the full diagnosis with every smoke test.
set -uo pipefail
out="${1:?usage: gpu_smoke.sh OUT_DIR}"
mkdir -p "$out"
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
{ nvidia-smi; "$python" -c 'import sys, torch, triton; print(sys.version); print("torch", torch.__version__, torch.version.cuda); print("triton", triton.__version__)'; } >"$out/host.txt" 2>&1
# The wheel's layout, assembled by hand: no build backend or network is needed on the GPU machine.
site=$(mktemp -d)
cp -r xladoctor "$site/xladoctor" && cp -r checks "$site/xladoctor/checks" && cp -r compat_matrix "$site/xladoctor/compat_matrix"
export PYTHONPATH="$site"
out=$(cd "$out" && pwd)
cd "$site"  # so that `python -m xladoctor` cannot pick up the source tree's layout
"$python" -m xladoctor snapshot -o "$out/gpu-facts.json"
start=$(date +%s%N)
"$python" -m xladoctor check --json --timeout 300 >"$out/gpu-report.json" 2>"$out/gpu-report.stderr"
rc=$?
echo "check --json exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee "$out/summary.txt"
"$python" - "$out/gpu-report.json" <<'PY' | tee -a "$out/summary.txt"
import json, sys
report = json.load(open(sys.argv[1]))
print("summary", report["summary"])
for r in report["smoke"]:
    print(f"{r['status']:5} {r['name']:15} {r['device']} {r['duration_s']}s | {r['verified'] or r['cause']} | {r['metrics']}")
for f in report["findings"]:
    if f["status"] in ("fail", "warn", "error"):
        print("FINDING", f["status"], f["id"], f["title"])
PY
