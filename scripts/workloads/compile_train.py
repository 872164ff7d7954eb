"""A healthy torch.compile training loop for scripts/bench_profile.py: an MLP compiled once, fixed shapes, the
loss read every 50 steps only."""

import torch

torch.manual_seed(0)
model = torch.compile(
    torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 512), torch.nn.GELU(), torch.nn.Linear(512, 10)
    )
)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
x, y = torch.randn(256, 256), torch.randint(0, 10, (256,))
for step in range(120):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    if step % 40 == 39:
        print(f"step {step + 1}: loss {loss.item():.4f}", flush=True)
