"""A healthy torch_xla loop: fixed shapes, values kept as tensors, one torch_xla.sync() per step."""
import torch
import torch_xla

device = torch_xla.device()
w = torch.ones(4, 4, device=device)
x = torch.ones(8, 4, device=device)
for _ in range(8):
    w = w - 0.01 * torch.tanh(x @ w).sum(0, keepdim=True)
    torch_xla.sync()
print("done", float(w.sum().cpu()))
