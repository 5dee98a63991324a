"""bfloat16 on the GPU, which numba has no type for: 16-bit words and bit arithmetic (lesson 15).

A bfloat16 array lives on the device as ``uint16`` words, the top halves of
float32 numbers. To compute, the backend widens it to float32 (each word
shifted into the top half of a 32-bit word: exact), runs the float32
kernels, and rounds the float32 result back with ``bfloat16_bits``, the
round-to-nearest-even of ``low_precision`` compiled as a device function:
integer additions and shifts, the same on every GPU. Both kernels read and
write contiguous arrays, the float32 side viewed as ``uint32`` words.
"""

from __future__ import annotations

from functools import cache

import numba
from numba import cuda

from minigrad.backends import low_precision
from minigrad.backends.cuda_kernels import SIMULATOR

bfloat16_bits = cuda.jit(device=True)(low_precision.bfloat16_bits)


@cache
def widen_kernel():
    """``wide[i] = half[i] << 16``: bfloat16 words to the bits of the same float32 numbers."""

    def kernel(wide, half):
        i = cuda.grid(1)
        if i < wide.size:
            wide[i] = numba.uint32(half[i]) << numba.uint32(16)

    return cuda.jit(cache=not SIMULATOR)(kernel)


@cache
def narrow_kernel():
    """``half[i] = bfloat16_bits(wide[i])``: float32 bits rounded to bfloat16 words."""

    def kernel(half, wide):
        i = cuda.grid(1)
        if i < half.size:
            half[i] = bfloat16_bits(numba.int64(wide[i]))

    return cuda.jit(cache=not SIMULATOR)(kernel)
