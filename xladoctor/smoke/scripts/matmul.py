# Smoke test "matmul": a float32 matrix product on the CPU and on every visible GPU, checked against a
# float64 reference computed on the CPU, with the throughput it reached.
import torch

for device in torch_devices(torch):
    n = 4096 if device.startswith("cuda") else 512
    started = time.perf_counter()
    try:
        generator = torch.Generator().manual_seed(0)
        a = torch.randn(n, n, generator=generator)
        b = torch.randn(n, n, generator=generator)
        da, db = a.to(device), b.to(device)
        product = da @ db  # warm-up: library loading and kernel selection are not throughput
        synchronize = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
        synchronize()
        runs = 10 if device.startswith("cuda") else 5
        timed = time.perf_counter()
        for _ in range(runs):
            product = da @ db
        synchronize()
        seconds = time.perf_counter() - timed
        rows = 64  # a float64 reference of a row block keeps the check cheap for any n
        reference = a[:rows].double() @ b.double()
        got = product[:rows].double().cpu()
        error = float((got - reference).abs().max() / reference.abs().max())
        # float32 accumulation is ~1e-6 here; TF32 (allowed by torch.backends.cuda.matmul) reaches ~1e-3
        ok = error < 5e-3
        emit(
            kind="result",
            device=device_label(torch, device),
            ok=ok,
            verified="%dx%d float32 product matches a float64 reference (max relative error %.1e)" % (n, n, error)
            if ok
            else "",
            error=None if ok else "result differs from the float64 reference: max relative error %.3e" % error,
            metrics={
                "gflops": round(2.0 * n**3 * runs / seconds / 1e9, 1),
                "max_rel_error": error,
                "n": n,
                "seconds": round(time.perf_counter() - started, 3),
            },
        )
    except Exception as exc:
        emit(kind="result", device=device, ok=False, **failure(exc))
