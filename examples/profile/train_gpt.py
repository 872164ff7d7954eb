"""A small GPT trained with torch.compile and DistributedDataParallel, as people write one: LayerDrop decided with
Python's random inside the layer loop, the loss logged with .item(), and a last partial batch.
Run it under `xladoctor profile -- torchrun --nproc-per-node 2 examples/profile/train_gpt.py` (CPU, gloo)."""

import math
import random

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

VOCAB, WIDTH, HEADS, LAYERS, CONTEXT = 256, 64, 4, 3, 32


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = torch.nn.LayerNorm(WIDTH), torch.nn.LayerNorm(WIDTH)
        self.qkv, self.proj = torch.nn.Linear(WIDTH, 3 * WIDTH), torch.nn.Linear(WIDTH, WIDTH)
        self.up, self.down = torch.nn.Linear(WIDTH, 4 * WIDTH), torch.nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, HEADS, WIDTH // HEADS).unbind(2)
        attended = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True
        )  # noqa: E501
        x = x + self.proj(attended.transpose(1, 2).reshape(b, t, WIDTH))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class GPT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, WIDTH)
        self.position = torch.nn.Parameter(torch.zeros(CONTEXT, WIDTH))
        self.blocks = torch.nn.ModuleList(Block() for _ in range(LAYERS))
        self.head = torch.nn.Linear(WIDTH, VOCAB)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[: tokens.shape[1]]
        for block in self.blocks:
            if self.training and random.random() < 0.1:  # LayerDrop
                continue
            x = block(x)
        return self.head(x)


def main():
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    random.seed(dist.get_rank())
    model = DistributedDataParallel(GPT(), find_unused_parameters=True)  # LayerDrop leaves some unused
    compiled = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    data = torch.randint(0, VOCAB, (140, CONTEXT + 1))
    rank, world = dist.get_rank(), dist.get_world_size()
    shard = data[rank::world]
    for step, start in enumerate(range(0, len(shard), 16)):
        batch = shard[start : start + 16]  # 16 rows, and a last partial batch
        logits = compiled(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if rank == 0 and step % 2 == 0:
            print(f"step {step} loss {loss.item():.3f} ppl {math.exp(loss.item()):.1f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
