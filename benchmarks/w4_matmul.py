"""W4: 1024 x 1024 float32 matmul in GFLOP/s: minigrad's default path and its tiled kernel.

Rows: NumPy (BLAS: OpenBLAS in the NumPy wheel), PyTorch CPU (MKL), minigrad's
default ``a @ b`` (BLAS through NumPy), minigrad with the numba backend's
hand-written tiled kernel (``matmul_kernel = "tiled"``), and the naive
parallel loop (one dot product per output element) for scale. Each row is
one ``C = A @ B`` of fresh 1024 x 1024 operands; 2 threads for everyone.

    python benchmarks/w4_matmul.py [--n 1024] [--repeats 9] [--json out.json]

Targets: the default path at least 0.9x NumPy's GFLOP/s; the tiled kernel at
least 30% of BLAS.
"""

from __future__ import annotations

import argparse
import sys

from bench import ROOT, median_seconds, pin_threads, target, write_json

pin_threads(2)  # before NumPy loads its BLAS: 2 threads for everyone
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad.backends import numba_matmul  # noqa: E402

torch.set_num_threads(2)


def minigrad_matmul(kernel: str):
    def make(a, b):
        backend = mg.backends.get("numba")
        x, y = mg.tensor(a), mg.tensor(b)

        def step():
            saved, backend.matmul_kernel = backend.matmul_kernel, kernel
            try:
                with mg.backends.use("numba"):
                    return (x @ y).numpy()
            finally:
                backend.matmul_kernel = saved

        return step

    return make


def naive(a, b):
    out = np.empty((a.shape[0], b.shape[1]), dtype=a.dtype)

    def step():
        numba_matmul.naive_matmul(a, b, out)
        return out

    return step


def torch_matmul(a, b):
    x, y = torch.from_numpy(a), torch.from_numpy(b)
    return lambda: (x @ y).numpy()


ENGINES = {
    "numpy (BLAS)": lambda a, b: lambda: a @ b,
    "torch": torch_matmul,
    "minigrad default": minigrad_matmul("blas"),
    "minigrad tiled kernel": minigrad_matmul("tiled"),
    "naive numba loop": naive,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1024, help="matrix size")
    parser.add_argument("--repeats", type=int, default=9, help="timed runs; the median counts")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((args.n, args.n)).astype(np.float32) for _ in range(2))
    reference = a.astype(np.float64) @ b.astype(np.float64)
    flops = 2 * args.n**3
    rates, agree = {}, True
    for name, make in ENGINES.items():
        step = make(a, b)
        result = step()  # warm up: compilation, BLAS buffers
        agree &= bool(np.allclose(result, reference, rtol=1e-3, atol=1e-2 * np.sqrt(args.n)))
        repeats = args.repeats if name != "naive numba loop" else 3  # seconds per call
        rates[name] = flops / median_seconds(step, repeats) / 1e9
    blas = rates["numpy (BLAS)"]
    print(f"W4 matmul {args.n}x{args.n} float32; median of {args.repeats}; 2 threads")
    print(f"  {'engine':<22} {'GFLOP/s':>9} {'of NumPy BLAS':>14}")
    for name, rate in rates.items():
        print(f"  {name:<22} {rate:9.1f} {rate / blas:13.0%}")
    print(f"  results agree with float64: {agree}")
    checks = [
        ("minigrad default >= 0.9x NumPy", rates["minigrad default"] / blas, 0.9),
        ("tiled kernel >= 30% of BLAS", rates["minigrad tiled kernel"] / blas, 0.3),
    ]
    targets = [target(text, ratio, ratio >= bound) for text, ratio, bound in checks]
    if args.json:
        result = {
            "id": "W4",
            "title": f"matmul {args.n}x{args.n} float32",
            "unit": "GFLOP/s",
            "higher_is_better": True,
            "results": rates,
            "agree": agree,
            "targets": targets,
        }
        write_json(args.json, result)


if __name__ == "__main__":
    main()
