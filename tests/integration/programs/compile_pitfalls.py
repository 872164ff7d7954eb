"""Planted torch.compile pitfalls over 6 optimizer steps: a graph break from .item() in the model's forward, a loop
bound that is a Python number and changes (each value is compiled into its own graph), and a function compiled with
dynamic=False that sees a new batch size every step until the recompile limit (lowered to 4 so the test is quick;
the default is 8) makes torch.compile give up on it."""
import torch

torch._dynamo.config.recompile_limit = 4
torch.manual_seed(0)  # the .item() value the code after the graph break is guarded on is then the same each run


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.linear(x)
        if y.abs().max().item() > 100:  # a graph break
            y = y / 100
        return y.relu()


def pool(x):
    return x.mean(0, keepdim=True)


def repeat(x, times):
    for _ in range(times):
        x = x * 0.5
    return x


model = torch.compile(Model())
pooled = torch.compile(pool, dynamic=False)
repeated = torch.compile(repeat)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(6):
    optimizer.zero_grad()
    loss = model(torch.ones(8, 4)).sum() + pooled(torch.ones(step + 2, 4)).sum()  # a new batch size each step
    loss = loss + repeated(torch.ones(4), min(step, 2) + 1).sum()  # 1, 2, 3, 3, ...: a new graph for each
    loss.backward()
    optimizer.step()
print("done", round(loss.item(), 3))
