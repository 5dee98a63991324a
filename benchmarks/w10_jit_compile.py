"""W10: what jit costs up front: compiling the W2 train step, cold and with a warm cache.

The step is W2's (MLP 784 -> 256 -> 256 -> 10, ReLU, batch 128, float32,
cross-entropy), written as a function of the parameters and jitted as
``mg.jit(mg.value_and_grad(loss))``: forward and backward in one program.
Its first call traces it, runs the passes, generates and compiles the fused
kernels (and whatever kernels of the numba backend the program calls), then
runs it. Two fresh processes, one after the other, share a kernel cache
folder that starts empty:

- *cold*: ``NUMBA_CACHE_DIR`` is a new temporary folder, so nothing is cached:
  numba compiles every kernel the step needs (minigrad's generated kernel
  sources go to ``$NUMBA_CACHE_DIR/minigrad_kernels``, see
  ``minigrad.backends.kernel_cache.source_folder``);
- *warm*: a second new process with the same folder: the kernels load from disk.

In each, "compile" is the first call's time minus the median of the calls
after it (a replay), so it is what jit adds, not the step itself. Import
time is reported apart.

    python benchmarks/w10_jit_compile.py [--json out.json]

Targets (issue 13): compile at most 5 s cold and at most 0.5 s warm.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from itertools import pairwise

from bench import ROOT, THREAD_VARS, json_child, pin_threads, print_load, target, write_json

SIZES = (784, 256, 256, 10)
BATCH = 128
LR = 0.05


def loss_fn(*args):
    """The W2 model's loss as a function of its parameters: ``loss_fn(W1, b1, W2, b2, W3, b3,
    x, one_hot)``.

    The labels come one-hot (class probabilities: the same loss as integer labels).
    With integer labels, ``cross_entropy`` reads them on the host to pick each
    row's entry, which a trace cannot do when they are an argument.
    """
    import minigrad as mg

    *params, x, y = args
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i].T + params[i + 1]
        if i + 2 < len(params):
            h = h.relu()
    return mg.nn.functional.cross_entropy(h, y)


def minigrad_jit_stepper(weights, x_np, y_np):
    """W2's step with a jitted ``value_and_grad``; the SGD update runs in place after it."""
    import numpy as np

    import minigrad as mg

    params = [mg.tensor(w) for w in weights]
    x = mg.tensor(x_np)
    y = mg.tensor(np.eye(SIZES[-1], dtype=x_np.dtype)[y_np])  # one-hot
    loss_and_grads = mg.jit(mg.value_and_grad(loss_fn, argnums=tuple(range(len(params)))))

    def step() -> float:
        loss, grads = loss_and_grads(*params, x, y)
        with mg.no_grad():
            for p, g in zip(params, grads):
                p -= LR * g
        return loss.item()

    step.jitted = loss_and_grads
    return step


def child() -> dict:
    """In this (fresh) process: import, then the first call and a few replays."""
    start = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    import numpy as np

    import minigrad as mg

    imported = time.perf_counter() - start
    rng = np.random.default_rng(0)
    weights = []
    for n_in, n_out in pairwise(SIZES):
        weights += [rng.uniform(-0.05, 0.05, (n_out, n_in)).astype(np.float32),
                    np.zeros(n_out, np.float32)]  # fmt: skip
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH)
    step = minigrad_jit_stepper(weights, x, y)
    start = time.perf_counter()
    step()
    first = time.perf_counter() - start
    kernels = sum(c.source().count("def kernel(") for c in step.jitted.compiled.values())
    replays = []
    for _ in range(7):
        start = time.perf_counter()
        step()
        replays.append(time.perf_counter() - start)
    replay = statistics.median(replays)
    return {"import_s": imported, "first_s": first, "replay_s": replay,
            "compile_s": first - replay, "fused_kernels": kernels,
            "backend": mg.backends.current()}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        pin_threads(2)
        print(json.dumps(child()))
        return

    with tempfile.TemporaryDirectory(prefix="minigrad-w10-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for var in THREAD_VARS:
            env[var] = "2"
        runs = {}
        for name in ("cold", "warm"):
            runs[name] = json_child([sys.executable, __file__, "--child"], env)
    print(
        f"W10 compiling the W2 step (jit of value_and_grad, MLP {'-'.join(map(str, SIZES))}, "
        f"batch {BATCH}, float32) in a new process; backend {runs['cold']['backend']!r}, 2 threads"
    )
    print(f"  {'cache':<6} {'import s':>9} {'first call s':>13} {'replay ms':>10} "
          f"{'compile s':>10} {'fused kernels':>14}")  # fmt: skip
    for name, r in runs.items():
        print(
            f"  {name:<6} {r['import_s']:9.2f} {r['first_s']:13.2f} "
            f"{r['replay_s'] * 1e3:10.2f} {r['compile_s']:10.2f} {r['fused_kernels']:14d}"
        )
    if not runs["cold"]["fused_kernels"]:
        print(
            "  (no group of elementwise operations is big enough to fuse at this batch size, "
            "so the cold run compiled no kernel: its compile time is tracing and the passes)"
        )
    print_load()
    cold, warm = runs["cold"]["compile_s"], runs["warm"]["compile_s"]
    targets = [
        target("compile cold <= 5 s", cold / 5.0, cold <= 5.0,
               f"compile cold <= 5 s ({cold:.2f} s)"),
        target("compile warm <= 0.5 s", warm / 0.5, warm <= 0.5,
               f"compile warm <= 0.5 s ({warm:.2f} s)"),
    ]  # fmt: skip
    if args.json:
        write_json(args.json, {
            "id": "W10",
            "title": "jit compile of the W2 step in a new process (cold / warm cache)",
            "unit": "s",
            "results": {f"minigrad {name}": r["compile_s"] for name, r in runs.items()},
            "runs": runs,
            "targets": targets,
        })  # fmt: skip


if __name__ == "__main__":
    main()
