"""1-D pooling and power-average pooling (``lp_pool1d/2d/3d``), with their layers (lesson 12).

``max_pool1d`` and ``avg_pool1d`` are the 2-D pools on a height of 1: the
same windows, one axis fewer; their arguments are checked as PyTorch's 1-D
functions check them, which differ a little from its 2-D ones. Adaptive
pooling, which fixes the output size instead of the window, is
``adaptive_pooling.py``. A power-average pool is an average pool of ``x^p``
(PyTorch's own composition, written the same way here).

    >>> import minigrad as mg
    >>> mg.nn.functional.avg_pool1d(mg.tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2)
    tensor([[[1.5, 3.5]]])
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.ops.activations import _activation_input
from minigrad.tensor.ops.elementwise import relu, sign
from minigrad.tensor.ops.pooling import avg_pool2d, avg_pool3d, max_pool2d, max_pool3d
from minigrad.tensor.tensor import Tensor


def _single(value: Any, name: str, op: str) -> int:
    """An int, or a sequence of one int (PyTorch's ``_single``)."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1 and op == "max_pool1d":
            raise RuntimeError(
                f"max_pool1d() {name} must be an int, list of ints or tuple of ints of size 1 "
                f"but got size {len(value)}"
            )
        if len(value) != 1:  # PyTorch's argument parser's words
            raise RuntimeError(
                f"{op}() argument '{name}' should contain one int (got {len(value)})\n"
                f"{op}: got {name}={tuple(value)}"
            )
        value = value[0]
    return int(value)


def _one(value: Any, name: str, op: str) -> int:
    """An int or a sequence of one int, as PyTorch's ``check1d`` takes it."""
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if len(values) != 1:
        raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(values)})")
    return int(values[0])


def _check_max_pool1d(input: Tensor, kernel_size: Any, stride: Any, padding: Any,
                      dilation: Any, ceil_mode: bool) -> None:  # fmt: skip
    """PyTorch's ``check_max_pool1d`` (its path without indices), in its order."""
    if input.ndim not in (2, 3) or 0 in input.shape[-2:] or (input.ndim == 2 and 0 in input.shape):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{list(input.shape)}"
        )
    sizes = {}
    rules = (("kernel_size", kernel_size, "an int, list of ints or tuple of ints"),
             ("stride", stride, "None, an int, list of ints, or tuple of ints"),
             ("padding", padding, "an int, list of ints, or tuple of ints"),
             ("dilation", dilation, "an int, list of ints or tuple of ints"))  # fmt: skip
    for name, value, rule in rules:
        values = list(value) if isinstance(value, (tuple, list)) else [value]
        if len(values) != 1 and not (name == "stride" and not values):
            raise RuntimeError(f"max_pool1d() {name} must be {rule} of size 1 but got size "
                               f"{len(values)}")  # fmt: skip
        sizes[name] = int(values[0]) if values else None
    k, s, p, d = sizes["kernel_size"], sizes["stride"], sizes["padding"], sizes["dilation"]
    s = k if s is None else s
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError("max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")  # fmt: skip
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    n = input.shape[-1]
    size = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (size - 1) * s >= n + p:
        size -= 1
    if size <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {size}")


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:  # fmt: skip
    """The largest value of each window along the last axis of ``(N, C, L)`` or ``(C, L)``.

    PyTorch's 1-D max pool is its 2-D one on a height of 1; its checks are
    its own, and those of the 2-D pool when the indices are asked for.

    >>> import minigrad as mg
    >>> mg.nn.functional.max_pool1d(mg.tensor([[1.0, 5.0, 2.0, 0.0, 3.0]]), 2)
    tensor([[5., 2.]])
    """
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        stride = kernel_size
    if return_indices:
        if input.ndim not in (2, 3):
            raise RuntimeError(
                f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
                "argument #1 'self' (while checking arguments for max_pool1d)"
            )
        k, s = _one(kernel_size, "kernel_size", "max_pool1d"), _one(stride, "stride", "max_pool1d")
        p, d = _one(padding, "padding", "max_pool1d"), _one(dilation, "dilation", "max_pool1d")
    else:
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
        if not dtypes.is_floating(input.dtype):  # PyTorch's 1-D kernel is for floats only
            _activation_input("max_pool1d_impl", input)
        given = ((kernel_size, "kernel_size"), (stride, "stride"), (padding, "padding"),
                 (dilation, "dilation"))  # fmt: skip
        k, s, p, d = (_single(value, name, "max_pool1d") for value, name in given)
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode,
                     return_indices)  # fmt: skip
    if return_indices:
        values, indices = out
        return values.squeeze(-2), indices.squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    """The mean of each window along the last axis of ``(N, C, L)`` or ``(C, L)``.

    >>> import minigrad as mg
    >>> mg.nn.functional.avg_pool1d(mg.tensor([[1.0, 5.0, 2.0, 0.0]]), 2)
    tensor([[3., 1.]])
    """
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        stride = kernel_size
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for avg_pool1d)"
        )
    k, s = _one(kernel_size, "kernel_size", "avg_pool1d"), _one(stride, "stride", "avg_pool1d")
    p = _one(padding, "padding", "avg_pool1d")
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


