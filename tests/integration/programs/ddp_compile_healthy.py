"""A small model trained with DistributedDataParallel and torch.compile on two ranks (gloo), healthy."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
torch.manual_seed(0)


class Block(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


model = torch.nn.Sequential(Block(16), Block(16), torch.nn.Linear(16, 1))
ddp = DistributedDataParallel(model)
compiled = torch.compile(ddp)
optimizer = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
for _ in range(5):
    x = torch.randn(8, 16)
    loss = compiled(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"rank {dist.get_rank()} done", round(loss.item(), 4))
dist.destroy_process_group()
