"""GPU: minigrad's numba.cuda kernels against the hardware and against cuBLAS (lesson 11).

Three measurements, each reported as a ratio:

1. matmul, float32, n x n times n x n for n = 1024 ... 8192: minigrad's
   shared-memory tiled kernel against cuBLAS (through CuPy, or PyTorch if
   CuPy is missing), as TFLOP/s and minigrad's time over cuBLAS's;
2. elementwise bandwidth: ``x + y`` and ``x.exp()`` on 2^26 float32 elements,
   in GB/s moved, over the bandwidth of a device-to-device copy;
3. the W2 MLP training step (784-256-256-10, ReLU, cross-entropy, SGD) at a
   batch of 4096: the CPU backend's time over the GPU's.

    python benchmarks/gpu_bench.py [--repeat 5] [--quick]

Without a GPU it says so and exits with status 0. ``--quick`` runs tiny
sizes, which also works on numba's simulator (NUMBA_ENABLE_CUDASIM=1) to
check the script itself; its timings mean nothing.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import sys

import numpy as np
from bench import ROOT, median_seconds

sys.path.insert(0, str(ROOT))

import minigrad as mg

SIZES = (784, 256, 256, 10)
LR = 0.05


def gpu_or_exit(quick: bool) -> None:
    """Return if there is a GPU (or the simulator with --quick); otherwise explain and exit 0."""
    found = mg.backends.available()
    if found["cuda"] or (found["cuda_simulator"] and quick):
        return
    if found["cuda_simulator"]:
        print("NUMBA_ENABLE_CUDASIM=1: the simulator is not a GPU; use --quick to check the script")
    else:
        print("no CUDA GPU here (mg.backends.available()['cuda'] is False): nothing to measure")
    sys.exit(0)


def seconds(fn, repeat: int, sync) -> float:
    """Median wall time of ``fn()`` over ``repeat`` runs, after one warm-up (compiles)."""
    fn()
    sync()
    return median_seconds(fn, repeat, sync)


def cublas_matmul():
    """``(name, matmul(a_np, b_np) -> timed callable, sync)`` for cuBLAS, or None."""
    if importlib.util.find_spec("cupy") is not None:
        import cupy

        def prepare(a, b):
            da, db = cupy.asarray(a), cupy.asarray(b)
            return lambda: da @ db

        return "CuPy (cuBLAS)", prepare, cupy.cuda.Device().synchronize
    if importlib.util.find_spec("torch") is not None:
        import torch

        if torch.cuda.is_available():

            def prepare(a, b):
                da, db = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
                return lambda: da @ db

            return "PyTorch (cuBLAS)", prepare, torch.cuda.synchronize
    return None


def bench_matmul(sizes, repeat, sync) -> None:
    peer = cublas_matmul()
    print(f"\n1. matmul, float32 (peer: {peer[0] if peer else 'none: install CuPy or PyTorch'})")
    print(f"  {'n':>6} {'minigrad TFLOP/s':>17} {'cuBLAS TFLOP/s':>15} {'minigrad / cuBLAS':>18}")
    rng = np.random.default_rng(0)
    for n in sizes:
        a, b = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
        da, db = mg.tensor(a, device="cuda"), mg.tensor(b, device="cuda")
        ours = seconds(functools.partial(mg.matmul, da, db), repeat, sync)
        flops = 2 * n**3
        line = f"  {n:>6} {flops / ours / 1e12:17.2f}"
        if peer:
            theirs = seconds(peer[1](a, b), repeat, peer[2])
            line += f" {flops / theirs / 1e12:15.2f} {ours / theirs:17.2f}x"
        print(line)


def bench_bandwidth(n, repeat, sync) -> None:
    from numba import cuda

    x = mg.randn(n, device="cuda")
    y = mg.randn(n, device="cuda")
    source = cuda.device_array(n, np.float32)
    target = cuda.device_array(n, np.float32)
    copy = seconds(lambda: target.copy_to_device(source), repeat, sync)
    copy_rate = 2 * 4 * n / copy  # read and write each element
    print(f"\n2. elementwise bandwidth, {n:,} float32 (device copy: {copy_rate / 1e9:.0f} GB/s)")
    print(f"  {'op':>8} {'GB/s':>8} {'of copy':>8}")
    for name, fn, arrays in (("x + y", lambda: x + y, 3), ("x.exp()", lambda: x.exp(), 2)):
        rate = arrays * 4 * n / seconds(fn, repeat, sync)
        print(f"  {name:>8} {rate / 1e9:8.0f} {rate / copy_rate:7.0%}")


def mlp_step(device: str, batch: int, sizes: tuple[int, ...]):
    mg.manual_seed(0)
    model = mg.nn.MLP(list(sizes), device=device)
    optimizer = mg.optim.SGD(list(model.parameters()), lr=LR)
    rng = np.random.default_rng(1)
    x = mg.tensor(rng.standard_normal((batch, sizes[0])), dtype=mg.float32, device=device)
    labels = mg.tensor(rng.integers(0, sizes[-1], batch), device=device)

    def step() -> float:
        optimizer.zero_grad()
        loss = mg.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        optimizer.step()
        return loss.item()  # waits for the GPU

    return step


def bench_mlp(batch, sizes, repeat, sync) -> None:
    cpu_name = "numba" if mg.backends.available()["numba"] else "numpy"
    gpu = seconds(mlp_step("cuda", batch, sizes), repeat, sync)
    with mg.backends.use(cpu_name):
        cpu = seconds(mlp_step("cpu", batch, sizes), repeat, lambda: None)
    print(f"\n3. W2 MLP train step {'-'.join(map(str, sizes))}, batch {batch}, float32")
    print(f"  cuda {gpu * 1e3:9.2f} ms   cpu ({cpu_name}) {cpu * 1e3:9.2f} ms")
    print(f"  cpu / cuda: {cpu / gpu:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs; the median is reported")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (works on the simulator)")
    args = parser.parse_args()
    gpu_or_exit(args.quick)

    from numba import cuda

    sync = cuda.synchronize
    if args.quick:
        sizes, elements, batch, mlp = (8, 16), 1024, 16, (12, 8, 8, 4)
    else:
        sizes, elements, batch, mlp = (1024, 2048, 4096, 8192), 1 << 26, 4096, SIZES
    device = "numba's simulator" if mg.backends.available()["cuda_simulator"] else "the GPU"
    print(f"minigrad cuda backend on {device}; median of {args.repeat} runs")
    bench_matmul(sizes, args.repeat, sync)
    bench_bandwidth(elements, args.repeat, sync)
    bench_mlp(batch, mlp, args.repeat, sync)


if __name__ == "__main__":
    main()
