"""``mg.nn.init``: PyTorch's ways to fill a weight before training (lesson 06).

Each function overwrites a tensor in place, outside any graph (as under
``no_grad``), and returns it, so it applies to a layer's parameters:
``nn.init.zeros_(layer.bias)``. The random ones draw from minigrad's
generator (``mg.manual_seed``) or from the ``generator=`` given (an
``mg.Generator``); the numbers are not PyTorch's, the distributions are.

The scaled ones keep the spread of a layer's outputs near one at step zero.
A weight of shape ``(out, in, *kernel)`` has ``fan_in = in * prod(kernel)``
inputs per output and ``fan_out = out * prod(kernel)``; Xavier (Glorot)
draws with variance ``2 / (fan_in + fan_out)``, Kaiming (He) with variance
``gain**2 / fan`` where ``gain`` (``calculate_gain``) undoes what the
nonlinearity after the layer does to the variance.

    >>> import minigrad as mg
    >>> w = mg.empty(3, 5)
    >>> mg.nn.init.kaiming_uniform_(w, nonlinearity="relu") is w
    True
    >>> bool((w.abs() <= (6 / 5) ** 0.5).all()), mg.nn.init.calculate_gain("tanh")
    (True, 1.6666666666666667)
    >>> mg.nn.init.eye_(mg.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from minigrad.linalg import qr
from minigrad.tensor import factories
from minigrad.tensor.mode import no_grad
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.tensor import Tensor

__all__ = [
    "calculate_gain",
    "constant",
    "constant_",
    "dirac",
    "dirac_",
    "eye",
    "eye_",
    "kaiming_normal",
    "kaiming_normal_",
    "kaiming_uniform",
    "kaiming_uniform_",
    "normal",
    "normal_",
    "ones_",
    "orthogonal",
    "orthogonal_",
    "sparse",
    "sparse_",
    "trunc_normal_",
    "uniform",
    "uniform_",
    "xavier_normal",
    "xavier_normal_",
    "xavier_uniform",
    "xavier_uniform_",
    "zeros_",
]

_LINEAR = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def calculate_gain(nonlinearity: str, param: int | float | None = None) -> float:
    """The factor a nonlinearity's variance needs back (PyTorch's table).

    1 for the linear maps and sigmoid, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + slope**2)) for leaky_relu (``param`` the slope, 0.01 by
    default) and 3/4 for selu.

    >>> calculate_gain("leaky_relu", 0.2)
    1.386750490563073
    """
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope: float = 0.01
        elif (isinstance(param, int) and not isinstance(param, bool)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4  # PyTorch's value, found by experiment
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of shape ``(out, in, *kernel)``."""
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with numbers uniform on [a, b); returns ``tensor``."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with normal numbers of mean ``mean`` and standard deviation ``std``."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """Fill with normal numbers (``mean``, ``std``) conditioned to lie in [a, b].

    Draws are redrawn where they fall outside; when [a, b] holds little of the
    normal's mass, candidates come uniform on [a, b] instead and are kept with
    probability ``exp(-((x - mean) / std)**2 / 2)`` relative to the peak (the
    same distribution, far fewer rounds).
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with no_grad():
        lo, hi = factories.tensor([a, b], dtype=tensor.dtype).tolist()
        mass = cdf((b - mean) / std) - cdf((a - mean) / std)
        fresh = factories.empty_like(tensor)
        if mass > 0.3:  # plain rejection: each round keeps a fraction `mass`
            result = tensor.normal_(mean, std, generator=generator)
            pending = (result < lo) | (result > hi)
            while bool(pending.any()):
                fresh.normal_(mean, std, generator=generator)
                result.copy_(where(pending, fresh, result))
                pending = (result < lo) | (result > hi)
            return tensor
        peak = max(a, min(mean, b))
        log_peak = -0.5 * ((peak - mean) / std) ** 2
        keep = factories.empty_like(tensor)
        pending = None
        while pending is None or bool(pending.any()):
            fresh.uniform_(a, b, generator=generator)
            log_density = -0.5 * ((fresh - mean) / std) ** 2 - log_peak
            rejected = keep.uniform_(generator=generator).log() > log_density
            if pending is None:
                tensor.copy_(fresh)
                pending = rejected
            else:
                tensor.copy_(where(pending, fresh, tensor))
                pending = pending & rejected
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``; returns ``tensor``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones; returns ``tensor``."""
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros; returns ``tensor``."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the diagonal, zeros elsewhere)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(factories.eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight so that the convolution copies its input.

    Each of the ``groups`` blocks of output channels gets, for its first
    ``min(out / groups, in)`` channels, a one at the kernel's centre on the
    matching input channel; everything else is zero.
    """
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = tensor.shape[0] // groups
    centre = tuple(size // 2 for size in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d, *centre)] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fill from U(-bound, bound), ``bound = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fill from N(0, std**2), ``std = gain * sqrt(2 / (fan_in + fan_out))`` (Glorot)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    """He's standard deviation ``gain / sqrt(fan)``; None for a tensor with no elements."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """Fill from U(-bound, bound), ``bound = gain * sqrt(3 / fan)`` (He).

    ``mode`` picks ``fan_in`` (keeps the forward pass's variance) or
    ``fan_out`` (the backward pass's); ``a`` is leaky_relu's slope.
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """Fill from N(0, std**2), ``std = gain / sqrt(fan)`` (He)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """Fill with a random (semi-)orthogonal matrix times ``gain``.

    The tensor is seen as ``(rows, everything else)``; a normal matrix of that
    shape is factored ``QR`` and ``Q``'s columns are turned by the signs of
    ``R``'s diagonal, which makes ``Q`` uniform over the orthogonal matrices.
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = factories.empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)
        if rows < cols:
            flat = flat.T
        q, r = qr(flat)
        q = q * r.diagonal().sign()
        if rows < cols:
            q = q.T
        tensor.copy_(q.reshape(tensor.shape))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Fill a 2-D tensor from N(0, std**2), then zero ``ceil(sparsity * rows)`` of each column.

    As in PyTorch, ``generator`` draws the normal numbers; which rows are
    zeroed comes from minigrad's own generator (``mg.manual_seed``).
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            chosen = factories.generator().permutation(rows)[:zeros]
            for row in chosen.tolist():
                tensor[row, col] = 0
    return tensor


def _deprecated(new: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """PyTorch's old spelling without the underscore: warns, then calls ``new``."""
    old = new.__name__[:-1]

    def spelling(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    spelling.__name__ = spelling.__qualname__ = old
    spelling.__doc__ = f"Deprecated spelling of ``{new.__name__}`` (warns FutureWarning)."
    return spelling


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
