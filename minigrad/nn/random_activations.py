"""Activations with a random draw inside: rrelu and gumbel_softmax (lesson 06).

``rrelu`` (randomized leaky relu) is a leaky relu whose negative slope is
drawn, per element, uniformly from ``[lower, upper]`` while training; in
evaluation it is the leaky relu of the mean slope ``(lower + upper) / 2``.
Its gradient is the slope the element got (1 where the input is positive).

``gumbel_softmax`` samples a category from the scores ``logits``
differentiably: add Gumbel noise ``-log(E)`` (E exponential), divide by a
temperature ``tau``, and take the softmax. Small ``tau`` gives nearly one-hot
samples. ``hard=True`` returns the exact one-hot vector of the largest entry,
with the soft sample's gradient: ``y_hard - y_soft.detach() + y_soft``, the
straight-through estimator.

Both draw from minigrad's generator (``mg.manual_seed``), so a seeded run is
repeatable; inside ``vmap`` the draws follow vmap's ``randomness``.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.rrelu(mg.tensor([-1.0, 2.0]), 0.1, 0.3)   # evaluation: slope 0.2
    tensor([-0.2,  2. ])
"""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.nn.module import Module
from minigrad.tensor import dtypes, factories, sampling
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.activations import leaky_relu
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.inplace import assign
from minigrad.tensor.ops.softmax import softmax

LOWER, UPPER = 1.0 / 8, 1.0 / 3  # PyTorch's defaults


def _check_bounds(lower: float, upper: float) -> None:
    if not float(lower) <= float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


def rrelu(input: Tensor, lower: float = LOWER, upper: float = UPPER, training: bool = False,
          inplace: bool = False, generator: Any = None) -> Tensor:  # fmt: skip
    """x for x > 0, else a * x with a drawn uniformly from [lower, upper] per element
    (``training=True``), or a = (lower + upper) / 2 (``training=False``, the default).

    ``inplace=True`` writes the result into ``input``. ``generator`` is torch.rrelu's
    (minigrad's own generator when None).

    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)
    >>> y = mg.nn.functional.rrelu(mg.tensor([-1.0, -1.0, 5.0]), 0.1, 0.3, training=True)
    >>> bool(((y[:2] <= -0.1) & (y[:2] >= -0.3)).all()), y[2].item()
    (True, 5.0)
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"rrelu(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    _check_bounds(lower, upper)
    if inplace:  # PyTorch's in-place form: input changed, and returned
        return assign(input, lambda old: rrelu(old, lower, upper, training, False, generator),
                      (), "rrelu_")  # fmt: skip
    if not training:
        return leaky_relu(input, (lower + upper) / 2)
    if input.dtype not in (dtypes.float32, dtypes.float64, getattr(dtypes, "bfloat16", None)):
        name = dtypes.scalar_type_name(input.dtype)
        raise NotImplementedError(f"\"rrelu_with_noise_out_cpu\" not implemented for '{name}'")
    # PyTorch draws a slope for each element at or below 0 (in float64); elsewhere the
    # slope is 1, so a positive element (and NaN) passes with gradient 1.
    u = sampling._uniform(input.shape, generator, input.device, "rrelu")
    drawn = (u * (float(upper) - float(lower)) + float(lower)).to(input.dtype)
    return input * where(input <= 0, drawn, 1.0).to(input.dtype)


def rrelu_(input: Tensor, lower: float = LOWER, upper: float = UPPER, training: bool = False,
           generator: Any = None) -> Tensor:  # fmt: skip
    """``rrelu`` written into ``input`` (returned).

    >>> import minigrad as mg
    >>> x = mg.tensor([-1.0, 2.0])
    >>> mg.nn.functional.rrelu_(x, 0.1, 0.3) is x, x
    (True, tensor([-0.2,  2. ]))
    """
    return rrelu(input, lower, upper, training, True, generator)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:  # fmt: skip
    """A sample from the Gumbel-softmax distribution of ``logits`` along ``dim``, at
    temperature ``tau``; ``hard=True``: the one-hot vector of its largest entry, whose
    gradient is the soft sample's (straight through). ``eps`` is deprecated (unused).

    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)
    >>> y = mg.nn.functional.gumbel_softmax(mg.tensor([[1.0, 2.0, 3.0]]), hard=True)
    >>> y.sum().item(), sorted(y.reshape(-1).tolist())
    (1.0, [0.0, 0.0, 1.0])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    noise = sampling.exponential_(factories.empty_like(logits))
    y_soft = softmax((logits + -noise.log()) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = factories.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


class RReLU(Module):
    """``rrelu`` as a layer: random slopes in [lower, upper] while training, their mean in
    evaluation.

    >>> import minigrad as mg
    >>> mg.nn.RReLU(0.1, 0.3)
    RReLU(lower=0.1, upper=0.3)
    """

    def __init__(self, lower: float = LOWER, upper: float = UPPER, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"
