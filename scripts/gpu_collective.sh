#!/usr/bin/env bash
# Run `xladoctor collective` for real on a GPU machine (one GPU is enough) and keep what it said.
# Usage: bash scripts/gpu_collective.sh OUT_DIR   (on a machine with an NVIDIA GPU and a CUDA build of torch)
# Like gpu_smoke.sh, xladoctor is assembled in a scratch folder from the source tree and runs on the machine's own
# typer/rich/packaging/psutil (no network needed). Three runs, each bounded by --timeout:
#   1. gloo + NCCL with one rank per GPU (a single GPU: a single-rank NCCL group; NCCL still initialises its
#      communicator, its bootstrap and its network, and writes NCCL_DEBUG=INFO to a file per process);
#   2. the same with NCCL_SOCKET_IFNAME naming an interface that does not exist (NCCL must say
#      "Bootstrap : no socket interface found", read back as collective-nccl-diagnostics);
#   3. two "nodes" on 127.0.0.1 (two xladoctor processes, one rank each, both on GPU 0 when there is only one).
set -uo pipefail
out="${1:?usage: gpu_collective.sh OUT_DIR}"
mkdir -p "$out"
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
{ nvidia-smi; "$python" -c 'import sys, torch; print(sys.version); print("torch", torch.__version__, torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())'; } >"$out/host.txt" 2>&1
site=$(mktemp -d)
cp -r xladoctor "$site/xladoctor" && cp -r checks "$site/xladoctor/checks" && cp -r compat_matrix "$site/xladoctor/compat_matrix"
export PYTHONPATH="$site"
out=$(cd "$out" && pwd)
cd "$site"
port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start=$(date +%s%N)
"$python" -m xladoctor collective --python "$python" --backend gloo,nccl --timeout 180 --json \
  >"$out/nccl.json" 2>"$out/nccl.stderr"
echo "1. gloo+nccl: exit $? in $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee "$out/summary.txt"

NCCL_SOCKET_IFNAME=nosuch0 "$python" -m xladoctor collective --python "$python" --backend nccl --timeout 120 --json \
  >"$out/nccl-ifname.json" 2>"$out/nccl-ifname.stderr"
echo "2. NCCL_SOCKET_IFNAME=nosuch0: exit $?" | tee -a "$out/summary.txt"

p=$(port)
CUDA_VISIBLE_DEVICES=0 "$python" -m xladoctor collective --python "$python" --nnodes 2 --node-rank 1 \
  --master-addr 127.0.0.1 --master-port "$p" --nproc-per-node 1 --backend gloo,nccl --timeout 180 \
  >"$out/two-nodes-1.stdout" 2>"$out/two-nodes-1.stderr" &
CUDA_VISIBLE_DEVICES=0 "$python" -m xladoctor collective --python "$python" --nnodes 2 --node-rank 0 \
  --master-addr 127.0.0.1 --master-port "$p" --nproc-per-node 1 --backend gloo,nccl --timeout 180 --json \
  >"$out/two-nodes-0.json" 2>"$out/two-nodes-0.stderr"
echo "3. two nodes, node 0: exit $?" | tee -a "$out/summary.txt"
wait
echo "3. two nodes, node 1: $(tail -n 1 "$out/two-nodes-1.stderr")" | tee -a "$out/summary.txt"

for f in nccl nccl-ifname two-nodes-0; do
  "$python" - "$out/$f.json" <<'PY' | tee -a "$out/summary.txt"
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError) as exc:
    print(sys.argv[1], "no report:", exc)
    raise SystemExit
print("==", sys.argv[1], report["summary"], "backends", report["backends"])
for row in report["collectives"]:
    print(f"  {row['backend']:5} {row['op']:10} {row['correct']}/{row['ranks']} correct  "
          f"median {row['slowest_median_s']}  busbw {row['lowest_busbw_gbps']} GB/s")
for f in report["findings"]:
    if f["status"] in ("fail", "warn", "error") or f["id"] in ("collective-nccl", "collective-nccl-diagnostics"):
        print(f"  {f['status']:5} {f['id']}: {f['title']}")
PY
done
