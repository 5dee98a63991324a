"""Activation layers with a setting: GELU, SiLU, ELU, LeakyReLU, Softplus, Hardtanh (lesson 06).

Each is its function of ``mg.nn.functional`` with the setting kept on the
module, named and defaulted as in PyTorch, and shown by ``repr``:

    >>> import minigrad as mg
    >>> model = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.GELU(approximate="tanh"))
    >>> model[1], mg.nn.LeakyReLU()
    (GELU(approximate='tanh'), LeakyReLU(negative_slope=0.01))
    >>> model(mg.randn(4, 2)).shape
    (4, 3)
"""

from __future__ import annotations

from minigrad.nn.module import Module
from minigrad.tensor.ops import activations
from minigrad.tensor.tensor import Tensor


class GELU(Module):
    """x Phi(x), Phi the normal cdf; ``approximate="tanh"`` for the tanh formula."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return activations.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """x * sigmoid(x), elementwise (``inplace=True``: written into the input)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return activations.silu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ELU(Module):
    """x for x > 0, else alpha (e^x - 1)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return activations.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class LeakyReLU(Module):
    """x for x > 0, else negative_slope * x."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return activations.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    """log(1 + e^(beta x)) / beta, and x where beta x > threshold."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return activations.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """x clamped to [min_val, max_val], the gradient passing strictly inside."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0,
                 inplace: bool = False) -> None:  # fmt: skip
        super().__init__()
        if not max_val > min_val:  # (PyTorch asserts it: an AssertionError)
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return activations.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        text = f"min_val={self.min_val}, max_val={self.max_val}"
        return text + (", inplace=True" if self.inplace else "")
