"""Run every benchmark in this folder, one after the other, each in its own process.

Each script prints its own table; this runner adds a summary of which ones
finished and how long each took. Scripts run with default arguments, one at
a time (they share the machine's cores, so running them together would
spoil every timing).

    python benchmarks/run_all.py                 # all of them
    python benchmarks/run_all.py w2 w5           # the ones whose file name starts so
    python benchmarks/run_all.py --timeout 900   # seconds allowed per script
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts(prefixes: list[str]) -> list[Path]:
    """The benchmark scripts here (every ``*.py`` but this one), filtered by name prefix."""
    found = sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name)
    if prefixes:
        found = [p for p in found if any(p.stem.startswith(prefix) for prefix in prefixes)]
    return found


def run(script: Path, timeout: float) -> tuple[str, float]:
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, str(script)], cwd=HERE.parent, timeout=timeout)
        status = "ok" if done.returncode == 0 else f"exit {done.returncode}"
    except subprocess.TimeoutExpired:
        status = f"timed out after {timeout:g} s"
    return status, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="run only scripts whose name starts with these")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per script")
    args = parser.parse_args()

    chosen = scripts(args.only)
    if not chosen:
        sys.exit(f"no benchmark matches {args.only}; there are: {[p.stem for p in scripts([])]}")
    summary = []
    for script in chosen:
        print(f"\n=== {script.name} ===", flush=True)
        summary.append((script.name, *run(script, args.timeout)))
    print("\n=== summary ===")
    for name, status, seconds in summary:
        print(f"  {name:<24} {status:<24} {seconds:7.1f} s")
    if any(status != "ok" for _, status, _ in summary):
        sys.exit(1)


if __name__ == "__main__":
    main()
