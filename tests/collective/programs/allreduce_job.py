"""A stand-in training job (tests and scripts/bench_collective.py): one gloo all_reduce under torchrun, then a
file `started-<RANK>` in the folder given, so a test can tell whether the job really started."""

import datetime
import os
import sys

import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
tensor = torch.ones(4) * (dist.get_rank() + 1)
dist.all_reduce(tensor)
if len(sys.argv) > 1:
    with open(os.path.join(sys.argv[1], f"started-{dist.get_rank()}"), "w") as handle:
        handle.write(str(tensor.tolist()))
dist.destroy_process_group()
