"""Data types and how they combine (lesson 04).

minigrad uses NumPy's dtype objects, so ``x.dtype == mg.float32`` reads the
same as in NumPy. A Python float becomes float32 (PyTorch's default), a Python
int int64, a Python bool bool. When a tensor meets a plain Python number, the
number takes the tensor's type ("weak" typing, as in PyTorch and JAX): a
float32 tensor times 2.5 stays float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

float32 = np.dtype("float32")
float64 = np.dtype("float64")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
bool_ = np.dtype("bool")

SUPPORTED = (float32, float64, int32, int64, bool_)
DEFAULT_FLOAT = float32


def as_dtype(dtype: Any) -> np.dtype:
    """``mg.float64``, ``"float64"`` or ``np.float64`` -> the dtype object.

    >>> as_dtype("float64")
    dtype('float64')
    """
    try:
        resolved = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(f"{dtype!r} is not a dtype; use e.g. mg.float32 or 'float64'") from error
    if resolved not in SUPPORTED:
        names = ", ".join(d.name for d in SUPPORTED)
        raise TypeError(f"minigrad supports the dtypes {names}; got {resolved.name}")
    return resolved


def is_floating(dtype: np.dtype) -> bool:
    return dtype.kind == "f"


def natural_dtype(array: np.ndarray) -> np.dtype:
    """The dtype a tensor built from Python data gets: float32 for floats."""
    kind = array.dtype.kind
    if kind == "f":
        return DEFAULT_FLOAT
    if kind in "iu":
        return int64
    if kind == "b":
        return bool_
    raise TypeError(
        f"cannot make a tensor from data of dtype {array.dtype}; "
        "give numbers (or nested lists of numbers) or a NumPy array"
    )


def result_dtype(dtypes: list[np.dtype], scalars: list[Any]) -> np.dtype:
    """The dtype of an operation between tensors of ``dtypes`` and Python ``scalars``.

    >>> result_dtype([float32], [2.5]), result_dtype([int64], [0.5])
    (dtype('float32'), dtype('float32'))
    >>> result_dtype([int64, float32], [])
    dtype('float32')
    """
    # Among tensors, a float dtype beats every integer one (PyTorch's rule): int64
    # with float32 is float32, where NumPy would widen it to float64.
    floats = [d for d in dtypes if d.kind == "f"]
    strongest = np.result_type(*(floats or dtypes)) if dtypes else None
    for scalar in scalars:
        if isinstance(scalar, bool):
            kind = bool_
        elif isinstance(scalar, (int, np.integer)):
            kind = int64
        else:
            kind = DEFAULT_FLOAT
        # A scalar only matters when it is of a higher kind (bool < int < float).
        if strongest is None or "biuf".index(kind.kind) > "biuf".index(strongest.kind):
            strongest = kind
    return strongest


def is_integer(value: Any) -> bool:
    """Whether ``value`` is a whole number given as an integer (Python's or NumPy's).

    A bool is not: ``True`` as a size or an axis is a slip, not a 1.

    >>> is_integer(3), is_integer(np.int64(3)), is_integer(3.0), is_integer(True)
    (True, True, False, False)
    """
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def type_name(value: Any) -> str:
    """The name of ``value``'s type as PyTorch's errors spell it (module first if not built in).

    >>> type_name(2.5), type_name(np.float64(2.5))
    ('float', 'numpy.float64')
    """
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
