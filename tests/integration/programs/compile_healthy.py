"""A healthy torch.compile loop: one compiled model, fixed shapes, no Python reads of tensor values in the step."""
import torch

model = torch.compile(torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.ones(16, 8), torch.zeros(16, 1)
for _ in range(6):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
print("done", round(float(loss), 4))
