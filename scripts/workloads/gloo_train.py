"""A healthy data-parallel loop on gloo for scripts/bench_profile.py: two ranks (spawned by this script on
127.0.0.1), a small model, its gradients summed with an all_reduce every step, and a barrier each 100 steps, so the
collective path is what is measured (the stall watch numbers each collective and the Flight Recorder records it)."""

import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

STEPS = 1500


def rank_main(rank, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE="2")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))
    for step in range(STEPS):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        flat = torch.cat([p.grad.flatten() for p in model.parameters()])
        dist.all_reduce(flat)
        optimizer.step()
        if step % 100 == 99:
            dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    mp.spawn(rank_main, args=(free,), nprocs=2)
