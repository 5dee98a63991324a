"""W7: gradient checkpointing, peak memory and time, minigrad against PyTorch (CPU).

The network is 32 layers ``tanh(x @ W + b)`` of width 1024, float32, on a batch
of 256. One step is forward, sum, backward. By default the weights are fixed
and the gradient is taken with respect to the input batch, so what the step
holds is activations, which is the memory checkpointing is about;
``--weight-grads`` makes the weights trainable too (then their 128 MB of
gradients, the same with and without checkpointing, are part of both peaks).
The checkpointed run splits the layers into ``--segments`` pieces (6 ~
sqrt(32)) with ``checkpoint_sequential``: minigrad's, and PyTorch's
``torch.utils.checkpoint.checkpoint_sequential(use_reentrant=False)``.

Every (engine, run, measurement) happens in a fresh Python process:

- memory: the peak resident set size during one step (Linux's ``VmHWM``, reset
  with ``/proc/self/clear_refs`` after a warm-up step that compiles kernels and
  starts thread pools), above the resident size when the step starts.
  glibc's mmap threshold is pinned (``MALLOC_MMAP_THRESHOLD_``) so that every
  array's memory goes back to the system when it is freed: the peak is the
  real peak, for both engines. For minigrad also ``tracemalloc``'s peak (NumPy
  reports its arrays to it), in a process of its own.
- time: the best of ``--repeats`` steps after a warm-up step, wall-clock and
  CPU seconds. The best, not the median: on a shared machine other work only
  ever adds time, so the fastest run is the closest to the step's own cost.

    python benchmarks/w7_checkpoint.py [--segments 6] [--repeats 7] [--weight-grads] [--json F]

Also measured, in processes of their own: what each engine's graph holds
between the forward and the backward pass (RSS after the forward pass, above
RSS before it): the tensors saved for backward.

Also ``minigrad jit``: the step as one compiled program,
``mg.jit(mg.value_and_grad(loss))`` (forward and backward together, compiled
in the warm-up step), plain and with ``checkpoint_sequential`` inside the
jitted function, measured the same ways (it keeps no graph between a forward
and a backward pass, so it has no "held" figure). Under jit the
recomputation must survive the compiler's passes (an optimization barrier),
or the checkpointed program is the plain one.

Targets: minigrad's saved tensors at most 1.05x PyTorch's; its checkpointed
peak at most 35% of its plain peak, at most 1.35x its time; the jitted plain
step's peak no higher than eager minigrad's plain peak (issue 13); the jitted
checkpointed step's peak at most 0.5x the jitted plain step's (issue 23).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from bench import ROOT, THREAD_VARS, json_child, verdict, write_json

LAYERS, WIDTH, BATCH = 32, 1024, 256
THREADS = "2"


def _status_mb(field: str) -> float:
    """A memory figure of this process from /proc/self/status (VmRSS now, VmHWM peak)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # kilobytes
    raise RuntimeError(f"no {field} in /proc/self/status (this benchmark needs Linux)")


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS (Linux 4.0+)


def minigrad_step(segments: int, weight_grads: bool, jit: bool = False):
    sys.path.insert(0, str(ROOT))
    import numpy as np

    import minigrad as mg

    rng = np.random.default_rng(0)
    params = [
        (
            mg.tensor(rng.standard_normal((WIDTH, WIDTH), dtype=np.float32) / WIDTH**0.5,
                      requires_grad=weight_grads),
            mg.tensor(np.zeros(WIDTH, np.float32), requires_grad=weight_grads),
        )
        for _ in range(LAYERS)
    ]  # fmt: skip

    def layer(w, b):
        return lambda x: (x @ w + b).tanh()

    layers = [layer(w, b) for w, b in params]
    if jit:
        return _jitted_step(mg, rng, params, weight_grads, segments)

    def step(batch: int, hold: bool = False):
        x = mg.tensor(rng.standard_normal((batch, WIDTH), dtype=np.float32), requires_grad=True)
        if segments > 1:
            y = mg.checkpoint_sequential(layers, segments, x)
        else:
            y = x
            for layer in layers:
                y = layer(y)
        if hold:  # forward only: hand back the graph, with what it saved
            return y
        y.sum().backward()
        for w, b in params:
            w.grad = b.grad = None

    return step


