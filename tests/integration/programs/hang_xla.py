"""torch_xla on PJRT CPU, one process: three steps end at torch_xla.sync(); the fourth never finishes (its loop
waits for a condition that never comes true)."""

import os

os.environ.setdefault("PJRT_DEVICE", "CPU")

import torch
import torch_xla

device = torch_xla.device()
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
ready = False
for step in range(1, 6):
    loss = model(torch.ones(4, 8, device=device)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step == 4:
        polls = 0
        while not ready:
            polls += 1  # <- never: the step waits for a flag nobody sets
    torch_xla.sync()
print("done")
