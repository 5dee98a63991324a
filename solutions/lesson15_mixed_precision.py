"""Lesson 15 exercises: bfloat16 rounding by bit operations, and a loss scaler's update rule.

Grade them with ``python -m minigrad.grade --exercise 15``.

Both work on NumPy arrays and Python numbers: the bits and the rule are what
you write, no minigrad needed.
"""

import numpy as np


def round_to_bfloat16(x: np.ndarray) -> np.ndarray:
    """Exercise 15.1: round float32 numbers to the nearest bfloat16, by bit operations.

    ``x`` is a float32 array. bfloat16 is the top 16 bits of a float32 (sign,
    8 exponent bits, 7 mantissa bits), so rounding keeps the top 16 bits of
    each number's bit pattern and drops the low 16, rounding to nearest and,
    on a tie, to the neighbour whose last kept bit is 0 (*round half to
    even*). Return a float32 array of the same shape whose low 16 bits are all
    zero. Infinities stay infinite, a number that rounds past the largest
    bfloat16 becomes infinite, and NaN stays NaN (keep it a NaN: rounding its
    bits could carry into the exponent and make it an infinity).

    >>> round_to_bfloat16(np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8], np.float32)).tolist()
    [1.0, 1.0, 1.015625]

    Hint (lesson 15): view the array as uint32 (x.view(np.uint32)); add 0x7FFF plus the
    lowest kept bit ((bits >> 16) & 1), then clear the low 16 bits; NaNs aside (np.isnan).
    """
    # BEGIN SOLUTION
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    kept_low_bit = (bits >> 16) & 1
    rounded = ((bits + np.uint32(0x7FFF) + kept_low_bit) & np.uint32(0xFFFF0000)).astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out).astype(np.float32)
    # END SOLUTION


def update_scale(scale: float, growth_tracker: int, found_inf: bool, growth_factor: float,
                 backoff_factor: float, growth_interval: int) -> "tuple[float, int]":  # fmt: skip
    """Exercise 15.2: one update of a dynamic loss scale, as ``GradScaler.update`` does it.

    ``growth_tracker`` counts the clean steps in a row so far (steps whose
    gradients were all finite). After a step whose gradients held an inf or
    a NaN (``found_inf``), multiply the scale by ``backoff_factor`` and
    restart the count. After a clean step, count it; when the count reaches
    ``growth_interval``, multiply the scale by ``growth_factor`` and restart
    the count, unless the grown scale would be infinite in float32 (then
    keep the scale, and still restart the count). Return ``(scale,
    growth_tracker)``; the scale is a float32 number (round it with
    ``np.float32``).

    >>> update_scale(1024.0, 1, False, 2.0, 0.5, 2)
    (2048.0, 0)
    >>> update_scale(1024.0, 1, True, 2.0, 0.5, 2)
    (512.0, 0)

    Hint (lesson 15): three cases: found_inf; a clean step that completes the interval;
    any other clean step. np.isfinite(np.float32(scale * growth_factor)) tells the second's limit.
    """
    # BEGIN SOLUTION
    if found_inf:
        return float(np.float32(scale * backoff_factor)), 0
    if growth_tracker + 1 == growth_interval:
        with np.errstate(over="ignore"):  # past float32's largest: inf
            grown = np.float32(scale * growth_factor)
        return (float(grown) if np.isfinite(grown) else float(np.float32(scale))), 0
    return float(np.float32(scale)), growth_tracker + 1
    # END SOLUTION
