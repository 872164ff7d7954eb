"""One costly recompilation: a model compiled with dynamic=False sees a last partial batch (11 rows instead of 16)
in step 5, and torch.compile compiles it all again, which costs seconds of a short run."""
import torch

torch.manual_seed(0)
width = 128
model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.GELU()) for _ in range(6)])
compiled = torch.compile(model, dynamic=False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
data = torch.randn(75, width)
for start in range(0, 75, 16):
    batch = data[start : start + 16]  # 16, 16, 16, 16, then 11 rows
    loss = compiled(batch).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("done", round(loss.item(), 4))
