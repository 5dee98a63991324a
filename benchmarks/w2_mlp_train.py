"""W2: one training step of a tensor MLP, minigrad against PyTorch (CPU) and HIPS autograd.

The model is 784 -> 256 -> 256 -> 10 with ReLU, float32, a batch of 128,
softmax cross-entropy on integer labels and a plain SGD update. One step is
forward, loss, backward, update. Every engine starts from the same weights
and sees the same batch, so their losses must agree step by step (checked).
Every engine gets 2 threads (BLAS and intra-op; ``OMP_NUM_THREADS=1`` gives
each one), and the engines take turns step by step, so that other load on
the machine falls on all of them alike.

    python benchmarks/w2_mlp_train.py [--steps 30] [--warmup 3] [--backend numba] [--json out.json]

Also ``minigrad jit``: the loss as a function of the parameters under
``mg.jit(mg.value_and_grad(...))`` (one program for forward and backward,
labels one-hot), then the same SGD update.

Reported: the median milliseconds per step, the spread, and minigrad's time
over each peer's. Target (issue 13): minigrad jit at most 0.9x PyTorch (goal 0.8x).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from itertools import pairwise

from bench import ROOT, clock_from_env, pin_threads, print_load, print_table, target, write_json

# Before NumPy loads its BLAS: 2 threads for everyone (or OMP_NUM_THREADS, if set).
THREADS = int(os.environ.get("OMP_NUM_THREADS", "2"))
pin_threads(THREADS)
sys.path.insert(0, str(ROOT))

import autograd.numpy as anp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from autograd import value_and_grad  # noqa: E402
from w10_jit_compile import minigrad_jit_stepper  # noqa: E402

import minigrad as mg  # noqa: E402

torch.set_num_threads(THREADS)
CLOCK_NAME, CLOCK = clock_from_env()  # BENCH_CLOCK=cpu: CPU time (see bench.py)

SIZES = (784, 256, 256, 10)
BATCH = 128
LR = 0.05


def initial_weights(seed: int = 0) -> list[np.ndarray]:
    """[W1, b1, W2, b2, W3, b3], W of shape (out, in) as torch.nn.Linear, float32."""
    rng = np.random.default_rng(seed)
    weights = []
    for n_in, n_out in pairwise(SIZES):
        bound = 1 / np.sqrt(n_in)
        weights.append(rng.uniform(-bound, bound, (n_out, n_in)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, n_out).astype(np.float32))
    return weights


def make_batch(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((BATCH, SIZES[0])).astype(np.float32), rng.integers(0, 10, BATCH)


def minigrad_stepper(weights, x_np, y_np):
    model = mg.nn.MLP(list(SIZES))
    with mg.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.data = mg.tensor(w).data
    opt = mg.optim.SGD(model.parameters(), lr=LR)
    x, y = mg.tensor(x_np), mg.tensor(y_np)

    def step() -> float:
        opt.zero_grad()
        loss = mg.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def torch_stepper(weights, x_np, y_np):
    layers = []
    for n_in, n_out in pairwise(SIZES):
        layers += [torch.nn.Linear(n_in, n_out), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    with torch.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(torch.from_numpy(w))
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x, y = torch.from_numpy(x_np), torch.from_numpy(y_np)

    def step() -> float:
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def autograd_stepper(weights, x_np, y_np):
    params = [w.copy() for w in weights]
    rows = np.arange(BATCH)

    def loss_fn(params):
        h = x_np
        for i in range(0, len(params), 2):
            h = anp.dot(h, params[i].T) + params[i + 1]
            if i + 2 < len(params):
                h = anp.maximum(h, 0.0)
        shifted = h - anp.max(h, axis=1, keepdims=True)
        log_probs = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        return -anp.mean(log_probs[rows, y_np])

    loss_and_grads = value_and_grad(loss_fn)

    def step() -> float:
        loss, grads = loss_and_grads(params)
        for p, g in zip(params, grads):
            p -= LR * g
        return float(loss)

    return step


ENGINES = {
    "minigrad": minigrad_stepper,
    "minigrad jit": minigrad_jit_stepper,  # jit of value_and_grad (w10_jit_compile.py)
    "torch": torch_stepper,
    "autograd (HIPS)": autograd_stepper,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30, help="timed steps; the median is reported")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    parser.add_argument("--backend", help="minigrad's CPU backend (default: its default)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    if args.backend:
        mg.backends.set_default(args.backend)

    weights, (x, y) = initial_weights(), make_batch()
    steppers = {name: make(weights, x, y) for name, make in ENGINES.items()}
    losses = {name: [step() for _ in range(args.warmup)] for name, step in steppers.items()}
    # Engines take turns, step by step, so a busy machine slows them all alike.
    times: dict[str, list[float]] = {name: [] for name in steppers}
    for _ in range(args.steps):
        for name, step in steppers.items():
            start = CLOCK()
            step()
            times[name].append(CLOCK() - start)
    medians = {name: statistics.median(ts) * 1e3 for name, ts in times.items()}
    agree = all(
        np.allclose(losses["minigrad"], losses[other], rtol=1e-4)
        for other in ("minigrad jit", "torch", "autograd (HIPS)")
    )
    print(
        f"W2 MLP train step {'-'.join(map(str, SIZES))}, batch {BATCH}, float32, ReLU, "
        f"cross-entropy, SGD; median of {args.steps}; minigrad backend "
        f"{mg.backends.current()!r}, {THREADS} threads, {CLOCK_NAME} time"
    )
    print_table(medians, "ms/step", 3)
    for name, ts in times.items():
        print(f"  {name:<16} spread {min(ts) * 1e3:.3f} .. {max(ts) * 1e3:.3f} ms")
    print(f"  losses agree over the first {args.warmup} steps: {agree}")
    print_load()
    ratio = medians["minigrad jit"] / medians["torch"]
    targets = [
        target("minigrad jit <= 0.9x torch", ratio, ratio <= 0.9),
        target("minigrad jit <= 0.8x torch (goal)", ratio, ratio <= 0.8),
    ]
    if args.json:
        result = {
            "id": "W2",
            "title": f"MLP train step {'-'.join(map(str, SIZES))}, batch {BATCH}, float32",
            "unit": "ms",
            "backend": mg.backends.current(),
            "results": medians,
            "agree": agree,
            "targets": targets,
        }
        write_json(args.json, result)


if __name__ == "__main__":
    main()
