"""PyTorch's named matrix products: mm, bmm, mv, dot, addmm, kron, cross, cdist (lesson 06).

Each one is ``matmul`` (or a few elementwise rows) under a stricter name:
``mm`` takes exactly two matrices, ``bmm`` two stacks of equal length, ``mv``
a matrix and a vector, ``dot`` two vectors. The strictness is the point: a
shape slip that ``@`` would broadcast away is an error here, with PyTorch's
first line. Nothing below is a new row of the registry, so the derivative of
each is the chain rule through ``matmul``'s row (lesson 05), and forward
mode, second derivatives, vmap and jit come with it.

    >>> import minigrad as mg
    >>> a = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mg.mm(a, a), mg.mv(a, mg.tensor([1.0, 1.0])), mg.dot(a[0], a[1])
    (tensor([[ 7., 10.],
            [15., 22.]]), tensor([3., 7.]), tensor(11.))
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.composite import composite
from minigrad.tensor.ops.broadcasting import ShapeError, broadcast_shape, stretch_to
from minigrad.tensor.ops.elementwise import abs, sign, sqrt, tensor_arguments, where
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.movement import concatenate, reshape, unsqueeze
from minigrad.tensor.ops.rearrange import narrow
from minigrad.tensor.ops.reductions import amax, normalize_axes, sum

__all__ = ["addmm", "baddbmm", "bmm", "cdist", "cross", "dot", "kron", "mm", "mv"]

# PyTorch names dtypes in these messages by their C++ scalar types.
_SCALAR_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _dims(x: Tensor, ndim: int, message: str) -> None:
    if x.ndim != ndim:
        raise ShapeError(f"{message}\ngot a tensor of shape {x.shape} ({x.ndim}-D)")


def _same_dtype(a: Tensor, b: Tensor, op: str) -> None:
    """mm, bmm, mv and dot do not promote (as in PyTorch): float32 with float64 is a mistake."""
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: "
            f"{_C_NAMES.get(a.dtype.name, a.dtype.name)} != "
            f"{_C_NAMES.get(b.dtype.name, b.dtype.name)}\n"
            f"{op}: convert one side first, e.g. b.to(a.dtype)"
        )


_C_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "bool": "bool", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}  # fmt: skip


@composite("mm")
def mm(input: Any, mat2: Any) -> Tensor:
    """The product of two matrices, ``(n, k) @ (k, m) -> (n, m)``; nothing broadcasts.

    >>> import minigrad as mg
    >>> mg.mm(mg.ones((2, 3)), mg.ones((3, 1))).tolist()
    [[3.0], [3.0]]
    """
    tensor_arguments("mm", input, mat2, names=("input", "mat2"))
    a, b = _tensor(input), _tensor(mat2)
    _dims(a, 2, "self must be a matrix")
    _dims(b, 2, "mat2 must be a matrix")
    _same_dtype(a, b, "mm")
    return matmul(a, b)


@composite("bmm")
def bmm(input: Any, mat2: Any) -> Tensor:
    """Matrix products of two stacks, ``(B, n, k) @ (B, k, m) -> (B, n, m)``; nothing broadcasts.

    >>> import minigrad as mg
    >>> mg.bmm(mg.ones((4, 2, 3)), mg.ones((4, 3, 5))).shape
    (4, 2, 5)
    """
    tensor_arguments("bmm", input, mat2, names=("input", "mat2"))
    a, b = _tensor(input), _tensor(mat2)
    _dims(a, 3, "batch1 must be a 3D tensor")
    _dims(b, 3, "batch2 must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise ShapeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].\n"
            f"bmm: shapes {a.shape} and {b.shape}; for broadcasting stacks use mg.matmul"
        )
    _same_dtype(a, b, "bmm")
    return matmul(a, b)


@composite("mv")
def mv(input: Any, vec: Any) -> Tensor:
    """A matrix times a vector, ``(n, k) @ (k,) -> (n,)``.

    >>> import minigrad as mg
    >>> mg.mv(mg.tensor([[1.0, 2.0], [3.0, 4.0]]), mg.tensor([1.0, -1.0]))
    tensor([-1., -1.])
    """
    tensor_arguments("mv", input, vec, names=("input", "vec"))
    a, v = _tensor(input), _tensor(vec)
    if a.ndim != 2 or v.ndim != 1:
        raise ShapeError(
            f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}\n"
            f"mv: the input must be a matrix and vec a vector, got shapes {a.shape} and {v.shape}"
        )
    if a.shape[1] != v.shape[0]:
        raise ShapeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
            f"vec ({v.shape[0]})\nmv: the matrix's columns must match the vector's length"
        )
    _same_dtype(a, v, "mv")
    return matmul(a, v)


@composite("dot")
def dot(input: Any, tensor: Any) -> Tensor:
    """The inner product of two vectors of one length: a 0-d tensor.

    >>> import minigrad as mg
    >>> mg.dot(mg.tensor([1, 2, 3]), mg.tensor([4, 5, 6]))
    tensor(32)
    """
    tensor_arguments("dot", input, tensor, names=("input", "tensor"))
    a, b = _tensor(input), _tensor(tensor)
    if a.ndim != 1 or b.ndim != 1:
        raise ShapeError(
            f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors\n"
            f"dot: shapes {a.shape} and {b.shape}; for matrices use mg.mm or mg.matmul"
        )
    if a.dtype != b.dtype:  # checked before the lengths, as PyTorch does
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found "
            f"{_SCALAR_NAMES[a.dtype.name]} and {_SCALAR_NAMES[b.dtype.name]}\n"
            "convert one side first, e.g. b.to(a.dtype)"
        )
    if a.shape != b.shape:
        raise ShapeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
            f"to have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
            "elements respectively"
        )
    return matmul(a, b)


def _scaled_sum(input: Any, product: Tensor, beta: Any, alpha: Any, op: str) -> Tensor:
    """``beta * input + alpha * product``; ``input`` broadcasts to ``product``'s shape.

    As in PyTorch, ``beta == 0`` ignores ``input`` (its NaN and inf do not
    leak in as ``0 * nan``), and a factor of 1 is not multiplied at all.
    """
    x = _tensor(input)
    if broadcast_shape(x.shape, product.shape, op=op) != product.shape:
        raise ShapeError(
            f"The expanded size of the tensor must match the existing size: {op} cannot "
            f"broadcast input of shape {x.shape} to the product's shape {product.shape}\n"
            "input must broadcast to the product's shape"
        )
    if not dtypes.is_floating(product.dtype):
        beta, alpha = int(beta), int(alpha)  # truncated for integers first (as in PyTorch)
    out = product if alpha == 1 else product * alpha
    if beta == 0:
        return out
    return out + (x if beta == 1 else x * beta)


@composite("addmm")
def addmm(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``, ``input`` broadcast to the product's shape.

    >>> import minigrad as mg
    >>> mg.addmm(mg.tensor([10.0, 20.0]), mg.eye(2), mg.ones((2, 2)), alpha=2)
    tensor([[12., 22.],
            [12., 22.]])
    """
    return _scaled_sum(input, mm(mat1, mat2), beta, alpha, "addmm")


