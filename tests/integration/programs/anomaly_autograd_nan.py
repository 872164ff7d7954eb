"""A LayerNorm without eps meets a constant row (a padding row of ones) under anomaly detection: autograd raises
"Function 'NativeLayerNormBackward0' returned nan values", and its warning names the node and the forward line.
The node's name is the word that makes the error searchable: no redaction may eat it."""
import torch

torch.autograd.set_detect_anomaly(True)
norm = torch.nn.LayerNorm(8, eps=0.0)
batch = torch.ones(2, 8, requires_grad=True)  # a padding row: every value equal, variance 0
hidden = norm(batch)
hidden.sum().backward()
