"""Recycling big output buffers: memory that is already mapped is fast (lesson 10).

Every elementwise operation makes a fresh output array. For a big array the
operating system hands out fresh pages, and the first write to each page
traps into the kernel, which finds and zeroes a page: the *page fault*. For
a memory-bound kernel that can cost as much as the arithmetic itself (the
W3 benchmark's before and after are in ``benchmarks/README.md``).

So the numba backend keeps the big buffers it made and hands one out again
once nothing uses it. "Nothing uses it" is read from CPython's reference
count: every NumPy view of a buffer holds a reference to it, so a buffer
whose only references are the pool's own is free. (PyTorch's CUDA caching
allocator does the same job for GPU memory.)

    >>> pool = BufferPool(min_bytes=0)
    >>> a = pool.empty((2, 3), np.dtype(np.float32))
    >>> b = pool.empty((2, 3), np.dtype(np.float32))   # a is alive: new memory
    >>> del a
    >>> c = pool.empty((3, 2), np.dtype(np.float32))   # a's memory, reused
    >>> pool.reused, c.base is not None   # (a view of a's memory, in c's shape)
    (1, True)

The array handed out is the buffer itself when shape and dtype match (the
common case: the same step of a training loop), so it owns its memory as any
fresh array does (``base`` is None); autograd then keeps it as a leaf's
``.grad`` without copying it.
"""

from __future__ import annotations

import math
import sys

import numpy as np


class BufferPool:
    """Output arrays of at least ``min_bytes``, recycled; at most ``max_bytes`` kept."""

    def __init__(self, min_bytes: int = 1 << 20, max_bytes: int = 1 << 28) -> None:
        # Below 1 MiB, malloc reuses freed memory by itself; 256 MiB bounds
        # what the pool holds on to (release() gives it back).
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.reused = 0
        self._held = 0
        self._buffers: dict[int, list[np.ndarray]] = {}

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """An uninitialised C-contiguous array, in recycled memory when there is some."""
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes < self.min_bytes or nbytes == 0:
            return np.empty(shape, dtype=dtype)
        bucket = self._buffers.setdefault(nbytes, [])
        for buffer in bucket:
            # References: the bucket, this loop variable, getrefcount's argument.
            if sys.getrefcount(buffer) == 3:
                self.reused += 1
                if buffer.shape == shape and buffer.dtype == dtype:
                    return buffer  # an array of its own (base None), as np.empty's are
                return buffer.reshape(-1).view(dtype).reshape(shape)
        buffer = np.empty(shape, dtype=dtype)
        if self._held + nbytes <= self.max_bytes:
            bucket.append(buffer)
            self._held += nbytes
        return buffer

    def release(self) -> None:
        """Forget every buffer (those still in use stay alive through their arrays)."""
        self._buffers.clear()
        self._held = 0
