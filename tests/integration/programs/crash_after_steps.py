"""Two optimizer steps of a tiny torch model, then a segfault: the profile must still be written, partial."""
import ctypes

import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    optimizer.zero_grad()
    model(torch.ones(2, 4)).sum().backward()
    optimizer.step()
print("two steps done", flush=True)
ctypes.string_at(0)  # SIGSEGV
