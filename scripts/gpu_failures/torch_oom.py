"""A real CUDA out-of-memory error with the caching allocator's numbers: hold most of the GPU, then ask for more."""

import torch

total = torch.cuda.get_device_properties(0).total_memory
held = torch.empty(int(total * 0.6), dtype=torch.uint8, device="cuda")
more = torch.empty(int(total * 0.5), dtype=torch.uint8, device="cuda")
