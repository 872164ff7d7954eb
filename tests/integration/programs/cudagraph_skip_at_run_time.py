"""Inductor's run-time CUDA-graph skip, made on a CPU. On a GPU, cudagraph_trees.py decides some skips only when the
compiled code first runs (an input mutated in place) and reports them through log_cudagraph_skip_and_bump_counter,
by the name it imported; torch 2.11 did so on an H100 with no trace of it in the compile's metrics. This machine has
no GPU, so the program makes that same call, through the name cudagraph_trees holds, where the profile's hook must
have put its wrapper."""
import torch
import torch._inductor.cudagraph_trees as trees

weights = torch.ones(4)


def train_step(x):
    trees.log_cudagraph_skip_and_bump_counter("skipping cudagraphs due to mutated inputs (1 instances)")
    return (x * weights).sum()


for _ in range(3):
    train_step(torch.ones(4))
print("done")
