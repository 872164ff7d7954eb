# Smoke test "xla": three identical training-style steps on the configured PJRT device, each ended with the
# step API the installed torch_xla prefers (torch_xla.sync() since 2.6; xm.mark_step() before, and
# deprecated after: torch_xla/core/xla_model.py `@deprecated("Use torch_xla.sync instead")`). The result is
# compared with the CPU, and torch_xla's own metrics tell compilations, executions and CPU fallbacks.
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met

if hasattr(torch_xla, "sync"):
    step_api, end_step = "torch_xla.sync()", torch_xla.sync
else:
    step_api, end_step = "xm.mark_step()", xm.mark_step
device = torch_xla.device() if hasattr(torch_xla, "device") else xm.xla_device()
try:
    hardware = xm.xla_device_hw(device)
except Exception:
    hardware = os.environ.get("PJRT_DEVICE", "?")
label = "%s (%s)" % (device, hardware)
try:
    generator = torch.Generator().manual_seed(0)
    w_cpu = torch.randn(128, 128, generator=generator)
    x_cpu = torch.randn(64, 128, generator=generator)
    w, x = w_cpu.to(device), x_cpu.to(device)
    started = time.perf_counter()
    for _ in range(3):  # identical shapes: one graph, compiled once, then reused
        w = w - 0.01 * torch.relu(x @ w).sum(0, keepdim=True)
        end_step()
    got = w.cpu()
    seconds = time.perf_counter() - started
    expected = w_cpu
    for _ in range(3):
        expected = expected - 0.01 * torch.relu(x_cpu @ expected).sum(0, keepdim=True)
    ok = bool(torch.allclose(got, expected, rtol=1e-3, atol=1e-3))
    compile_data = met.metric_data("CompileTime")
    execute_data = met.metric_data("ExecuteTime")
    fallbacks = sorted(n[len("aten::") :] for n in met.counter_names() if n.startswith("aten::"))
    emit(
        kind="result",
        device=label,
        ok=ok,
        verified=("3 steps ended by %s match the CPU" % step_api) if ok else "",
        error=None if ok else "XLA result differs from the CPU result",
        metrics={
            "step_api": step_api,
            "pjrt_device": os.environ.get("PJRT_DEVICE"),
            "compilations": compile_data[0] if compile_data else 0,
            "executions": execute_data[0] if execute_data else 0,
            "cpu_fallback_ops": fallbacks,
            "steps_s": round(seconds, 3),
        },
    )
except Exception as exc:
    emit(kind="result", device=label, ok=False, **failure(exc))
