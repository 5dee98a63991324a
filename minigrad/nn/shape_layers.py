"""Layers that pass their input on, or only reshape it: Identity, Unflatten (lesson 06).

``Identity`` is a placeholder: a model whose layer may be switched off keeps
the same structure (and state-dict names) with ``Identity()`` in its place.
``Unflatten`` undoes ``Flatten``: it splits one axis into several.

    >>> import minigrad as mg
    >>> model = mg.nn.Sequential(mg.nn.Flatten(), mg.nn.Unflatten(1, (3, 4)), mg.nn.Identity())
    >>> model(mg.zeros(2, 12)).shape
    (2, 3, 4)
"""

from __future__ import annotations

from typing import Any

from minigrad.nn.module import Module
from minigrad.tensor.ops.layout import unflatten
from minigrad.tensor.tensor import Tensor


class Identity(Module):
    """Returns its input unchanged; any constructor arguments are ignored (PyTorch's).

    >>> import minigrad as mg
    >>> x = mg.ones(2)
    >>> mg.nn.Identity(54, unused="x")(x) is x
    True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Unflatten(Module):
    """Axis ``dim`` split into ``unflattened_size`` (a tuple or list of ints, one may be -1).

    >>> import minigrad as mg
    >>> mg.nn.Unflatten(1, (2, -1))
    Unflatten(dim=1, unflattened_size=(2, -1))
    """

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                "unflattened_size must be a tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        for idx, elem in enumerate(unflattened_size):
            if not isinstance(elem, int):
                raise TypeError(
                    "unflattened_size must be tuple of ints, but found element of type "
                    f"{type(elem).__name__} at pos {idx}"
                )
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
