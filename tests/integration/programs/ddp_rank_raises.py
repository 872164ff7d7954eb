"""Two ranks under torchrun; rank 1 raises after its first step (a bad batch), rank 0 is killed by torchrun."""
import time

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
tensor = torch.ones(2)
dist.all_reduce(tensor)
if rank == 1:
    raise ValueError("batch 17 has no labels")
time.sleep(30)  # rank 0 waits, as it would in its next collective, until torchrun stops it
