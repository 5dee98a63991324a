"""W6: the full 100 x 100 Hessian of sum(tanh(W @ x)) with respect to x, against HIPS autograd.

Higher-order autodiff on small arrays: every engine differentiates its own
gradient, so what is measured is mostly the cost of building and walking
graphs of 100-element operations, a hundred times over. minigrad's
``mg.hessian`` is forward over reverse (``jacfwd(jacrev(f))``); HIPS
autograd's ``hessian`` is reverse over reverse; PyTorch's
``torch.func.hessian`` is forward over reverse with vectorized (vmap) passes.
The closed form ``W^T diag(-2 t (1 - t^2)) W`` with ``t = tanh(W x)``
checks every answer. float64; 2 threads for everyone. The engines take turns,
repeat by repeat, so that other load on the machine falls on all of them
alike; the median and the spread (lowest and highest) are printed.

    python benchmarks/w6_hessian.py [--n 100] [--repeats 9] [--json out.json]

Targets: minigrad faster than HIPS autograd; at most 1.0x torch.func.hessian
(must: 1.5x).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench import ROOT, pin_threads, print_load, print_table, target, write_json

pin_threads(2)  # before NumPy loads its BLAS: 2 threads for everyone
sys.path.insert(0, str(ROOT))

import autograd  # noqa: E402
import autograd.numpy as anp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import minigrad as mg  # noqa: E402

torch.set_num_threads(2)


def run_minigrad(w0, x0):
    w, x = mg.tensor(w0), mg.tensor(x0)
    hessian = mg.hessian(lambda x: (w @ x).tanh().sum())
    return lambda: hessian(x).numpy()


def run_autograd(w0, x0):
    hessian = autograd.hessian(lambda x: anp.sum(anp.tanh(anp.dot(w0, x))))
    return lambda: hessian(x0)


def run_torch(w0, x0):
    w, x = torch.from_numpy(w0), torch.from_numpy(x0)
    hessian = torch.func.hessian(lambda x: torch.tanh(w @ x).sum())
    return lambda: hessian(x).numpy()


ENGINES = {"minigrad": run_minigrad, "autograd (HIPS)": run_autograd, "torch.func": run_torch}


def taking_turns(steps: dict, repeats: int) -> dict[str, list[float]]:
    """Milliseconds of each step over ``repeats`` rounds, one call of each per round."""
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            start = time.perf_counter()
            step()
            times[name].append((time.perf_counter() - start) * 1e3)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="size of x (W is n x n)")
    parser.add_argument("--repeats", type=int, default=9, help="timed runs; the median counts")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((args.n, args.n)) / np.sqrt(args.n)
    x0 = rng.standard_normal(args.n)
    t = np.tanh(w0 @ x0)
    exact = w0.T @ np.diag(-2 * t * (1 - t * t)) @ w0
    steps, agree = {}, True
    for name, make in ENGINES.items():
        steps[name] = make(w0, x0)
        agree &= bool(np.allclose(steps[name](), exact, rtol=1e-9, atol=1e-12))  # and a warm-up
    times = taking_turns(steps, args.repeats)
    medians = {name: statistics.median(ms) for name, ms in times.items()}
    print(f"W6 Hessian of sum(tanh(W @ x)), {args.n} x {args.n}, float64; median of {args.repeats}"
          ", engines taking turns")  # fmt: skip
    print_table(medians, "ms", 2)
    for name, ms in times.items():
        print(f"  {name:<16} spread {min(ms):.2f}-{max(ms):.2f} ms")
    print(f"  all equal the closed form: {agree}")
    print_load()
    ratio = medians["minigrad"] / medians["autograd (HIPS)"]
    text, shown = "minigrad < 1.0x HIPS autograd", "minigrad faster than HIPS"
    targets = [target(text, ratio, ratio < 1, shown)]
    # Issue 14: hessian runs through vmap (one batched forward-over-reverse pass).
    ratio = medians["minigrad"] / medians["torch.func"]
    targets.append(target("minigrad <= 1.0x torch.func.hessian", ratio, ratio <= 1.0))
    targets.append(target("minigrad <= 1.5x torch.func.hessian (must)", ratio, ratio <= 1.5))
    if args.json:
        result = {
            "id": "W6",
            "title": f"Hessian {args.n}x{args.n} of sum(tanh(W @ x)), float64",
            "unit": "ms",
            "results": medians,
            "spread": {name: [min(ms), max(ms)] for name, ms in times.items()},
            "agree": agree,
            "targets": targets,
        }
        write_json(args.json, result)


if __name__ == "__main__":
    main()
