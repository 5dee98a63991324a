# Generated from solutions/ by `python -m minigrad.grade.generate`: replace each
# `raise NotImplementedError(...)` with your code, then run `python -m minigrad.grade`.
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
        raise NotImplementedError(
            "Exercise 2.1: compute out first, then define a closure _backward that does "
            "parent.grad += local_derivative * out.grad for each parent; += makes a*a come out "
            "right. (lesson 02)"
        )

    def __mul__(self, other: "Scalar | float") -> "Scalar":
        raise NotImplementedError(
            "Exercise 2.1: compute out first, then define a closure _backward that does "
            "parent.grad += local_derivative * out.grad for each parent; += makes a*a come out "
            "right. (lesson 02)"
        )

    def __pow__(self, exponent: float) -> "Scalar":
        raise NotImplementedError(
            "Exercise 2.1: compute out first, then define a closure _backward that does "
            "parent.grad += local_derivative * out.grad for each parent; += makes a*a come out "
            "right. (lesson 02)"
        )

    def tanh(self) -> "Scalar":
        raise NotImplementedError(
            "Exercise 2.1: compute out first, then define a closure _backward that does "
            "parent.grad += local_derivative * out.grad for each parent; += makes a*a come out "
            "right. (lesson 02)"
        )

    def exp(self) -> "Scalar":
        raise NotImplementedError(
            "Exercise 2.1: compute out first, then define a closure _backward that does "
            "parent.grad += local_derivative * out.grad for each parent; += makes a*a come out "
            "right. (lesson 02)"
        )

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
    raise NotImplementedError(
        "Exercise 2.2: no recursion: keep your own stack. Either a depth-first search that emits a"
        " node once its parents are done, or count each node's children, then peel nodes off from "
        "the root down (a node goes once all its children went) and reverse; track nodes by id(). "
        "(lesson 02)"
    )
