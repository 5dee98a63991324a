"""Scalar bodies that vectorize, for the float32 kernels of the fusion pass (lesson 13).

A fused kernel calls the registry's scalar functions
(``minigrad.backends.scalar_functions``) on every element. Most are a few
arithmetic instructions, which LLVM turns into SIMD code. ``tanh`` is a call
into the C library's ``tanhf``, one element at a time: on the development
machine that call costs many times what NumPy's own SIMD ``tanh`` does, so a
kernel that fused ``tanh`` would lose to NumPy running the ops one by one.

XLA and Eigen answer this the same way: for float32 they compute tanh as a
rational function, an odd polynomial of degree 13 over an even one of degree
6, with ``x`` clamped to where tanh is 1 in float32. It is only multiplies
and adds, so it vectorizes, and its error is a few float32 roundings (the
tests compare it with float64 ``tanh``). The coefficients are Eigen's
(``ptanh_float``). Float64 kernels keep the library call.

The table of elementwise operations (``elementwise_ops``) names it as
tanh's float32 body; the kernels use it for float32 results only.

    >>> import numpy as np
    >>> x = np.float32(0.5)
    >>> bool(abs(tanh_float32(x) - np.tanh(np.float64(0.5))) < 1e-7)
    True
"""

from __future__ import annotations

# Beyond this |x|, tanh rounds to +-1 in float32.
CLAMP = 7.90531110763549805
# tanh(x) ~ x * P(x^2) / Q(x^2)
P = (
    4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05, 5.12229709037114e-08,
    -8.60467152213735e-11, 2.00018790482477e-13, -2.76076847742355e-16,
)  # fmt: skip
Q = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06)


def tanh_float32(x):
    """tanh(x) as a rational function of x (float32 accuracy; NaN stays NaN).

    >>> tanh_float32(0.0), tanh_float32(100.0), tanh_float32(-100.0)
    (0.0, 1.0, -1.0)
    """
    if x != x:
        return x
    t = type(x)
    c = t(CLAMP)
    x = min(max(x, -c), c)
    x2 = x * x
    p = t(P[6])
    p = x2 * p + t(P[5])
    p = x2 * p + t(P[4])
    p = x2 * p + t(P[3])
    p = x2 * p + t(P[2])
    p = x2 * p + t(P[1])
    p = x2 * p + t(P[0])
    q = t(Q[3])
    q = x2 * q + t(Q[2])
    q = x2 * q + t(Q[1])
    q = x2 * q + t(Q[0])
    return x * p / q
