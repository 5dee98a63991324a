"""Where the numba kernels start to beat NumPy: the numbers behind ``NUMPY_BELOW``.

For sizes from 256 to 4M elements, times one call of each kind of kernel
through ``NumbaBackend`` with the NumPy fallback switched off, against the
same call on ``NumpyBackend``: a contiguous zip (``mul``), a broadcast zip
(``add`` of a row), a map (``relu``), a transcendental map (``tanh``: libm
per element in numba, SIMD in NumPy), the fused ``tanh_grad`` (one pass in
numba; NumPy's reference makes three), ``gelu`` (NumPy has no erf: Python's
per element), ``remainder`` (NumPy's makes several passes), a full ``sum``
and a ``sum`` over axis 0. Prints microseconds per call and NumPy's time over numba's (above 1:
the kernel wins), and for each kind the smallest size from which the kernel
wins at every size measured.

    python benchmarks/crossover.py [--repeats 51] [--json out.json]
"""

from __future__ import annotations

import argparse
import functools
import os
import sys

from bench import ROOT, median_seconds, write_json

os.environ.setdefault("NUMBA_NUM_THREADS", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")
sys.path.insert(0, str(ROOT))

import numpy as np

from minigrad.backends.numba_backend import NUMPY_BELOW, NumbaBackend
from minigrad.backends.numpy_backend import NumpyBackend

SIZES = [2**k for k in range(8, 23, 2)]


def cases(n: int, rng: np.random.Generator) -> dict:
    """Each kind of call: name -> (method, arguments), on about ``n`` float32 elements."""
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    cols = 256 if n >= 256 else n
    matrix = x.reshape(-1, cols)
    row = rng.standard_normal(cols).astype(np.float32)
    return {
        "mul": ("zip", ("mul", x, y)),
        "add row (broadcast)": ("zip", ("add", matrix, row)),
        "relu": ("map", ("relu", x)),
        "tanh": ("map", ("tanh", x)),
        "tanh_grad (fused)": ("zip", ("tanh_grad", x, y)),
        "gelu": ("map", ("gelu", x)),
        "remainder": ("zip", ("remainder", x, y)),
        "sum": ("reduce", ("sum", x, (0,), False)),
        "sum axis 0": ("reduce", ("sum", matrix, (0,), False)),
    }


def call_seconds(fn, args, repeats: int) -> float:
    fn(*args)  # warm up (and compile)
    return median_seconds(functools.partial(fn, *args), repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=51, help="timed calls per point")
    parser.add_argument("--json", help="also write the timings to this JSON file")
    args = parser.parse_args()

    numba, numpy = NumbaBackend(), NumpyBackend()
    numba.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)  # every call to the kernels,
    numba.numpy_ops = frozenset()  # tanh included
    rng = np.random.default_rng(0)
    timings: dict[str, list] = {}
    for n in SIZES:
        for name, (method, call) in cases(n, rng).items():
            # Reductions through the kernel itself: the backend sends some axes to NumPy.
            kernel = numba._reduce_kernel if method == "reduce" else getattr(numba, method)
            ours = call_seconds(kernel, call, args.repeats)
            theirs = call_seconds(getattr(numpy, method), call, args.repeats)
            timings.setdefault(name, []).append((n, ours * 1e6, theirs * 1e6))
    print(f"numba kernel vs NumPy, float32, 2 threads; median of {args.repeats} calls; us per call")
    print(f"  {'elements':>9} " + " ".join(f"{name[:18]:>18}" for name in timings))
    for i, n in enumerate(SIZES):
        cells = [
            f"{t[i][1]:7.1f}/{t[i][2]:<7.1f}{t[i][2] / t[i][1]:4.1f}x" for t in timings.values()
        ]
        print(f"  {n:>9} " + " ".join(f"{c:>18}" for c in cells))
    print("  (each cell: numba us / NumPy us, then NumPy's time over numba's)")
    for name, points in timings.items():
        wins = [n for n, ours, theirs in points if ours < theirs]
        first = next((n for n in wins if all(m in wins for m in SIZES if m >= n)), None)
        print(f"  {name:<20} kernel wins from: {first if first else 'never (in this range)'}")
    if args.json:
        write_json(args.json, timings)


if __name__ == "__main__":
    main()
