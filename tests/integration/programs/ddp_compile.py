"""Two ranks under torchrun (gloo on the CPU), 4 optimizer steps: both ranks hit the same graph break (.item() in
a compiled function); rank 1 alone feeds a dynamic=False function a new shape each step (recompiles on rank 1 only)."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()


@torch.compile
def gate(x):
    if x.sum().item() > 0:  # a graph break, on every rank
        x = x + 1
    return x * 2


@torch.compile(dynamic=False)
def pool(x):
    return x.mean(0)


model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(4):
    out = gate(torch.ones(2) * (rank + 1))
    rows = step + 2 if rank == 1 else 2  # rank 1 only: a new shape each step
    out = out + pool(torch.ones(rows, 2))
    dist.all_reduce(out)
    optimizer.zero_grad()
    model(out).sum().backward()
    optimizer.step()
print(f"rank {rank} done", out.tolist())
dist.destroy_process_group()
