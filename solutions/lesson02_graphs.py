"""Lesson 02 exercises: a scalar graph with local backward rules, and its topological order.

Grade them with ``python -m minigrad.grade --exercise 2``.
"""

import math


class Scalar:
    """Exercise 2.1: a number that remembers how it was made, with local backward rules.

    ``Scalar(data)`` holds ``data`` (a float), ``grad`` (0.0), ``_parents`` (the
    Scalars it was computed from, in argument order) and ``_op``. Each operation
    returns a new Scalar ``out`` whose ``out._backward()`` ADDS (``+=``), for
    every parent, the local derivative d(out)/d(parent) times ``out.grad`` into
    ``parent.grad``. A plain number on either side is wrapped in a Scalar first.

    Write ``__add__``, ``__mul__``, ``__pow__`` (the exponent is a plain number),
    ``tanh`` and ``exp``. The rest (``__radd__``, ``__neg__``, ...) is given.

    >>> a = Scalar(3.0); out = a * a
    >>> out.grad = 1.0; out._backward(); a.grad
    6.0

    Hint (lesson 02): compute out first, then define a closure _backward that does
    parent.grad += local_derivative * out.grad for each parent; += makes a*a come out right.
    """

    def __init__(self, data: float, _parents: tuple = (), _op: str = "") -> None:
        self.data = float(data)
        self.grad = 0.0
        self._parents = tuple(_parents)
        self._op = _op
        self._backward = lambda: None

    def __repr__(self) -> str:
        return f"Scalar(data={self.data}, grad={self.grad})"

    @staticmethod
    def wrap(x: "Scalar | float") -> "Scalar":
        return x if isinstance(x, Scalar) else Scalar(x)

    def __add__(self, other: "Scalar | float") -> "Scalar":
        # BEGIN SOLUTION
        other = Scalar.wrap(other)
        out = Scalar(self.data + other.data, (self, other), "+")

        def _backward() -> None:
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out
        # END SOLUTION

    def __mul__(self, other: "Scalar | float") -> "Scalar":
        # BEGIN SOLUTION
        other = Scalar.wrap(other)
        out = Scalar(self.data * other.data, (self, other), "*")

        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out
        # END SOLUTION

    def __pow__(self, exponent: float) -> "Scalar":
        # BEGIN SOLUTION
        out = Scalar(self.data**exponent, (self,), f"**{exponent}")

        def _backward() -> None:
            self.grad += exponent * self.data ** (exponent - 1) * out.grad

        out._backward = _backward
        return out
        # END SOLUTION

    def tanh(self) -> "Scalar":
        # BEGIN SOLUTION
        t = math.tanh(self.data)
        out = Scalar(t, (self,), "tanh")

        def _backward() -> None:
            self.grad += (1 - t * t) * out.grad

        out._backward = _backward
        return out
        # END SOLUTION

    def exp(self) -> "Scalar":
        # BEGIN SOLUTION
        out = Scalar(math.exp(self.data), (self,), "exp")

        def _backward() -> None:
            self.grad += out.data * out.grad

        out._backward = _backward
        return out
        # END SOLUTION

    def __radd__(self, other: float) -> "Scalar":
        return self + other

    def __rmul__(self, other: float) -> "Scalar":
        return self * other

    def __neg__(self) -> "Scalar":
        return self * -1.0

    def __sub__(self, other: "Scalar | float") -> "Scalar":
        return self + (-Scalar.wrap(other))


def topological_order(root: object) -> list:
    """Exercise 2.2: every node reachable from ``root``, each one after all of its parents.

    A node's parents are ``node._parents`` (a tuple; the same parent may appear
    twice). Each reachable node appears exactly once; ``root`` comes last.
    Graphs may be deep: a chain of 100,000 nodes must work, so no recursion
    (Python stops recursing at about 1,000 frames).

    >>> a = Scalar(1.0); b = a * 2.0; c = a + b
    >>> [n.data for n in topological_order(c)]
    [1.0, 2.0, 2.0, 3.0]

    Hint (lesson 02): no recursion: keep your own stack. Either a depth-first search that
    emits a node once its parents are done, or count each node's children, then peel nodes
    off from the root down (a node goes once all its children went) and reverse; track
    nodes by id().
    """
    # BEGIN SOLUTION
    # Kahn's algorithm, run from the output: count each node's children first.
    children = {id(root): 0}
    stack = [root]
    while stack:
        for parent in stack.pop()._parents:
            if id(parent) not in children:
                children[id(parent)] = 0
                stack.append(parent)
            children[id(parent)] += 1
    ready, reverse_order = [root], []
    while ready:
        node = ready.pop()
        reverse_order.append(node)
        for parent in node._parents:
            children[id(parent)] -= 1
            if children[id(parent)] == 0:
                ready.append(parent)
    return reverse_order[::-1]
    # END SOLUTION
