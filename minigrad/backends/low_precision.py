"""The 16-bit floats on every backend: compute in float32, round once (lesson 15).

float16 and bfloat16 store a number in 16 bits, but no kernel here adds or
multiplies in 16 bits: each reads its 16-bit inputs as float32, computes in
float32, and rounds the result back once, to the nearest representable
number (ties to even). That is what PyTorch's CPU kernels do, so a float16 sum
accumulates in float32 and only the total is rounded; a matrix product adds
its ``K`` products in float32 too.

bfloat16 is the top half of a float32: the same sign bit and 8 exponent bits,
and the first 7 of float32's 23 mantissa bits. So rounding a float32 to
bfloat16 is integer arithmetic on its bits (``bfloat16_bits``), which a GPU
kernel can run where no bfloat16 type exists:

    >>> import numpy as np
    >>> bits = int(np.float32(1.0 + 2.0**-8 + 2.0**-20).view(np.uint32))
    >>> hex(bfloat16_bits(bits)), hex(bfloat16_bits(0x3F808000))  # up; a tie stays even
    ('0x3f81', '0x3f80')
"""

from __future__ import annotations

from typing import Any

import numpy as np

FLOAT32 = np.dtype("float32")


def is_low(dtype: Any) -> bool:
    """float16 or bfloat16 (NumPy's kind for ml_dtypes' bfloat16 is "V", not "f")."""
    return dtype.itemsize == 2 and (
        dtype.kind == "f" or (dtype.kind == "V" and dtype.name == "bfloat16")
    )


def bfloat16_bits(bits: int) -> int:
    """The bfloat16 nearest a float32, both as bit patterns (ties to even).

    Dropping the low 16 bits would round toward zero. Adding ``0x7FFF`` first
    carries into bit 16 exactly when the dropped half is more than a half-step;
    adding the kept part's lowest bit as well breaks an exact tie toward the
    even neighbour. A NaN stays a NaN (its carry could otherwise reach the
    exponent and make it inf): it keeps its top bits, with a mantissa bit set.
    """
    if (bits & 0x7FFFFFFF) > 0x7F800000:  # NaN
        return (bits >> 16) | 0x0040
    lsb = (bits >> 16) & 1
    return ((bits + 0x7FFF + lsb) >> 16) & 0xFFFF


def bfloat16_value(half_bits: int) -> int:
    """A bfloat16's bits as the float32 bits of the same number (exact: append 16 zeros)."""
    return (half_bits & 0xFFFF) << 16


def widen(x: Any) -> Any:
    """A NumPy array of a 16-bit float as float32 (exact); any other array as it is."""
    return x.astype(FLOAT32) if is_low(x.dtype) else x


def narrow(result: Any, dtype: Any) -> Any:
    """A float32 ``result`` rounded to ``dtype`` (nearest, ties to even); bools as they are."""
    result = np.asarray(result)
    if result.dtype.kind != "f":
        return result
    with np.errstate(over="ignore"):  # beyond the range is inf, as PyTorch's, with no warning
        return result.astype(dtype)


def low_dtype(*arrays: Any) -> Any:
    """The 16-bit float among ``arrays``' dtypes, or None if there is none."""
    for a in arrays:
        if a is not None and is_low(a.dtype):
            return a.dtype
    return None
