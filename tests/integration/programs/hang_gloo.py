"""A data-parallel training loop on gloo whose rank 1 plants one hang (argv[1]); the tests find each marked line.

skip: rank 1 skips the gradient all_reduce in step 3 (every later call pairs with the wrong one; the job ends in a
barrier that meets an all_reduce). mismatch: rank 1 calls all_gather where the others call all_reduce. busy: rank 1
loops in Python before its all_reduce. dataloader: rank 1's DataLoader worker waits for ever on a lock that was held
when it was forked. killed: rank 1 SIGKILLs itself before its all_reduce. healthy: every rank does the same.
"""

import os
import signal
import sys
import threading

import torch
import torch.distributed as dist

MODE = sys.argv[1]
STEPS = 6
LOCK = threading.Lock()


class Numbers(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        with LOCK:  # <- dataloader: the worker's copy of LOCK stays held
            return torch.full((4,), float(index))


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    if MODE == "dataloader" and rank == 1:
        LOCK.acquire()  # held while the DataLoader forks its worker, released in this process only
    loader = torch.utils.data.DataLoader(Numbers(), batch_size=8, num_workers=1 if MODE == "dataloader" else 0)
    batches = iter(loader)
    if MODE == "dataloader" and rank == 1:
        LOCK.release()
    for step in range(1, STEPS + 1):
        batch = next(batches)  # <- dataloader: rank 1 waits here for its worker
        loss = model(batch).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        flat = torch.cat([p.grad.flatten() for p in model.parameters()])
        if step == 3 and rank == 1:
            if MODE == "busy":
                spin = iter(int, 1)  # int() is never 1: an iterator without end
                # the loop is one line, so every sample of the stack is at the same line (no flaky line number)
                all(True for _ in spin)  # <- busy: rank 1 never leaves this line
            if MODE == "killed":
                die_once_the_others_wait()  # <- killed
        if MODE == "mismatch" and step == 3 and rank == 1:
            dist.all_gather([torch.zeros_like(flat) for _ in range(dist.get_world_size())], flat)  # <- mismatch
        elif not (MODE == "skip" and step == 3 and rank == 1):
            dist.all_reduce(flat)  # <- all_reduce: the gradients' sum
        optimizer.step()
    dist.barrier()  # <- barrier
    print(f"rank {rank} done", flush=True)
    dist.destroy_process_group()


def die_once_the_others_wait() -> None:
    """SIGKILL this rank once the others have left all_reduce #2 and wait in #3: on a loaded machine, a kill right
    after #2 can find a rank still finishing #2's last exchange with this one (seen as a wait in #2). Defined here,
    after main, so that the lines the recorded stacks of tests/unit/profile name stay where they were."""
    import time

    time.sleep(2.0)
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    main()
