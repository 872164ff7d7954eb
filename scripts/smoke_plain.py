"""The benchmark's yardstick: the same five smoke workloads as xladoctor, one after another in ONE process.

This is what a person would write by hand: no isolation, no parallelism, no diagnosis. Run it with the
interpreter of the environment under test, PJRT_DEVICE=CPU: `python scripts/smoke_plain.py`.
Workloads and checks mirror xladoctor/smoke/scripts/ (same sizes, same verification, fresh compiler caches).
"""

import os
import sys
import tempfile
import time

scratch = tempfile.mkdtemp(prefix="smoke-plain-")
os.environ.setdefault("PJRT_DEVICE", "CPU")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(scratch, "inductor")  # a real compile, as xladoctor does
os.environ["TRITON_CACHE_DIR"] = os.path.join(scratch, "triton")
os.environ["TRITON_INTERPRET"] = "1"  # no GPU here: Triton's interpreter, as xladoctor uses on a CPU machine
os.environ["TF_XLA_FLAGS"] = "--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit"
os.environ["XLA_FLAGS"] = "--xla_dump_to=" + os.path.join(scratch, "dump")
timings = {}


def timed(name):
    def wrap(function):
        started = time.perf_counter()
        function()
        timings[name] = round(time.perf_counter() - started, 2)

    return wrap


@timed("matmul")
def matmul():
    import torch

    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(512, 512, generator=g), torch.randn(512, 512, generator=g)
    for _ in range(6):
        c = a @ b
    assert float((c[:64].double() - a[:64].double() @ b.double()).abs().max()) < 1e-2


@timed("compile")
def compile_add():
    import torch

    def fused(x, y):
        return torch.sin(x) + y * 2.0

    x, y = torch.randn(4096), torch.randn(4096)
    assert torch.allclose(torch.compile(fused)(x, y), fused(x, y), rtol=1e-5, atol=1e-5)


@timed("triton")
def triton_add():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(
            out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask
        )

    n = 98432
    x, y = torch.rand(n), torch.rand(n)
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    assert torch.equal(out, x + y)


@timed("xla")
def xla_step():
    import torch
    import torch_xla

    device = torch_xla.device()
    w_cpu, x_cpu = torch.randn(128, 128), torch.randn(64, 128)
    w, x = w_cpu.to(device), x_cpu.to(device)
    for _ in range(3):
        w = w - 0.01 * torch.relu(x @ w).sum(0, keepdim=True)
        torch_xla.sync()
    expected = w_cpu
    for _ in range(3):
        expected = expected - 0.01 * torch.relu(x_cpu @ expected).sum(0, keepdim=True)
    assert torch.allclose(w.cpu(), expected, rtol=1e-3, atol=1e-3)


@timed("tensorflow")
def tensorflow():
    import numpy as np
    import tensorflow as tf

    x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    expected = np.maximum(x @ x + 1.0, 0.0) * 2.0
    auto = tf.function(lambda v: tf.nn.relu(tf.matmul(v, v) + 1.0) * 2.0)
    jit = tf.function(lambda v: tf.nn.relu(tf.matmul(v, v) + 1.0) * 2.0, jit_compile=True)
    for function in (auto, jit):
        assert np.allclose(function(tf.constant(x)).numpy(), expected, rtol=1e-4, atol=1e-3)
    modules = os.listdir(os.path.join(scratch, "dump"))
    assert any(".cluster_" in m for m in modules), "no autoclustered module was compiled"


print(timings, file=sys.stderr)
