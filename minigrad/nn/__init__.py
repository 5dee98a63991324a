"""Neural-network building blocks: modules, layers, losses (lesson 06).

>>> import minigrad as mg
>>> model = mg.nn.MLP([4, 8, 3])
>>> loss = mg.nn.functional.cross_entropy(model(mg.randn(5, 4)), [0, 1, 2, 0, 1])
>>> loss.backward()
>>> [p.grad.shape for p in model.parameters()]
[(8, 4), (8,), (3, 8), (3,)]
"""

from minigrad.nn import functional, utils
from minigrad.nn.activation import ELU, GELU, Hardtanh, LeakyReLU, SiLU, Softplus
from minigrad.nn.conv import AvgPool2d, Conv1d, Conv2d, MaxPool2d
from minigrad.nn.dropout import Dropout
from minigrad.nn.embedding import Embedding
from minigrad.nn.linear import MLP, Linear
from minigrad.nn.module import Flatten, Module, ReLU, Sequential, Sigmoid, Tanh
from minigrad.nn.normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from minigrad.nn.parameter import Parameter

__all__ = [
    "ELU", "GELU", "MLP", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d", "Dropout",
    "Embedding", "Flatten", "Hardtanh", "LayerNorm", "LeakyReLU", "Linear", "MaxPool2d", "Module",
    "Parameter",
    "ReLU", "Sequential", "SiLU", "Sigmoid", "Softplus", "Tanh", "functional", "utils",
]  # fmt: skip
