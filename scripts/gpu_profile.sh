#!/usr/bin/env bash
# The profile's GPU-only cases, for a session lent a GPU machine (CI has none): CUDA-graph skips under
# mode="reduce-overhead" and CPU-GPU synchronisations (torch.cuda.set_sync_debug_mode) in a real program.
# Usage: bash scripts/gpu_profile.sh OUT_DIR   (on a machine with an NVIDIA GPU and torch installed)
set -uo pipefail
out="${1:?usage: gpu_profile.sh OUT_DIR}"
mkdir -p "$out"
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
site=$(mktemp -d)  # the wheel's layout by hand: no build backend or network needed there
cp -r xladoctor "$site/xladoctor" && cp -r checks "$site/xladoctor/checks" && cp -r compat_matrix "$site/xladoctor/compat_matrix"
program="$(pwd)/tests/integration/programs/gpu_cuda_pitfalls.py"
out=$(cd "$out" && pwd)
PYTHONPATH="$site" "$python" -m xladoctor profile --format json -o "$out/gpu-profile.json" --keep-records "$out/records" \
    -- "$python" "$program" >"$out/gpu-profile.stdout" 2>"$out/gpu-profile.stderr"
echo "profile exit $?" | tee "$out/summary.txt"
"$python" - "$out/gpu-profile.json" <<'PY' | tee -a "$out/summary.txt"
import json, sys
report = json.load(open(sys.argv[1]))
found = {f["id"]: f for f in report["findings"]}
for f in report["findings"]:
    print(f["status"], f["id"], "|", f["title"], "|", (f["location"] or {}).get("short"), f["steps"])
ok = "compile-cudagraph-skipped" in found and "cuda-host-sync" in found
print("EXPECTED FINDINGS PRESENT" if ok else "MISSING: compile-cudagraph-skipped and/or cuda-host-sync")
PY
