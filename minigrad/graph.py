"""The node protocol and the one graph walk every minigrad graph shares (lesson 02).

A computation graph is made of nodes. Whatever the node type - a scalar
``Value`` (lesson 02) or a ``Tensor`` (lesson 04) - it answers three questions:

- ``node._parents``: the nodes it was computed from (a tuple; may repeat),
- ``node._op``: the name of the operation that made it (``""`` for inputs),
- ``node.label``: an optional human name, shown by ``minigrad.draw``.

One more is optional, read with ``getattr(node, "segment", None)``:

- ``node.segment``: the name of the part of the program that made the node,
  such as a checkpointed segment (lesson 09); ``minigrad.draw`` draws the
  nodes of one segment inside one box. None (or absent) for no segment.

Reverse-mode differentiation visits nodes so that every node comes after all
the nodes that use it: a *reverse topological order*. micrograd builds it with
a recursive depth-first search, which dies at a depth of about a thousand
(Python's recursion limit). Here the same search runs with an explicit stack,
so a chain of a million nodes is as easy as a chain of three.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol


class Node(Protocol):
    """What ``topological_order`` and ``minigrad.draw`` need from a graph node."""

    _op: str
    label: str

    @property
    def _parents(self) -> tuple[Any, ...]: ...


def _default_parents(node: Any) -> tuple[Any, ...]:
    return node._parents


def topological_order(
    roots: Any | Iterable[Any],
    parents: Callable[[Any], Iterable[Any]] = _default_parents,
) -> list[Any]:
    """Every node reachable from ``roots``, each one after all of its parents.

    Reverse the list to get the order reverse mode needs (outputs first).
    ``parents(node)`` says where to go next; by default ``node._parents``.
    The walk is an iterative depth-first search: no recursion, no depth limit.
    Nodes must hash by identity (the default for Python objects, and what
    ``Value`` and ``Tensor`` do even though they overload ``==``).

    >>> class N:
    ...     def __init__(self, name, *parents):
    ...         self.label, self._parents, self._op = name, parents, ""
    >>> a = N("a"); b = N("b", a); c = N("c", a, b)
    >>> [n.label for n in topological_order(c)]
    ['a', 'b', 'c']
    """
    if not isinstance(roots, (list, tuple)):
        roots = (roots,)
    order: list[Any] = []
    visited: set[Any] = set()
    for root in roots:
        if root in visited:
            continue
        visited.add(root)
        # Each stack entry is a node and an iterator over the parents not yet
        # explored; a node is emitted once its iterator runs dry (post-order).
        stack = [(root, iter(parents(root)))]
        while stack:
            node, pending = stack[-1]
            for parent in pending:
                if parent not in visited:
                    visited.add(parent)
                    stack.append((parent, iter(parents(parent))))
                    break
            else:
                stack.pop()
                order.append(node)
    return order
