"""A healthy training loop whose first step compiles for a long time (torch.compile of a deep model, on the CPU):
slow to start, never stuck."""

import torch

torch.manual_seed(0)
layers = []
for _ in range(6):
    layers += [torch.nn.Linear(32, 32), torch.nn.GELU(), torch.nn.LayerNorm(32)]
model = torch.nn.Sequential(*layers)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
step_fn = torch.compile(model)
for _ in range(3):
    loss = step_fn(torch.randn(8, 32)).pow(2).mean()  # <- compile: the first call compiles for long
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("done", flush=True)
