"""How close each elementwise kernel comes to memory speed: achieved GB/s beside numpy.copyto's.

An elementwise kernel over big arrays is memory-bound: its arithmetic is
cheap, moving the bytes is not. So the yardstick is the machine's own copy:
``numpy.copyto`` of the same number of elements (one read and one write per
element), timed in the same run, turn by turn with the kernels. For each
kernel the script prints the bytes it must move (every input read once, the
output written once), its median time, the GB/s that makes, and
``copy GB/s / kernel GB/s``: 1.0x is memory speed, the target is at most 1.25x.
NumPy's own loop for the same op is timed beside it.

    python benchmarks/bandwidth.py [--size N] [--repeats 21] [--all] [--ops OP ...]
                                   [--dtype float32] [--threads N]

By default the kernels the numba backend runs (the table's ops with a kernel
policy, ``where``); ``--all`` forces every op of the table through its kernel
(what the tests compile). Two threads for everyone, as in W3.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench import ROOT, pin_threads, print_load

pin_threads(2)
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from minigrad.backends.kernel_cache import ARITY  # noqa: E402
from minigrad.backends.numba_backend import KERNEL_OPS, NUMPY_BELOW, NumbaBackend  # noqa: E402
from minigrad.backends.numpy_backend import NumpyBackend  # noqa: E402
from minigrad.backends.threads import Workers  # noqa: E402


def inputs(op: str, n: int, dtype: np.dtype, rng: np.random.Generator) -> list[np.ndarray]:
    """Arrays in each op's domain (positive where a log or a root needs it)."""
    x = (rng.random(n) * 0.8 + 0.1).astype(dtype)  # in (0.1, 0.9): every op is defined there
    if op == "where":
        return [rng.random(n) < 0.5, x, x[::-1].copy()]
    return [x] + [(x[::-1] + 0.05).astype(dtype) for _ in range(ARITY[op] - 1)]


def call(backend, op: str, arrays: list[np.ndarray]):
    if op == "where":
        return backend.where(*arrays)
    if ARITY[op] == 1:
        return backend.map(op, arrays[0])
    return backend.zip(op, *arrays)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4 * 1024 * 1024, help="elements per array")
    parser.add_argument("--repeats", type=int, default=21, help="timed turns; the median counts")
    parser.add_argument("--all", action="store_true", help="every op of the table as a kernel")
    parser.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    parser.add_argument("--threads", type=int, help="the kernels' threads (default: every core)")
    parser.add_argument("--ops", nargs="+", help="only these ops (names of the table)")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: the process's CPU seconds (user + system) instead of wall seconds, "
        "for a machine shared with other work (use with --threads 1)",
    )
    args = parser.parse_args()
    dtype = np.dtype(args.dtype)
    kernels = NumbaBackend()
    kernels.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    if args.all:
        kernels.numpy_ops = frozenset()
    if args.threads:
        kernels.workers = Workers(args.threads)
    reference = NumpyBackend()
    ops = args.ops or (sorted(ARITY) if args.all else sorted(KERNEL_OPS))
    if args.ops:
        kernels.numpy_ops = frozenset()
    rng = np.random.default_rng(0)
    source = rng.random(args.size).astype(dtype)
    target = np.empty_like(source)

    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    rows = {}
    start = time.perf_counter()
    for op in ops:
        arrays = inputs(op, args.size, dtype, rng)
        got = call(kernels, op, arrays)  # compiles (or loads) the kernel
        with np.errstate(all="ignore"):
            want = call(reference, op, arrays)
        same = np.allclose(got, want, rtol=1e-4, atol=1e-6, equal_nan=True)
        nbytes = sum(a.nbytes for a in arrays) + got.nbytes
        rows[op] = {"bytes": nbytes, "kernel": [], "numpy": [], "copy": [], "agree": same}
        del got, want
    compile_seconds = time.perf_counter() - start

    for _ in range(args.repeats):
        for op, row in rows.items():
            arrays = inputs(op, args.size, dtype, np.random.default_rng(1))
            for name in ("copy", "kernel", "numpy"):
                with np.errstate(all="ignore"):
                    t = clock()
                    if name == "copy":
                        out = np.copyto(target, source)
                    else:
                        out = call(kernels if name == "kernel" else reference, op, arrays)
                    row[name].append(clock() - t)
                del out

    copy_bytes = 2 * source.nbytes
    print(
        f"Elementwise kernels against memory speed: {args.size:,} {dtype} elements, "
        f"median of {args.repeats} turns, kernels on {kernels.workers.threads} thread(s), "
        f"{'CPU' if args.clock == 'cpu' else 'wall'} seconds"
    )
    print(f"(kernels compiled or loaded in {compile_seconds:.1f} s)")
    header = f"{'op':<15} {'MB moved':>9} {'kernel ms':>10} {'GB/s':>6} {'copy GB/s':>10}"
    print(header + f" {'copy/kernel':>12} {'NumPy GB/s':>11}  verdict")
    misses = []
    for op, row in rows.items():
        kernel = statistics.median(row["kernel"])
        copy = statistics.median(row["copy"])
        numpy = statistics.median(row["numpy"])
        achieved, peak = row["bytes"] / kernel / 1e9, copy_bytes / copy / 1e9
        ratio = peak / achieved
        verdict = "met" if ratio <= 1.25 else "MISSED"
        if not row["agree"]:
            verdict += " (DISAGREES with NumPy)"
        if ratio > 1.25:
            misses.append(op)
        print(
            f"{op:<15} {row['bytes'] / 1e6:9.1f} {kernel * 1e3:10.3f} {achieved:6.1f} "
            f"{peak:10.1f} {ratio:11.2f}x {row['bytes'] / numpy / 1e9:11.1f}  {verdict}"
        )
    print(f"within 1.25x of copy's bandwidth: {len(rows) - len(misses)} of {len(rows)}")
    if misses:
        print("missed:", " ".join(misses))
    print_load()


if __name__ == "__main__":
    main()
