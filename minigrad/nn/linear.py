"""``Linear`` (an affine map) and ``MLP`` (affine maps with nonlinearities between) (lesson 06).

Lesson 03 built a neuron from scalar Values: a weighted sum of the inputs plus
a bias. A ``Linear`` layer is a whole row of such neurons computed at once, for
a whole batch at once: ``y = x @ W.T + b``, with ``x`` of shape
``(batch, in_features)``, ``W`` of shape ``(out_features, in_features)`` (one
row per neuron, PyTorch's layout) and ``b`` broadcast over the batch.

Initialisation matters: with weights drawn from U(-1/sqrt(n), 1/sqrt(n)) for
``n`` inputs, each output starts with a spread of order one whatever ``n`` is,
so deep stacks neither blow up nor fade out at step zero. The numbers come
from ``minigrad``'s generator, so ``mg.manual_seed`` makes a model repeatable.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

from minigrad.nn.module import Module, ReLU, Sequential, Sigmoid, Tanh
from minigrad.nn.parameter import Parameter
from minigrad.tensor import dtypes, factories
from minigrad.tensor.composite import composite
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.tensor import Tensor

ACTIVATIONS: dict[str, type[Module]] = {"relu": ReLU, "tanh": Tanh, "sigmoid": Sigmoid}


def uniform_parameter(shape: tuple[int, ...], bound: float, dtype: Any, device: str) -> Parameter:
    """A new parameter of ``shape`` drawn from U(-bound, bound) by minigrad's generator."""
    values = factories.generator().uniform(-bound, bound, size=shape)
    return Parameter(factories.tensor(values, dtype=dtype, device=device))


class Linear(Module):
    """``y = x @ weight.T + bias``: ``in_features`` numbers in, ``out_features`` out.

    >>> import minigrad as mg
    >>> layer = mg.nn.Linear(3, 2)
    >>> layer.weight.shape, layer.bias.shape, layer(mg.ones(4, 3)).shape
    ((2, 3), (2,), (4, 2))
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        dtype: Any = dtypes.float32,
        device: str = "cpu",
    ) -> None:
        super().__init__()
        _check_features(in_features, out_features)
        in_features, out_features = int(in_features), int(out_features)
        self.in_features, self.out_features = in_features, out_features
        bound = 1 / math.sqrt(in_features) if in_features else 0.0
        self.weight = uniform_parameter((out_features, in_features), bound, dtype, device)
        self.bias = uniform_parameter((out_features,), bound, dtype, device) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim and x.shape[-1] != self.in_features:
            raise ShapeError(
                f"mat1 and mat2 shapes cannot be multiplied ({_rows(x)}x{x.shape[-1]} and "
                f"{self.in_features}x{self.out_features})\nLinear({self.in_features}, "
                f"{self.out_features}) expects inputs whose last axis has {self.in_features} "
                f"features; got shape {x.shape}"
            )
        return _affine(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


@composite("linear")
def _affine(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """``x @ weight.T + bias``: one named operation (autocast runs it whole in low precision)."""
    y = x @ weight.T
    return y + bias if bias is not None else y


def _check_features(in_features: Any, out_features: Any) -> None:
    """Both sizes are whole numbers >= 0 (the weight has shape (out_features, in_features))."""
    given = {"in_features": in_features, "out_features": out_features}
    for name, n in given.items():
        if not dtypes.is_integer(n):
            raise TypeError(
                f"Linear(): argument '{name}' must be int, not {dtypes.type_name(n)}\n"
                f"got {name}={n!r}; give the number of features, e.g. mg.nn.Linear(3, 2)"
            )
    for name, n in given.items():
        if n < 0:
            raise ShapeError(
                f"Trying to create tensor with negative dimension {n}: "
                f"[{out_features}, {in_features}]\nLinear(): {name}={n}; a layer has 0 or more "
                "input and output features, e.g. mg.nn.Linear(3, 2)"
            )


def _rows(x: Tensor) -> int:
    return math.prod(x.shape[:-1]) if x.ndim > 1 else 1


class MLP(Sequential):
    """A multilayer perceptron: ``Linear`` layers with an activation between them.

    Three spellings of the same 784 -> 256 -> 10 network:
    ``MLP([784, 256, 10])``, ``MLP(784, [256], 10)``, and micrograd's
    ``MLP(784, [256, 10])`` (inputs, then every layer's width). The last layer
    has no activation: it returns raw scores (logits) for a loss to read.

    >>> import minigrad as mg
    >>> model = mg.nn.MLP(4, [8, 8], 3, activation="tanh")
    >>> model(mg.zeros(2, 4)).shape, len(model)   # 3 Linear layers + 2 Tanh
    ((2, 3), 5)
    """

    def __init__(
        self,
        *sizes: Any,
        activation: str | Callable[[], Module] = "relu",
        bias: bool = True,
        dtype: Any = dtypes.float32,
        device: str = "cpu",
    ) -> None:
        widths = _widths(sizes)
        make_activation = _activation(activation)
        layers: list[Module] = []
        for i, (n_in, n_out) in enumerate(pairwise(widths)):
            layers.append(Linear(n_in, n_out, bias=bias, dtype=dtype, device=device))
            if i < len(widths) - 2:
                layers.append(make_activation())
        super().__init__(*layers)
        self.sizes = tuple(widths)


def _widths(sizes: tuple) -> list[int]:
    """The layer widths, from any of the three spellings MLP accepts."""
    if len(sizes) == 1 and isinstance(sizes[0], Sequence):
        widths = list(sizes[0])
    elif len(sizes) == 2 and isinstance(sizes[1], Sequence):
        widths = [sizes[0], *sizes[1]]
    elif len(sizes) == 3 and isinstance(sizes[1], Sequence):
        widths = [sizes[0], *sizes[1], sizes[2]]
    else:
        widths = list(sizes)
    if len(widths) < 2 or not all(isinstance(n, int) and n > 0 for n in widths):
        raise ValueError(
            f"MLP needs at least two positive integer widths, e.g. MLP([784, 256, 10]) or "
            f"MLP(784, [256], 10); got {sizes}"
        )
    return widths


def _activation(activation: str | Callable[[], Module]) -> Callable[[], Module]:
    if isinstance(activation, str):
        if activation.lower() not in ACTIVATIONS:
            raise ValueError(
                f"unknown activation {activation!r}; choose one of {sorted(ACTIVATIONS)} "
                "or pass a Module class such as mg.nn.Tanh"
            )
        return ACTIVATIONS[activation.lower()]
    return activation
