"""float16 as bits, for the fused kernels that hold 16-bit values in float32 (lesson 15).

A fused kernel (``codegen.py``) computes a float16 or bfloat16 chain the way
eager mode does: every value in float32, each operation's result rounded to
its 16-bit dtype at once. numba's CPU compiler has no float16 type (and no
bfloat16), so the kernel reads and writes both as ``uint16`` words and does
the conversions on bits. bfloat16's are ``low_precision.bfloat16_bits`` and
``low_precision.bfloat16_value`` (a float32's top half); float16's, which
re-bias the exponent and handle subnormals, are here. Both are plain Python
on integers, so they run as they are too:

    >>> import numpy as np
    >>> bits = lambda x: int(np.float32(x).view(np.uint32))
    >>> [hex(float16_bits(bits(x))) for x in (1.0, 65504.0, 65520.0, 2.0**-24, 2.0**-25)]
    ['0x3c00', '0x7bff', '0x7c00', '0x1', '0x0']
    >>> hex(float16_value(0x0001)) == hex(bits(2.0**-24))  # the smallest subnormal, widened
    True
"""

from __future__ import annotations

import numpy as np


def float16_bits(bits: int) -> int:
    """The float16 nearest a float32, both as bit patterns (ties to even; inf past 65504).

    Normal float16 numbers keep 10 of float32's 23 mantissa bits: re-bias the
    exponent (127 -> 15) and round the 13 dropped bits as ``bfloat16_bits``
    does its 16 (a number from 65520 on carries into inf). Below 2**-14 the
    float16 is subnormal, a multiple of 2**-24: adding 0.5, whose float32
    spacing is 2**-24, makes the float32 adder round to that multiple (ties to
    even), which the sum's low bits then count. A NaN stays a NaN with its sign
    and top payload bits, as NumPy's ``astype`` keeps them. Three short arms
    and no loop, so a kernel's loop around it can still vectorize.
    """
    sign = (bits >> 16) & 0x8000
    magnitude = bits & 0x7FFFFFFF
    if magnitude >= 0x47800000:  # 65536 and up: inf, or a NaN (a payload bit kept set)
        payload = (magnitude >> 13) & 0x3FF
        return sign | 0x7C00 | (payload | (payload == 0)) * (magnitude > 0x7F800000)
    if magnitude < 0x38800000:  # below 2**-14: a subnormal float16 (or zero)
        total = np.float32(np.uint32(magnitude).view(np.float32) + np.float32(0.5))
        return sign | (np.int64(total.view(np.uint32)) - 0x3F000000)  # 0x3F000000: 0.5's bits
    rebiased = magnitude - 0x38000000  # exponent 127 -> 15 (112 << 23)
    return sign | ((rebiased + 0xFFF + ((rebiased >> 13) & 1)) >> 13)


def float16_value(half_bits: int) -> int:
    """A float16's bits as the float32 bits of the same number (exact)."""
    half_bits &= 0xFFFF
    sign = (half_bits & 0x8000) << 16
    exponent = (half_bits >> 10) & 0x1F
    mantissa = half_bits & 0x3FF
    if exponent == 0x1F:  # inf or NaN
        return sign | 0x7F800000 | (mantissa << 13)
    if exponent != 0:
        return sign | ((exponent + 112) << 23) | (mantissa << 13)
    if mantissa == 0:
        return sign
    exponent = 113  # a subnormal: shift its leading bit up to the implicit 1
    while (mantissa & 0x400) == 0:
        mantissa <<= 1
        exponent -= 1
    return sign | (exponent << 23) | ((mantissa & 0x3FF) << 13)