@composite("baddbmm")
def baddbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)``, ``input`` broadcast to ``(B, n, m)``.

    >>> import minigrad as mg
    >>> mg.baddbmm(mg.zeros((2, 1, 1)), mg.ones((2, 1, 3)), mg.ones((2, 3, 1)), beta=0).tolist()
    [[[3.0]], [[3.0]]]
    """
    return _scaled_sum(input, bmm(batch1, batch2), beta, alpha, "baddbmm")


def _padded(shape: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    return (1,) * (ndim - len(shape)) + shape


def kron(input: Any, other: Any) -> Tensor:
    """The Kronecker product: every element of ``input`` times a whole copy of ``other``.

    Shapes are first padded with leading 1s to one length; the result's size
    along each axis is the product of the two sizes. Written as a broadcast
    product of interleaved axes, ``a[i, 1, j, 1] * b[1, k, 1, l]``, reshaped.

    >>> import minigrad as mg
    >>> mg.kron(mg.eye(2), mg.tensor([[1.0, 2.0]]))
    tensor([[1., 2., 0., 0.],
            [0., 0., 1., 2.]])
    """
    tensor_arguments("kron", input, other, names=("input", "other"))
    a, b = _tensor(input), _tensor(other)
    ndim = max(a.ndim, b.ndim)
    a_shape, b_shape = _padded(a.shape, ndim), _padded(b.shape, ndim)
    spread_a = reshape(a, tuple(n for size in a_shape for n in (size, 1)))
    spread_b = reshape(b, tuple(n for size in b_shape for n in (1, size)))
    return reshape(spread_a * spread_b, tuple(m * n for m, n in zip(a_shape, b_shape)))


def cross(input: Any, other: Any, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (shapes broadcast).

    With ``dim=None`` it is the first axis of size 3 (PyTorch's default for
    ``torch.cross``, which that library plans to change; give ``dim``).

    >>> import minigrad as mg
    >>> mg.cross(mg.tensor([1.0, 0.0, 0.0]), mg.tensor([0.0, 1.0, 0.0]), dim=0)
    tensor([0., 0., 1.])
    """
    tensor_arguments("cross", input, other, names=("input", "other"))
    a, b = _tensor(input), _tensor(other)
    shape = broadcast_shape(a.shape, b.shape, op="cross")
    if dim is None:
        found = [d for d, n in enumerate(shape) if n == 3]
        if not found:
            raise ShapeError(
                f"no dimension of size 3 in input\ncross: shapes {a.shape} and {b.shape}"
            )
        dim = found[0]
    dim = normalize_axes(dim, len(shape))[0]
    n_a, n_b = (_padded(t.shape, len(shape))[dim] for t in (a, b))
    if n_a != 3 or n_b != 3:
        raise ShapeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {n_a} and {n_b}\n"
            f"cross: shapes {a.shape} and {b.shape}"
        )
    if a.dtype != b.dtype:
        common = dtypes.result_dtype([a.dtype, b.dtype], [])
        a, b = a.to(common), b.to(common)
    a, b = stretch_to(a, shape), stretch_to(b, shape)
    a0, a1, a2 = (narrow(a, dim, i, 1) for i in range(3))
    b0, b1, b2 = (narrow(b, dim, i, 1) for i in range(3))
    parts = [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0]
    return concatenate(parts, axis=dim)


