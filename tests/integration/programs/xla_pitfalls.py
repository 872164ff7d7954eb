"""Planted torch_xla pitfalls, 6 steps each ended by torch_xla.sync(): an input shape that changes every step, a
.item() inside the step, and an op with no XLA lowering (histc falls back to the CPU)."""
import torch
import torch_xla

device = torch_xla.device()
w = torch.ones(4, 4, device=device)
for step in range(6):
    x = torch.ones(step + 2, 4, device=device)  # a new shape each step: a new graph each step
    w = w - 0.01 * (x @ w).sum(0, keepdim=True)
    loss = w.sum().item()  # a host sync inside the step
    counts = torch.histc(w, bins=4)  # no XLA lowering: runs on the CPU
    torch_xla.sync()
print("done", round(loss, 3))
