# Smoke test "compile": torch.compile with its default backend (Inductor) on the CPU and on every visible
# GPU. The runner gives this process an empty TORCHINDUCTOR_CACHE_DIR, so code is really generated and
# built (a cached kernel would hide a missing compiler). Inductor builds C++ on the CPU, Triton on a GPU.
import torch


def fused(x, y):
    return torch.sin(x) + y * 2.0


for device in torch_devices(torch):
    try:
        torch._dynamo.reset()
        compiled = torch.compile(fused)
        x = torch.randn(4096, device=device)
        y = torch.randn(4096, device=device)
        started = time.perf_counter()
        out = compiled(x, y)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        compile_s = time.perf_counter() - started
        expected = fused(x, y)
        ok = bool(torch.allclose(out, expected, rtol=1e-5, atol=1e-5))
        emit(
            kind="result",
            device=device_label(torch, device),
            ok=ok,
            verified="torch.compile (inductor) of sin(x) + 2y matches eager" if ok else "",
            error=None if ok else "compiled result differs from eager",
            metrics={"compile_s": round(compile_s, 3)},
        )
    except Exception as exc:
        emit(kind="result", device=device, ok=False, **failure(exc))
