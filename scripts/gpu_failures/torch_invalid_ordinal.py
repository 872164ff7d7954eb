"""A device index past the GPUs this process sees (cuda:1 on a one-GPU machine)."""

import torch

print(torch.cuda.device_count())
x = torch.zeros(4, device="cuda:1")
