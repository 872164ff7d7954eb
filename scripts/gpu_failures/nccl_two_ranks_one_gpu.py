"""Two ranks bound to the same GPU (a launcher's wrong device mapping): NCCL refuses (duplicate GPU)."""

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
torch.cuda.set_device(0)
tensor = torch.ones(1, device="cuda")
dist.all_reduce(tensor)
torch.cuda.synchronize()
print(dist.get_rank(), tensor.item())
dist.destroy_process_group()
