#!/usr/bin/env bash
# Make real GPU failures on a GPU machine, keep each one's log, and keep what `xladoctor explain` says of it (with the
# machine's own facts, and from the log alone). The logs are the frameworks' real words on real hardware: the test
# suite replays them (tests/unit/explain/gpu_logs/), since CI has no GPU.
# Usage: bash scripts/gpu_failure_logs.sh OUT_DIR   (on a throwaway machine with an NVIDIA GPU, torch, triton, JAX,
# CuPy and nvcc; each case is bounded by `timeout`)
set -uo pipefail
out="${1:?usage: gpu_failure_logs.sh OUT_DIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
python="${PYTHON:-python3}"
case $python in */*) python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")" ;; esac
cd "$(dirname "$0")/.."
root=$(pwd)
programs="$root/scripts/gpu_failures"
{ nvidia-smi; "$python" -c 'import sys, torch; print(sys.version); print("torch", torch.__version__, torch.version.cuda, torch.cuda.get_arch_list())'; nvcc --version; } >"$out/host.txt" 2>&1
site=$(mktemp -d)  # the wheel's layout by hand: no build backend or network needed there
cp -r xladoctor "$site/xladoctor" && cp -r checks "$site/xladoctor/checks" && cp -r compat_matrix "$site/xladoctor/compat_matrix"
work=$(mktemp -d)
cd "$work"
PYTHONPATH="$site" "$python" -m xladoctor snapshot -o "$out/facts.json" 2>"$out/facts.stderr"

run_case() {  # NAME SECONDS COMMAND...: the log as a user would paste it (stdout and stderr together)
  local name=$1 seconds=$2; shift 2
  local start=$(date +%s%N)
  timeout -k 5 "$seconds" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$out/summary.txt"
  PYTHONPATH="$site" "$python" -m xladoctor explain --facts "$out/facts.json" --json "$out/$name.log" \
    >"$out/$name.explain.json" 2>"$out/$name.explain.stderr"
  PYTHONPATH="$site" "$python" -m xladoctor explain --no-facts "$out/$name.log" \
    >"$out/$name.explain.txt" 2>&1
  head -3 "$out/$name.explain.txt" | sed 's/^/    /' | tee -a "$out/summary.txt"
}

run_case torch_oom 120 "$python" "$programs/torch_oom.py"
run_case torch_device_assert 120 "$python" "$programs/torch_device_assert.py"
run_case triton_illegal_address 180 "$python" "$programs/triton_illegal_address.py"
run_case triton_shared_memory 180 "$python" "$programs/triton_shared_memory.py"
run_case torch_invalid_ordinal 120 "$python" "$programs/torch_invalid_ordinal.py"
CUDA_VISIBLE_DEVICES= run_case torch_no_visible_gpu 120 "$python" "$programs/torch_no_visible_gpu.py"
run_case jax_oom 180 "$python" "$programs/jax_oom.py"
run_case nccl_two_ranks_one_gpu 180 "$python" -m torch.distributed.run --nproc_per_node=2 --master_port=29533 \
  "$programs/nccl_two_ranks_one_gpu.py"
printf '%s\n' 'extern "C" __global__ void add_one(float* x, int n) {' \
  '  int i = blockIdx.x * blockDim.x + threadIdx.x;' '  if (i < n) x[i] += 1.0f;' '}' >add_one.cu
nvcc -cubin -arch=sm_100 add_one.cu -o add_one_sm100.cubin >"$out/nvcc.log" 2>&1
run_case cupy_wrong_arch_cubin 120 "$python" "$programs/cupy_wrong_arch_cubin.py" add_one_sm100.cubin
run_case torch_extension_wrong_arch 300 "$python" "$programs/torch_extension_wrong_arch.py"
