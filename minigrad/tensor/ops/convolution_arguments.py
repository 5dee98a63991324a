"""A convolution's arguments checked as PyTorch checks them, in its order (lesson 12).

The arithmetic of a convolution is ``convolution.py``; this file is the
bookkeeping around it, kept apart so the lesson reads the arithmetic alone:
expanding ``stride``, ``padding`` and ``dilation`` to one value per spatial
axis (an int, or a list of one, means the same on every axis), and refusing
what PyTorch refuses with its exception and its first line, in the order
its checks run: the bias's dtype, the input's rank, the weight's rank, the
groups, each argument's sign, the shapes, and last the dtypes the kernel
computes in. Integer inputs are PyTorch's too (exact sums, wrapping at
2^63); bool inputs are not.

    >>> import minigrad as mg
    >>> x, w = mg.ones(1, 2, 5), mg.ones(3, 2, 2)
    >>> check_convolution(x, w, None, 2, (1,), 1, 1, 1, "conv1d").stride
    (2,)
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import ShapeError

# PyTorch's names of dtypes as its C++ messages print them: ``dtype().name()``
# (the bias check) and the ``ScalarType`` (the kernels' checks).
C_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half",
           "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
           "bool": "bool"}  # fmt: skip
SCALAR_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


def expand(value: Any, n: int, name: str, op: str) -> tuple[int, ...]:
    """An int, a list of one int, or a list of ``n`` ints, as ``n`` ints (PyTorch's rule).

    >>> expand(2, 2, "stride", "conv2d"), expand((3,), 2, "stride", "conv2d")
    ((2, 2), (3, 3))
    """
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
    if len(values) == 1:
        values = values * n
    if len(values) != n or not all(dtypes.is_integer(v) for v in values):
        raise ShapeError(
            f"expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={list(values)}\n{op}: give {name} as an int "
            f"or a tuple of {n} ints"
        )
    return tuple(int(v) for v in values)


class Arguments(NamedTuple):
    """A checked convolution: the input with its batch axis, whether it came with one, and
    one stride, (before, after) padding, dilation and output padding per spatial axis."""

    input: Tensor
    batched: bool
    stride: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]
    dilation: tuple[int, ...]
    output_padding: tuple[int, ...]


def _same_padding(x: Tensor, weight: Tensor, stride: Any, dilation: Any, dims: int) -> list:
    """``padding="same"``: the total ``d (k - 1)`` split in two, an odd one after (PyTorch's)."""
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if weight.ndim != x.ndim:
        raise RuntimeError(_rank_message(x, weight))
    k = weight.ndim - 2
    strides = tuple(stride) if isinstance(stride, (tuple, list)) else (stride,) * dims
    dilations = tuple(dilation) if isinstance(dilation, (tuple, list)) else (dilation,) * dims
    if len(strides) not in (1, k):
        raise RuntimeError(f"stride cannot broadcast to {k} dimensions")
    if any(s != 1 for s in strides):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilations = dilations * k if len(dilations) == 1 else dilations
    totals = [int(d) * (n - 1) for d, n in zip(dilations, weight.shape[2:])]
    return [(t // 2, t - t // 2) for t in totals]


def _rank_message(x: Tensor, weight: Tensor) -> str:
    return (
        f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight"
        f"{list(weight.shape)}, but got {x.ndim}-dimensional input of size {list(x.shape)} "
        "instead"
    )


def _as_list(value: Any, dims: int) -> Any:
    """An int as ``dims`` copies (the function's axes), a sequence as itself."""
    return list(value) if isinstance(value, (tuple, list)) else [value] * dims


def check_convolution(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                      padding: Any, dilation: Any, groups: int, dims: int, op: str,
                      output_padding: Any = None) -> Arguments:  # fmt: skip
    """PyTorch's checks of ``conv{dims}d`` (``output_padding`` given: of
    ``conv_transpose{dims}d``), in its order; the arguments, expanded."""
    transposed = output_padding is not None
    if not transposed and bias is not None and bias.dtype != x.dtype:
        raise RuntimeError(
            f"Input type ({C_NAMES[x.dtype.name]}) and bias type ({C_NAMES[bias.dtype.name]}) "
            "should be the same"
        )
    if x.ndim not in (dims + 1, dims + 2):
        raise ShapeError(
            f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {op}, but got "
            f"input of size: {list(x.shape)}"
        )
    batched = x.ndim == dims + 2
    x = x if batched else x.unsqueeze(0)
    pads = None
    if isinstance(padding, str) and not transposed:
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'\n{op}: use 'valid' or 'same'")
        pads = _same_padding(x, weight, stride, dilation, dims) if padding == "same" else None
        padding = 0
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if not isinstance(groups, int) or groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported\n{op}: got groups={groups!r}")
    k = weight.ndim - 2  # PyTorch expands the arguments to the weight's spatial axes
    stride = expand(_as_list(stride, dims), k, "stride", op)
    padding = expand(_as_list(padding, dims), k, "padding", op)
    dilation = expand(_as_list(dilation, dims), k, "dilation", op)
    extra = expand(_as_list(output_padding or 0, dims), k, "output_padding", op)
    if any(p < 0 for p in padding):
        raise ShapeError(f"negative padding is not supported\n{op}: got padding={padding}")
    if any(e < 0 for e in extra):
        raise ShapeError(f"negative output_padding is not supported\n{op}: got {extra}")
    if any(s <= 0 for s in stride):
        raise ShapeError(f"non-positive stride is not supported\n{op}: got stride={stride}")
    if any(d < 0 for d in dilation):
        raise ShapeError(f"dilation should be greater than zero\n{op}: got dilation={dilation}")
    if weight.ndim != x.ndim:
        raise ShapeError(_rank_message(x, weight))
    out_channels = weight.shape[0]
    if out_channels < groups:
        raise ShapeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but "
            f"got weight of size {list(weight.shape)} instead"
        )
    if out_channels % groups:
        raise ShapeError(  # (PyTorch's message has the doubled brackets)
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(weight.shape)}] instead\n{op}: {out_channels} "
            f"output channels cannot be split into {groups} equal groups"
        )
    pads = tuple(pads) if pads is not None else tuple((p, p) for p in padding)
    if transposed:
        _check_transposed(x, weight, bias, groups)
    else:
        _check_direct(x, weight, bias, groups, pads, dilation)
    _check_kernel(x, weight, groups, stride, padding, dilation, extra, transposed)
    return Arguments(x, batched, stride, pads, dilation, extra)


def _check_direct(x: Tensor, weight: Tensor, bias: Tensor | None, groups: int,
                  pads: tuple, dilation: tuple) -> None:  # fmt: skip
    """The shapes of a convolution: channels, bias, and a kernel that fits the input."""
    channels = x.shape[1]
    if channels != weight.shape[1] * groups:
        raise ShapeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {weight.shape[1] * groups} channels, but got {channels} "
            "channels instead"
        )
    if bias is not None and bias.shape != (weight.shape[0],):
        raise ShapeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead"
        )
    padded = tuple(n + b + a for n, (b, a) in zip(x.shape[2:], pads))
    reach = tuple(d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation))
    if any(r > n for r, n in zip(reach, padded)):
        raise ShapeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
            f"size: ({' x '.join(map(str, reach))}). Kernel size can't be greater than actual "
            "input size"
        )


