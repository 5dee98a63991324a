"""The matrix exponential ``exp(A) = I + A + A^2/2! + ...`` and its derivative (lesson 06).

Computed on the host as PyTorch computes it (Bader, Blanes and Casas, 2019: Taylor
polynomials of degree 1, 2, 4, 8, 12 or 18 evaluated with few products, chosen by
the 1-norm of ``A``; past the last threshold ``A`` is scaled by ``2^-s`` and the
result squared ``s`` times). A stack of more than one matrix takes degree 18 for
every matrix, as PyTorch's does, and small products add their terms in PyTorch's
order, so the roundings are PyTorch's too.

The derivative of any analytic matrix function ``f`` is a block of ``f`` of a
matrix twice the size::

    f([[A, E], [0, A]]) = [[f(A), Df(A)[E]], [0, f(A)]]

so the tangent is the upper right block of ``exp([[A, dA], [0, A]])`` and the
cotangent that of ``exp([[A^T, g], [0, A^T]])``. Both call the row again, so
second derivatives are the chain rule through the same row.

    >>> import minigrad as mg
    >>> mg.linalg.matrix_exp(mg.tensor([[0.0, 1.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [0., 1.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.backends.quiet import quietly
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.movement import concatenate
from minigrad.tensor.ops.rearrange import narrow
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

__all__ = ["matrix_exp"]

# PyTorch's names for dtypes in its messages.
_TORCH_NAMES = {"int64": "Long", "int32": "Int", "bool": "Bool"}

# The norms up to which the degrees 1, 2, 4, 8, 12 and 18 are accurate to the dtype.
_THETAS_FLOAT = (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                 5.800524627688768e-01, 1.461661507209034e00, 3.010066362817634e00)  # fmt: skip
_THETAS_DOUBLE = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                  4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e00)  # fmt: skip
# Degree 12 and 18: each row a combination of I, A, A^2, A^3 (and A^6).
_B12 = (
    (9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
    (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
     0.01108844528519167989),
    (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
     0.00610700528898058230),
    (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359),
)  # fmt: skip
_B18 = (
    (0.0, -1.00365581030144618291e-01, -8.02924648241156932449e-03,
     -8.92138498045729985177e-04, 0.0),
    (0.0, 3.97849749499645077844e-01, 1.36783778460411720168e00, 4.98289622525382669416e-01,
     -6.37898194594723280150e-04),
    (-1.09676396052962061844e01, 1.68015813878906206114e00, 5.71779846478865511061e-02,
     -6.98210122488052056106e-03, 3.34975017086070470649e-05),
    (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
     2.95552570429315521194e-02, -1.39180257516060693404e-05),
    (0.0, 0.0, -9.23364619367118555360e-02, -1.69364939002081722752e-02,
     -1.40086798182036094347e-05),
)  # fmt: skip
# Products with at most this many multiplications add their terms one k at a time, as
# PyTorch's small-matrix kernel does; larger ones are NumPy's (BLAS, another order).
_SMALL_PRODUCT = 512


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    m, k = a.shape[-2:]
    if m * k * b.shape[-1] > _SMALL_PRODUCT:
        return a @ b
    out = np.zeros((*a.shape[:-1], b.shape[-1]), a.dtype)
    for j in range(k):
        out = out + a[..., :, j : j + 1] * b[..., j : j + 1, :]
    return out


def _powers(a: np.ndarray, count: int) -> list[np.ndarray]:
    """The first ``count`` of I, A, A^2, A^3, A^6."""
    out = [np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape), a]
    if count > 2:
        out.append(_mm(a, a))
    if count > 3:
        out.append(_mm(a, out[2]))
    if count > 4:
        out.append(_mm(out[3], out[3]))
    return out[:count]


def _combination(matrices: list[np.ndarray], coefficients: tuple) -> np.ndarray:
    """``sum_j c_j M_j``, the coefficients in the matrices' dtype, added in order."""
    c = np.asarray(coefficients, np.float64).astype(matrices[0].dtype)
    total = matrices[0] * c[0]
    for m, k in zip(matrices[1:], c[1:]):
        total = total + m * k
    return total


