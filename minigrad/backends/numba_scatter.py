"""The backward pass of an embedding: many rows added into a table, compiled (lessons 10, 17).

``nn.Embedding`` looks rows up, ``table[ids]``; its cotangent adds each
row's cotangent back into the row it came from, ``out[ids[i]] += g[i]``,
where an id may repeat (a character that occurs many times in a batch).
NumPy's ``np.add.at`` does this right but through a slow path per element
(~10 ms for a GPT batch of 2048 ids of width 64). A compiled loop over the
ids adds whole rows, in the same order as ``np.add.at`` (first id first), so
the sums are the same numbers.
"""

from __future__ import annotations

from numba import njit

from minigrad.backends import kernel_cache

CACHE = kernel_cache.caching()


@njit(nogil=True, cache=CACHE)
def add_rows(out, rows, values):
    """``out[rows[i]] += values[i]`` for i in order; ``out`` and ``values`` 2-D, C-contiguous.

    >>> import numpy as np
    >>> out = np.zeros((3, 2))
    >>> add_rows(out, np.array([2, 0, 2]), np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]))
    >>> out.tolist()
    [[2.0, 2.0], [0.0, 0.0], [4.0, 4.0]]
    """
    width = out.shape[1]
    for i in range(rows.size):
        r = rows[i]
        for c in range(width):
            out[r, c] += values[i, c]