def _check_transposed(x: Tensor, weight: Tensor, bias: Tensor | None, groups: int) -> None:
    """The shapes of a transposed convolution: the weight is ``(C_in, C_out / groups, *k)``."""
    if x.shape[1] != weight.shape[0]:
        raise ShapeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {weight.shape[0]} channels, but got {x.shape[1]} channels "
            "instead"
        )
    if bias is not None and bias.shape != (weight.shape[1] * groups,):
        raise ShapeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
            f"1-dimensional with {weight.shape[1] * groups} elements, but got bias of size "
            f"{list(bias.shape)} instead"
        )


def _uses_onednn(x: Tensor, weight: Tensor, groups: int) -> bool:
    """Whether PyTorch's CPU convolution hands this float32 one to oneDNN (whose own check
    of the dilation words it otherwise): its rule of thumb for when that pays off."""
    kh, kw = (1, *weight.shape[2:])[-2:]
    return x.dtype == dtypes.float32 and (
        groups > 1 or (kh > 3 and kw > 3) or x.shape[0] > 1 or math.prod(x.shape[:4]) > 20480
    )


def _check_kernel(x: Tensor, weight: Tensor, groups: int, stride: tuple, padding: tuple,
                  dilation: tuple, extra: tuple, transposed: bool) -> None:  # fmt: skip
    """What PyTorch's CPU kernels check last: their 2-D view of the arguments, the dtypes."""
    # PyTorch computes a 1-D convolution as a 2-D one of height 1.
    flat = len(dilation) == 1
    stride2 = (1, *stride) if flat else stride
    dilation2, extra2 = ((1, *dilation), (0, *extra)) if flat else (dilation, extra)
    axes = ("depth", "height", "width")[-len(dilation2) :]
    if transposed:
        if any(d == 0 for d in dilation2):
            got = ", ".join(f"dilation_{axis}: {d}" for axis, d in zip(axes, dilation2))
            raise RuntimeError(f"dilation should be greater than zero, but got {got}")
        if any(e >= s and e >= d for e, s, d in zip(extra2, stride2, dilation2)):
            got = " ".join(f"{what}_{axis}: {v}"
                           for what, values in (("output_padding", extra2), ("stride", stride2),
                                                ("dilation", dilation2))
                           for axis, v in zip(axes, values))  # fmt: skip
            raise RuntimeError(
                f"output padding must be smaller than either stride or dilation, but got {got}"
            )
        sizes = [(n - 1) * s - 2 * p + d * (k - 1) + 1 + e
                 for n, s, p, d, k, e in zip(x.shape[2:], stride, padding, dilation,
                                             weight.shape[2:], extra)]  # fmt: skip
        if any(n < 1 for n in sizes):
            given = " x ".join(map(str, ((1,) if flat else ()) + tuple(x.shape[2:])))
            wanted = " x ".join(map(str, ([1] if flat else []) + sizes))
            raise RuntimeError(
                f"Given input size per channel: ({given}). Calculated output size per channel: "
                f"({wanted}). Output size is too small"
            )
    elif any(d == 0 for d in dilation2):
        raise RuntimeError(
            "non-positive dilation is not supported"
            if _uses_onednn(x, weight, groups)
            else f"dilation should be greater than zero, but got {list(dilation2)}"
        )
    if x.dtype != weight.dtype:
        raise RuntimeError(
            f"expected scalar type {SCALAR_NAMES[x.dtype.name]} but found "
            f"{SCALAR_NAMES[weight.dtype.name]}"
        )
    if len(dilation2) == 3:
        kernel = "slow_conv_transpose3d_out_cpu" if transposed else "compute_columns3d"
    else:
        kernel = "slow_conv_transpose2d_out_cpu" if transposed else "slow_conv2d_cpu"
    if x.dtype == dtypes.bool_ or (transposed and x.dtype == dtypes.int32):
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{SCALAR_NAMES[x.dtype.name]}'\n"
            "convert the input and weight first, e.g. x.to(mg.float32)"
        )
