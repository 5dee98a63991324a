"""W3: forward and backward of tanh(a * b + c).sum() on 4M float32, minigrad against its peers.

Memory-bound elementwise work: seven passes over 16 MiB arrays (a * b, + c,
tanh, sum; then tanh's derivative and the two products of the backward
pass). Peers: PyTorch CPU eager, HIPS autograd, and NumPy with the gradient
written out by hand (the floor for any engine built on NumPy's loops).
Everyone gets 2 threads; minigrad runs on its default backend (numba).

    python benchmarks/w3_elementwise.py [--size 4194304] [--repeats 15] [--json out.json]

Reported: the median milliseconds of one forward + backward, and minigrad's
time over each peer's. Target: minigrad at most 1.0x PyTorch.
"""

from __future__ import annotations

import argparse
import sys

from bench import ROOT, median_seconds, pin_threads, print_table, target, write_json

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
    "torch": run_torch,
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
    medians, grads = {}, {}
    for name, make in ENGINES.items():
        step = make(a0, b0, c0)
        grads[name] = step()  # warm up: first-call compilation, page faults
        medians[name] = median_seconds(step, args.repeats) * 1e3
    agree = all(
        np.allclose(ours, theirs, rtol=1e-4, atol=1e-5)
        for other in ENGINES
        for ours, theirs in zip(grads["minigrad"], grads[other])
    )
    ours = medians["minigrad"]
    print(
        f"W3 tanh(a*b + c).sum() forward+backward, {args.size} float32; median of "
        f"{args.repeats}; minigrad backend {mg.backends.current()!r}, 2 threads"
    )
    print_table(medians, "ms", 3)
    print(f"  gradients agree: {agree}")
    ratio = ours / medians["torch"]
    targets = [
        target("minigrad <= 1.0x torch", ratio, ratio <= 1.0),
        target("minigrad <= 0.8x torch (goal)", ratio, ratio <= 0.8),
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