def _jitted_step(mg, rng, params, weight_grads: bool, segments: int = 1):
    """The step as one compiled program: ``mg.jit(mg.value_and_grad(loss))``.

    The weights are arguments (differentiated with ``--weight-grads``); nothing
    requires grad, so every call replays the compiled forward and backward.
    With ``segments > 1`` the layers run through ``checkpoint_sequential``
    inside the jitted function.
    """
    import numpy as np

    weights = [t.detach() for pair in params for t in pair]

    def make_layer(w, b):
        return lambda y: (y @ w + b).tanh()

    def loss(x, *weights):
        layers = [make_layer(w, b) for w, b in zip(weights[::2], weights[1::2])]
        if segments > 1:
            return mg.checkpoint_sequential(layers, segments, x).sum()
        y = x
        for layer in layers:
            y = layer(y)
        return y.sum()

    argnums = tuple(range(1 + len(weights))) if weight_grads else 0
    compiled = mg.jit(mg.value_and_grad(loss, argnums=argnums))

    def step(batch: int, hold: bool = False):
        if hold:
            raise ValueError("a jitted step has no forward pass alone to hold")
        x = mg.tensor(rng.standard_normal((batch, WIDTH), dtype=np.float32))
        compiled(x, *weights)

    return step


def torch_step(segments: int, weight_grads: bool):
    import torch
    from torch.utils.checkpoint import checkpoint_sequential

    torch.set_num_threads(int(THREADS))
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        *[
            torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh())
            for _ in range(LAYERS)
        ]
    )
    model.requires_grad_(weight_grads)

    def step(batch: int, hold: bool = False):
        x = torch.randn(batch, WIDTH, requires_grad=True)
        if segments > 1:
            y = checkpoint_sequential(model, segments, x, use_reentrant=False)
        else:
            y = model(x)
        if hold:
            return y
        y.sum().backward()
        model.zero_grad(set_to_none=True)

    return step


def child(engine: str, segments: int, measure: str, repeats: int, weight_grads: bool) -> dict:
    """One measurement, in this (fresh) process."""
    if engine == "minigrad jit":
        step = minigrad_step(segments, weight_grads, jit=True)
    else:
        step = (minigrad_step if engine == "minigrad" else torch_step)(segments, weight_grads)
    if measure == "time":
        step(BATCH)
        walls, cpus = [], []
        for _ in range(repeats):
            wall, cpu = time.perf_counter(), time.process_time()
            step(BATCH)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        return {"wall_s": min(walls), "cpu_s": min(cpus), "median_wall_s": statistics.median(walls)}
    step(BATCH)  # compiles kernels, starts thread pools: not part of the peak
    if measure == "held":
        # What the graph keeps between forward and backward: the saved tensors.
        base = _status_mb("VmRSS")
        y = step(BATCH, hold=True)
        held = _status_mb("VmRSS") - base
        del y
        return {"held_mb": held}
    if measure == "traced":
        import tracemalloc

        tracemalloc.start()
        step(BATCH)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        return {"traced_mb": peak}
    _reset_peak()
    base = _status_mb("VmRSS")
    step(BATCH)
    return {"rss_mb": _status_mb("VmHWM") - base}


