"""GPU-only pitfalls for scripts/gpu_profile.sh (not run by the test suite: this project's CI has no GPU): a
function compiled with mode="reduce-overhead" that mutates an input (inductor skips CUDA graphs for it), and a
loss read with .item() inside every step (a CPU-GPU synchronisation)."""
import torch

assert torch.cuda.is_available(), "this program needs a CUDA GPU"
torch.manual_seed(0)
model = torch.nn.Linear(64, 64).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
counter = torch.zeros(1, device="cuda")


@torch.compile(mode="reduce-overhead")
def forward(x, seen):
    seen.add_(1)  # an input mutated in place: no CUDA graph
    return model(x).relu().sum()


total = 0.0
for _ in range(6):
    optimizer.zero_grad()
    loss = forward(torch.ones(32, 64, device="cuda"), counter)
    loss.backward()
    optimizer.step()
    total += loss.item()  # a host sync in every step
print("done", round(total, 3))
