"""Data types and how they combine (lessons 04, 15).

minigrad uses NumPy's dtype objects, so ``x.dtype == mg.float32`` reads the
same as in NumPy. A Python float becomes float32 (PyTorch's default), a Python
int int64, a Python bool bool. When a tensor meets a plain Python number, the
number takes the tensor's type ("weak" typing, as in PyTorch and JAX): a
float32 tensor times 2.5 stays float32.

Lesson 15 adds the two 16-bit floats of mixed precision: ``float16`` (NumPy's
IEEE half: 5 exponent bits, 10 mantissa bits) and ``bfloat16`` (the top 16 bits
of a float32: 8 exponent bits, 7 mantissa bits), the NumPy dtype of the
``ml_dtypes`` package that JAX uses. NumPy does not count bfloat16 as a float
(its ``kind`` is ``"V"``), so code here asks ``is_floating`` and ``kind``,
never ``dtype.kind`` itself. Arithmetic on both runs in float32 and rounds
each result once (``compute_dtype``), as PyTorch's CPU kernels do; sums,
products and matrix products accumulate in float32.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

float32 = np.dtype("float32")
float64 = np.dtype("float64")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
bool_ = np.dtype("bool")

float16 = np.dtype("float16")
DEFAULT_FLOAT = float32

# The names minigrad knows, in the order errors list them. bfloat16 is looked
# up on first use (``_bfloat16``): ml_dtypes is an optional package.
NAMES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "bool")
# PyTorch's spellings of the same dtypes, accepted wherever a dtype is.
ALIASES = {"half": "float16", "float": "float32", "double": "float64", "int": "int32",
           "long": "int64", "bool_": "bool"}  # fmt: skip
LOW_PRECISION = ("float16", "bfloat16")
INSTALL_BFLOAT16 = (
    "bfloat16 needs the ml_dtypes package (NumPy's bfloat16, the one JAX uses): "
    "pip install ml_dtypes, or pip install 'minigrad[bfloat16]'"
)


def _bfloat16() -> np.dtype:
    """ml_dtypes' bfloat16 as a NumPy dtype; a clear error where ml_dtypes is missing."""
    try:
        import ml_dtypes
    except ImportError as error:
        raise ModuleNotFoundError(INSTALL_BFLOAT16) from error
    dtype = np.dtype(ml_dtypes.bfloat16)
    globals()["bfloat16"] = dtype  # later lookups find the module attribute
    return dtype


def __getattr__(name: str) -> Any:
    """``dtypes.bfloat16``, loaded from ml_dtypes on first use."""
    if name == "bfloat16":
        return _bfloat16()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _named(name: str) -> np.dtype:
    return _bfloat16() if name == "bfloat16" else np.dtype(name)


def supported() -> tuple[np.dtype, ...]:
    """The dtype objects minigrad supports (bfloat16 where ml_dtypes is installed)."""
    found = []
    for name in NAMES:
        try:
            found.append(_named(name))
        except ModuleNotFoundError:
            pass
    return tuple(found)


SUPPORTED = (float16, float32, float64, int32, int64, bool_)  # and bfloat16: ``supported()``


def _unknown(what: str) -> TypeError:
    return TypeError(
        f"minigrad supports the dtypes {', '.join(NAMES)}; got {what}. "
        "Give one of them, e.g. mg.float32, mg.bfloat16 or 'float16'"
    )


def as_dtype(dtype: Any) -> np.dtype:
    """``mg.float64``, ``"float64"``, ``"half"`` or ``np.float64`` -> the dtype object.

    >>> as_dtype("float64"), as_dtype("half")
    (dtype('float64'), dtype('float16'))
    """
    if isinstance(dtype, str):
        name = ALIASES.get(dtype, dtype)
        if name not in NAMES:
            raise _unknown(repr(dtype))
        return _named(name)
    if isinstance(dtype, np.dtype) and dtype.name in NAMES:
        return dtype
    try:
        resolved = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(
            f"{dtype!r} is not a dtype; use e.g. mg.float32 or 'float64' "
            f"(minigrad supports {', '.join(NAMES)})"
        ) from error
    if resolved.name not in NAMES:
        raise _unknown(resolved.name)
    return resolved


