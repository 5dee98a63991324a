"""PyTorch's older linear-algebra names and compact QR (lesson 06).

Most are compositions of rows that exist, so their derivatives are the chain rule:

- ``norm(input, p="fro", dim=None, keepdim=False, dtype=None)``: ``torch.norm``, which
  hands a number ``p`` (and ``"fro"`` over at most two axes) to ``linalg.vector_norm``
  and the rest to ``linalg.matrix_norm``; ``frobenius_norm`` and ``nuclear_norm`` are
  its two matrix spellings;
- ``ger`` (``outer``), ``chain_matmul`` (``linalg.multi_dot`` of matrices), ``adjoint``
  (the transpose of the last two axes: minigrad's dtypes are real);
- ``qr(input, some=True)``: ``linalg.qr`` with ``mode="reduced"`` or ``"complete"``;
- ``geqrf(input)``: LAPACK's compact QR, ``R`` on and above the diagonal and the
  Householder vectors ``v_i`` below it (``v_i`` starts with an implicit 1), with their
  scales ``tau``, so that ``Q = H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T``. One row,
  ``geqrf``, computed on the host as the other factorizations; PyTorch has no
  derivative for it and neither has minigrad (the same error, in backward);
- ``ormqr(input, tau, other, left, transpose)``: ``Q other``, ``Q^T other``,
  ``other Q`` or ``other Q^T`` without forming ``Q``: one rank-1 change per reflector;
  ``orgqr`` is ``linalg.householder_product``;
- the randomized SVDs, ``svd_lowrank`` and ``pca_lowrank``, draw random numbers, so
  they live above the factories, in ``minigrad/tensor/lowrank.py``.

    >>> import minigrad as mg
    >>> a, tau = mg.geqrf(mg.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> a, tau
    (tensor([[-5. , -2.2],
            [ 0.5,  0.4]]), tensor([1.6, 0. ]))
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.backends.quiet import quietly
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.dtypes import scalar_type_name as _name  # PyTorch's names of dtypes
from minigrad.tensor.ops import contractions, factorizations, norms
from minigrad.tensor.ops.chained_products import multi_dot
from minigrad.tensor.ops.elementwise import tensor_arguments
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.linalg_spellings import householder_product
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

__all__ = [
    "adjoint", "chain_matmul", "frobenius_norm", "geqrf", "ger", "norm", "nuclear_norm",
    "orgqr", "ormqr", "qr",
]  # fmt: skip

QRResult = namedtuple("qr", ["Q", "R"])
GeqrfResult = namedtuple("geqrf", ["a", "tau"])


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


# -- norms -----------------------------------------------------------------------------------


def _in_dtype(x: Tensor, dtype: Any, op: str) -> Tensor:
    """``x`` in ``dtype`` for a norm's ``dtype=`` (PyTorch computes in it), never narrower."""
    if dtype is None:
        return x
    target = dtypes.as_dtype(dtype)
    norms._floating(x, op)
    if np.dtype(target).itemsize < x.dtype.itemsize or not dtypes.is_floating(target):
        raise RuntimeError(
            f"{op}: the dtype of the input ({_name(x.dtype)}) should be convertible without "
            f"narrowing to the specified dtype ({_name(np.dtype(target))})"
        )
    return x.to(target)


def _dims(dim: Any) -> list[int] | None:
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)):
        return [int(dim)]
    return [int(d) for d in dim]


def _distinct(dims: list[int], ndim: int) -> None:
    seen = set()
    for d in dims:
        axis = normalize_axes(d, ndim)[0] if ndim else d
        if axis in seen:
            raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
        seen.add(axis)


def _matrix_norm(x: Tensor, p: Any, dims: list[int], keepdim: bool) -> Tensor:
    if len(dims) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}"
        )
    if p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    norms._floating(x, "linalg.matrix_norm")
    if x.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    _distinct(dims, x.ndim)
    return norms.matrix_norm(x, p, tuple(dims), keepdim)


