"""Time to first result: a fresh Python process, from launch to the first training loss.

The model is lesson 06's: an MLP 64 -> 128 -> 10 on the 1797 8x8 digits of
scikit-learn, full batch, softmax cross-entropy, one Adam step. Its
activations (1797 x 128) are big enough to take the numba kernels, so the
first process must compile them:

- *cold*: numba's disk cache is empty (NUMBA_CACHE_DIR points at a new
  folder): every kernel the step needs is compiled;
- *warm*: a second process with the same cache: kernels load from disk.

Also reported: ``import minigrad`` alone (launch included; nothing compiles at
import, which tests/test_layers.py checks); compiling the numba backend's
kernels cold (what a fresh machine pays once): the ones it runs by default,
and every scalar function as a kernel (what the test suite compiles); and the
NumPy backend's time to first result.

    python benchmarks/startup.py [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import resource
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

# The kernels the numba backend runs by default (its KERNEL_OPS and reduce),
# in both dtypes; with ALL, every scalar function as a kernel and the tiled
# matmul too (what the test suite compiles). Contiguous inputs compile each
# op's flat kernel; with STRIDED, a transposed input compiles its strided
# kernel as well.
EVERY_KERNEL = """
import sys, time
import numpy as np
start = time.perf_counter()
from minigrad.backends import kernel_cache, numba_matmul
from minigrad.backends.numba_backend import KERNEL_OPS, NUMPY_BELOW, NumbaBackend
backend = NumbaBackend()
backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
ops = sorted(KERNEL_OPS)
if ALL:
    backend.numpy_ops = frozenset()
    ops = sorted(kernel_cache.ARITY)  # the table's ops, where included
for dtype in (np.float32, np.float64):
    x = np.ones((3, 4), dtype)
    for op in ops:
        for y in (x, x.T.copy().T) if STRIDED else (x,):
            if op == "where":
                backend.where(x > 0, x, y)
            elif kernel_cache.ARITY[op] == 1:
                backend.map(op, y)
            else:
                backend.zip(op, x, y)
    backend.reduce("sum", x, (1,), False)
    if ALL:
        numba_matmul.matmul(x, x.T)  # the tiled kernel: only when asked for
print(len(ops) * (1 + STRIDED) + 1 + ALL, time.perf_counter() - start)
"""


def seconds(code: str, cache: str, backend: str = "numba") -> tuple[float, float]:
    """(wall, CPU) seconds of a fresh interpreter running ``code``, launch included.

    CPU is user + system time over all its threads: on a shared machine the
    wall time also counts waiting for a core.
    """
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, MINIGRAD_BACKEND=backend, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(done.stderr)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()

    runs = [  # (name, code, backend); a new cache folder where the name ends "cold"
        ("import minigrad", "import minigrad", "numba"),
        ("numba, cold cache", FIRST_RESULT, "numba"),
        ("numba, warm cache", FIRST_RESULT, "numba"),
        ("numpy backend, cold", FIRST_RESULT, "numpy"),
        ("compile default kernels, cold", "ALL = STRIDED = False" + EVERY_KERNEL, "numba"),
        ("load default kernels, warm", "ALL = STRIDED = False" + EVERY_KERNEL, "numba"),
        ("compile every kernel, cold", "ALL, STRIDED = True, False" + EVERY_KERNEL, "numba"),
        ("load every kernel, warm", "ALL, STRIDED = True, False" + EVERY_KERNEL, "numba"),
        ("every kernel + strided, cold", "ALL = STRIDED = True" + EVERY_KERNEL, "numba"),
    ]
    results, cpu = {}, {}
    with tempfile.TemporaryDirectory() as folder:
        cache = folder
        for number, (name, code, backend) in enumerate(runs):
            if name.endswith("cold"):
                cache = os.path.join(folder, str(number))
            results[name], cpu[name] = seconds(code, cache, backend)
    print("Time to first result (lesson 06's digits MLP, one Adam step), fresh processes")
    for name, s in results.items():
        print(f"  {name:<32} {s:7.2f} s wall  {cpu[name]:7.2f} s CPU")
    print_load("load average")
    if args.json:
        write_json(args.json, {"id": "startup", "unit": "s", "results": results, "cpu": cpu})


if __name__ == "__main__":
    main()
