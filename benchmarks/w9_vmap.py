"""W9: vmap against torch.func: per-example gradients, jacfwd and jacrev (issue 14, lesson 14).

- per-example gradients of the W2 MLP (784 -> 256 -> 256 -> 10, ReLU,
  float32, a batch of 128): ``vmap(grad(loss), in_axes=(None, ..., 0, 0))``,
  one gradient per example, against ``torch.func.vmap(torch.func.grad(...))``;
  the loss of one example is softmax cross-entropy against a one-hot label;
- the Jacobian of ``x -> tanh(W @ x)`` for ``x`` of size 100 (float64), by
  ``jacfwd`` and by ``jacrev``, against ``torch.func``'s.

Every answer is checked against the other engine's. The engines take turns,
repeat by repeat, so that other load on the machine falls on both alike; the
median and the spread (lowest and highest) are printed. 2 threads for everyone.

    python benchmarks/w9_vmap.py [--repeats 15] [--backend numba] [--json out.json]

Targets: per-example gradients at most 1.5x torch.func (must: 2.0x); jacfwd
and jacrev at most 1.5x torch.func.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from itertools import pairwise

from bench import ROOT, interleaved, pin_threads, print_load, target, write_json

THREADS = int(os.environ.get("OMP_NUM_THREADS", "2"))
pin_threads(THREADS)
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import minigrad as mg  # noqa: E402

torch.set_num_threads(THREADS)

SIZES = (784, 256, 256, 10)
BATCH = 128
N = 100


def per_example_setups():
    rng = np.random.default_rng(0)
    weights = []
    for n_in, n_out in pairwise(SIZES):
        bound = 1 / np.sqrt(n_in)
        weights.append(rng.uniform(-bound, bound, (n_in, n_out)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, n_out).astype(np.float32))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    onehot = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], BATCH)]

    def loss(lib, relu):
        def one_example(w1, b1, w2, b2, w3, b3, x, y):
            h = relu(x @ w1 + b1)
            h = relu(h @ w2 + b2)
            return -(lib.nn.functional.log_softmax(h @ w3 + b3, -1) * y).sum()

        return one_example

    params = tuple(range(len(weights)))
    axes = (None,) * len(weights) + (0, 0)
    ours = mg.vmap(mg.grad(loss(mg, mg.relu), argnums=params), in_axes=axes)
    theirs = torch.func.vmap(torch.func.grad(loss(torch, torch.relu), argnums=params), in_dims=axes)
    mine = [mg.tensor(a) for a in (*weights, x, onehot)]
    torch_args = [torch.from_numpy(a) for a in (*weights, x, onehot)]
    return (lambda: [g.numpy() for g in ours(*mine)],
            lambda: [g.numpy() for g in theirs(*torch_args)])  # fmt: skip


def jacobian_setups(kind: str):
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((N, N)) / np.sqrt(N)
    x0 = rng.standard_normal(N)
    w, x = mg.tensor(w0), mg.tensor(x0)
    tw, tx = torch.from_numpy(w0), torch.from_numpy(x0)
    ours = getattr(mg, kind)(lambda x: (w @ x).tanh())
    theirs = getattr(torch.func, kind)(lambda x: torch.tanh(tw @ x))
    return lambda: ours(x).numpy(), lambda: theirs(tx).numpy()


def agree(a, b, rtol: float, atol: float) -> bool:
    a = a if isinstance(a, list) else [a]
    b = b if isinstance(b, list) else [b]
    return all(np.allclose(x, y, rtol=rtol, atol=atol) for x, y in zip(a, b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="timed runs; the median counts")
    parser.add_argument("--backend", help="minigrad's CPU backend (default: its default)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    context = mg.backends.use(args.backend) if args.backend else None
    if context is not None:
        context.__enter__()
    cases = {
        "per-example gradients (W2 MLP, batch 128, float32)": (per_example_setups(), 2.0, 1.5,
                                                                (1e-4, 1e-5)),
        "jacfwd 100 -> 100 (float64)": (jacobian_setups("jacfwd"), 1.5, 1.5, (1e-9, 1e-12)),
        "jacrev 100 -> 100 (float64)": (jacobian_setups("jacrev"), 1.5, 1.5, (1e-9, 1e-12)),
    }  # fmt: skip
    print(f"W9 vmap against torch.func; backend {mg.backends.current()!r}, {THREADS} threads, "
          f"median (lowest-highest) of {args.repeats}")  # fmt: skip
    results, targets = {}, []
    for title, ((ours, theirs), must, goal, (rtol, atol)) in cases.items():
        same = agree(ours(), theirs(), rtol, atol)
        mine, torch_ms = interleaved(ours, theirs, args.repeats)
        m, t = statistics.median(mine), statistics.median(torch_ms)
        print(f"  {title}")
        print(f"    minigrad   {m:8.2f} ms ({min(mine):.2f}-{max(mine):.2f})   equal: {same}")
        print(f"    torch.func {t:8.2f} ms ({min(torch_ms):.2f}-{max(torch_ms):.2f})")
        ratio = m / t
        targets.append(target(f"{title}: <= {goal}x torch.func", ratio, ratio <= goal))
        if must != goal:
            targets.append(target(f"{title}: must <= {must}x", ratio, ratio <= must))
        results[title] = {"minigrad": m, "torch.func": t, "agree": same}
    print_load()
    if args.json:
        write_json(args.json, {"id": "W9", "title": "vmap against torch.func", "unit": "ms",
                               "results": results, "targets": targets})  # fmt: skip


if __name__ == "__main__":
    main()