def kind(dtype: np.dtype) -> str:
    """NumPy's one-letter kind ("b", "i", "u", "f"), with bfloat16 counted a float ("f").

    >>> kind(float16), kind(int64), kind(as_dtype("bfloat16"))
    ('f', 'i', 'f')
    """
    letter = dtype.kind
    return "f" if letter == "V" and dtype.name == "bfloat16" else letter


def is_floating(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is a float (bfloat16 included, which NumPy's kind leaves out)."""
    return dtype.kind == "f" or (dtype.kind == "V" and dtype.name == "bfloat16")


def is_low_precision(dtype: np.dtype) -> bool:
    """float16 or bfloat16: arithmetic on them runs in float32 (``compute_dtype``)."""
    return dtype.itemsize == 2 and is_floating(dtype)


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype arithmetic on ``dtype`` runs in: float32 for the 16-bit floats, else itself.

    >>> compute_dtype(float16), compute_dtype(float64)
    (dtype('float32'), dtype('float64'))
    """
    return float32 if is_low_precision(dtype) else dtype


def _is_low_tensor(value: Any) -> bool:
    dtype = getattr(value, "dtype", None)
    return isinstance(dtype, np.dtype) and hasattr(value, "to") and is_low_precision(dtype)


def _rounded(result: Any, dtype: np.dtype) -> Any:
    """Every float32 tensor in ``result`` (a tensor, or a tuple of them) rounded to ``dtype``."""
    if isinstance(result, tuple):
        parts = [_rounded(part, dtype) for part in result]
        return type(result)(*parts) if hasattr(result, "_fields") else tuple(parts)
    if getattr(result, "dtype", None) == float32 and hasattr(result, "to"):
        return result.to(dtype)
    return result


def in_float32(function: Callable) -> Callable:
    """Run ``function`` in float32 when its first argument is a float16 or bfloat16 tensor.

    A sum, mean, variance, norm or softmax of 16-bit numbers accumulates in
    float32 and is rounded once at the end, as PyTorch's kernels do: the
    16-bit tensor arguments are widened (exactly), and the float32 results
    are rounded back to the first argument's dtype. Both casts are
    differentiable, so the backward pass runs in float32 as well. An explicit
    ``dtype=`` argument is left to the function.
    """

    @functools.wraps(function)
    def wrapper(x: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_low_tensor(x) or kwargs.get("dtype") is not None:
            return function(x, *args, **kwargs)
        low = x.dtype
        args = tuple(a.to(float32) if _is_low_tensor(a) else a for a in args)
        kwargs = {k: v.to(float32) if _is_low_tensor(v) else v for k, v in kwargs.items()}
        return _rounded(function(x.to(float32), *args, **kwargs), low)

    return wrapper


def finfo(dtype: np.dtype) -> Any:
    """NumPy's ``finfo`` (eps, max, tiny, ...), bfloat16's from ml_dtypes.

    >>> float(finfo(float16).max), float(finfo(as_dtype("bfloat16")).eps)
    (65504.0, 0.0078125)
    """
    if dtype.name == "bfloat16":
        import ml_dtypes

        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


def _float_result(floats: list[np.dtype]) -> np.dtype:
    """PyTorch's result of floats: the widest; float16 with bfloat16 (neither holds the
    other: one has the range, the other the precision) is float32."""
    widest = max(floats, key=lambda d: d.itemsize)
    if widest.itemsize == 2 and any(d != widest for d in floats):
        return float32
    return widest


def natural_dtype(array: np.ndarray) -> np.dtype:
    """The dtype a tensor built from Python data gets: float32 for floats."""
    letter = array.dtype.kind
    if letter == "f":
        return DEFAULT_FLOAT
    if letter in "iu":
        return int64
    if letter == "b":
        return bool_
    raise TypeError(
        f"cannot make a tensor from data of dtype {array.dtype}; "
        "give numbers (or nested lists of numbers) or a NumPy array"
    )


def _promoted(dtypes: list[np.dtype]) -> np.dtype | None:
    """The common dtype of tensors of ``dtypes`` (None for none): a float beats every
    integer (PyTorch's rule: int64 with float32 is float32, where NumPy widens to float64)."""
    floats = [d for d in dtypes if is_floating(d)]
    if floats:
        return floats[0] if len(floats) == 1 else _float_result(floats)
    return np.result_type(*dtypes) if dtypes else None


def _scalar_dtype(scalar: Any) -> np.dtype:
    """The dtype a Python number stands for: bool, int64 or the default float."""
    if isinstance(scalar, (bool, np.bool_)):
        return bool_
    if isinstance(scalar, (int, np.integer)):
        return int64
    return DEFAULT_FLOAT


def _by_category(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """``higher``, unless ``lower`` is of a higher kind (bool < integer < float): then both
    promoted together. PyTorch's rule for joining its three groups of operands."""
    if higher is None or lower is None:
        return lower if higher is None else higher
    if is_floating(higher):
        return higher
    if higher == bool_ or is_floating(lower):
        return _promoted([higher, lower])
    return higher


def result_dtype(dtypes: list[np.dtype], scalars: list[Any],
                 zero_dim: list[np.dtype] = ()) -> np.dtype:  # fmt: skip
    """The dtype of an operation between tensors of ``dtypes``, Python ``scalars`` and
    0-d tensors of ``zero_dim`` (PyTorch's ``result_type``).

    Tensors with axes decide among themselves; a 0-d tensor, and then a Python
    number, only counts when it is of a higher kind (bool < integer < float):
    a float16 tensor times 2.5, or times a 0-d float64 tensor, stays float16.

    >>> result_dtype([float32], [2.5]), result_dtype([int64], [0.5])
    (dtype('float32'), dtype('float32'))
    >>> result_dtype([int64, float32], []), result_dtype([float16], [], [float64])
    (dtype('float32'), dtype('float16'))
    """
    wrapped = _promoted([_scalar_dtype(s) for s in scalars])
    return _by_category(_promoted(list(dtypes)), _by_category(_promoted(list(zero_dim)), wrapped))


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
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


#: PyTorch's name of each dtype's scalar type, as its errors spell it ("Float", "Long").
SCALAR_TYPE_NAMES = {
    "float64": "Double", "float32": "Float", "float16": "Half", "bfloat16": "BFloat16",
    "int64": "Long", "int32": "Int", "bool": "Bool",
}  # fmt: skip


def scalar_type_name(dtype: Any) -> str:
    """PyTorch's name of ``dtype``'s scalar type, as in its errors.

    A dtype minigrad does not have keeps NumPy's name.

    >>> scalar_type_name(np.dtype("int64")), scalar_type_name("float32"), scalar_type_name("int8")
    ('Long', 'Float', 'int8')
    """
    name = np.dtype(dtype).name
    return SCALAR_TYPE_NAMES.get(name, name)


_TENSOR_TYPES = {**SCALAR_TYPE_NAMES, "uint8": "Byte", "int8": "Char", "int16": "Short"}


def tensor_type_name(dtype: Any, device: str = "cpu") -> str:
    """PyTorch's type string of a tensor, ``Tensor.type()``: dtype and device in one name.

    >>> tensor_type_name(np.dtype("float32")), tensor_type_name(np.dtype("int64"), "cuda")
    ('torch.FloatTensor', 'torch.cuda.LongTensor')
    """
    name = _TENSOR_TYPES[np.dtype(dtype).name]
    return f"torch.{'cuda.' if device == 'cuda' else ''}{name}Tensor"


def from_tensor_type_name(text: str) -> tuple[np.dtype, str] | None:
    """The dtype and device a type string names (``"torch.cuda.LongTensor"``), or None.

    >>> from_tensor_type_name("torch.DoubleTensor")
    (dtype('float64'), 'cpu')
    """
    device = "cuda" if text.startswith("torch.cuda.") else "cpu"
    kind = text.removeprefix("torch.cuda." if device == "cuda" else "torch.")
    for dtype_name, name in _TENSOR_TYPES.items():
        if kind == f"{name}Tensor" and text.startswith("torch."):
            try:
                return as_dtype(dtype_name), device
            except (TypeError, ValueError):  # (bfloat16 without ml_dtypes)
                return None
    return None
