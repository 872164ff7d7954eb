"""A token id past the embedding table: the kernel's bounds assert fires (device-side assert triggered)."""

import torch

embedding = torch.nn.Embedding(10, 4).cuda()
token_ids = torch.tensor([3, 12], device="cuda")
print(embedding(token_ids).sum().item())
