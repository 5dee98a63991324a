"""Time to first result: a fresh Python process, from launch to the first training loss.

The model is lesson 06's: an MLP 64 -> 128 -> 10 on the 1797 8x8 digits of
scikit-learn, full batch, softmax cross-entropy, one Adam step. Its
activations (1797 x 128) are big enough to take the numba kernels, so the
first process must compile them:

- *cold*: numba's disk cache is empty (NUMBA_CACHE_DIR points at a new
  folder): every kernel the step needs is compiled;
- *warm*: a second process with the same cache: kernels load from disk.

Also reported: compiling every kernel of the numba backend cold (what a
fresh CI machine pays once), and the NumPy backend's time to first result.

    python benchmarks/startup.py [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from bench import ROOT, print_load, write_json

FIRST_RESULT = """
import time
start = time.perf_counter()
import numpy as np
from sklearn.datasets import load_digits
import minigrad as mg
digits = load_digits()
x = mg.tensor(digits.data / 16.0, dtype=mg.float32)
y = mg.tensor(digits.target)
mg.manual_seed(0)
model = mg.nn.MLP([64, 128, 10])
opt = mg.optim.Adam(model.parameters(), lr=1e-2)
loss = mg.nn.functional.cross_entropy(model(x), y)
loss.backward()
opt.step()
print(loss.item(), time.perf_counter() - start)
"""

EVERY_KERNEL = """
import time
import numpy as np
start = time.perf_counter()
from minigrad.backends import numba_kernels as k, numba_matmul as m
from minigrad.backends.numba_backend import NUMPY_BELOW, NumbaBackend
backend = NumbaBackend()
backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
backend.numpy_ops = frozenset()
for dtype in (np.float32, np.float64):
    x = np.ones((3, 4), dtype)
    backend.map("neg", x); backend.zip("add", x, x); backend.zip("lt", x, x)
    backend.where(x > 0, x, x); backend.reduce("sum", x, (0,), False)
    m.matmul(x, x.T)
print(0.0, time.perf_counter() - start)
"""


def seconds(code: str, cache: str, backend: str = "numba") -> float:
    """Wall time of a fresh interpreter running ``code``, launch included."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, MINIGRAD_BACKEND=backend, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()

    results = {}
    with tempfile.TemporaryDirectory() as cache:
        results["numba, cold cache"] = seconds(FIRST_RESULT, cache)
        results["numba, warm cache"] = seconds(FIRST_RESULT, cache)
    with tempfile.TemporaryDirectory() as cache:
        results["numpy backend"] = seconds(FIRST_RESULT, cache, backend="numpy")
    with tempfile.TemporaryDirectory() as cache:
        results["compile every kernel, cold"] = seconds(EVERY_KERNEL, cache)
        results["load every kernel, warm"] = seconds(EVERY_KERNEL, cache)
    print("Time to first result (lesson 06's digits MLP, one Adam step), fresh processes")
    for name, s in results.items():
        print(f"  {name:<28} {s:7.2f} s")
    print_load("load average")
    if args.json:
        write_json(args.json, {"id": "startup", "unit": "s", "results": results})


if __name__ == "__main__":
    main()
