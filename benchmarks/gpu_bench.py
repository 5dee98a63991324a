"""GPU: minigrad's numba.cuda kernels against the hardware and against cuBLAS (lesson 11).

Three measurements, each reported as a ratio:

1. matmul, float32, n x n times n x n for n = 1024 ... 8192: minigrad's
   shared-memory tiled kernel against cuBLAS (through CuPy, or PyTorch if
   CuPy is missing), as TFLOP/s and minigrad's time over cuBLAS's;
2. elementwise bandwidth: ``x + y`` and ``x.exp()`` on 2^26 float32 elements,
   in GB/s moved, over the bandwidth of a device-to-device copy (and PyTorch's
   rates on the same GPU, if it sees it);
3. the W2 MLP training step (784-256-256-10, ReLU, cross-entropy, SGD) at a
   batch of 4096: the CPU backend's time over the GPU's;
4. fused attention (lesson 17), forward + backward, float32, batch 8, 8 heads,
   head size 64, L = S = 1024 (causal and not): minigrad's shared-memory
   kernels against ``torch.nn.functional.scaled_dot_product_attention`` on
   the same GPU (if PyTorch sees it), results checked close first;
5. jit (lesson 13) of W3's ``(a * b + c).tanh().sum()`` on 2^24 float32:
   eager minigrad (one kernel per operation) against the fused kernel that
   ``mg.jit`` generates, and against PyTorch eager on the same GPU.

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
    torch = torch_cuda()
    if torch is not None:
        tx, ty = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        t_source, t_target = torch.empty_like(tx), torch.empty_like(tx)
        t_copy = seconds(lambda: t_target.copy_(t_source), repeat, torch.cuda.synchronize)
        print(f"  (PyTorch's device copy: {2 * 4 * n / t_copy / 1e9:.0f} GB/s)")
    print(f"  {'op':>8} {'GB/s':>8} {'of copy':>8}" + ("  PyTorch GB/s" if torch else ""))
    cases = (("x + y", lambda x, y: x + y, 3), ("x.exp()", lambda x, y: x.exp(), 2))
    for name, fn, arrays in cases:
        rate = arrays * 4 * n / seconds(functools.partial(fn, x, y), repeat, sync)
        line = f"  {name:>8} {rate / 1e9:8.0f} {rate / copy_rate:7.0%}"
        if torch is not None:
            timed = functools.partial(fn, tx, ty)
            peer = arrays * 4 * n / seconds(timed, repeat, torch.cuda.synchronize)
            line += f"  {peer / 1e9:12.0f}"
        print(line)


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


def torch_cuda():
    """PyTorch's module if it sees a GPU, else None."""
    if importlib.util.find_spec("torch") is None:
        return None
    import torch

    return torch if torch.cuda.is_available() else None


def bench_attention(shape, repeat, sync) -> None:
    torch = torch_cuda()
    print(f"\n4. fused attention forward + backward, float32, (B, H, L, D) = {shape}")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape, dtype=np.float32) for _ in range(3)]
    g = rng.standard_normal(shape, dtype=np.float32)
    F = mg.nn.functional
    for causal in (False, True):

        def ours(causal=causal):
            xs = [mg.tensor(a, device="cuda", requires_grad=True) for a in arrays]
            out = F.scaled_dot_product_attention(*xs, is_causal=causal)
            out.backward(mg.tensor(g, device="cuda"))
            return [out, *(x.grad for x in xs)]

        line = f"  causal={causal!s:5} minigrad {seconds(ours, repeat, sync) * 1e3:9.2f} ms"
        if torch is not None:
            tg = torch.from_numpy(g).cuda()

            def theirs(causal=causal, tg=tg):
                xs = [torch.from_numpy(a).cuda().requires_grad_() for a in arrays]
                out = torch.nn.functional.scaled_dot_product_attention(*xs, is_causal=causal)
                out.backward(tg)
                return [out, *(x.grad for x in xs)]

            worst = max(
                float(np.max(np.abs(m.detach().numpy() - t.detach().cpu().numpy())))
                for m, t in zip(ours(), theirs())
            )
            mine = seconds(ours, repeat, sync)
            peer = seconds(theirs, repeat, torch.cuda.synchronize)
            line = f"  causal={causal!s:5} minigrad {mine * 1e3:9.2f} ms"
            line += f"   PyTorch {peer * 1e3:9.2f} ms   minigrad / PyTorch {mine / peer:6.2f}x"
            line += f"   largest difference {worst:.1e}"
        print(line)


def bench_jit(n, repeat, sync) -> None:
    torch = torch_cuda()
    print(f"\n5. jit of (a * b + c).tanh().sum() on {n:,} float32")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(n, dtype=np.float32) for _ in range(3)]
    a, b, c = (mg.tensor(x, device="cuda") for x in arrays)

    def w3(a, b, c):
        return (a * b + c).tanh().sum()

    fused = mg.jit(w3)
    sums = {}  # each timed run's result, kept: the last one is printed

    def timed(name, fn):
        return lambda: sums.__setitem__(name, fn(a, b, c).item())

    eager = seconds(timed("eager", w3), repeat, sync)
    jitted = seconds(timed("jit", fused), repeat, sync)
    expected = float(np.tanh(arrays[0].astype(np.float64) * arrays[1] + arrays[2]).sum())
    print(f"  eager {eager * 1e3:8.2f} ms   jit {jitted * 1e3:8.2f} ms", end="")
    print(f"   eager / jit {eager / jitted:5.1f}x")
    print(f"  sums: eager {sums['eager']:.3f}, jit {sums['jit']:.3f}", end="")
    print(f", float64 {expected:.3f}")
    if torch is not None:
        ta, tb, tc = (torch.from_numpy(x).cuda() for x in arrays)
        peer = seconds(lambda: w3(ta, tb, tc).item(), repeat, torch.cuda.synchronize)
        print(
            f"  PyTorch eager {peer * 1e3:8.2f} ms   minigrad jit / PyTorch {jitted / peer:5.2f}x"
        )


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
        attention, fused = (1, 2, 8, 4), 4096
    else:
        sizes, elements, batch, mlp = (1024, 2048, 4096, 8192), 1 << 26, 4096, SIZES
        attention, fused = (8, 8, 1024, 64), 1 << 24
    device = "numba's simulator" if mg.backends.available()["cuda_simulator"] else "the GPU"
    print(f"minigrad cuda backend on {device}; median of {args.repeat} runs")
    bench_matmul(sizes, args.repeat, sync)
    bench_bandwidth(elements, args.repeat, sync)
    bench_mlp(batch, mlp, args.repeat, sync)
    bench_attention(attention, args.repeat, sync)
    bench_jit(fused, args.repeat, sync)


if __name__ == "__main__":
    main()
