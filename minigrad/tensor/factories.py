"""Making tensors: from data, from a shape, from a random generator (lesson 04).

>>> import minigrad as mg
>>> mg.tensor([1, 2]).dtype, mg.tensor([1.0, 2.0]).dtype
(dtype('int64'), dtype('float32'))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import backends
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor

_generator = np.random.default_rng(0)


def manual_seed(seed: int) -> None:
    """Seed the generator behind ``randn`` and ``rand`` (and ``nn`` initialisation)."""
    global _generator
    _generator = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    """The NumPy generator minigrad draws random numbers from."""
    return _generator


def tensor(
    data: Any, dtype: Any = None, requires_grad: bool = False, device: str = "cpu"
) -> Tensor:
    """A tensor holding ``data`` (numbers, nested lists, a NumPy array, a Tensor).

    >>> import minigrad as mg
    >>> mg.tensor([[1.0, 2.0]], requires_grad=True).shape
    (1, 2)
    """
    return Tensor(data, dtype=dtype, requires_grad=requires_grad, device=device)


def _shape(shape: tuple) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(n) for n in shape)


def full(shape: Any, fill_value: float, dtype: Any = None, requires_grad: bool = False,
         device: str = "cpu") -> Tensor:  # fmt: skip
    """A tensor of ``shape`` with every element ``fill_value``."""
    shape = _shape((shape,) if isinstance(shape, int) else (tuple(shape),))
    if dtype is None:
        dtype = dtypes.natural_dtype(np.asarray(fill_value))
    dtype = dtypes.as_dtype(dtype)
    data = backends.for_device(device).full(shape, fill_value, dtype)
    return Tensor._wrap(data, device).requires_grad_(requires_grad)


def zeros(*shape: Any, dtype: Any = dtypes.float32, requires_grad: bool = False,
          device: str = "cpu") -> Tensor:  # fmt: skip
    """A tensor of zeros: ``mg.zeros(2, 3)`` or ``mg.zeros((2, 3))``."""
    return full(_shape(shape), 0, dtype, requires_grad, device)


def ones(*shape: Any, dtype: Any = dtypes.float32, requires_grad: bool = False,
         device: str = "cpu") -> Tensor:  # fmt: skip
    """A tensor of ones: ``mg.ones(2, 3)`` or ``mg.ones((2, 3))``."""
    return full(_shape(shape), 1, dtype, requires_grad, device)


def zeros_like(x: Tensor, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return full(x.shape, 0, dtype or x.dtype, requires_grad, x.device)


def ones_like(x: Tensor, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return full(x.shape, 1, dtype or x.dtype, requires_grad, x.device)


def eye(n: int, m: int | None = None, dtype: Any = dtypes.float32, requires_grad: bool = False,
        device: str = "cpu") -> Tensor:  # fmt: skip
    """The identity matrix (``n`` by ``m``, square by default)."""
    return tensor(np.eye(n, m), dtype, requires_grad, device)


def arange(start: float, stop: float | None = None, step: float = 1, dtype: Any = None,
           requires_grad: bool = False, device: str = "cpu") -> Tensor:  # fmt: skip
    """Evenly spaced values in [start, stop), as ``range`` and NumPy's ``arange``.

    >>> import minigrad as mg
    >>> mg.arange(3), mg.arange(0.0, 1.0, 0.5)
    (tensor([0, 1, 2]), tensor([0. , 0.5]))
    """
    if stop is None:
        start, stop = 0, start
    values = np.arange(start, stop, step)
    return tensor(values, dtype or dtypes.natural_dtype(values), requires_grad, device)


def randn(*shape: Any, dtype: Any = dtypes.float32, requires_grad: bool = False,
          device: str = "cpu") -> Tensor:  # fmt: skip
    """Samples from the standard normal distribution (seed with ``mg.manual_seed``)."""
    return tensor(_generator.standard_normal(_shape(shape)), dtype, requires_grad, device)


def rand(*shape: Any, dtype: Any = dtypes.float32, requires_grad: bool = False,
         device: str = "cpu") -> Tensor:  # fmt: skip
    """Samples from the uniform distribution on [0, 1)."""
    return tensor(_generator.random(_shape(shape)), dtype, requires_grad, device)
