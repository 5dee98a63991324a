"""Central differences, and the verdict when they disagree with a rule (lesson 01).

A derivative rule is easy to get wrong and the mistake is silent: training
still runs, only worse. The cure is an independent oracle. For every input
element ``x_j`` the central difference

    (f(x + eps·e_j) - f(x - eps·e_j)) / (2·eps)

approximates column ``j`` of the Jacobian with an error of order ``eps²``,
using nothing but evaluations of ``f``. The checks compute it in float64 and
compare it with what the engine says (the *analytical* Jacobian), element by
element, with ``|analytical - numerical| <= atol + rtol·|numerical|`` as in
``torch.autograd.gradcheck``.

This module knows nothing of Values or Tensors. An input is a flat float64
array (a *point*), or None for an input held fixed; ``f`` maps the list of
points to the flat array of every output number. The scalar checks
(``scalar.py``) and the tensor checks (``tensor.py``) translate to and from it.

    >>> f = lambda points: points[0] ** 2
    >>> central_differences(f, [np.array([3.0])], eps=1e-6, n_out=1)
    [array([[6.]])]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# One block per input: rows are output numbers, columns that input's numbers.
Blocks = list[np.ndarray | None]


class GradcheckError(RuntimeError):
    """Analytical and numerical derivatives disagree (raised by ``gradcheck``)."""


def as_inputs(inputs: Any) -> tuple[Any, ...]:
    """The checks' ``inputs``: a list or tuple of inputs, or one input alone.

    >>> as_inputs(2.0), as_inputs([2.0, 3.0])
    ((2.0,), (2.0, 3.0))
    """
    return tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)


def central_differences(
    f: Callable[[list[np.ndarray | None]], np.ndarray],
    points: Sequence[np.ndarray | None],
    eps: float,
    n_out: int,
) -> Blocks:
    """The Jacobian of ``f`` by central differences, one block per input (None: held fixed).

    >>> f = lambda p: np.array([p[0][0] * p[0][1], p[0][0] + 2.0])
    >>> central_differences(f, [np.array([1.0, 2.0]), None], eps=1e-6, n_out=2)[0].round(6)
    array([[2., 1.],
           [1., 0.]])
    """
    blocks: Blocks = []
    for i, x in enumerate(points):
        if x is None:
            blocks.append(None)
            continue
        block = np.empty((n_out, x.size))
        moved = list(points)
        for j in range(x.size):
            step = np.zeros_like(x)
            step[j] = eps
            moved[i] = x + step
            plus = f(moved)
            moved[i] = x - step
            minus = f(moved)
            block[:, j] = (plus - minus) / (2.0 * eps)
        blocks.append(block)
    return blocks


def worst_mismatch(
    numerical: Blocks, analytical: Blocks, atol: float, rtol: float
) -> tuple[int, int, int] | None:
    """(input, output row, input element) furthest past the tolerance, or None if all agree.

    A nan on either side is a mismatch, and the worst one.

    >>> worst_mismatch([np.array([[1.0, 2.0]])], [np.array([[1.0, 2.5]])], 1e-5, 1e-3)
    (0, 0, 1)
    """
    worst, where = -np.inf, None
    for i, (n, a) in enumerate(zip(numerical, analytical)):
        if n is None or n.size == 0:
            continue
        error = np.abs(a - n)
        allowed = atol + rtol * np.abs(n)
        excess = np.where(np.isnan(error) | np.isnan(allowed), np.inf, error - allowed)
        k, j = np.unravel_index(int(np.argmax(excess)), excess.shape)
        if excess[k, j] > 0 and excess[k, j] > worst:
            worst, where = excess[k, j], (i, int(k), int(j))
    return where


_READINGS = {
    "reverse": ("Jacobian", "backward rule"),
    "forward": ("Jacobian computed with forward mode", "jvp rule"),
}


def compare(
    numerical: Blocks,
    analytical: Blocks,
    describe: Callable[[int, int, int], tuple[int, int, str]],
    mode: str,
    eps: float,
    atol: float,
    rtol: float,
    raise_exception: bool,
) -> bool:
    """True if the Jacobians agree; else raise ``GradcheckError`` (or return False).

    ``describe(i, k, j)`` names, for the message, the output that row ``k``
    belongs to, the input of block ``i``, and where the elements are. ``mode``
    is ``"reverse"`` or ``"forward"``: which rules computed ``analytical``.

    >>> where = lambda i, k, j: (0, i, f"input {i}")
    >>> one = [np.array([[1.0]])]
    >>> compare(one, one, where, "reverse", 1e-6, 1e-5, 1e-3, True)
    True
    >>> compare(one, [np.array([[2.0]])], where, "reverse", 1e-6, 1e-5, 1e-3, False)
    False
    """
    found = worst_mismatch(numerical, analytical, atol, rtol)
    if found is None:
        return True
    if not raise_exception:
        return False
    i, k, j = found
    n, a = float(numerical[i][k, j]), float(analytical[i][k, j])
    output, input_, place = describe(i, k, j)
    computed, rule = _READINGS[mode]
    # The first line is PyTorch's, so that its documentation and forums apply.
    raise GradcheckError(
        f"{computed} mismatch for output {output} with respect to input {input_},\n"
        f"{place}: numerical {n!r} vs analytical {a!r} "
        f"(difference {abs(a - n):.3g} > atol + rtol·|numerical| = {atol + rtol * abs(n):.3g}, "
        f"eps={eps:g}).\n"
        f"The {rule} of some operation that fn uses disagrees with its forward."
    )
