"""Three optimizer steps, then a wait that the test interrupts with Ctrl-C (SIGINT to the process group)."""
import time

import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    optimizer.zero_grad()
    model(torch.ones(2, 4)).sum().backward()
    optimizer.step()
print("ready", flush=True)
time.sleep(120)
