"""W8: two 3x3 convolutions, forward and backward, on a batch of 64 28x28 images (float32).

``conv2d(conv2d(x, w1, b1, padding=1), w2, b2, padding=1).sum().backward()``
with 1 -> 16 -> 32 channels: the first layers of a small CNN on MNIST-sized
images. The gradients of both weights and both biases are computed (the
input needs none, as for images). minigrad does each convolution as a
windows view, one copy into rows (im2col) and one BLAS product, and each
backward as two more convolutions (lesson 12); PyTorch CPU runs oneDNN's
direct convolutions. Everyone gets 2 threads; minigrad runs on its default
backend (numba). The engines take turns, one timed run each per round, so a
change in the machine's load touches both alike.

    python benchmarks/w8_conv.py [--batch 64] [--repeats 15] [--json out.json]

Reported: the median milliseconds of one forward + backward and the spread
(the middle half of the runs, 25th to 75th percentile). Target: minigrad at
most 1.5x PyTorch.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench import ROOT, pin_threads, print_load, print_table, target, write_json

pin_threads(2)  # before NumPy loads its BLAS: 2 threads for everyone
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import minigrad as mg  # noqa: E402

torch.set_num_threads(2)


def run_minigrad(x0, params0):
    F = mg.nn.functional
    x = mg.tensor(x0)
    w1, b1, w2, b2 = (mg.tensor(p, requires_grad=True) for p in params0)

    def step():
        for p in (w1, b1, w2, b2):
            p.grad = None
        F.conv2d(F.conv2d(x, w1, b1, padding=1), w2, b2, padding=1).sum().backward()
        return [p.grad.numpy() for p in (w1, b1, w2, b2)]

    return step


def run_torch(x0, params0):
    F = torch.nn.functional
    x = torch.from_numpy(x0)
    w1, b1, w2, b2 = (torch.tensor(p, requires_grad=True) for p in params0)

    def step():
        for p in (w1, b1, w2, b2):
            p.grad = None
        F.conv2d(F.conv2d(x, w1, b1, padding=1), w2, b2, padding=1).sum().backward()
        return [p.grad.numpy() for p in (w1, b1, w2, b2)]

    return step


ENGINES = {"minigrad": run_minigrad, "torch": run_torch}


def interleaved(steps: dict, repeats: int) -> dict[str, list[float]]:
    """Seconds of each engine's ``step()``, taking turns: one run of each per round."""
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            start = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64, help="images per batch")
    parser.add_argument("--repeats", type=int, default=15, help="timed rounds; the median counts")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((args.batch, 1, 28, 28)).astype(np.float32)
    shapes = [(16, 1, 3, 3), (16,), (32, 16, 3, 3), (32,)]
    params0 = [(0.3 * rng.standard_normal(s)).astype(np.float32) for s in shapes]
    steps = {name: make(x0, params0) for name, make in ENGINES.items()}
    grads = {name: step() for name, step in steps.items()}  # warm up: compilation, buffers
    agree = all(
        np.allclose(ours, theirs, rtol=1e-3, atol=1e-3 * np.abs(theirs).max())
        for ours, theirs in zip(grads["minigrad"], grads["torch"])
    )
    times = interleaved(steps, args.repeats)
    medians = {name: statistics.median(t) * 1e3 for name, t in times.items()}
    spread = {
        name: [float(q) * 1e3 for q in np.percentile(t, [25, 75])] for name, t in times.items()
    }
    print(
        f"W8 conv2d 1->16->32 channels, 3x3, padding 1, batch {args.batch} x 28x28 float32, "
        f"forward+backward; median of {args.repeats} interleaved rounds; minigrad backend "
        f"{mg.backends.current()!r}, 2 threads"
    )
    print_table(medians, "ms", 2)
    for name, (low, high) in spread.items():
        print(f"  {name:<16} middle half of the runs: {low:.2f} to {high:.2f} ms")
    print(f"  gradients agree: {agree}")
    print_load()
    ratio = medians["minigrad"] / medians["torch"]
    targets = [target("minigrad <= 1.5x torch", ratio, ratio <= 1.5)]
    if args.json:
        result = {
            "id": "W8",
            "title": f"conv2d 1->16->32, 3x3, batch {args.batch} x 28x28 float32, fwd+bwd",
            "unit": "ms",
            "results": medians,
            "spread": spread,
            "agree": agree,
            "targets": targets,
        }
        write_json(args.json, result)


if __name__ == "__main__":
    main()
