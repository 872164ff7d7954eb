"""A CUDA extension built for another GPU generation (TORCH_CUDA_ARCH_LIST names only 10.0, Blackwell) and run on
this GPU: no kernel image is available for execution on the device."""

import os

import torch
from torch.utils.cpp_extension import load_inline

os.environ["TORCH_CUDA_ARCH_LIST"] = os.environ.get("WRONG_ARCH", "10.0")
cuda_source = r"""
__global__ void add_one_kernel(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
torch::Tensor add_one(torch::Tensor x) {
    add_one_kernel<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), x.numel());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return x;
}
"""
extension = load_inline(
    name="add_one_ext",
    cpp_sources="torch::Tensor add_one(torch::Tensor x);",
    cuda_sources="#include <c10/cuda/CUDAException.h>\n" + cuda_source,
    functions=["add_one"],
    verbose=False,
)
print(extension.add_one(torch.zeros(8, device="cuda")).sum().item())