def run_child(engine: str, segments: int, measure: str, args: argparse.Namespace) -> dict:
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    for var in THREAD_VARS:
        env[var] = THREADS
    command = [sys.executable, __file__, "--child", engine, str(segments), measure,
               "--repeats", str(args.repeats)]  # fmt: skip
    if args.weight_grads:
        command.append("--weight-grads")
    return json_child(command, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--weight-grads", action="store_true")
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--child", nargs=3, metavar=("ENGINE", "SEGMENTS", "MEASURE"))
    args = parser.parse_args()
    if args.child:
        engine, segments, measure = args.child
        print(json.dumps(child(engine, int(segments), measure, args.repeats, args.weight_grads)))
        return

    what = "input and weights" if args.weight_grads else "input"
    print(f"W7: {LAYERS} layers x {WIDTH}, batch {BATCH}, tanh, float32; gradient w.r.t. {what}; "
          f"checkpointed in {args.segments} segments")  # fmt: skip
    results = {}
    for engine in ("minigrad", "minigrad jit", "torch"):
        measures = {"minigrad": ("rss", "held", "traced", "time"),
                    "minigrad jit": ("rss", "traced", "time"),
                    "torch": ("rss", "held", "time")}[engine]  # fmt: skip
        runs = (("plain", 1), ("checkpoint", args.segments))
        for name, segments in runs:
            row = {}
            for measure in measures:
                row.update(run_child(engine, segments, measure, args))
            results[engine, name] = row
            shown = ", ".join(f"{k} {v:.3g}" for k, v in row.items())
            print(f"  {engine:12s} {name:10s} {shown}")
    for engine in ("minigrad", "torch"):
        plain, ckpt = results[engine, "plain"], results[engine, "checkpoint"]
        ratio = 100 * ckpt["rss_mb"] / plain["rss_mb"]
        line = f"{engine}: checkpointed peak {ratio:.0f}% of plain (rss)"
        if "traced_mb" in plain:
            line += f", {100 * ckpt['traced_mb'] / plain['traced_mb']:.0f}% (tracemalloc)"
        line += (f"; time {ckpt['wall_s'] / plain['wall_s']:.2f}x wall, "
                 f"{ckpt['cpu_s'] / plain['cpu_s']:.2f}x cpu")  # fmt: skip
        print(line)
    ours_plain, ours = results["minigrad", "plain"], results["minigrad", "checkpoint"]
    memory = ours["rss_mb"] / ours_plain["rss_mb"]
    slower = ours["wall_s"] / ours_plain["wall_s"]
    saved = ours_plain["held_mb"] / results["torch", "plain"]["held_mb"]
    peak = ours_plain["rss_mb"] / results["torch", "plain"]["rss_mb"]
    print(
        f"saved tensors after forward: minigrad {ours_plain['held_mb']:.1f} MB, torch "
        f"{results['torch', 'plain']['held_mb']:.1f} MB ({saved:.2f}x); step peak {peak:.2f}x"
    )
    jitted = results["minigrad jit", "plain"]
    jit_peak = jitted["rss_mb"] / ours_plain["rss_mb"]
    print(
        f"jitted plain step: peak {jitted['rss_mb']:.1f} MB rss ({jit_peak:.2f}x eager minigrad's "
        f"{ours_plain['rss_mb']:.1f} MB), {jitted['traced_mb']:.1f} MB tracemalloc "
        f"({jitted['traced_mb'] / ours_plain['traced_mb']:.2f}x); time "
        f"{jitted['wall_s'] / ours_plain['wall_s']:.2f}x eager's"
    )
    print(f"target: jitted peak <= eager minigrad's plain peak: {verdict(jit_peak <= 1.0)} "
          f"({jit_peak:.2f}x)")  # fmt: skip
    jit_ckpt = results["minigrad jit", "checkpoint"]
    jit_memory = jit_ckpt["rss_mb"] / jitted["rss_mb"]
    jit_traced = jit_ckpt["traced_mb"] / jitted["traced_mb"]
    jit_slower = jit_ckpt["wall_s"] / jitted["wall_s"]
    print(
        f"jitted checkpointed step: peak {jit_ckpt['rss_mb']:.1f} MB rss ({jit_memory:.0%} of the "
        f"jitted plain step), {jit_traced:.0%} by tracemalloc; time {jit_slower:.2f}x"
    )
    print(f"target: jitted checkpointed peak <= 50% of jitted plain: "
          f"{verdict(jit_memory <= 0.5)} ({jit_memory:.0%})")  # fmt: skip
    print(f"targets: saved <= 1.05x torch: {verdict(saved <= 1.05)} ({saved:.2f}x); "
          f"checkpointed peak <= 35% of plain: {verdict(memory <= 0.35)} ({memory:.0%}); "
          f"time <= 1.35x plain: {verdict(slower <= 1.35)} ({slower:.2f}x)")  # fmt: skip
    if args.json:
        result = {
            "id": "W7",
            "title": f"checkpointing {LAYERS} tanh layers x {WIDTH}, batch {BATCH}, "
            f"{args.segments} segments (forward + backward)",
            "unit": "s",
            "results": {
                f"{engine}{'' if run == 'checkpoint' else ' plain'}": row["wall_s"]
                for (engine, run), row in results.items()
            },
            "memory_mb": {f"{e} {r}": row["rss_mb"] for (e, r), row in results.items()},
            "targets": [
                {"text": "saved tensors <= 1.05x torch", "ratio": saved, "met": saved <= 1.05},
                {
                    "text": "checkpointed peak <= 0.35x plain",
                    "ratio": memory,
                    "met": memory <= 0.35,
                },
                {
                    "text": "checkpointed time <= 1.35x plain",
                    "ratio": slower,
                    "met": slower <= 1.35,
                },
                {
                    "text": "jitted checkpointed peak <= 0.5x jitted plain peak",
                    "ratio": jit_memory,
                    "met": jit_memory <= 0.5,
                },
                {
                    "text": "jitted plain peak <= eager minigrad plain peak",
                    "ratio": jit_peak,
                    "met": jit_peak <= 1.0,
                },
            ],
        }
        write_json(args.json, result)


if __name__ == "__main__":
    main()
