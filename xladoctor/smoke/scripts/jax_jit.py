# Smoke test "jax": a jax.jit function lowered and compiled by XLA, run on every device JAX offers, checked
# against a float64 NumPy reference. Each result names the backend JAX really chose: without a CUDA-enabled
# jaxlib (or when its plugin fails to start) JAX falls back to the CPU with no more than a log warning.
import jax
import jax.numpy as jnp
import numpy as np


def step(a, b):
    return jnp.tanh(a @ b) * 0.5 + b


backend = jax.default_backend()
if backend == "cpu":  # why no accelerator backend came up, in JAX's own words (the fallback only logs a warning)
    for platform in ("cuda", "tpu"):
        try:
            jax.devices(platform)
        except Exception as exc:
            emit(kind="note", level="info", text="jax.devices(%r): %s" % (platform, failure(exc)["error"]))
compiled_step = jax.jit(step)
for device in jax.devices():
    label = "%s:%d (%s)" % (device.platform, device.id, device.device_kind)
    try:
        n = 1024 if device.platform != "cpu" else 256
        generator = np.random.default_rng(0)
        a = generator.standard_normal((n, n), dtype=np.float32) / np.float32(n**0.5)
        b = generator.standard_normal((n, n), dtype=np.float32)
        x, y = jax.device_put(a, device), jax.device_put(b, device)
        started = time.perf_counter()
        executable = compiled_step.lower(x, y).compile()  # XLA compiles here; the HLO proves it
        compile_s = time.perf_counter() - started
        out = executable(x, y)
        out.block_until_ready()
        ran_on = sorted(str(d) for d in out.devices())
        reference = np.tanh(a.astype(np.float64) @ b.astype(np.float64)) * 0.5 + b.astype(np.float64)
        error = float(np.abs(np.asarray(out, dtype=np.float64) - reference).max() / np.abs(reference).max())
        hlo = executable.as_text() or ""
        # float32 accumulation is ~1e-6 here; TF32 on Ampere+ GPUs (JAX's default matmul precision) ~1e-3
        ok = error < 5e-3 and "HloModule" in hlo
        emit(
            kind="result",
            device=label,
            ok=ok,
            verified="jax.jit step compiled by XLA (backend %s) and run on %s matches a float64 reference "
            "(max relative error %.1e)" % (backend, ", ".join(ran_on), error)
            if ok
            else "",
            error=None
            if ok
            else "result differs from the float64 reference: max relative error %.3e" % error
            if "HloModule" in hlo
            else "the compiled executable has no XLA HLO module",
            metrics={
                "backend": backend,
                "platform": device.platform,
                "device_kind": device.device_kind,
                "ran_on": ran_on,
                "max_rel_error": error,
                "compile_s": round(compile_s, 3),
                "n": n,
                "jax": jax.__version__,
            },
        )
    except Exception as exc:
        emit(kind="result", device=label, ok=False, **failure(exc))
