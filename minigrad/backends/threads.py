"""Splitting a kernel's work over CPU threads (lesson 10).

The numba kernels are compiled with ``nogil=True``: while one runs, it holds
no lock on the Python interpreter, so several can run at once on different
cores. ``Workers.run`` splits a range of work items (output elements, or
reduction tasks) into a few contiguous pieces per thread; the calling thread
and a small pool of helpers take pieces in turn until none is left. On a
busy machine a helper may start late: the caller then does its share, and
never waits for a helper that has not begun.

Why not numba's own ``prange``? It compiles a parallel version of each kernel
(seconds per kernel, where a plain one takes a fraction of a second), and
numba's thread pools either refuse a second Python thread calling in at the
same time ("workqueue": the process aborts) or spin while idle (OpenMP). A
pool of Python threads is safe for any number of callers: each call only
queues its pieces. It costs some tens of microseconds a call, which is why
arrays below a few hundred thousand elements run as one piece.

    >>> import numpy as np
    >>> out = np.zeros(10)
    >>> def fill(start, stop, out): out[start:stop] = np.arange(start, stop)
    >>> Workers(2, grain=4).run(fill, 10, out); out.tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def cpu_count() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class Workers:
    """Runs ``kernel(start, stop, *args)`` over ``[0, size)``, in pieces, on ``threads`` threads."""

    def __init__(self, threads: int | None = None, grain: int = 1 << 18) -> None:
        self.threads = threads or cpu_count()
        self.grain = grain  # the fewest work items worth a thread of their own
        self.split = 4  # pieces per thread, shared out as threads come free
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()  # two callers must not both make the pool

    def run(self, kernel: Callable, size: int, *args: Any, grain: int | None = None) -> None:
        """Cover ``[0, size)`` with calls ``kernel(start, stop, *args)``; return when all are done.

        Each piece writes only its own part of the output, so the pieces
        need no lock. An exception in any piece is raised here.
        """
        grain = grain or self.grain
        pieces = min(self.threads, max(1, size // grain))
        if pieces == 1:
            kernel(0, size, *args)
            return
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="minigrad")
        # A few pieces per thread, each taken by whichever thread is free: a thread
        # the OS runs late (a busy machine) takes fewer, and the caller never waits
        # for a helper that has not started (its task is cancelled instead).
        count = min(pieces * self.split, max(pieces, size // grain))
        bounds = [size * p // count for p in range(count + 1)]
        taken = itertools.count()  # next() on it is atomic: each piece is taken once

        def work() -> None:
            while (p := next(taken)) < count:
                kernel(bounds[p], bounds[p + 1], *args)

        helpers = [self._pool.submit(work) for _ in range(pieces - 1)]
        try:
            work()
        finally:
            for helper in helpers:
                if not helper.cancel():
                    helper.result()