# -- power-average pooling -------------------------------------------------------------------------
def _lp_pool(input: Tensor, p: float, kernel_size: Any, stride: Any, ceil_mode: bool,
             dims: int) -> Tensor:  # fmt: skip
    """PyTorch's ``lp_pool{dims}d``: ``(sum of x^p over each window)^(1/p)``, the average of
    ``x^p`` times the window's size; at ``p = +-inf``, a max pool of ``|x|``."""
    max_pool = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}[dims]
    if p == math.inf:
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if p == -math.inf:
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    avg_pool = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}[dims]
    out = avg_pool(input.pow(p), kernel_size, stride, 0, ceil_mode)
    kernel = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * dims
    # sign times relu: where the powers of a window sum to 0, the gradient is 0 (PyTorch's)
    return (sign(out) * relu(out.abs()) * math.prod(kernel)).pow(1.0 / p)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """The ``norm_type``-norm of each window along the last axis (PyTorch's ``lp_pool1d``).

    >>> import minigrad as mg
    >>> mg.nn.functional.lp_pool1d(mg.tensor([[3.0, 4.0, 1.0, 1.0]]), 2, 2)
    tensor([[5.    , 1.4142]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """The ``norm_type``-norm of each window over the last two axes (``lp_pool2d``)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """The ``norm_type``-norm of each window over the last three axes (``lp_pool3d``)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


# -- the layers ------------------------------------------------------------------------------------
class MaxPool1d(Module):
    """``max_pool1d`` with its window kept on the module."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:
        return max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)  # fmt: skip

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")  # fmt: skip


class AvgPool1d(Module):
    """``avg_pool1d`` with its window kept on the module."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = (_single(kernel_size, "kernel_size", "AvgPool1d"),)
        given = kernel_size if stride is None else stride
        self.stride = (_single(given, "stride", "AvgPool1d"),)
        self.padding = (_single(padding, "padding", "AvgPool1d"),)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _LPPool(Module):
    """LPPool1d/2d/3d: the norm and the window; ``function`` is the pool."""

    function: Any = None

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input, self.norm_type, self.kernel_size, self.stride,
                                   self.ceil_mode)  # fmt: skip

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")  # fmt: skip


class LPPool1d(_LPPool):
    """``lp_pool1d`` with its norm and window kept on the module."""

    function = staticmethod(lp_pool1d)


class LPPool2d(_LPPool):
    """``lp_pool2d`` with its norm and window kept on the module.

    >>> import minigrad as mg
    >>> LPPool2d(1, 2)(mg.ones(1, 2, 2))
    tensor([[[4.]]])
    """

    function = staticmethod(lp_pool2d)


class LPPool3d(_LPPool):
    """``lp_pool3d`` with its norm and window kept on the module."""

    function = staticmethod(lp_pool3d)
