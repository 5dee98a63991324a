"""``Value``: one number in a computation graph, and reverse mode over it (lessons 02-03).

Every operation computes its result *and* its local derivatives - the partial
derivative of the result with respect to each input - and stores those
numbers on the new node, next to the inputs they belong to. ``backward`` then
walks the graph from the output towards the inputs and applies the chain rule
once per edge::

    parent.grad += d(node)/d(parent) * node.grad

micrograd keeps a closure per node instead of two tuples. Numbers are cheaper
to make than closures, and a node that holds only its parents and some floats
is never part of a reference cycle: a graph is freed by reference counting the
moment its output goes out of scope, without waiting for the garbage collector.

The local derivatives come from the table in ``rules.py``, which also gives
IEEE answers (``inf``, ``nan``) where plain Python arithmetic would raise.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from numbers import Real

from minigrad.graph import topological_order
from minigrad.scalar import rules
from minigrad.scalar.rules import div, power, power_partials

_ONE_ONE = (1.0, 1.0)
_ONE_MINUS_ONE = (1.0, -1.0)


def _as_number(x: object) -> float | int | None:
    """A plain number for ``x``, or None when ``x`` is not a real number."""
    if isinstance(x, (float, int)):
        return x
    if isinstance(x, Real):  # NumPy scalars and other registered reals
        return float(x)
    return None


class Value:
    """A scalar in a computation graph, micrograd-style.

    ``data`` is the number, ``grad`` the derivative of the last ``backward()``
    root with respect to it (accumulated). ``_parents`` are the inputs of the
    operation ``_op`` that produced it and ``_partials`` the local derivatives
    with respect to each of them.

    >>> a = Value(2.0, label="a"); b = Value(-3.0, label="b")
    >>> c = a * b + a**2
    >>> c.backward()
    >>> c.data, a.grad, b.grad
    (-2.0, 1.0, 2.0)
    """

    __slots__ = ("_op", "_parents", "_partials", "data", "grad", "label")

    def __init__(
        self,
        data: float,
        _children: tuple[Value, ...] = (),
        _op: str = "",
        label: str = "",
        _partials: tuple[float, ...] = (),
    ) -> None:
        number = _as_number(data)
        if number is None:
            raise TypeError(
                f"Value() expects a real number (int or float), got {type(data).__name__}: {data!r}"
            )
        if len(_partials) != len(_children):
            raise ValueError(
                f"Value() got {len(_children)} children but {len(_partials)} partials; "
                "give one local derivative per child"
            )
        self.data = float(number)
        self.grad = 0.0
        self._parents = tuple(_children)
        self._partials = tuple(_partials)
        self._op = _op
        self.label = label

    @property
    def _prev(self) -> set[Value]:
        """The parents as a set, under micrograd's name."""
        return set(self._parents)

    def __repr__(self) -> str:
        label = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data}, grad={self.grad}{label})"

    # Arithmetic. Each method returns the result with its local derivatives;
    # a plain number on the other side is a constant, so it gets no node.

    def __add__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            return _result(self.data + other.data, (self, other), _ONE_ONE, "+")
        other = _as_number(other)
        if other is None:
            return NotImplemented
        return _result(self.data + other, (self,), (1.0,), "+")

    __radd__ = __add__

    def __sub__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            return _result(self.data - other.data, (self, other), _ONE_MINUS_ONE, "-")
        other = _as_number(other)
        if other is None:
            return NotImplemented
        return _result(self.data - other, (self,), (1.0,), "-")

    def __rsub__(self, other: float) -> Value:
        other = _as_number(other)
        if other is None:
            return NotImplemented
        return _result(other - self.data, (self,), (-1.0,), "-")

    def __mul__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            return _result(self.data * other.data, (self, other), (other.data, self.data), "*")
        other = _as_number(other)
        if other is None:
            return NotImplemented
        return _result(self.data * other, (self,), (float(other),), "*")

    __rmul__ = __mul__

    def __truediv__(self, other: Value | float) -> Value:
        x = self.data
        if isinstance(other, Value):
            y = other.data
            out = div(x, y)
            return _result(out, (self, other), (div(1.0, y), -div(out, y)), "/")
        y = _as_number(other)
        if y is None:
            return NotImplemented
        return _result(div(x, y), (self,), (div(1.0, y),), "/")

    def __rtruediv__(self, other: float) -> Value:
        x = _as_number(other)
        if x is None:
            return NotImplemented
        y = self.data
        out = div(x, y)
        return _result(out, (self,), (-div(out, y),), "/")

    def __pow__(self, other: Value | float) -> Value:
        x = self.data
        if isinstance(other, Value):
            y = other.data
            out = power(x, y)
            return _result(out, (self, other), power_partials(x, y, out), "**")
        y = _as_number(other)
        if y is None:
            return NotImplemented
        out = power(x, y)
        return _result(out, (self,), power_partials(x, y, out)[:1], f"**{other}")

    def __rpow__(self, other: float) -> Value:
        x = _as_number(other)
        if x is None:
            return NotImplemented
        y = self.data
        out = power(x, y)
        return _result(out, (self,), power_partials(x, y, out)[1:], "**")

    def __neg__(self) -> Value:
        return _result(-self.data, (self,), (-1.0,), "neg")

    # Comparisons (as MiniTorch's Scalar has them). The answer is a Value, 1.0 or
    # 0.0, so it can take part in arithmetic; it is piecewise constant, so its
    # derivative is 0 in both inputs. ``bool(v)`` is ``v.data != 0``, which is what
    # lets Python's ``max``, ``min`` and ``sorted`` compare Values.

    def _compare(self, other: Value | float, op: str, holds) -> Value:
        if isinstance(other, Value):
            return _result(float(holds(self.data, other.data)), (self, other), (0.0, 0.0), op)
        number = _as_number(other)
        if number is None:
            return NotImplemented
        return _result(float(holds(self.data, number)), (self,), (0.0,), op)

    def __lt__(self, other: Value | float) -> Value:
        """``1.0`` where ``self < other``, else ``0.0`` (no derivative).

        >>> a, b = Value(1.0), Value(2.0)
        >>> (a < b).data, (a >= b).data, max(a, b) is b, (3 > a).data
        (1.0, 0.0, True, 1.0)
        """
        return self._compare(other, "<", operator.lt)

    def __le__(self, other: Value | float) -> Value:
        return self._compare(other, "<=", operator.le)

    def __gt__(self, other: Value | float) -> Value:
        return self._compare(other, ">", operator.gt)

    def __ge__(self, other: Value | float) -> Value:
        return self._compare(other, ">=", operator.ge)

    def __bool__(self) -> bool:
        return self.data != 0.0

    # Functions of one variable, read from the derivative table: f(x) and f'(x).

    def _unary(self, rule, op: str) -> Value:
        y, dy = rule(self.data)
        return _result(y, (self,), (dy,), op)

    def relu(self) -> Value:
        return self._unary(rules.relu, "relu")

    def tanh(self) -> Value:
        return self._unary(rules.tanh, "tanh")

    def exp(self) -> Value:
        return self._unary(rules.exp, "exp")

    def log(self) -> Value:
        return self._unary(rules.log, "log")

    def sigmoid(self) -> Value:
        return self._unary(rules.sigmoid, "sigmoid")

    # Reverse mode.

    def _backward(self) -> None:
        """This node's chain-rule step: pass ``self.grad`` on to the parents."""
        grad = self.grad
        for parent, partial in zip(self._parents, self._partials):
            parent.grad += partial * grad

    def backward(self) -> None:
        """Add d(self)/d(node) to ``node.grad`` for every node ``self`` depends on.

        The walk is iterative, so graphs of any depth work. Gradients
        accumulate: a second call adds the same amounts again.

        >>> x = Value(3.0); y = x * x
        >>> y.backward(); y.backward(); x.grad
        12.0
        """
        order = topological_order(self)
        # Grads left by earlier passes are set aside, so that each node passes
        # on only this pass's gradient, and added back at the end.
        earlier = [node.grad for node in order]
        stale = any(earlier)
        if stale:
            for node in order:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
        if stale:
            for node, grad in zip(order, earlier):
                node.grad += grad

    def zero_grad(self) -> None:
        """Set ``grad`` to 0 on this node and every node it depends on.

        >>> x = Value(3.0); y = x * x; y.backward(); y.zero_grad(); x.grad
        0.0
        """
        zero_grad(self)


_new = object.__new__


def _result(data: float, parents: tuple, partials: tuple, op: str) -> Value:
    """A new node; the fast path for operations, which already know their inputs are valid."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    out._parents = parents
    out._partials = partials
    out._op = op
    out.label = ""
    return out


def zero_grad(root: Value | Iterable[Value]) -> None:
    """Set ``grad`` to 0 on ``root`` (one Value or a list of them) and everything it depends on.

    >>> a = Value(1.0); b = a + a; b.backward(); zero_grad(b); a.grad
    0.0
    """
    roots = list(root) if isinstance(root, Iterable) else root
    for node in topological_order(roots):
        node.grad = 0.0
