"""W3: forward and backward of tanh(a * b + c).sum() on 4M float32, minigrad against its peers.

Memory-bound elementwise work: seven passes over 16 MiB arrays (a * b, + c,
tanh, sum; then tanh's derivative and the two products of the backward
pass). Peers: PyTorch CPU eager, HIPS autograd, and NumPy with the gradient
written out by hand (the floor for any engine built on NumPy's loops); and
the compiled pair: ``mg.jit(mg.value_and_grad(f))`` (one fused kernel for
forward and backward) against ``torch.compile`` of the whole step, both
compiled before the timed runs. Everyone gets 2 threads; minigrad runs on
its default backend (numba). The engines take turns, repeat by repeat.

    python benchmarks/w3_elementwise.py [--size 4194304] [--repeats 15] [--json out.json]

Reported: the median milliseconds of one forward + backward, the spread
(fastest and slowest run), and minigrad's time over each peer's. Targets:
minigrad at most 1.0x PyTorch; jitted, at most 0.6x PyTorch eager and 1.0x
``torch.compile`` (goal 0.8x).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench import ROOT, pin_threads, print_load, print_table, target, write_json

pin_threads(2)  # before NumPy loads its BLAS: 2 threads for everyone
sys.path.insert(0, str(ROOT))

import autograd.numpy as anp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from autograd import grad as autograd_grad  # noqa: E402

import minigrad as mg  # noqa: E402

torch.set_num_threads(2)


def run_minigrad(a0, b0, c0):
    a, b, c = (mg.tensor(v, requires_grad=True) for v in (a0, b0, c0))

    def step():
        a.grad = b.grad = c.grad = None
        (a * b + c).tanh().sum().backward()
        return a.grad.numpy(), b.grad.numpy(), c.grad.numpy()

    return step


def run_minigrad_jit(a0, b0, c0):
    """The same step, compiled: ``mg.jit(mg.value_and_grad(f))`` fuses forward and backward."""
    a, b, c = (mg.tensor(v) for v in (a0, b0, c0))
    step = mg.jit(mg.value_and_grad(lambda a, b, c: (a * b + c).tanh().sum(), argnums=(0, 1, 2)))

    def run():
        _, grads = step(a, b, c)
        return tuple(g.numpy() for g in grads)

    return run


def run_torch_compile(a0, b0, c0):
    """PyTorch's compiler on the whole step (forward and backward); compiled before timing."""
    a, b, c = (torch.tensor(v, requires_grad=True) for v in (a0, b0, c0))

    @torch.compile
    def step(a, b, c):
        a.grad = b.grad = c.grad = None
        (a * b + c).tanh().sum().backward()

    def run():
        step(a, b, c)
        return a.grad.numpy(), b.grad.numpy(), c.grad.numpy()

    return run


def run_torch(a0, b0, c0):
    a, b, c = (torch.tensor(v, requires_grad=True) for v in (a0, b0, c0))

    def step():
        a.grad = b.grad = c.grad = None
        (a * b + c).tanh().sum().backward()
        return a.grad.numpy(), b.grad.numpy(), c.grad.numpy()

    return step


def run_autograd(a0, b0, c0):
    gradient = autograd_grad(lambda abc: anp.sum(anp.tanh(abc[0] * abc[1] + abc[2])))
    return lambda: gradient((a0, b0, c0))


def run_numpy(a, b, c):
    """The same forward and backward, by hand: what an engine on NumPy's loops cannot beat."""

    def step():
        t = np.tanh(a * b + c)
        t.sum()
        g = 1 - t * t  # d tanh = 1 - tanh^2; the sum's cotangent is 1
        return g * b, g * a, g

    return step


ENGINES = {
    "minigrad": run_minigrad,
    "minigrad jit": run_minigrad_jit,
    "torch": run_torch,
    "torch.compile": run_torch_compile,
    "autograd (HIPS)": run_autograd,
    "numpy (by hand)": run_numpy,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4 * 1024 * 1024, help="elements per array")
    parser.add_argument("--repeats", type=int, default=15, help="timed runs; the median counts")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    a0, b0, c0 = (rng.standard_normal(args.size).astype(np.float32) for _ in range(3))
    steps, grads, warmup = {}, {}, {}
    for name, make in ENGINES.items():
        try:
            steps[name] = make(a0, b0, c0)
            start = time.perf_counter()
            grads[name] = steps[name]()  # warm up: compilation (jit, torch.compile), page faults
            steps[name]()
            warmup[name] = time.perf_counter() - start
        except Exception as error:  # torch.compile needs a C compiler; say so, go on
            print(f"  {name}: not measured ({type(error).__name__}: {str(error)[:200]})")
            steps.pop(name, None)
    # Engines take turns, repeat by repeat, so load on the machine falls on all alike.
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.repeats):
        for name, step in steps.items():
            start = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(ts) * 1e3 for name, ts in times.items()}
    spread = {name: (min(ts) * 1e3, max(ts) * 1e3) for name, ts in times.items()}
    agree = all(
        np.allclose(ours, theirs, rtol=1e-4, atol=1e-5)
        for other in steps
        for ours, theirs in zip(grads["minigrad"], grads[other])
    )
    ours = medians["minigrad"]
    print(
        f"W3 tanh(a*b + c).sum() forward+backward, {args.size} float32; median of "
        f"{args.repeats}; minigrad backend {mg.backends.current()!r}, 2 threads"
    )
    print_table(medians, "ms", 3)
    for name, (low, high) in spread.items():
        print(
            f"  {name:<16} spread {low:.3f} .. {high:.3f} ms; first two calls "
            f"{warmup[name]:.2f} s (compilation included)"
        )
    print(f"  gradients agree: {agree}")
    print_load()
    ratio = ours / medians["torch"]
    targets = [
        target("minigrad <= 1.0x torch", ratio, ratio <= 1.0),
        target("minigrad <= 0.8x torch (goal)", ratio, ratio <= 0.8),
    ]
    jitted = medians["minigrad jit"]
    ratio = jitted / medians["torch"]
    targets.append(target("minigrad jit <= 0.6x torch", ratio, ratio <= 0.6))
    if "torch.compile" in medians:
        ratio = jitted / medians["torch.compile"]
        targets += [
            target("minigrad jit <= 1.0x torch.compile", ratio, ratio <= 1.0),
            target("minigrad jit <= 0.8x torch.compile (goal)", ratio, ratio <= 0.8),
        ]
    if args.json:
        result = {
            "id": "W3",
            "title": f"tanh(a*b+c).sum() fwd+bwd, {args.size // 2**20}M float32",
            "unit": "ms",
            "results": medians,
            "agree": agree,
            "targets": targets,
        }
        write_json(args.json, result)


if __name__ == "__main__":
    main()
