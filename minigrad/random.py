"""``mg.random``: random numbers from explicit keys, as ``jax.random`` (lesson 13).

``mg.randn`` draws from one generator whose state every draw changes: easy
to use, and under ``jit`` the compiled program draws from it at each run.
An explicit *key* is the other design: a key is a value (an int64 tensor of
two 32-bit words), the numbers are a pure function of it
(``minigrad.backends.counter_rng``), and a function that wants fresh numbers
splits its key. Nothing is hidden, so every transform handles keys as it
handles any other tensor: ``jit`` takes them as arguments, ``vmap`` maps
over a stack of them (one stream per example), ``grad`` passes them through.

    >>> import minigrad as mg
    >>> key = mg.random.key(0)
    >>> k1, k2 = mg.random.split(key)
    >>> x = mg.random.normal(k1, (3,))
    >>> bool((x == mg.random.normal(k1, (3,))).all())   # the same key, the same numbers
    True
    >>> bool((x == mg.random.normal(k2, (3,))).any())   # another key, other numbers
    False
    >>> mg.random.uniform(k1, (2, 2)).shape, mg.random.bernoulli(k2, 0.5, (4,)).dtype
    ((2, 2), dtype('bool'))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.backends import counter_rng
from minigrad.tensor import dtypes, factories
from minigrad.tensor.ops import elementwise
from minigrad.tensor.ops import math as elementwise_math
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply
from minigrad.tensor.tensor import Tensor

__all__ = ["bernoulli", "key", "normal", "split", "uniform"]


def _uniform_forward(backend: Any, keys: Any, *, shape: tuple) -> Any:
    if backend.name == "abstract":  # tracing: only the shape is known
        return backend.unknown((*keys.shape[:-1], *shape), np.float64)
    return backend.from_numpy(counter_rng.uniform(backend.to_numpy(keys), shape))


def _split_forward(backend: Any, keys: Any, *, num: int) -> Any:
    if backend.name == "abstract":
        return backend.unknown((*keys.shape[:-1], num, 2), np.int64)
    return backend.from_numpy(counter_rng.split(backend.to_numpy(keys), num))


# Both rows take a stack of keys (leading axes) and give each key's numbers along
# those axes, so a batch of keys (vmap) is the same row on the physical tensor.
UNIFORM_BITS = Primitive(
    "random_uniform",
    _uniform_forward,
    register=False,
    batch=lambda xs, batched, shape: apply(UNIFORM_BITS, (xs[0],), shape=shape),
)
SPLIT = Primitive(
    "random_split",
    _split_forward,
    register=False,
    batch=lambda xs, batched, num: apply(SPLIT, (xs[0],), num=num),
)


def key(seed: int) -> Tensor:
    """A key made from an integer ``seed`` (``jax.random.key``).

    >>> key(1)
    tensor([0, 1])
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"key: seed must be an int, got {type(seed).__name__}")
    seed = int(seed) & (2**64 - 1)
    return factories.tensor([seed >> 32, seed & 0xFFFFFFFF], dtype=dtypes.int64)


def _checked(k: Any, where: str) -> Tensor:
    if not isinstance(k, Tensor) or k.dtype != dtypes.int64 or k.shape[-1:] != (2,):
        shape = getattr(k, "shape", None)
        raise TypeError(
            f"{where}: expected a key (an int64 tensor of shape (2,), from mg.random.key or "
            f"mg.random.split), got {type(k).__name__} of shape {shape}"
        )
    return k


def _shape(shape: Any) -> tuple[int, ...]:
    return (shape,) if isinstance(shape, int) else tuple(int(n) for n in shape)


def split(key: Tensor, num: int = 2) -> Tensor:
    """``num`` new keys from ``key``, shaped ``(num, 2)``; iterate it to unpack them.

    >>> k1, k2 = split(key(0))
    >>> bool((k1 == k2).all())
    False
    """
    return apply(SPLIT, (_checked(key, "split"),), num=int(num))


def uniform(key: Tensor, shape: Any = (), dtype: Any = dtypes.float32,
            minval: float = 0.0, maxval: float = 1.0) -> Tensor:  # fmt: skip
    """Numbers uniform on ``[minval, maxval)``, of ``shape``, a pure function of ``key``."""
    u = apply(UNIFORM_BITS, (_checked(key, "uniform"),), shape=_shape(shape))
    if (minval, maxval) != (0.0, 1.0):
        u = u * (maxval - minval) + minval
    return u.to(dtypes.as_dtype(dtype))


def normal(key: Tensor, shape: Any = (), dtype: Any = dtypes.float32) -> Tensor:
    """Standard normal numbers of ``shape``, a pure function of ``key`` (Box-Muller)."""
    shape = _shape(shape)
    u = apply(UNIFORM_BITS, (_checked(key, "normal"),), shape=(2, *shape))
    # Box and Muller (1958): two uniforms give a normal; 1 - u keeps log away from 0.
    radius = elementwise.sqrt(elementwise_math.log1p(-u[0]) * -2.0)
    return (radius * elementwise_math.cos(u[1] * (2 * math.pi))).to(dtypes.as_dtype(dtype))


def bernoulli(key: Tensor, p: Any = 0.5, shape: Any = None) -> Tensor:
    """Booleans that are True with probability ``p`` (a number or a tensor), of ``shape``.

    ``shape`` defaults to the shape of ``p``.
    """
    if shape is None:
        shape = p.shape if isinstance(p, Tensor) else ()
    u = apply(UNIFORM_BITS, (_checked(key, "bernoulli"),), shape=_shape(shape))
    return u < p
