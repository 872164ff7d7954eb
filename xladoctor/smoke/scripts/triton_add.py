# Smoke test "triton": the classic @triton.jit vector add. On a GPU it is compiled and run for real; with
# no GPU it runs in Triton's interpreter (TRITON_INTERPRET=1, set before triton is imported) and says so.
import torch

gpu = False
try:
    gpu = torch.cuda.is_available()
except Exception as exc:
    emit(kind="note", level="warn", text="torch.cuda.is_available() raised " + failure(exc)["error"])
if not gpu:
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


devices = ["cuda:%d" % i for i in range(torch.cuda.device_count())] if gpu else ["cpu"]
for device in devices:
    label = device_label(torch, device) if gpu else "cpu (Triton interpreter, TRITON_INTERPRET=1)"
    try:
        n = 98432  # not a multiple of the block: the mask is exercised
        x = torch.rand(n, device=device)
        y = torch.rand(n, device=device)
        out = torch.empty_like(x)
        started = time.perf_counter()
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        if gpu:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - started
        ok = bool(torch.equal(out, x + y))
        emit(
            kind="result",
            device=label,
            ok=ok,
            verified=("Triton %s vector add of %d floats matches torch" % (triton.__version__, n)) if ok else "",
            error=None if ok else "kernel output differs from x + y",
            metrics={"first_launch_s": round(seconds, 3), "interpreter": not gpu},
        )
    except Exception as exc:
        emit(kind="result", device=label, ok=False, **failure(exc))
