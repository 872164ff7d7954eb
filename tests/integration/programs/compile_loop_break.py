"""A model whose top-level forward loops over its layers with a debug print inside the loop: torch.compile cannot
resume a graph inside a loop, so it skips the whole forward (it runs eager), and the .item() after the loop is never
seen. The report must say the forward is not compiled at all, not that it is compiled in pieces."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(3)])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x).relu()
            print("layer", i, tuple(x.shape))  # a debug print inside the loop
        if x.mean().item() > 10:
            x = x / 2
        return x


model = torch.compile(Model())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(4):
    loss = model(torch.randn(4, 8)).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("done")
