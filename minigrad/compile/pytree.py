"""Arguments and results as a flat list of tensors plus a structure (lesson 13).

A traced function may take and return tensors inside tuples, lists and dicts,
nested: pytrees (``minigrad.tree``). The graph itself only knows a flat list
of tensors; ``flatten`` separates the tensors from the structure around them,
and ``unflatten`` puts them back. A leaf that is not a tensor (a number, a
string) stays in the structure: it is *static*, part of the signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minigrad import tree
from minigrad.tensor.base import TensorBase
from minigrad.tensor.tensor import Tensor

LEAF = "tensor"


def flatten(value: Any) -> tuple[list[Any], Any]:
    """The tensors of ``value`` (a pytree) and its structure without them.

    NumPy arrays count as tensors; other leaves are kept in the structure.

    >>> import minigrad as mg
    >>> leaves, structure = flatten({"w": mg.ones(2), "n": 3})
    >>> len(leaves), structure
    (1, (TreeDef({'w': *, 'n': *}), ('tensor', ('static', 3))))
    """
    leaves, treedef = tree.flatten(value)
    tensors: list[Any] = []
    kinds = []
    for leaf in leaves:
        if isinstance(leaf, np.ndarray):
            leaf = Tensor(leaf)
        if isinstance(leaf, TensorBase):
            tensors.append(leaf)
            kinds.append(LEAF)
        else:
            kinds.append(("static", leaf))
    return tensors, (treedef, tuple(kinds))


def unflatten(structure: Any, tensors: Sequence[Any]) -> Any:
    """The inverse of ``flatten``: ``structure`` with its tensors taken from ``tensors``."""
    treedef, kinds = structure
    it = iter(tensors)
    return tree.unflatten(treedef, [next(it) if k == LEAF else k[1] for k in kinds])
