"""Counter-based random numbers: a key and a position give the bits (lesson 13).

A generator object (``np.random.Generator``, the one behind ``mg.randn``)
holds a state that every draw changes, so the numbers depend on everything
drawn before them. A traced program cannot hold such a state, and ``vmap``
cannot give each example its own. A *counter-based* generator has no state:
the ``i``-th number of key ``k`` is a fixed function ``mix(k, i)`` of the
two, as in JAX (Threefry) and PyTorch's CUDA generator (Philox). Draws are
then ordinary array functions: they run the same eagerly, in a compiled
program, and batched over a stack of keys.

Here ``mix`` is SplitMix64's finalizer (Steele, Lea and Flood, 2014), which
passes the usual statistical test batteries and is three shift-xor-multiply
rounds on 64-bit integers: NumPy code anyone can read. A key is two 32-bit
words held in int64 (the last axis, of size 2); any leading axes are a
stack of keys, and each key's numbers come out along those axes.

    >>> key = np.array([0, 42])
    >>> u = uniform(key, (3,))
    >>> u.shape, bool(((0 <= u) & (u < 1)).all()), bool((uniform(key, (3,)) == u).all())
    ((3,), True, True)
    >>> split(key, 2).shape, bool((split(key, 2)[0] != split(key, 2)[1]).any())
    ((2, 2), True)
"""

from __future__ import annotations

import math

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / golden ratio: SplitMix64's step
_UNIFORM, _SPLIT = np.uint64(0x5851F42D4C957F2D), np.uint64(0x14057B7EF767814F)  # domains


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer: every input bit changes about half the output bits."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def bits(keys: np.ndarray, count: int, domain: np.uint64 = _UNIFORM) -> np.ndarray:
    """``count`` random 64-bit words per key: shape ``keys.shape[:-1] + (count,)``."""
    keys = np.asarray(keys).astype(np.uint64) & np.uint64(0xFFFFFFFF)
    seed = _mix(((keys[..., 0] << np.uint64(32)) | keys[..., 1]) ^ domain)
    counter = np.arange(1, count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _mix(seed[..., None] + counter * _GOLDEN)


def uniform(keys: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Float64 numbers uniform on [0, 1), ``shape`` of them per key (53 random bits each)."""
    words = bits(keys, math.prod(shape))
    values = (words >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return values.reshape((*np.shape(keys)[:-1], *shape))


def split(keys: np.ndarray, num: int) -> np.ndarray:
    """``num`` new keys from each key, independent of it and of each other."""
    words = bits(keys, num, _SPLIT)
    pairs = np.stack([words >> np.uint64(32), words & np.uint64(0xFFFFFFFF)], axis=-1)
    return pairs.astype(np.int64)