@composite("cdist")
def cdist(x1: Any, x2: Any, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    """The p-norm distance between each row of ``x1`` and each row of ``x2``.

    ``x1`` is ``(..., P, M)``, ``x2`` ``(..., R, M)``, the result ``(..., P, R)``
    (the leading dimensions broadcast). ``p`` is any number >= 0 or ``inf``.
    The gradient at a zero distance is 0, as in PyTorch (the norm has a
    kink there). ``compute_mode`` is accepted for PyTorch's signature; every
    distance is computed from the differences directly, which is exact
    where PyTorch's matrix-product shortcut (for P or R above 25) rounds.

    >>> import minigrad as mg
    >>> mg.cdist(mg.tensor([[0.0, 0.0]]), mg.tensor([[3.0, 4.0], [0.0, 0.0]]))
    tensor([[5., 0.]])
    """
    tensor_arguments("cdist", x1, x2, names=("x1", "x2"))
    a, b = _tensor(x1), _tensor(x2)
    if a.ndim < 2 or b.ndim < 2:
        which, t = ("X1", a) if a.ndim < 2 else ("X2", b)
        raise ShapeError(
            f"cdist only supports at least 2D tensors, {which} got: {t.ndim}D\n"
            "cdist: give rows of points, shape (..., points, coordinates)"
        )
    if a.shape[-1] != b.shape[-1]:
        raise ShapeError(
            f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}"
        )
    if not dtypes.is_floating(a.dtype) or not dtypes.is_floating(b.dtype):
        raise RuntimeError(
            f"cdist only supports floating-point dtypes, X1 got: "
            f"{_SCALAR_NAMES[a.dtype.name]}\ncdist: convert first, e.g. x1.to(mg.float32)"
        )
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values\ngot p={p}")
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"X1 and X2 must have the same dtype, but got {a.dtype.name} and {b.dtype.name}"
        )
    diff = abs(unsqueeze(a, -2) - unsqueeze(b, -3))  # (..., P, R, M)
    if p == float("inf"):
        return amax(diff, -1) if diff.shape[-1] else sum(diff, -1)
    if p == 0:
        # A count, a step function of the inputs: gradient 0, as PyTorch's (and vector_norm's).
        return sum((diff != 0).to(a.dtype) + sign(diff) * 0, -1)
    if p == 1:
        return sum(diff, -1)
    total = sum(diff * diff if p == 2 else diff**p, -1)
    # The norm's kink at 0: evaluate at 1 there and drop it, so that neither
    # the value nor any derivative meets 0 ** (1/p - 1) (the trick of ``_power_slope``).
    zero = total == 0
    safe = where(zero, 1.0, total)
    root = sqrt(safe) if p == 2 else safe ** (1.0 / p)
    return where(zero, 0.0, root)
