"""``mg.fft``: the two rearrangements of ``torch.fft`` that need no complex numbers (lesson 05).

``fftshift`` moves the zero-frequency entry of a spectrum laid out as the FFT gives it
(0, 1, ..., then the negative frequencies) to the middle; ``ifftshift`` undoes it.
Both are a ``roll`` by half of each axis, so their slope is the opposite roll. The
transforms themselves (``fft``, ``rfft``, ...) return complex tensors, which minigrad
does not have.

    >>> import minigrad as mg
    >>> mg.fft.fftshift(mg.arange(5)), mg.fft.ifftshift(mg.fft.fftshift(mg.arange(5)))
    (tensor([3, 4, 0, 1, 2]), tensor([0, 1, 2, 3, 4]))
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.rearrange import roll as _roll
from minigrad.tensor.ops.reductions import normalize_axes as _normalize_axes

__all__ = ["fftshift", "ifftshift"]


def _shifted(name: str, input: Any, dim: Any, half: Any) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if dim is None:
        dims: tuple = tuple(range(input.ndim))
    elif dtypes.is_integer(dim):
        dims = (dim,)
    elif isinstance(dim, (tuple, list)):
        dims = tuple(dim)
        for d in dims:
            if not dtypes.is_integer(d):
                raise TypeError(
                    f"{name}(): argument 'dim' failed to unpack the object at pos 2 with error "
                    f'"type must be tuple of ints,but got {type(d).__name__}"'
                )
    else:
        raise TypeError(
            f"{name}(): argument 'dim' (position 2) must be tuple of ints, not {type(dim).__name__}"
        )
    if not dims:
        raise RuntimeError("`shifts` required")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    for d in dims:
        _normalize_axes(d, input.ndim)  # PyTorch's error for an axis out of range
    out = input
    for d in dims:  # one roll per entry: a repeated axis is rolled twice, as PyTorch's
        out = _roll(out, half(input.shape[d]), d)
    return out


def fftshift(input: Tensor, dim: Any = None) -> Tensor:
    """``input`` rolled by ``size // 2`` along ``dim`` (default: every axis), so the
    zero-frequency entry of an FFT's output comes to the middle.

    >>> import minigrad as mg
    >>> mg.fft.fftshift(mg.tensor([0.0, 1.0, 2.0, -2.0, -1.0]))
    tensor([-2., -1.,  0.,  1.,  2.])
    """
    return _shifted("fft_fftshift", input, dim, lambda n: n // 2)


def ifftshift(input: Tensor, dim: Any = None) -> Tensor:
    """The inverse of ``fftshift``: ``input`` rolled by ``(size + 1) // 2`` along ``dim``.

    >>> import minigrad as mg
    >>> mg.fft.ifftshift(mg.tensor([-2.0, -1.0, 0.0, 1.0, 2.0]))
    tensor([ 0.,  1.,  2., -2., -1.])
    """
    return _shifted("fft_ifftshift", input, dim, lambda n: (n + 1) // 2)
