"""Lesson 03 exercise: the backward pass over a graph of local derivatives.

Grade it with ``python -m minigrad.grade --exercise 3.1``.

Here a node keeps, beside each parent, the local derivative d(node)/d(parent),
computed in the forward pass, just as ``Value`` keeps its ``_partials`` (micrograd
keeps a closure instead; the walk is the same either way). ``Node``, ``add``,
``mul`` and ``tanh`` are given.
"""

import math

from minigrad.graph import topological_order


class Node:
    """A number in a graph, with the local derivative towards each parent."""

    def __init__(self, data: float, parents: tuple = (), local_grads: tuple = ()) -> None:
        self.data = float(data)
        self.grad = 0.0
        self._parents = tuple(parents)
        self._local_grads = tuple(local_grads)
        self._op = ""


def add(a: Node, b: Node) -> Node:
    return Node(a.data + b.data, (a, b), (1.0, 1.0))


def mul(a: Node, b: Node) -> Node:
    return Node(a.data * b.data, (a, b), (b.data, a.data))


def tanh(a: Node) -> Node:
    t = math.tanh(a.data)
    return Node(t, (a,), (1.0 - t * t,))


def backward(root: Node) -> None:
    """Exercise 3.1: reverse mode: fill in ``.grad`` of every node that ``root`` depends on.

    Set ``root.grad = 1.0``, then visit the nodes so that each node comes
    before all of its parents (reverse topological order) and, for each
    parent with local derivative ``local``, do ``parent.grad += local * node.grad``.
    A node used twice receives both contributions. Deep graphs (a chain of
    100,000 nodes) must work: no recursion. Returns None.

    >>> a = Node(2.0); b = Node(3.0); c = add(mul(a, b), a)
    >>> backward(c); a.grad, b.grad
    (4.0, 2.0)

    Hint (lesson 03): topological_order (imported above; your exercise 2.2) puts parents
    first: walk it backwards, applying the chain rule at each node.
    """
    # BEGIN SOLUTION
    root.grad = 1.0
    for node in reversed(topological_order(root)):
        for parent, local in zip(node._parents, node._local_grads):
            parent.grad += local * node.grad
    # END SOLUTION
