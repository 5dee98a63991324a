"""Finite-difference checks: trust, but verify (lesson 01, used in every lesson after).

- ``differences``  central differences and the verdict, for any kind of input (01)
- ``scalar``       ``gradcheck`` of ``Value`` functions (01-03)
- ``tensor``       ``gradcheck``, ``check_jvp``, ``gradgradcheck`` of Tensor functions (04-08)

``gradcheck`` reads the inputs and hands them to the check for their kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.check import scalar, tensor
from minigrad.check.differences import GradcheckError, as_inputs
from minigrad.check.tensor import check_jvp, gradgradcheck

__all__ = ["GradcheckError", "check_jvp", "gradcheck", "gradgradcheck"]


def gradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    check_forward_ad: bool = False,
) -> bool:
    """Check ``fn``'s backward pass against central finite differences in float64.

    ``inputs`` is a sequence of Values or numbers (one Value is fine too), or
    of Tensors (and numbers); ``fn(*inputs)`` must return a Value, or a
    Tensor or tuple of Tensors. Floating-point tensor inputs are checked
    (on float64 copies); the caller's inputs are not modified. Returns True
    when every derivative agrees; otherwise raises ``GradcheckError`` naming
    the input, the element, the numerical and the analytical value, or
    returns False when ``raise_exception=False``. ``check_forward_ad=True``
    checks forward mode (``jvp``) too, as ``check_jvp`` does.

    >>> gradcheck(lambda a, b: a * b + b.tanh(), [2.0, -0.5])
    True
    >>> import minigrad as mg
    >>> gradcheck(lambda x: (x @ x.T).tanh(), [mg.randn(2, 3, dtype=mg.float64)])
    True
    """
    inputs = as_inputs(inputs)
    if scalar.accepts(inputs):
        if check_forward_ad:
            raise TypeError("gradcheck: check_forward_ad=True checks Tensor functions only")
        return scalar.gradcheck_values(fn, inputs, eps, atol, rtol, raise_exception)
    if tensor.accepts(inputs):
        return tensor.gradcheck_tensors(
            fn, inputs, eps, atol, rtol, raise_exception, check_forward_ad
        )
    names = sorted({type(x).__name__ for x in inputs})
    raise TypeError(
        f"gradcheck: cannot check inputs of type {', '.join(names)}; pass Values or Tensors"
    )