def _t1(a: np.ndarray) -> np.ndarray:
    eye, a1 = _powers(a, 2)
    return eye + a1


def _t2(a: np.ndarray) -> np.ndarray:
    eye, a1, a2 = _powers(a, 3)
    return eye + a1 + a2 / a.dtype.type(2.0)


def _t4(a: np.ndarray) -> np.ndarray:
    p = _powers(a, 3)
    top = _mm(p[2], _combination(p, (1 / 2.0, 1 / 6.0, 1 / 24.0)))
    return _combination([*p, top], (1.0, 1.0, 0.0, 1.0))


def _t8(a: np.ndarray) -> np.ndarray:
    # PyTorch's constants are of the dtype, each computed from the rounded ones before
    cast = a.dtype.type
    root = float(cast(0.1330413469565007072504e2))
    x3 = float(cast(2.0 / 3.0))
    x1 = cast(x3 * ((1.0 + root) / 88.0))
    x2 = cast(x3 * ((1.0 + root) / 352.0))
    x4 = cast((-271.0 + 29.0 * root) / (315.0 * x3))
    x5 = cast((-11.0 + 11.0 * root) / (1260.0 * x3))
    x6 = cast((-99.0 + 11.0 * root) / (5040.0 * x3))
    x7 = cast((89.0 - root) / (5040.0 * x3))
    y2 = cast((857.0 - 58.0 * root) / 630.0)
    p = _powers(a, 3)
    a4 = _mm(p[2], _combination(p[1:3], (x1, x2)))
    a8 = _mm(_combination([p[2], a4], (x3, 1.0)), _combination([*p, a4], (x4, x5, x6, x7)))
    return _combination([*p, a4, a8], (1.0, 1.0, y2, 0.0, 1.0))


def _t12(a: np.ndarray) -> np.ndarray:
    p = _powers(a, 4)
    b = [_combination(p, row) for row in _B12]
    b[2] = b[2] + _mm(b[3], b[3])
    return b[0] + _mm(b[1] + b[2], b[2])


def _t18(a: np.ndarray) -> np.ndarray:
    p = _powers(a, 5)
    b = [_combination(p, row) for row in _B18]
    b[3] = b[3] + _mm(b[0], b[4])
    return b[1] + _mm(b[2] + b[3], b[3])


def _scaled_and_squared(a: np.ndarray, norm: np.ndarray, theta: float) -> np.ndarray:
    steps = np.maximum(np.ceil(np.log2(norm / theta)), 0)
    finite = np.isfinite(steps)
    steps = np.where(finite, steps, 0)
    scale = np.power(2.0, steps).astype(a.dtype)[:, None, None]
    out = _t18(a / scale)
    for i in range(len(a)):
        for _ in range(int(steps[i])):
            out[i] = _mm(out[i], out[i])
    out[~finite] = np.nan  # an infinite norm: PyTorch's NaN
    return out


@quietly
def expm(a: np.ndarray) -> np.ndarray:
    """``exp`` of each square matrix in ``a`` (n >= 2), PyTorch's algorithm and roundings.

    >>> expm(np.array([[0.0, 1.0], [-1.0, 0.0]])).round(4)  # a rotation by 1 radian
    array([[ 0.5403,  0.8415],
           [-0.8415,  0.5403]])
    """
    n = a.shape[-1]
    flat = a.reshape(-1, n, n)
    thetas = _THETAS_FLOAT if a.dtype == np.float32 else _THETAS_DOUBLE
    norm = np.abs(flat).sum(-2).max(-1)  # the 1-norm: the largest column sum
    if len(flat) > 1:
        return _scaled_and_squared(flat, norm, thetas[5]).reshape(a.shape)
    out = np.full_like(flat, np.nan)  # a NaN norm falls in no interval: NaN
    for i, degree in enumerate((_t1, _t2, _t4, _t8, _t12)):
        low = -1.0 if i == 0 else thetas[i - 1]
        chosen = np.nonzero((low < norm) & (norm <= thetas[i]))[0]
        if chosen.size:
            out[chosen] = degree(flat[chosen])
    large = np.nonzero(norm >= thetas[4])[0]
    if large.size:
        out[large] = _scaled_and_squared(flat[large], norm[large], thetas[5])
    return out.reshape(a.shape)


