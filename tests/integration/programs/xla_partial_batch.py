"""A torch_xla training loop over a DataLoader whose last batch is partial (70 rows in batches of 16: the fifth
has 6): torch_xla compiles a new graph for that batch, and the report must name the shape that changed and point
at the loop that took it, not at torch_xla.sync()."""
import torch
import torch_xla
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = torch_xla.device()
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(TensorDataset(torch.randn(70, 32), torch.randn(70, 1)), batch_size=16)
for features, target in loader:
    loss = torch.nn.functional.mse_loss(model(features.to(device)), target.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    torch_xla.sync()
print("done")
