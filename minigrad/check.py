"""Finite-difference gradient checking: trust, but verify (lesson 01, used in every lesson after).

A derivative rule is easy to get wrong and the mistake is silent: training
still runs, only worse. The cure is an independent oracle. For every input
element ``x_j`` the central difference

    (f(x + eps·e_j) - f(x - eps·e_j)) / (2·eps)

approximates column ``j`` of the Jacobian with an error of order ``eps²``,
using nothing but evaluations of ``f``. ``gradcheck`` computes it in float64
and compares it with what the engine's backward pass says (the *analytical*
Jacobian), element by element, with ``|analytical - numerical| <= atol +
rtol·|numerical|`` as in ``torch.autograd.gradcheck``.

The comparison and the report are shared by every kind of input; what
differs per kind (``Value`` now, ``Tensor`` later) is only how to copy the
inputs, nudge one element, read the outputs and run backward. That part is
an *input kind* below: a class with those four methods.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any

from minigrad.graph import topological_order
from minigrad.scalar import Value

# A Jacobian block for one input: rows are output elements, columns input elements.
Jacobian = list[list[float]]


class GradcheckError(RuntimeError):
    """Analytical and numerical derivatives disagree (raised by ``gradcheck``)."""


class _DataView:
    """A Value's number as a one-element, writable, flat sequence of float64."""

    def __init__(self, value: Value) -> None:
        self.value = value

    def __len__(self) -> int:
        return 1

    def __getitem__(self, j: int) -> float:
        return self.value.data

    def __setitem__(self, j: int, number: float) -> None:
        self.value.data = number


class _ValueInputs:
    """The input kind for scalar ``Value`` functions: each input is a Value or a number."""

    @staticmethod
    def accepts(inputs: Sequence[Any]) -> bool:
        return all(isinstance(x, (Value, Real)) for x in inputs)

    @staticmethod
    def copies(inputs: Sequence[Any]) -> list[Value]:
        """Fresh leaves with the same numbers, so the caller's grads stay untouched."""
        return [Value(x.data, label=x.label) if isinstance(x, Value) else Value(x) for x in inputs]

    @staticmethod
    def views(leaves: list[Value]) -> list[_DataView]:
        return [_DataView(leaf) for leaf in leaves]

    @staticmethod
    def outputs(fn: Callable[..., Value], leaves: list[Value]) -> tuple[Value, list[float]]:
        out = fn(*leaves)
        if not isinstance(out, Value):
            raise TypeError(
                f"gradcheck: fn must return a Value when its inputs are Values, "
                f"got {type(out).__name__}"
            )
        return out, [out.data]

    @staticmethod
    def analytical(out: Value, leaves: list[Value]) -> list[Jacobian]:
        # backward() accumulates into every node it reaches, including Values
        # that fn closes over; put their grads back afterwards.
        nodes = topological_order(out)
        saved = [node.grad for node in nodes]
        out.backward()
        jacobians = [[[leaf.grad]] for leaf in leaves]
        for node, grad in zip(nodes, saved):
            node.grad = grad
        return jacobians

    @staticmethod
    def where(leaves: list[Value], i: int, j: int) -> str:
        label = leaves[i].label
        return f"input {i} ({label!r})" if label else f"input {i}"


_KINDS = (_ValueInputs,)


def _kind_of(inputs: Sequence[Any]) -> type:
    for kind in _KINDS:
        if kind.accepts(inputs):
            return kind
    names = sorted({type(x).__name__ for x in inputs})
    raise TypeError(f"gradcheck: cannot check inputs of type {', '.join(names)}; pass Values")


def _numerical(fn: Callable, kind: type, leaves: list, eps: float) -> list[Jacobian]:
    """Central differences, one input element at a time: column j of each Jacobian block."""
    jacobians = []
    for view in kind.views(leaves):
        columns = []
        for j in range(len(view)):
            x = view[j]
            view[j] = x + eps
            _, plus = kind.outputs(fn, leaves)
            view[j] = x - eps
            _, minus = kind.outputs(fn, leaves)
            view[j] = x
            columns.append([(p - m) / (2.0 * eps) for p, m in zip(plus, minus)])
        jacobians.append([list(row) for row in zip(*columns)])
    return jacobians


def _worst_mismatch(
    numerical: list[Jacobian], analytical: list[Jacobian], atol: float, rtol: float
) -> tuple[float, int, int, int] | None:
    """(excess, input, output row, element) of the element furthest past tolerance, or None."""
    worst = None
    for i, (num_block, ana_block) in enumerate(zip(numerical, analytical)):
        for k, (num_row, ana_row) in enumerate(zip(num_block, ana_block)):
            for j, (n, a) in enumerate(zip(num_row, ana_row)):
                error = abs(a - n)
                allowed = atol + rtol * abs(n)
                if not error <= allowed:  # written so that nan fails
                    excess = error - allowed if error == error else float("inf")
                    if worst is None or excess > worst[0]:
                        worst = (excess, i, k, j)
    return worst


def gradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check ``fn``'s backward pass against central finite differences in float64.

    ``inputs`` is a sequence of Values or numbers (one Value is fine too);
    ``fn(*inputs)`` must return a Value. The caller's Values are not modified:
    the check runs on fresh copies. Returns True when every derivative agrees;
    otherwise raises ``GradcheckError`` naming the input, the numerical and
    the analytical value, or returns False when ``raise_exception=False``.

    >>> gradcheck(lambda a, b: a * b + b.tanh(), [2.0, -0.5])
    True
    >>> gradcheck(lambda a: a.relu() * 3, [Value(1.5, label="x")])
    True
    """
    if isinstance(inputs, (Value, Real)):
        inputs = (inputs,)
    kind = _kind_of(inputs)
    leaves = kind.copies(inputs)
    out, _ = kind.outputs(fn, leaves)
    analytical = kind.analytical(out, leaves)
    numerical = _numerical(fn, kind, leaves, eps)
    worst = _worst_mismatch(numerical, analytical, atol, rtol)
    if worst is None:
        return True
    if not raise_exception:
        return False
    _, i, k, j = worst
    n, a = numerical[i][k][j], analytical[i][k][j]
    # The first line is PyTorch's, so that its documentation and forums apply.
    raise GradcheckError(
        f"Jacobian mismatch for output {k} with respect to input {i},\n"
        f"{kind.where(leaves, i, j)}: numerical {n!r} vs analytical {a!r} "
        f"(difference {abs(a - n):.3g} > atol + rtol·|numerical| = {atol + rtol * abs(n):.3g}, "
        f"eps={eps:g}).\n"
        "The backward rule of some operation that fn uses disagrees with its forward."
    )
