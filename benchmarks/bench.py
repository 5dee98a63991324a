"""What the benchmark scripts here share: threads, timing, the printed table, targets, JSON.

Not a benchmark itself (``run_all.py`` skips it). The scripts run as
``python benchmarks/<name>.py``, which puts this folder on ``sys.path``, so
they say ``from bench import ...``. It imports nothing but the standard
library: ``pin_threads`` must run before NumPy loads its BLAS.

- ``pin_threads(n)``: every thread pool (OpenMP, OpenBLAS, MKL, numba) gets
  ``n`` threads, unless the environment already says otherwise;
- ``median_seconds(fn, repeats)``: the median wall time of ``fn()``;
- ``print_table(values, unit, decimals)``: engine, median, minigrad's time
  over the engine's;
- ``target(text, ratio, met)``: prints ``target ...: met|MISSED (1.23x)`` and
  returns the entry for the result's ``"targets"``;
- ``write_json(path, result)``: the result dict that ``run_all.py`` gathers;
- ``json_child(command)``: run a measurement in a fresh process, read back
  the JSON line it prints last.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def pin_threads(threads: int) -> None:
    """Give every thread pool ``threads`` threads (where not set); call before importing NumPy."""
    for var in THREAD_VARS:
        os.environ.setdefault(var, str(threads))


def median_seconds(fn: Callable[[], object], repeats: int, sync: Callable | None = None) -> float:
    """Median wall time of ``fn()`` over ``repeats`` calls (``sync()`` after each, if given).

    No warm-up: the caller runs ``fn`` once first where it compiles or checks.
    """
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        if sync is not None:
            sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(
    ours: Callable[[], object], theirs: Callable[[], object], repeats: int
) -> tuple[list[float], list[float]]:
    """Milliseconds of each, taking turns (after one untimed run each)."""
    ours(), theirs()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for fn, out in ((ours, times[0]), (theirs, times[1])):
            start = time.perf_counter()
            fn()
            out.append((time.perf_counter() - start) * 1e3)
    return times


def print_table(values: dict[str, float], unit: str, decimals: int) -> None:
    """One row per engine: its median in ``unit``, and minigrad's time over the engine's."""
    ours = values["minigrad"]
    print(f"  {'engine':<16} {unit:>9} {'minigrad / it':>14}")
    for name, value in values.items():
        print(f"  {name:<16} {value:9.{decimals}f} {ours / value:13.2f}x")


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def target(text: str, ratio: float, met: bool, shown: str | None = None) -> dict:
    """Print whether a target is met (as ``shown``, if given) and return its JSON entry."""
    print(f"  target {shown or text}: {verdict(met)} ({ratio:.2f}x)")
    return {"text": text, "ratio": ratio, "met": met}


def clock_from_env() -> tuple[str, object]:
    """The clock the W-scripts time with: wall time, or (``BENCH_CLOCK=cpu``) this process's
    CPU time, every thread's, which other programs' load on a busy machine barely changes.

    Each engine is timed the same way in one run, so their ratio stays meaningful; CPU
    time leaves out only waiting (for the scheduler, or for memory pages).
    """
    if os.environ.get("BENCH_CLOCK", "wall") == "cpu":
        return "cpu", time.process_time
    return "wall", time.perf_counter


def print_load(label: str = "load average while measuring") -> None:
    print(f"  {label}: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def write_json(path: str, result: dict) -> None:
    """Write a script's results (``--json PATH``) for ``run_all.py`` to gather."""
    Path(path).write_text(json.dumps(result, indent=1))


def json_child(command: list[str], env: dict[str, str] | None = None) -> dict:
    """Run ``command`` (a fresh process) and return the JSON object on its last line of output."""
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])
