"""Data parallel on MPI (issue 28, lesson 18): scaling, bytes, overlap, ZeRO-1 memory.

One training step (forward, mean squared error, backward, SGD) of an MLP
784 -> 512 -> 512 -> 10 (tanh, float32) on a batch of 512:

1. **Scaling**: one process on the whole batch (no DDP) against N = 2
   processes with ``DistributedDataParallel``, each on half. Scaling
   efficiency = (one process's step time / N processes' step time) / N. On this
   machine the 2 ranks share 2 cores with everything else running, so read it
   beside the load average printed.
2. **Bytes per step**: every DDP bucket summed with the ring all-reduce over
   point-to-point sends (``ProcessGroup.ring_all_reduce``, which counts what
   it sends), against the ring's bound ``2 (N-1)/N x gradient bytes``.
   (MPI's own all-reduce, which DDP uses, does not report its bytes.)
3. **Waiting**: seconds per step that the end of backward waits on the
   all-reduces, with the buckets started during backward (overlap) and all
   started at its end (no overlap); and the step times.
4. **ZeRO-1**: Adam's state bytes per rank under ``ZeroRedundancyOptimizer``
   against plain DDP + Adam, at N = 2.

Jobs alternate (one process, two processes, again...), ``--repeats`` rounds;
medians over rounds of each job's median step time.

    python benchmarks/data_parallel.py [--repeats 5] [--steps 10] [--json out.json]

Targets: bytes per step <= 1.1x the ring's bound; ZeRO-1 optimizer memory per
rank <= 0.6x DDP's at N = 2. Scaling efficiency and wait times are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from bench import ROOT, print_load, target, write_json

sys.path.insert(0, str(ROOT))

SIZES = (784, 512, 512, 10)
BATCH = 512


def worker(mode: str, steps: int) -> None:
    import numpy as np

    import minigrad as mg
    import minigrad.distributed as dist

    dist.init_process_group(backend="mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((BATCH, SIZES[0])).astype(np.float32))
    y = mg.tensor(rng.standard_normal((BATCH, SIZES[-1])).astype(np.float32))
    mine = slice(rank * BATCH // n, (rank + 1) * BATCH // n)
    mg.manual_seed(0)
    net = mg.nn.MLP(*SIZES, activation="tanh")
    model = net if mode == "single" else dist.DistributedDataParallel(
        net, bucket_cap_mb=0.5, overlap=mode != "no-overlap")  # fmt: skip
    if mode == "zero":
        plain = mg.optim.Adam(model.parameters(), lr=1e-3)
        mg.manual_seed(0)
        sharded = mg.nn.MLP(*SIZES, activation="tanh")
        zero = dist.ZeroRedundancyOptimizer(sharded.parameters(), mg.optim.Adam, lr=1e-3)
        for _ in range(2):
            for m, opt in ((model, plain), (sharded, zero)):
                opt.zero_grad()
                ((m(x[mine]) - y[mine]) ** 2).mean().backward()
                opt.step()
        ddp_bytes = sum(v.numpy().nbytes for s in plain.state.values() for v in s.values()
                        if isinstance(v, mg.Tensor))  # fmt: skip
        out = {"rank": rank, "ddp_state": ddp_bytes, "zero_state": zero.state_bytes()}
        print(json.dumps(out), flush=True)
        dist.destroy_process_group()
        return
    opt = mg.optim.SGD(model.parameters(), lr=1e-3)
    times, waits = [], []
    for _ in range(steps + 2):  # two warm-up steps
        waited = getattr(model, "wait_seconds", 0.0)
        dist.barrier()
        start = time.perf_counter()
        opt.zero_grad()
        ((model(x[mine]) - y[mine]) ** 2).mean().backward()
        opt.step()
        times.append(time.perf_counter() - start)
        waits.append(getattr(model, "wait_seconds", 0.0) - waited)
    result = {"mode": mode, "ranks": n, "step": statistics.median(times[2:]),
              "wait": statistics.median(waits[2:])}  # fmt: skip
    if mode == "overlap":
        group = dist.group_world()
        grad_bytes = 0
        group.bytes_sent = 0
        for bucket in model._buckets:
            group.ring_all_reduce(bucket.buffer.copy())
            grad_bytes += bucket.buffer.nbytes
        result["ring_bytes"] = group.bytes_sent
        result["bound"] = 2 * (n - 1) / n * grad_bytes
        result["buckets"] = len(model._buckets)
    if rank == 0:
        print(json.dumps(result), flush=True)
    dist.destroy_process_group()


def job(n: int, mode: str, steps: int) -> list[dict]:
    from minigrad.distributed import run

    done = run.run(n, [sys.executable, __file__, "--worker", mode, "--steps", str(steps)],
                   timeout=600, capture_output=True, text=True,
                   env={"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1",
                        "NUMBA_NUM_THREADS": "1"})  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{mode} on {n} ranks failed:\n{done.stderr[-3000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--json")
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.steps)
        return
    runs: dict[str, list[dict]] = {"single": [], "overlap": [], "no-overlap": []}
    for _ in range(args.repeats):
        runs["single"] += job(1, "single", args.steps)
        runs["overlap"] += job(2, "overlap", args.steps)
        runs["no-overlap"] += job(2, "no-overlap", args.steps)
    one = statistics.median(r["step"] for r in runs["single"])
    two = statistics.median(r["step"] for r in runs["overlap"])
    two_plain = statistics.median(r["step"] for r in runs["no-overlap"])
    efficiency = one / two / 2
    print(f"MLP {SIZES}, batch {BATCH}, float32, 1 thread per rank, {args.repeats} rounds")
    print(f"one process, whole batch:         {one * 1e3:8.2f} ms per step")
    print(f"2 processes, DDP with overlap:    {two * 1e3:8.2f} ms per step "
          f"(speedup {one / two:.2f}x, scaling efficiency {efficiency:.0%})")  # fmt: skip
    print(f"2 processes, DDP without overlap: {two_plain * 1e3:8.2f} ms per step")
    wait_on = statistics.median(r["wait"] for r in runs["overlap"])
    wait_off = statistics.median(r["wait"] for r in runs["no-overlap"])
    print(f"waiting on communication at the end of backward: {wait_on * 1e3:.2f} ms with "
          f"overlap, {wait_off * 1e3:.2f} ms without")  # fmt: skip
    ring = runs["overlap"][0]
    ratio = ring["ring_bytes"] / ring["bound"]
    print(f"bytes sent per step by rank 0 (ring over {ring['buckets']} buckets): "
          f"{ring['ring_bytes']} against the bound {ring['bound']:.0f}: {ratio:.4f}x")  # fmt: skip
    zero = job(2, "zero", args.steps)
    zero_ratio = max(r["zero_state"] / r["ddp_state"] for r in zero)
    for r in sorted(zero, key=lambda r: r["rank"]):
        print(
            f"rank {r['rank']}: Adam state {r['ddp_state']} bytes under DDP, "
            f"{r['zero_state']} under ZeRO-1 ({r['zero_state'] / r['ddp_state']:.3f}x)"
        )
    print_load()
    result = {
        "step_ms": {
            "single": one * 1e3,
            "ddp_overlap": two * 1e3,
            "ddp_no_overlap": two_plain * 1e3,
        },
        "scaling_efficiency": efficiency,
        "wait_ms": {"overlap": wait_on * 1e3, "no_overlap": wait_off * 1e3},
        "targets": [
            target("bytes per step <= 1.1x the ring bound", ratio, ratio <= 1.1),
            target("ZeRO-1 optimizer state per rank <= 0.6x DDP's", zero_ratio, zero_ratio <= 0.6),
        ],
        "load": os.getloadavg(),
        "when": time.strftime("%Y-%m-%d %H:%M"),
    }
    if args.json:
        write_json(args.json, result)


if __name__ == "__main__":
    main()
