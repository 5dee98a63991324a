"""topk and kthvalue where the chosen values have ties, against PyTorch's, and the cold compile.

A relu output (about half its entries 0) of 1000 x 1000 float32: ``topk`` with
k = 600 reaches the zeros in every row (ties inside the top k: the compiled
selection of ``backends/numba_selection``); k = 10 has no tie (NumPy's sort of
the values, then of 10 positions); ``kthvalue`` k = 500 lands on the zeros.
Each case is checked to give PyTorch's indices, then timed: the median of
``--repeats`` calls, minigrad and PyTorch taking turns. ``--cold`` times, in
fresh processes with an empty cache folder, the first tied ``kthvalue`` and
``topk`` (their kernels compiled), then again with that cache (loaded).

    python benchmarks/selection_ties.py [--repeats 5] [--cold]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

import minigrad as mg

FIRST_TIE = """
import time
import numpy as np
import minigrad as mg
x = mg.tensor(np.array([[1.0, 0, 1, 1, 0, 2, 1, 1]]))
c0 = time.process_time(); mg.kthvalue(x, 3)
c1 = time.process_time(); mg.topk(x, 5)
c2 = time.process_time(); print(c1 - c0, c2 - c1)
"""


def cases() -> list:
    rng = np.random.default_rng(0)
    a = np.maximum(rng.standard_normal((1000, 1000)), 0).astype(np.float32)
    x, t = mg.tensor(a), torch.tensor(a)
    return [
        ("topk k=600 (ties)", lambda: mg.topk(x, 600), lambda: torch.topk(t, 600)),
        ("topk k=10 (no tie)", lambda: mg.topk(x, 10), lambda: torch.topk(t, 10)),
        ("kthvalue k=500 (ties)", lambda: mg.kthvalue(x, 500), lambda: torch.kthvalue(t, 500)),
    ]


def cold() -> None:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "MINIGRAD_CACHE_DIR": folder}
        for label in ("compiled", "loaded from the cache"):
            run = subprocess.run([sys.executable, "-c", FIRST_TIE], env=env, check=True,
                                 capture_output=True, text=True)  # fmt: skip
            kth, top = map(float, run.stdout.split())
            print(f"first tie, {label}: kthvalue {kth:.2f} s, topk {top:.2f} s (CPU time)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}, torch threads {torch.get_num_threads()}")
    for name, ours, theirs in cases():
        assert np.array_equal(ours().indices.numpy(), theirs().indices.numpy()), name
        mine, peer = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            ours()
            mine.append(time.perf_counter() - start)
            start = time.perf_counter()
            theirs()
            peer.append(time.perf_counter() - start)
        m, p = statistics.median(mine), statistics.median(peer)
        print(f"{name}: minigrad {m:.3f} s, PyTorch {p:.3f} s, {m / p:.1f}x")
    if args.cold:
        cold()
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
