"""A torch_xla loop that never ends its step: 60 iterations traced into one growing lazy graph, read once at the end."""
import torch
import torch_xla

device = torch_xla.device()
w = torch.ones(4, 4, device=device)
for _ in range(60):
    w = w - 0.01 * torch.tanh(w @ w)
print("done", round(float(w.sum().cpu()), 3))
