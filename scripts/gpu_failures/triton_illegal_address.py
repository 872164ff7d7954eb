"""A Triton kernel that stores without a mask far past its buffer: an illegal memory access."""

import torch
import triton
import triton.language as tl


@triton.jit
def scatter_far(out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK).to(tl.int64) * 50_000_000
    tl.store(out_ptr + offsets, 1.0)


out = torch.zeros(1024, device="cuda")
scatter_far[(1,)](out, BLOCK=1024)
torch.cuda.synchronize()
print(out.sum().item())
