"""A convolution over time-major sequences: ``conv_tbc`` (lesson 12).

Sequence models (fairseq's convolutional translators) keep activations as
``(time, batch, channels)``; ``conv_tbc`` convolves along time in that layout
with a weight ``(kernel_width, in_channels, out_channels)``: output step
``t`` is ``bias + sum_k input[t + k - pad] @ weight[k]``. It is ``conv1d``
with the axes moved: ``(B, C, T)`` in, the weight as ``(out, in, k)``, the
result moved back. A negative ``pad`` crops the sequence instead.

    >>> import minigrad as mg
    >>> x = mg.arange(4.0).reshape(4, 1, 1)
    >>> mg.conv_tbc(x, mg.ones(2, 1, 1), mg.zeros(1)).reshape(-1)
    tensor([1., 3., 5.])
"""

from __future__ import annotations

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.convolution import conv1d
from minigrad.tensor.ops.padding import pad as pad_with

__all__ = ["conv_tbc"]


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """PyTorch's ``conv_tbc``: ``input (T, B, C_in)``, ``weight (K, C_in, C_out)``,
    ``bias (C_out,)``; the result is ``(T + 2 pad - K + 1, B, C_out)``.

    >>> import minigrad as mg
    >>> mg.conv_tbc(mg.ones(3, 2, 4), mg.ones(3, 4, 5), mg.zeros(5), pad=1).shape
    (3, 2, 5)
    """
    for name, value, position in (("weight", weight, 2), ("bias", bias, 3)):
        if not isinstance(value, Tensor):
            raise TypeError(f"conv_tbc(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type(value).__name__}")  # fmt: skip
    if not dtypes.is_integer(pad):
        raise TypeError(f"conv_tbc(): argument 'pad' (position 4) must be int, not "
                        f"{type(pad).__name__}")  # fmt: skip
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")  # fmt: skip
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    (time, batch, channels), (width, _, out) = input.shape, weight.shape
    if channels != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if bias.shape[0] != out:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    steps = time + 2 * int(pad) - width + 1
    if steps < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {steps}: "
                           f"{[steps, batch, out]}")  # fmt: skip
    if input.dtype != weight.dtype:
        names = dtypes.SCALAR_TYPE_NAMES
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{names[input.dtype.name]} and {names[weight.dtype.name]}")  # fmt: skip
    if width == 0:  # no taps: every step is the bias
        return bias.to(input.dtype).broadcast_to((steps, batch, out))
    x = input.permute(1, 2, 0)  # (B, C_in, T), conv1d's layout
    pad = int(pad)
    if pad > 0:
        x = pad_with(x, (pad, pad))
    elif pad < 0:
        x = x[..., -pad : max(time + pad, -pad)]
    # An empty result still reads the input (a zero gradient, as PyTorch's): one more
    # step of zeros gives conv1d a window, and the slice keeps none.
    if steps == 0:
        x = pad_with(x, (0, 1))
    y = conv1d(x, weight.permute(2, 1, 0), bias.to(input.dtype))
    return y[..., :steps].permute(2, 0, 1)
