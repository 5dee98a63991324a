"""W1: training steps per second of a scalar-Value MLP, minigrad against micrograd.

One step on a 2 -> 16 -> 16 -> 1 ReLU MLP and 64 points: forward over every
point, mean squared error, backward, an SGD update and zeroed grads. Both
engines run the same model code below, which is written only against what both
Value classes offer (``+``, ``*``, ``**``, ``relu``, ``backward``, ``data``,
``grad``). The garbage collector stays on, as it is in a student's notebook:
micrograd's closures put every node in a reference cycle, so its graphs are
freed only by the collector, and that time is part of what is measured. A
second measurement with the collector off (garbage collected between
repeats, outside the timing) shows the engines' own work alone.

    python benchmarks/w1_value_mlp.py [--steps 3] [--repeats 5]

Target: minigrad at least 3x micrograd's steps per second, collector on.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from micrograd.engine import Value as MicrogradValue

from minigrad.scalar import Value as MinigradValue

SIZES = (2, 16, 16, 1)
POINTS = 64
LEARNING_RATE = 0.01


def make_mlp(value_type: type, seed: int) -> list[list[tuple[list, object]]]:
    """Layers of neurons; a neuron is (weights, bias). Same numbers for every engine."""
    rng = random.Random(seed)
    return [
        [
            ([value_type(rng.uniform(-1, 1)) for _ in range(n_in)], value_type(0.0))
            for _ in range(n_out)
        ]
        for n_in, n_out in itertools.pairwise(SIZES)
    ]


def parameters(mlp) -> list:
    return [p for layer in mlp for weights, bias in layer for p in (*weights, bias)]


def forward(mlp, x: list[float]):
    last = len(mlp) - 1
    for depth, layer in enumerate(mlp):
        out = []
        for weights, bias in layer:
            act = bias
            for w, xi in zip(weights, x):
                act = act + w * xi
            out.append(act if depth == last else act.relu())
        x = out
    return x[0]


def make_data(seed: int) -> tuple[list[list[float]], list[float]]:
    rng = random.Random(seed)
    xs = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in range(POINTS)]
    ys = [1.0 if x0 * x1 > 0 else -1.0 for x0, x1 in xs]
    return xs, ys


def train_step(mlp, params: list, xs, ys) -> float:
    loss = 0.0
    for x, y in zip(xs, ys):
        loss = loss + (forward(mlp, x) - y) ** 2
    loss = loss * (1.0 / len(xs))
    loss.backward()
    for p in params:
        p.data -= LEARNING_RATE * p.grad
        p.grad = 0.0
    return loss.data


def timed_steps(value_type: type, steps: int, collector: bool) -> tuple[float, list[float]]:
    """Steps/s of ``steps`` steps on a fresh model, and their losses."""
    xs, ys = make_data(seed=1)
    mlp = make_mlp(value_type, seed=0)
    params = parameters(mlp)
    gc.collect()
    if not collector:
        gc.disable()
    start = time.perf_counter()
    losses = [train_step(mlp, params, xs, ys) for _ in range(steps)]
    rate = steps / (time.perf_counter() - start)
    gc.enable()
    return rate, losses


def compare(steps: int, repeats: int, collector: bool) -> tuple[float, float, float]:
    """Median steps/s of minigrad and micrograd, and the median of their per-repeat ratios.

    The engines take turns, so that a change in machine load between repeats
    hits both sides of a ratio alike.
    """
    ours, theirs, ratios = [], [], []
    for _ in range(repeats):
        mine, our_losses = timed_steps(MinigradValue, steps, collector)
        other, their_losses = timed_steps(MicrogradValue, steps, collector)
        # Same model, same data, same arithmetic: the losses must agree.
        assert all(
            abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(our_losses, their_losses)
        ), (our_losses, their_losses)
        ours.append(mine)
        theirs.append(other)
        ratios.append(mine / other)
    return statistics.median(ours), statistics.median(theirs), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3, help="training steps per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats; medians are reported")
    args = parser.parse_args()

    print(f"W1 scalar MLP {'-'.join(map(str, SIZES))}, {POINTS} points, steps/s (medians)")
    print(f"  {'':24} {'minigrad':>9} {'micrograd':>10} {'ratio':>7}")
    for collector in (True, False):
        ours, theirs, ratio = compare(args.steps, args.repeats, collector)
        name = "gc on (target >= 5x)" if collector else "gc off (reference)"
        print(f"  {name:24} {ours:9.2f} {theirs:10.2f} {ratio:6.2f}x")


if __name__ == "__main__":
    main()