def norm(input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None) -> Tensor:  # fmt: skip
    """A vector or matrix norm, as ``torch.norm`` (and ``Tensor.norm``) chooses.

    A number ``p`` (``None`` is 2): the vector ``p``-norm over ``dim`` (every element
    when None). ``"fro"``: the 2-norm over ``dim`` (at most two axes). ``"nuc"``: the
    nuclear norm of the matrices in the two axes ``dim`` (the first two when None).
    ``dtype``: computed in that dtype (no narrower than the input's).

    >>> import minigrad as mg
    >>> x = mg.tensor([[3.0, 0.0], [0.0, -4.0]])
    >>> mg.norm(x), mg.norm(x, 1), mg.norm(x, "nuc"), mg.norm(x, float("inf"), dim=1)
    (tensor(5.), tensor(7.), tensor(7.), tensor([3., 4.]))
    """
    x = _tensor(input)
    dims = _dims(dim)
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            return _vector_norm(x, 2, dims, keepdim, dtype)
        if dims is None:
            dims = list(range(x.ndim))
        if dtype is not None:
            norms._floating(x, "linalg.matrix_norm")
        out = _matrix_norm(_in_dtype(x, dtype, "linalg.matrix_norm"), p, dims, keepdim)
        return out
    return _vector_norm(x, 2.0 if p is None else p, dims, keepdim, dtype)


def _vector_norm(x: Tensor, p: Any, dims: list[int] | None, keepdim: bool, dtype: Any) -> Tensor:
    norms._floating(x, "linalg.vector_norm")
    x = _in_dtype(x, dtype, "linalg.vector_norm")
    if dims is not None and x.ndim:
        _distinct(dims, x.ndim)
    axes = None if not dims else tuple(dims)
    return norms.vector_norm(x, p, axes, keepdim)


def frobenius_norm(input: Any, dim: Any, keepdim: bool = False) -> Tensor:
    """The 2-norm over at most two axes ``dim`` (all when empty): ``torch.frobenius_norm``.

    >>> import minigrad as mg
    >>> mg.frobenius_norm(mg.ones(2, 2), dim=(0, 1))
    tensor(2.)
    """
    x = _tensor(input)
    dims = _dims(dim)
    if len(dims) > 2:
        raise RuntimeError(
            f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead."
        )
    if not dtypes.is_floating(x.dtype):
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{_name(x.dtype)} instead."
        )
    if dims and x.ndim:
        _distinct(dims, x.ndim)
    return norms.vector_norm(x, 2, tuple(dims) if dims else None, keepdim)


