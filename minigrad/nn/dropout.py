"""Dropout: training with a random half of the network at each step (lesson 06).

While training, dropout sets each element to 0 with probability ``p`` and
multiplies the survivors by ``1 / (1 - p)``, so that every element keeps its
expected value. A network that cannot rely on any single unit learns more
redundant, more general features. In evaluation mode (``model.eval()``)
dropout does nothing: the scaling during training already made the full
network's outputs the right size.

The mask is drawn from minigrad's generator (``mg.manual_seed`` makes it
repeatable): an element is kept where a uniform draw in [0, 1) is at least
``p``. The mask is a constant of the graph, so the gradient flows through
the kept elements only, scaled the same way.

    >>> import minigrad as mg
    >>> mg.manual_seed(0)
    >>> mg.nn.functional.dropout(mg.ones(8), p=0.5)
    tensor([2., 0., 0., 0., 2., 2., 2., 2.])
"""

from __future__ import annotations

from minigrad.nn.module import Module
from minigrad.tensor import factories
from minigrad.tensor.tensor import Tensor


def dropout(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    With ``training=False`` (or ``p=0``) the input comes back unchanged.

    >>> import minigrad as mg
    >>> x = mg.ones(3)
    >>> mg.nn.functional.dropout(x, 0.9, training=False) is x
    True
    """
    _check_probability(p)
    if not training or p == 0:
        return input
    if p == 1:  # nothing survives (and 1 / (1 - p) would be infinite)
        return input * 0.0
    # Inside vmap, vmap's randomness decides: one mask per example, one shared, or an error.
    keep = factories.rand(*input.shape, dtype="float64", device=input.device) >= p
    return input * (keep.to("float64") / (1 - p)).to(input.dtype)


def _check_probability(p: float) -> None:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


class Dropout(Module):
    """``dropout`` with probability ``p`` while training; the identity in evaluation mode.

    >>> import minigrad as mg
    >>> layer = Dropout(0.5).eval()
    >>> layer(mg.ones(4))
    tensor([1., 1., 1., 1.])
    """

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        _check_probability(p)
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"
