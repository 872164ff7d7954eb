"""Triton tiles too large for one block's shared memory: triton's OutOfResources."""

import torch
import triton
import triton.language as tl


@triton.jit
def tile_matmul(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b).to(tl.float16))


M, N, K = 256, 256, 1024
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
tile_matmul[(1,)](a, b, c, M=M, N=N, K=K, num_stages=3)
print(c.float().abs().sum().item())
