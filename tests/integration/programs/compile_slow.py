"""A healthy loop whose first step compiles for a long time, on the CPU: slow to start, never stuck.

Inductor fuses the chain of pointwise ops below into one C++ kernel; building it keeps the process from writing
anything for several seconds (measured 8-12 s on 2 cores for 30-60 links), longer than the test's --stall-after 3,
whatever the machine's speed of the steps around it."""

import torch

LINKS = 30


def step(x):
    for _ in range(LINKS):
        x = torch.nn.functional.gelu(x * 1.001 + 0.001)
    return x


torch.manual_seed(0)
step_fn = torch.compile(step)
for _ in range(3):
    y = step_fn(torch.randn(8, 32))  # <- compile: the first call compiles for long
print("done", round(float(y.sum()), 3), flush=True)
