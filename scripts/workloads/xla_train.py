"""A healthy torch_xla training loop for scripts/bench_profile.py: an MLP on the PJRT device, fixed shapes, one
torch_xla.sync() per step, the loss read every 50 steps only."""

import torch
import torch_xla

torch.manual_seed(0)
device = torch_xla.device()
model = torch.nn.Sequential(
    torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 512), torch.nn.GELU(), torch.nn.Linear(512, 10)
).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
x, y = torch.randn(256, 256).to(device), torch.randint(0, 10, (256,)).to(device)
for step in range(300):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    torch_xla.sync()
    if step % 50 == 49:
        print(f"step {step + 1}: loss {loss.item():.4f}", flush=True)
