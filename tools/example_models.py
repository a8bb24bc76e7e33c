"""Small hand-built models for `tools/export_graph.py module:function` (run from the repo root:
`python tools/export_graph.py example_models:conv1d_net OUT/conv1d_net`)."""

import torch
from torch import nn


def conv1d_net():
    """1-D conv net: dilation, stride, groups, batch norm, avg pooling, linear head."""
    model = nn.Sequential(
        nn.Conv1d(8, 16, 3, padding=1, dilation=1),
        nn.BatchNorm1d(16),
        nn.ReLU(),
        nn.Conv1d(16, 16, 3, stride=2, groups=4, dilation=2, padding=2),
        nn.AvgPool1d(2),
        nn.AdaptiveAvgPool1d(1),
        nn.Flatten(),
        nn.Linear(16, 10),
    )
    # Non-trivial running statistics so eval-mode batch norm is not the identity.
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
        model[1].weight.uniform_(0.5, 1.5)
        model[1].bias.uniform_(-0.5, 0.5)
    return model, (torch.randn(4, 8, 32),)
