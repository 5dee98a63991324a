"""Max unpooling: max pooling's partial inverse (lesson 12).

``max_pool2d(x, ..., return_indices=True)`` says, for each output, where in
its ``(H, W)`` plane the maximum came from. ``max_unpool2d`` puts each value
back at that place and zeros everywhere else: the map that max pooling's
gradient is (the cotangent of each maximum goes back where it was read), used
forwards, as a decoder's upsampling step.

It is one ``scatter`` along each flattened plane, so its derivatives are
scatter's: each input's gradient is the output's gradient read at its
index. Two inputs with the same index (overlapping pooling windows that
chose the same element) carry the same value; PyTorch keeps one of them
without saying which, and so does this (the last).

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> x = mg.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2)
    tensor([[[[0., 0.],
              [0., 4.]]]])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.scattering import scatter
from minigrad.tensor.tensor import Tensor

NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes
WORDS = {1: "single", 2: "two", 3: "three"}


def _n(value: Any, n: int) -> tuple:
    """PyTorch's ``_single``/``_pair``/``_triple``: a sequence as it is, a number ``n`` times."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _unpool_output_size(input: Tensor, kernel: tuple, stride: tuple, padding: tuple,
                        output_size: Any) -> list:  # fmt: skip
    """PyTorch's ``_unpool_output_size``: the size max pooling came from, or ``output_size``
    (``(N, C, ...)`` allowed) when it is one that pooling could have come from."""
    default = [(input.shape[-len(kernel) + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(len(kernel))]  # fmt: skip
    if output_size is None:
        return default
    if len(output_size) == len(kernel) + 2:
        output_size = output_size[2:]
    if len(output_size) != len(kernel):
        raise ValueError(
            f"output_size should be a sequence containing {len(kernel)} or {len(kernel) + 2} "
            f"elements, but it has a length of '{len(output_size)}'"
        )
    for d in range(len(kernel)):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(
                f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})'
            )
    return list(output_size)


def _check(input: Tensor, indices: Tensor, size: list, stride: tuple, dims: int) -> None:
    """PyTorch's ``max_unpooling{2,3}d`` checks, in its order."""
    op = f"max_unpool{dims}d"
    for i, n in enumerate(size):
        if not dtypes.is_integer(n):
            raise TypeError(f"{op}(): argument 'output_size' (position 3) must be tuple of ints, "
                            f"but found element of type {type(n).__name__} at pos {i}")  # fmt: skip
    if indices.dtype != dtypes.int64:
        got = "" if dims == 3 else f" but got: {NAMES[indices.dtype.name]}"
        raise RuntimeError(f"elements in indices should be type int64{got}")
    if input.ndim not in (dims + 1, dims + 2):
        raise ShapeError(
            f"Input to max_unpooling{dims}d should be a {dims + 1}d or {dims + 2}d Tensor, but "
            f"got a tensor with {input.ndim} dimensions."
        )
    if input.shape != indices.shape:
        raise ShapeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    for axis in range(1, input.ndim):
        if input.shape[axis] == 0:
            raise ShapeError(
                f"max_unpooling{dims}d_forward_out_cpu(): Expected input to have non-zero size "
                f"for non-batch dimensions, but got {list(input.shape)} with dimension {axis} "
                "being empty."
            )
    if dims == 3 and min(size) <= 0:
        raise ShapeError("Output size should be greater than zero, but got oT: {} oH: {} oW: {}"
                         .format(*size))  # fmt: skip
    if dims == 3 and min(stride) <= 0:
        raise ShapeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    if not dtypes.is_floating(input.dtype):
        raise NotImplementedError(
            f"\"{op}\" not implemented for '{NAMES[input.dtype.name]}'\n{op}: unpool a "
            "floating-point tensor, e.g. x.to(mg.float32)"
        )


