"""Pytrees: nested tuples, lists and dicts of values, taken apart and put back (lesson 07).

A model's parameters are rarely one tensor: a dict of weights, a list of
layers, a named tuple of optimizer state. The transforms (``grad``, ``vjp``,
``jvp``, the Jacobians, ``vmap``, ``jit``, ``checkpoint``) work on flat lists
of tensors, so each one takes its arguments apart into *leaves* and a
*structure* (a ``TreeDef``), works on the leaves, and builds its answer in the
caller's structure again. JAX calls such nested values pytrees; this module is
the one place that knows how to walk them.

- containers: ``tuple``, ``list``, ``dict`` (its keys kept in their order),
  named tuples (their type kept) and ``None`` (a container with no leaves);
- leaves: everything else (tensors, numbers, strings, arrays).

    >>> import minigrad as mg
    >>> params = {"w": [1.0, 2.0], "b": 3.0}
    >>> leaves, treedef = mg.tree.flatten(params)
    >>> leaves, treedef
    ([1.0, 2.0, 3.0], TreeDef({'w': [*, *], 'b': *}))
    >>> mg.tree.unflatten(treedef, [10, 20, 30])
    {'w': [10, 20], 'b': 30}
    >>> mg.tree.map(lambda x, y: x * y, params, {"w": [2, 2], "b": -1})
    {'w': [2.0, 4.0], 'b': -3.0}
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Sequence
from typing import Any

LEAF = "*"


def _is_namedtuple(node: Any) -> bool:
    return isinstance(node, tuple) and hasattr(type(node), "_fields")


class TreeDef:
    """The structure of a pytree with its leaves taken out (``jax.tree_util.PyTreeDef``).

    ``kind`` is ``LEAF``, ``None``, ``tuple``, ``list``, ``dict`` or a named
    tuple's class; ``keys`` are a dict's keys; ``children`` the sub-structures.
    Two trees of one structure have equal (and equally hashing) TreeDefs.
    """

    __slots__ = ("children", "keys", "kind", "num_leaves")

    def __init__(self, kind: Any, children: tuple = (), keys: tuple = ()) -> None:
        self.kind = kind
        self.children = children
        self.keys = keys
        self.num_leaves = 1 if kind == LEAF else sum(c.num_leaves for c in children)

    def _key(self) -> tuple:
        return (self.kind, self.keys, self.children)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TreeDef) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"TreeDef({self._show()})"

    def _show(self) -> str:
        parts = [c._show() for c in self.children]
        if self.kind == LEAF:
            return LEAF
        if self.kind is None:
            return "None"
        if self.kind is list:
            return "[" + ", ".join(parts) + "]"
        if self.kind is dict:
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.keys, parts)) + "}"
        if self.kind is tuple:
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        fields = ", ".join(f"{k}={p}" for k, p in zip(self.kind._fields, parts))
        return f"{self.kind.__name__}({fields})"

    def build(self, children: list[Any]) -> Any:
        """This node's container around ``children`` (already built)."""
        if self.kind is None:
            return None
        if self.kind is dict:
            return dict(zip(self.keys, children))
        if self.kind is list:
            return list(children)
        if self.kind is tuple:
            return tuple(children)
        return self.kind(*children)  # a named tuple

    def flatten_up_to(self, tree: Any, where: str = "tree") -> list[Any]:
        """The subtrees of ``tree`` that sit where this structure has its leaves.

        ``tree`` must have this structure down to this structure's leaves, and
        may go deeper below them: this is how a *prefix* tree such as vmap's
        ``in_axes`` is matched against the arguments.

        >>> prefix = structure((0, 1))
        >>> prefix.flatten_up_to(([1, 2], {"a": 3}))
        [[1, 2], {'a': 3}]
        """
        out: list[Any] = []
        self._up_to(tree, out, where)
        return out

    def _up_to(self, tree: Any, out: list, path: str) -> None:
        if self.kind == LEAF:
            out.append(tree)
            return
        if self.kind is None:
            if tree is not None:
                raise ValueError(f"{path}: expected None, got {type(tree).__name__}")
            return
        if not _kind_matches(self.kind, tree):
            raise ValueError(
                f"{path}: the structures differ: expected {self._show()}, got one "
                f"{type(tree).__name__}"
            )
        if self.kind is dict:
            if set(tree) != set(self.keys):
                raise ValueError(
                    f"{path}: the structures differ: expected a dict with keys "
                    f"{list(self.keys)}, got keys {list(tree)}"
                )
            for key, child in zip(self.keys, self.children):
                child._up_to(tree[key], out, f"{path}[{key!r}]")
            return
        if len(tree) != len(self.children):
            raise ValueError(
                f"{path}: the structures differ: expected {len(self.children)} entries, "
                f"got {len(tree)}"
            )
        for i, (sub, child) in enumerate(zip(tree, self.children)):
            child._up_to(sub, out, f"{path}[{i}]")


