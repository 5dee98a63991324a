"""Lesson 08 exercise: a Hessian-vector product by nesting transforms.

Grade it with ``python -m minigrad.grade --exercise 8.1``.
"""

import minigrad as mg


def hvp(f, x: "mg.Tensor", v: "mg.Tensor") -> "mg.Tensor":
    """Exercise 8.1: the Hessian of ``f`` at ``x`` times ``v``, without forming the Hessian.

    ``f`` maps a tensor to a scalar tensor; ``x`` and ``v`` have the same
    shape. Return ``H(x) @ v`` as a tensor shaped like ``x``, where
    ``H = d^2 f / dx^2``. Build it from ``mg.grad`` and ``mg.jvp`` (do not call
    ``mg.hvp`` or ``mg.hessian``): the cost must stay a small multiple of one
    gradient, whatever the size of ``x``.

    >>> x = mg.tensor([1.0, 2.0], dtype=mg.float64)
    >>> hvp(lambda t: (t**3).sum(), x, mg.ones_like(x)).tolist()
    [6.0, 12.0]

    Hint (lesson 08): forward-over-reverse: the directional derivative of the gradient
    along v is H v, so push v through mg.grad(f) with mg.jvp.
    """
    # BEGIN SOLUTION
    _, hv = mg.jvp(mg.grad(f), (x,), (v,))
    return hv
    # END SOLUTION
