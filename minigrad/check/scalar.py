"""``gradcheck`` for scalar ``Value`` functions (lesson 01, and lessons 02-03's engine).

Lesson 01 computes derivatives by central differences; lesson 02 builds an
engine that computes them by the chain rule. This is where the two meet: each
input is nudged by ``±eps`` (a fresh ``Value`` every time, so nothing the
caller holds is touched), and the numbers are compared with the ``grad`` that
``backward()`` leaves on fresh copies of the inputs. The comparison and the
error message are those of ``differences.py``, shared with the tensor checks.

    >>> gradcheck_values(lambda a, b: a * b + b.tanh(), [2.0, -0.5])
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any

import numpy as np

from minigrad.check.differences import central_differences, compare
from minigrad.graph import topological_order
from minigrad.scalar import Value


def accepts(inputs: Sequence[Any]) -> bool:
    """Are these the inputs of a Value function (Values and plain numbers)?"""
    return all(isinstance(x, (Value, Real)) for x in inputs)


def _leaves(numbers: Sequence[float], labels: Sequence[str]) -> list[Value]:
    return [Value(float(x), label=label) for x, label in zip(numbers, labels)]


def _output(out: Any) -> Value:
    if not isinstance(out, Value):
        raise TypeError(
            f"gradcheck: fn must return a Value when its inputs are Values, "
            f"got {type(out).__name__}"
        )
    return out


def _gradients(fn: Callable[..., Value], leaves: list[Value]) -> list[float]:
    """d out / d leaf for every leaf, by ``backward()``."""
    out = _output(fn(*leaves))
    # backward() accumulates into every node it reaches, including Values
    # that fn closes over; put their grads back afterwards.
    nodes = topological_order(out)
    saved = [node.grad for node in nodes]
    out.backward()
    grads = [leaf.grad for leaf in leaves]
    for node, grad in zip(nodes, saved):
        node.grad = grad
    return grads


def gradcheck_values(
    fn: Callable[..., Value],
    inputs: Sequence[Any],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check the derivatives of a Value function ``fn`` against central differences.

    ``inputs`` are Values or numbers; see ``minigrad.check.gradcheck``.

    >>> gradcheck_values(lambda a: a.relu() * 3, [Value(1.5, label="x")])
    True
    """
    numbers = [x.data if isinstance(x, Value) else float(x) for x in inputs]
    labels = [x.label if isinstance(x, Value) else "" for x in inputs]

    def outputs(points: list) -> np.ndarray:
        return np.array([_output(fn(*_leaves([p[0] for p in points], labels))).data])

    points = [np.array([x]) for x in numbers]
    numerical = central_differences(outputs, points, eps, n_out=1)
    analytical = [np.array([[g]]) for g in _gradients(fn, _leaves(numbers, labels))]

    def describe(i: int, k: int, j: int) -> tuple[int, int, str]:
        return 0, i, f"input {i} ({labels[i]!r})" if labels[i] else f"input {i}"

    return compare(numerical, analytical, describe, "reverse", eps, atol, rtol, raise_exception)