def _max_unpool(input: Tensor, indices: Tensor, size: list, stride: tuple, dims: int,
                given: Tensor | None = None) -> Tensor:  # fmt: skip
    """Each value of ``input`` written at its ``indices`` in a zero plane of ``size``.

    The indices are checked on the host, read from ``given`` (the caller's own
    indices, where ``indices`` is a view of them made here)."""
    _check(input, indices, size, stride, dims)
    lead, plane, count = input.shape[:-dims], math.prod(size), math.prod(input.shape[-dims:])
    places = (indices if given is None else given)._numpy()
    wrong = (places < 0) | (places >= plane)
    if wrong.any():  # (PyTorch's kernel reports the last it met)
        raise RuntimeError(
            f"Found an invalid max index: {places[wrong][-1]} (output volumes are of size "
            f"{'x'.join(map(str, size))})\nmax_unpool{dims}d: the indices must come from the "
            "max pooling this inverts, with the same output_size"
        )
    zeros = Tensor.concrete(np.zeros((*lead, plane), input.dtype), device=input.device)
    out = scatter(zeros, -1, indices.reshape(*lead, count), input.reshape(*lead, count))
    return out.reshape(*lead, *size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:  # fmt: skip
    """``max_pool1d``'s partial inverse: ``(N, C, L)`` values put back at their indices.

    >>> import minigrad as mg
    >>> mg.nn.functional.max_unpool1d(mg.tensor([[5.0, 7.0]]), mg.tensor([[1, 2]]), 2)
    tensor([[0., 5., 7., 0.]])
    """
    kernel = _n(kernel_size, 1)
    stride = kernel if stride is None else _n(stride, 1)
    size = _unpool_output_size(input, kernel, stride, _n(padding, 1), output_size)
    # PyTorch's 1-D unpool is its 2-D one on a width of 1.
    out = _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), [*size, 1], (), 2, indices)
    return out.squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:  # fmt: skip
    """``max_pool2d``'s partial inverse: each value of ``(N, C, H, W)`` (or ``(C, H, W)``)
    put back where its index says, zeros elsewhere (see the module's docstring)."""
    kernel = _n(kernel_size, 2)
    stride = kernel if stride is None else _n(stride, 2)
    size = _unpool_output_size(input, kernel, stride, _n(padding, 2), output_size)
    return _max_unpool(input, indices, size, stride, 2)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:  # fmt: skip
    """``max_pool3d``'s partial inverse, over ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

    >>> import minigrad as mg
    >>> x = mg.arange(8.0).reshape(1, 2, 2, 2)
    >>> mg.nn.functional.max_unpool3d(*mg.nn.functional.max_pool3d(x, 2, return_indices=True), 2)
    tensor([[[[0., 0.],
              [0., 0.]],
    <BLANKLINE>
             [[0., 0.],
              [0., 7.]]]])
    """
    kernel = _n(kernel_size, 3)
    stride = kernel if stride is None else _n(stride, 3)
    size = _unpool_output_size(input, kernel, stride, _n(padding, 3), output_size)
    return _max_unpool(input, indices, size, stride, 3)


class _MaxUnpool(Module):
    """MaxUnpool1d/2d/3d: the window's geometry; ``forward(input, indices, output_size)``."""

    dims = 0
    function: Any = None

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _n(kernel_size, self.dims)
        self.stride = _n(stride if stride is not None else kernel_size, self.dims)
        self.padding = _n(padding, self.dims)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return type(self).function(input, indices, self.kernel_size, self.stride, self.padding,
                                   output_size)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """``max_unpool1d`` with its window kept on the module."""

    dims = 1
    function = staticmethod(max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    """``max_unpool2d`` with its window kept on the module.

    >>> import minigrad as mg
    >>> pool, unpool = mg.nn.MaxPool2d(2, return_indices=True), mg.nn.MaxUnpool2d(2)
    >>> unpool(*pool(mg.arange(16.0).reshape(1, 1, 4, 4))).shape
    (1, 1, 4, 4)
    """

    dims = 2
    function = staticmethod(max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    """``max_unpool3d`` with its window kept on the module."""

    dims = 3
    function = staticmethod(max_unpool3d)
