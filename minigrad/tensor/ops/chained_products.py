"""Products of many matrices in the cheapest order, and batched dot products (lesson 06).

``A @ B @ C`` costs ``a b c + a c d`` multiplications left to right and
``b c d + a b d`` right to left (``A`` is a x b, ``B`` b x c, ``C`` c x d): for
a column vector ``C`` the second is far cheaper. ``multi_dot`` picks the order
with the fewest multiplications by the textbook dynamic program over where the
last product splits the chain (PyTorch's choice, so its roundings), then
multiplies with ``matmul``: the gradient is ``matmul``'s, nothing new.

    >>> import minigrad as mg
    >>> a, b, c = mg.ones(2, 3), mg.ones(3, 4), mg.ones(4)
    >>> mg.linalg.multi_dot([a, b, c])
    tensor([12., 12.])
    >>> mg.linalg.vecdot(mg.tensor([[1.0, 2.0], [3.0, 4.0]]), mg.tensor([1.0, 1.0]))
    tensor([3., 7.])
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.linalg import matmul

# PyTorch's names for dtypes in multi_dot's message (its C++ type names).
_CPP_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
              "bool": "bool", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}  # fmt: skip
_TORCH_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _checked_chain(tensors: Any) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            "linalg_multi_dot(): argument 'tensors' (position 1) must be tuple of Tensors, "
            f"not {type(tensors).__name__}"
        )
    xs = [_as_tensor(x) for x in tensors]
    n = len(xs)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for which, x in (("first", xs[0]), ("last", xs[-1])):
        if x.ndim not in (1, 2):
            raise RuntimeError(
                f"multi_dot(): the {which} tensor must be 1D or 2D but got {x.ndim}D"
            )
    for i, x in enumerate(xs[1:], 1):
        if 0 < i < n - 1 and x.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {x.ndim}D")
        if x.dtype != xs[0].dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_CPP_NAMES.get(xs[0].dtype.name, xs[0].dtype.name)} and tensor {i} "
                f"{_CPP_NAMES.get(x.dtype.name, x.dtype.name)}"
            )
    for i in range(n - 1):
        left, right = xs[i], xs[i + 1]
        if left.shape[-1] != right.shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(left.shape)} and "
                f"{list(right.shape)} cannot be multiplied"
            )
    return xs


def _order(sizes: list[int]) -> list[list[int]]:
    """``split[i][j]``: where the cheapest product of matrices ``i..j`` splits (the textbook
    dynamic program; matrix ``k`` is ``sizes[k]`` x ``sizes[k + 1]``)."""
    n = len(sizes) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(tensors: Any) -> Tensor:
    """The product of a chain of matrices in the cheapest order (``torch.linalg.multi_dot``).

    The first may be a row vector and the last a column vector given as 1-D tensors;
    the result drops those axes as ``matmul`` does.
    """
    xs = _checked_chain(tensors)
    first_vector, last_vector = xs[0].ndim == 1, xs[-1].ndim == 1
    if first_vector:
        xs[0] = xs[0].unsqueeze(0)
    if last_vector:
        xs[-1] = xs[-1].unsqueeze(-1)
    if len(xs) == 2:
        out = matmul(xs[0], xs[1])
    elif len(xs) == 3:  # PyTorch compares the two orders directly
        (a, b), (c, d) = xs[0].shape, xs[2].shape
        left_first, right_first = a * c * (b + d), b * d * (a + c)
        if left_first > right_first:
            out = matmul(xs[0], matmul(xs[1], xs[2]))
        else:
            out = matmul(matmul(xs[0], xs[1]), xs[2])
    else:
        split = _order([xs[0].shape[0]] + [x.shape[1] for x in xs])

        def product(i: int, j: int) -> Tensor:
            if i == j:
                return xs[i]
            k = split[i][j]
            return matmul(product(i, k), product(k + 1, j))

        out = product(0, len(xs) - 1)
    if first_vector:
        out = out.squeeze(0)
    if last_vector:
        out = out.squeeze(-1)
    return out


def vecdot(x: Any, y: Any, *, dim: int = -1) -> Tensor:
    """``sum(x * y, dim)`` after broadcasting (``torch.linalg.vecdot``; real tensors: no conjugate).

    Floating point only, and both of one dtype, as PyTorch.
    """
    x, y = _as_tensor(x), _as_tensor(y)
    if not dtypes.is_floating(x.dtype):
        raise RuntimeError(
            "linalg.vecdot: Expected a floating point or complex tensor as input. Got "
            f"{_TORCH_NAMES.get(x.dtype.name, x.dtype.name)}"
        )
    if x.dtype != y.dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{_TORCH_NAMES.get(x.dtype.name, x.dtype.name)} and y of type "
            f"{_TORCH_NAMES.get(y.dtype.name, y.dtype.name)} instead"
        )
    if x.ndim == 1 and y.ndim == 1 and x.shape != y.shape:  # PyTorch's dot then refuses
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src [{y.shape[0]}] "
            "to have the same number of elements, but got "
            f"{x.shape[0]} and {y.shape[0]} elements respectively"
        )
    return (x * y).sum(dim)