def nuclear_norm(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The sum of the singular values of the matrices in the two axes ``dim`` (the
    last two by default): ``torch.nuclear_norm``; also ``nuclear_norm(x, keepdim)``.

    >>> import minigrad as mg
    >>> mg.nuclear_norm(mg.tensor([[3.0, 0.0], [0.0, -4.0]]))
    tensor(7.)
    """
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    x = _tensor(input)
    return _matrix_norm(x, "nuc", [-2, -1] if dim is None else _dims(dim), keepdim)


# -- spellings -------------------------------------------------------------------------------


def ger(input: Any, vec2: Any) -> Tensor:
    """``outer(input, vec2)``: PyTorch's older name of the outer product (``torch.ger``).

    >>> import minigrad as mg
    >>> mg.ger(mg.tensor([1, 2]), mg.tensor([1, 10]))
    tensor([[ 1, 10],
            [ 2, 20]])
    """
    return contractions.outer(input, vec2)


def chain_matmul(*matrices: Any) -> Tensor:
    """The product of 2-D tensors in the cheapest order (``torch.chain_matmul``, the
    older spelling of ``linalg.multi_dot`` for matrices only); one matrix: a copy.

    >>> import minigrad as mg
    >>> mg.chain_matmul(mg.ones(2, 3), mg.ones(3, 4), mg.ones(4, 1))
    tensor([[12.],
            [12.]])
    """
    xs = [_tensor(m) for m in matrices]
    if not xs:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for x in xs:
        if x.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {x.ndim}, expected 2 instead.")
    if len(xs) == 1:
        return xs[0].clone()
    return multi_dot(xs)


def adjoint(input: Any) -> Tensor:
    """The conjugate transpose of the last two axes, a view (``torch.adjoint``); real
    tensors: ``x.mT``. A 0-d tensor is its own adjoint.

    >>> import minigrad as mg
    >>> mg.adjoint(mg.tensor([[1, 2], [3, 4]]))
    tensor([[1, 3],
            [2, 4]])
    """
    x = _tensor(input)
    if x.ndim == 1:
        raise RuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    return x.swapaxes(-1, -2) if x.ndim else x


# -- QR: the older spelling and LAPACK's compact form ------------------------------------------


def qr(input: Any, some: bool = True) -> QRResult:
    """``(Q, R)`` with ``A = Q R`` (``torch.qr``): ``some=True`` keeps k = min(m, n)
    columns of ``Q`` (``linalg.qr``'s ``"reduced"``), ``False`` all m (``"complete"``).

    >>> import minigrad as mg
    >>> mg.qr(mg.tensor([[3.0, 1.0], [4.0, 2.0]])).R
    tensor([[-5. , -2.2],
            [ 0. ,  0.4]])
    """
    q, r = factorizations.qr(input, "reduced" if some else "complete")
    return QRResult(q, r)


@quietly
def _geqrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's ``geqrf`` of each matrix: the compact factor and ``tau``."""
    *batch, m, n = a.shape
    k = min(m, n)
    compact = np.array(a, dtype=a.dtype, copy=True)
    tau = np.zeros((*batch, k), a.dtype)
    if compact.size == 0 or k == 0:
        return compact, tau
    flat_a = compact.reshape(-1, m, n)
    flat_tau = tau.reshape(-1, k)
    for i, matrix in enumerate(a.reshape(-1, m, n)):
        h, t = np.linalg.qr(matrix.astype(np.float64), mode="raw")  # h: the factor, transposed
        flat_a[i] = h.T.astype(a.dtype)
        flat_tau[i] = t.astype(a.dtype)
    return flat_a.reshape(a.shape), flat_tau.reshape(tau.shape)


def _geqrf_forward(backend: Any, x: Any, part: str) -> Any:
    *batch, m, n = x.shape
    try:
        a = np.asarray(backend.to_numpy(x))
    except TracerError:  # tracing (lesson 13): only the shape and dtype are known
        return backend.unknown(x.shape if part == "a" else (*batch, min(m, n)), x.dtype)
    compact, tau = _geqrf(a)
    return backend.from_numpy(np.ascontiguousarray(compact if part == "a" else tau))


def _no_derivative(what: str):
    """PyTorch's error where it has no derivative, raised when one is asked for."""

    def rule(*_: Any, **__: Any) -> Any:
        raise NotImplementedError(
            f"the derivative for '{what}' is not implemented.\n"
            f"{what}: PyTorch has no derivative here either; detach() the input first"
        )

    return rule


GEQRF = Primitive(
    "geqrf",
    _geqrf_forward,
    vjp=_no_derivative("geqrf"),
    jvp=_no_derivative("geqrf"),
    batch=lambda xs, batched, part: apply(GEQRF, (xs[0],), part=part),
)


def geqrf(input: Any) -> GeqrfResult:
    """``(a, tau)``: LAPACK's compact QR of each matrix (``torch.geqrf``).

    ``a`` holds ``R`` on and above its diagonal and the Householder vectors below it;
    ``Q = H_1 ... H_k`` with ``H_i = I - tau_i v_i v_i^T``, ``v_i`` the ``i``-th column
    below the diagonal after a 1 (``householder_product``/``orgqr`` forms ``Q``,
    ``ormqr`` applies it). Not differentiable (PyTorch's error, in backward).

    >>> import minigrad as mg
    >>> a, tau = mg.geqrf(mg.tensor([[0.0, 1.0], [0.0, 2.0]]))
    >>> tau
    tensor([0., 0.])
    """
    a = _tensor(input)
    if a.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not dtypes.is_floating(a.dtype) or dtypes.is_low_precision(a.dtype):
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{_name(a.dtype)}'")
    return GeqrfResult(apply(GEQRF, (a,), part="a"), apply(GEQRF, (a,), part="tau"))


def orgqr(input: Any, tau: Any) -> Tensor:
    """``Q`` from ``geqrf``'s reflectors: ``linalg.householder_product`` (``torch.orgqr``).

    >>> import minigrad as mg
    >>> mg.orgqr(*mg.geqrf(mg.tensor([[3.0], [4.0]])))
    tensor([[-0.6],
            [-0.8]])
    """
    return householder_product(input, tau)


def _ormqr_checks(a: Tensor, t: Tensor, c: Tensor, left: bool) -> None:
    op = "torch.ormqr"
    if a.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if c.ndim < 2:
        raise RuntimeError(f"{op}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if c.shape[side] != a.shape[-2]:
        raise RuntimeError(f"{op}: other.shape[{side}] must be equal to input.shape[-2]")
    if t.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if min(c.shape[side], a.shape[-1]) != t.shape[-1]:
        raise RuntimeError(
            f"{op}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])"
        )
    if a.ndim - t.ndim != 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {t.ndim} and input.ndim is equal to {a.ndim}"
        )
    if a.ndim != c.ndim:
        raise RuntimeError(
            f"{op}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {c.ndim} and input.ndim is equal to {a.ndim}"
        )
    if a.ndim > 2:
        for name, batch in (("tau", t.shape[:-1]), ("other", c.shape[:-2])):
            if batch != a.shape[:-2]:
                raise RuntimeError(
                    f"{op}: Expected batch dimensions of {name} to be equal to "
                    f"input.shape[:-2], but got {_shape_text(batch)}"
                )
    for name, other in (("tau", t), ("other", c)):
        if other.dtype != a.dtype:
            raise RuntimeError(
                f"{op}: Expected input and {name} to have the same dtype, but input has dtype"
                f"{_name(a.dtype)} and {name} has dtype {_name(other.dtype)}"
            )
    if not dtypes.is_floating(a.dtype) or dtypes.is_low_precision(a.dtype):
        raise NotImplementedError(f"\"ormqr_cpu\" not implemented for '{_name(a.dtype)}'")


def ormqr(input: Any, input2: Any, input3: Any, left: bool = True,
          transpose: bool = False) -> Tensor:  # fmt: skip
    """``Q other`` (``left``), ``other Q`` (not ``left``), or with ``Q^T`` (``transpose``),
    ``Q`` given by ``geqrf``'s reflectors ``input`` and scales ``tau = input2``
    (``torch.ormqr``, LAPACK's ``ormqr``), without forming ``Q``.

    Differentiable in all three inputs (only the part of ``input`` below its
    diagonal is read, so the rest has slope 0, as PyTorch's).

    >>> import minigrad as mg
    >>> a, tau = mg.geqrf(mg.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> mg.ormqr(a, tau, mg.tensor([[-5.0, -2.2], [0.0, 0.4]]))
    tensor([[3., 1.],
            [4., 2.]])
    """
    tensor_arguments("ormqr", input, input2, input3, names=("input", "input2", "input3"))
    a, t, c = _tensor(input), _tensor(input2), _tensor(input3)
    _ormqr_checks(a, t, c, left)
    k = t.shape[-1]
    if k == 0:  # Q = I: other, still in the graph of all three (slope 0 for a and tau)
        return c + (a.sum() + t.sum()) * 0
    below = contractions.tril(a[..., :, :k], -1)
    m = a.shape[-2]
    reflectors = below + Tensor.concrete(np.eye(m, k, dtype=a.dtype), device=a.device)
    # Q = H_1 ... H_k. Q C applies H_k first; Q^T C and C Q apply H_1 first.
    order = range(k) if left == bool(transpose) else reversed(range(k))
    out = c
    for i in order:
        v = reflectors[..., :, i : i + 1]
        scale = t[..., i : i + 1].unsqueeze(-1)
        if left:  # H C = C - tau v (v^T C)
            out = out - scale * matmul(v, matmul(v.swapaxes(-1, -2), out))
        else:  # C H = C - tau (C v) v^T
            out = out - scale * matmul(matmul(out, v), v.swapaxes(-1, -2))
    return out