def _forward(backend: Any, x: Any, vmapped: int) -> Any:
    """``exp`` of the matrices of ``x``; under vmap (lesson 14) the first ``vmapped`` axes
    are examples, each computed as if alone (one matrix alone can take a lower degree)."""
    try:
        a = np.asarray(backend.to_numpy(x))
    except TracerError:  # tracing (lesson 13): the shape and dtype only
        return backend.unknown(x.shape, x.dtype)
    n = a.shape[-1]
    if a.size == 0:
        return backend.from_numpy(np.zeros(a.shape, a.dtype))
    if n == 1:
        with np.errstate(over="ignore"):
            return backend.from_numpy(np.exp(a))
    examples = a.reshape(-1, *a.shape[vmapped:])
    out = np.stack([expm(example) for example in examples]) if vmapped else expm(a)
    return backend.from_numpy(np.ascontiguousarray(out.reshape(a.shape)))


def _upper_right(corner: Tensor, a: Tensor, vmapped: int) -> Tensor:
    """The upper right block of ``exp([[a, corner], [0, a]])``: ``Dexp(a)[corner]``."""
    n = a.shape[-1]
    zeros = Tensor.concrete(np.zeros(a.shape, a.dtype), device=a.device)
    block = concatenate(
        [concatenate([a, corner], -1), concatenate([zeros, a], -1)],
        -2,
    )
    exp = apply(MATRIX_EXP, (block,), vmapped=vmapped)
    return narrow(narrow(exp, -2, 0, n), -1, n, n)


MATRIX_EXP = Primitive(
    "matrix_exp",
    _forward,
    vjp=lambda g, out, inputs, needs, vmapped: (
        _upper_right(g, inputs[0].swapaxes(-1, -2), vmapped),
    ),
    jvp=lambda tangents, out, inputs, vmapped: _upper_right(tangents[0], inputs[0], vmapped),
    saves=(0,),
    batch=lambda xs, batched, vmapped: apply(MATRIX_EXP, (xs[0],), vmapped=vmapped + 1),
)


def matrix_exp(A: Any) -> Tensor:
    """The exponential of each square matrix in the last two axes
    (``torch.linalg.matrix_exp``, also ``torch.matrix_exp``).

    ``exp(A + B) = exp(A) exp(B)`` only where ``A`` and ``B`` commute; ``exp(t A)`` solves
    ``x' = A x``. The values are PyTorch's (its algorithm and order of operations).

    >>> import minigrad as mg
    >>> mg.matrix_exp(mg.tensor([[0.0, 1.0], [-1.0, 0.0]]))  # a rotation by 1 radian
    tensor([[ 0.5403,  0.8415],
            [-0.8415,  0.5403]])
    """
    a = A if isinstance(A, Tensor) else Tensor.concrete(A)
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        m, n = a.shape[-2:]
        raise RuntimeError(
            f"linalg.matrix_exp: A must be batches of square matrices, but they are {m} by "
            f"{n} matrices"
        )
    if not dtypes.is_floating(a.dtype):
        raise RuntimeError(
            "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
            f"{_TORCH_NAMES.get(a.dtype.name, a.dtype.name)}"
        )
    return apply(MATRIX_EXP, (a,), vmapped=0)