def _kind_matches(kind: Any, tree: Any) -> bool:
    # A tuple and a list of the same length match: (0, None) is a prefix of [x, y].
    if kind in (tuple, list):
        return isinstance(tree, (tuple, list)) and not _is_namedtuple(tree)
    if kind is dict:
        return isinstance(tree, dict)
    return type(tree) is kind


def _structure(node: Any, leaves: list, is_leaf: Callable[[Any], bool] | None) -> TreeDef:
    if is_leaf is not None and is_leaf(node):
        leaves.append(node)
        return _LEAF
    if node is None:
        return _NONE
    if isinstance(node, dict):
        keys = tuple(node)
        return TreeDef(dict, tuple(_structure(node[k], leaves, is_leaf) for k in keys), keys)
    if isinstance(node, (list, tuple)):
        kind = type(node) if _is_namedtuple(node) else list if isinstance(node, list) else tuple
        return TreeDef(kind, tuple(_structure(c, leaves, is_leaf) for c in node))
    leaves.append(node)
    return _LEAF


_LEAF = TreeDef(LEAF)
_NONE = TreeDef(None)


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], TreeDef]:
    """The leaves of ``tree``, left to right, and its structure.

    ``is_leaf(node)`` may stop the walk at a node and call it a leaf.

    >>> flatten((1, [2, None], {"k": 3}))
    ([1, 2, 3], TreeDef((*, [*, None], {'k': *})))
    """
    leaves: list[Any] = []
    treedef = _structure(tree, leaves, is_leaf)
    return leaves, treedef


def flatten_with_paths(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """``(path, leaf)`` for every leaf, the path written as Python indexing (for messages).

    >>> flatten_with_paths({"w": [1, 2], "b": 3})
    [("['w'][0]", 1), ("['w'][1]", 2), ("['b']", 3)]
    """
    found: list[tuple[str, Any]] = []

    def walk(node: Any, path: str) -> None:
        if (is_leaf is not None and is_leaf(node)) or not isinstance(node, (dict, list, tuple)):
            if node is not None or (is_leaf is not None and is_leaf(node)):
                found.append((path, node))
            return
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in items:
            walk(child, f"{path}[{key!r}]")

    walk(tree, "")
    return found


def unflatten(treedef: TreeDef, leaves: Sequence[Any]) -> Any:
    """The tree of structure ``treedef`` holding ``leaves`` (the inverse of ``flatten``).

    >>> unflatten(structure([0, (0, 0)]), "abc")
    ['a', ('b', 'c')]
    """
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(
            f"unflatten: the structure {treedef} has {treedef.num_leaves} leaves, got {len(leaves)}"
        )
    it = iter(leaves)
    return _build(treedef, it)


def _build(treedef: TreeDef, it: Iterator[Any]) -> Any:
    if treedef.kind == LEAF:
        return next(it)
    return treedef.build([_build(child, it) for child in treedef.children])


def leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of ``tree``, left to right.

    >>> leaves({"a": (1, 2), "b": [3]})
    [1, 2, 3]
    """
    return flatten(tree, is_leaf)[0]


def structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> TreeDef:
    """The structure of ``tree`` (its ``TreeDef``)."""
    return flatten(tree, is_leaf)[1]


def map(f: Callable[..., Any], tree: Any, *rest: Any,
        is_leaf: Callable[[Any], bool] | None = None) -> Any:  # fmt: skip
    """``tree`` with ``f`` applied to each leaf (and the leaves at the same places of ``rest``).

    >>> map(lambda x: x + 1, {"a": 1, "b": (2, 3)})
    {'a': 2, 'b': (3, 4)}
    """
    flat, treedef = flatten(tree, is_leaf)
    others = [treedef.flatten_up_to(r, "tree.map") for r in rest]
    return unflatten(treedef, [f(*xs) for xs in builtins.zip(flat, *others)])


def all_leaves(tree: Any, kind: type | tuple[type, ...]) -> bool:
    """Whether every leaf of ``tree`` is an instance of ``kind``."""
    return builtins.all(isinstance(x, kind) for x in leaves(tree))
