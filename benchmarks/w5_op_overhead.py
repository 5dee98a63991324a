"""W5: the fixed cost of one recorded operation, minigrad against PyTorch and HIPS autograd.

On 4x4 tensors the arithmetic is nothing; what is measured is everything else
an engine does per operation: checking and promoting operands, choosing a
kernel, allocating the result, recording a graph node, and later walking the
graph back and running each node's backward rule. The chain is 1000
operations long (cycling multiply, add, tanh, subtract, so values stay
bounded), then one backward pass from its sum. Every engine gets 2 threads;
the engines take turns, repeat by repeat, so that other load on the machine
falls on all of them alike.

    python benchmarks/w5_op_overhead.py [--ops 1000] [--repeats 15] [--backend numba]
                                        [--json out.json]

Also ``minigrad jit``: the chain's ``mg.jit(mg.value_and_grad(...))``, traced
and compiled once in the warm-up, then replayed (no recording at all).

Reported: microseconds per operation, forward (recording) and backward, as
medians over the repeats, their spread, and minigrad's time over each peer's.
Targets (issue 13): minigrad jit at most 0.3x PyTorch eager per op (goal 0.1x).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from bench import ROOT, clock_from_env, pin_threads, print_load, target, write_json

# Before NumPy loads its BLAS: 2 threads for everyone (or OMP_NUM_THREADS, if set).
THREADS = int(os.environ.get("OMP_NUM_THREADS", "2"))
pin_threads(THREADS)
sys.path.insert(0, str(ROOT))

import autograd.numpy as anp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from autograd import make_vjp  # noqa: E402

import minigrad as mg  # noqa: E402

torch.set_num_threads(THREADS)
CLOCK_NAME, CLOCK = clock_from_env()  # BENCH_CLOCK=cpu: CPU time (see bench.py)


def chain(y, w, ops: int, tanh):
    """The benchmark's computation, written once for every engine's operators."""
    for i in range(ops):
        step = i % 4
        if step == 0:
            y = y * w
        elif step == 1:
            y = y + w
        elif step == 2:
            y = tanh(y)
        else:
            y = y - w
    return y


def run_minigrad(x0, w0, ops):
    x = mg.tensor(x0, requires_grad=True)
    w = mg.tensor(w0, requires_grad=True)
    start = CLOCK()
    loss = chain(x, w, ops, mg.tanh).sum()
    middle = CLOCK()
    loss.backward()
    end = CLOCK()
    return middle - start, end - middle, (x.grad.numpy(), w.grad.numpy())


def jitted_chain(ops):
    """``mg.jit(mg.value_and_grad(...))`` of the chain, made once per chain length."""
    if ops not in _JITTED:
        loss = lambda x, w: chain(x, w, ops, mg.tanh).sum()
        _JITTED[ops] = mg.jit(mg.value_and_grad(loss, argnums=(0, 1)))
    return _JITTED[ops]


_JITTED: dict = {}


def run_minigrad_jit(x0, w0, ops):
    # Forward and backward are one compiled program: the time is all "forward".
    x, w = mg.tensor(x0), mg.tensor(w0)
    step = jitted_chain(ops)
    start = CLOCK()
    _, (gx, gw) = step(x, w)
    end = CLOCK()
    return end - start, 0.0, (gx.numpy(), gw.numpy())


def run_torch(x0, w0, ops):
    x = torch.tensor(x0, requires_grad=True)
    w = torch.tensor(w0, requires_grad=True)
    start = CLOCK()
    loss = chain(x, w, ops, torch.tanh).sum()
    middle = CLOCK()
    loss.backward()
    end = CLOCK()
    return middle - start, end - middle, (x.grad.numpy(), w.grad.numpy())


def run_autograd(x0, w0, ops):
    # make_vjp traces the forward pass (recording), its result runs the backward pass.
    def f(params):
        x, w = params
        return anp.sum(chain(x, w, ops, anp.tanh))

    start = CLOCK()
    vjp, _ = make_vjp(f)((x0, w0))
    middle = CLOCK()
    grads = vjp(np.float32(1.0))
    end = CLOCK()
    return middle - start, end - middle, grads


ENGINES = {
    "minigrad": run_minigrad,
    "minigrad jit": run_minigrad_jit,
    "torch": run_torch,
    "autograd (HIPS)": run_autograd,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=1000, help="operations in the chain")
    parser.add_argument("--repeats", type=int, default=15, help="repeats; medians are reported")
    parser.add_argument("--backend", help="minigrad's CPU backend (default: its default)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    if args.backend:
        mg.backends.set_default(args.backend)

    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((4, 4)).astype(np.float32)
    w0 = (0.5 * rng.standard_normal((4, 4))).astype(np.float32)
    # Warm up (imports, caches, first-call compilation), then let the engines
    # take turns, so that other load on the machine falls on all of them alike.
    grads = {name: run(x0, w0, args.ops)[2] for name, run in ENGINES.items()}
    times: dict[str, list] = {name: [] for name in ENGINES}
    for _ in range(args.repeats):
        for name, run in ENGINES.items():
            times[name].append(run(x0, w0, args.ops)[:2])
    results = {}
    for name, ts in times.items():
        forward = statistics.median(t[0] for t in ts) / args.ops * 1e6
        backward = statistics.median(t[1] for t in ts) / args.ops * 1e6
        total = statistics.median(t[0] + t[1] for t in ts) / args.ops * 1e6
        results[name] = (forward, backward, total)
    # Same chain, same numbers: the gradients must agree (float32 over 1000 ops).
    agree = all(
        np.allclose(a, b, rtol=1e-3, atol=1e-4)
        for other in ("torch", "autograd (HIPS)")
        for a, b in zip(grads["minigrad"], grads[other])
    )
    ours = results["minigrad"][2]
    print(
        f"W5 per-op overhead: {args.ops} ops on 4x4 float32, then backward; "
        f"median of {args.repeats}; minigrad backend {mg.backends.current()!r}, {THREADS} threads, "
        f"{CLOCK_NAME} time"
    )
    header = f"{'fwd us/op':>10} {'bwd us/op':>10} {'total us/op':>12} {'minigrad / it':>14}"
    print(f"  {'engine':<16} {header}")
    for name, (forward, backward, total) in results.items():
        print(f"  {name:<16} {forward:10.2f} {backward:10.2f} {total:12.2f} {ours / total:13.2f}x")
    agree = agree and all(
        np.allclose(a, b, rtol=1e-3, atol=1e-4)
        for a, b in zip(grads["minigrad jit"], grads["torch"])
    )
    print("  (minigrad jit: forward and backward are one program, all of it in the fwd column; "
          "compiled during the warm-up)")  # fmt: skip
    for name, ts in times.items():
        totals = [(t[0] + t[1]) / args.ops * 1e6 for t in ts]
        print(f"  {name:<16} spread {min(totals):.2f} .. {max(totals):.2f} us/op")
    print(f"  gradients agree: {agree}")
    print_load()
    ratio = results["minigrad jit"][2] / results["torch"][2]
    targets = [
        target("minigrad jit <= 0.3x torch per op", ratio, ratio <= 0.3),
        target("minigrad jit <= 0.1x torch per op (goal)", ratio, ratio <= 0.1),
    ]
    if args.json:
        result = {
            "id": "W5",
            "title": f"per-op overhead, {args.ops} ops on 4x4 float32 + backward",
            "unit": "us/op",
            "backend": mg.backends.current(),
            "results": {name: total for name, (_, _, total) in results.items()},
            "forward": {name: fwd for name, (fwd, _, _) in results.items()},
            "backward": {name: bwd for name, (_, bwd, _) in results.items()},
            "agree": agree,
            "targets": targets,
        }
        write_json(args.json, result)


if __name__ == "__main__":
    main()
