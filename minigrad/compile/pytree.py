"""Arguments and results as a flat list of tensors plus a structure (lesson 13).

A traced function may take and return tensors inside tuples, lists and dicts,
nested. The graph itself only knows a flat list of tensors; ``flatten``
separates the tensors from the structure around them, and ``unflatten`` puts
them back. Anything that is not a tensor stays in the structure: it is
*static*, part of the signature (JAX calls this a pytree).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minigrad.tensor.base import TensorBase
from minigrad.tensor.tensor import Tensor

LEAF = "tensor"


# -- arguments and results as a list of tensors plus a structure --------------------------
def flatten(tree: Any) -> tuple[list[Any], Any]:
    """The tensors of ``tree`` (nested tuples, lists, dicts) and its structure without them.

    >>> import minigrad as mg
    >>> leaves, structure = flatten({"w": mg.ones(2), "n": 3})
    >>> len(leaves), structure
    (1, ('dict', ('w', 'n'), ('tensor', ('static', 3))))
    """
    leaves: list[Any] = []

    def walk(node: Any) -> Any:
        if isinstance(node, TensorBase):
            leaves.append(node)
            return LEAF
        if isinstance(node, np.ndarray):
            leaves.append(Tensor(node))
            return LEAF
        if isinstance(node, (tuple, list)):
            kind = "list" if isinstance(node, list) else type(node) if _named(node) else "tuple"
            return (kind, tuple(walk(child) for child in node))
        if isinstance(node, dict):
            return ("dict", tuple(node), tuple(walk(child) for child in node.values()))
        return ("static", node)

    return leaves, walk(tree)


def _named(node: Any) -> bool:
    return isinstance(node, tuple) and hasattr(node, "_fields")


def unflatten(structure: Any, leaves: Sequence[Any]) -> Any:
    """The inverse of ``flatten``: ``structure`` with its tensors taken from ``leaves``."""
    it = iter(leaves)

    def build(node: Any) -> Any:
        if node == LEAF:
            return next(it)
        kind = node[0]
        if kind == "static":
            return node[1]
        if kind == "dict":
            return {key: build(child) for key, child in zip(node[1], node[2])}
        children = [build(child) for child in node[1]]
        if kind == "list":
            return children
        if kind == "tuple":
            return tuple(children)
        return kind(*children)  # a named tuple

    return build(structure)
