"""Run every benchmark in this folder, one after the other, each in its own process.

Each script prints its own table; this runner adds a summary of which ones
finished and how long each took. Scripts run with default arguments, one at
a time (they share the machine's cores, so running them together would
spoil every timing).

    python benchmarks/run_all.py                 # all of them
    python benchmarks/run_all.py w2 w5           # the ones whose file name starts so
    python benchmarks/run_all.py --timeout 900   # seconds allowed per script
    python benchmarks/run_all.py --readme        # also put the results table in README.md

Scripts that take ``--json PATH`` (the W benchmarks) also hand over their
numbers; they are gathered into one Markdown table of every engine's median,
minigrad's ratio to it, and each target met or missed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- run_all: begin -->", "<!-- run_all: end -->"
# Targets of the scripts that report none themselves: (peer, most minigrad/peer time).
# (Issue 11's "must" bounds; its goals are 1.0x for both.)
TARGETS = {"W2": ("torch", 1.15), "W5": ("torch", 1.25)}


def scripts(prefixes: list[str]) -> list[Path]:
    """The benchmark scripts here (every ``*.py`` but this one and ``bench.py``), by name prefix."""
    found = sorted(p for p in HERE.glob("*.py") if p.name not in (Path(__file__).name, "bench.py"))
    if prefixes:
        found = [p for p in found if any(p.stem.startswith(prefix) for prefix in prefixes)]
    return found


def run(script: Path, timeout: float, results: list[dict]) -> tuple[str, float]:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, str(script)]
        result_file = Path(tmp) / "result.json"
        if '"--json"' in script.read_text():
            command += ["--json", str(result_file)]
        try:
            done = subprocess.run(command, cwd=HERE.parent, timeout=timeout)
            status = "ok" if done.returncode == 0 else f"exit {done.returncode}"
        except subprocess.TimeoutExpired:
            status = f"timed out after {timeout:g} s"
        if result_file.exists():
            results.append(json.loads(result_file.read_text()))
    return status, time.perf_counter() - start


def table(results: list[dict]) -> str:
    """Markdown: every engine's median and minigrad's ratio to it, then the targets."""
    lines = ["| benchmark | engine | median | minigrad vs it |", "|---|---|---:|---:|"]
    for r in sorted(results, key=lambda r: r["id"]):
        higher = r.get("higher_is_better", False)
        ours = r["results"].get("minigrad", r["results"].get("minigrad default"))
        for engine, value in r["results"].items():
            ratio = f"{value / ours:.2f}x its rate" if higher else f"{ours / value:.2f}x its time"
            lines.append(
                f"| {r['id']} {r['title']} | {engine} | {value:.3g} {r['unit']} | {ratio} |"
            )
    lines += ["", "| target | measured | verdict |", "|---|---:|---|"]
    for r in sorted(results, key=lambda r: r["id"]):
        if not r.get("targets") and r["id"] in TARGETS and "minigrad" in r["results"]:
            peer, bound = TARGETS[r["id"]]
            ratio = r["results"]["minigrad"] / r["results"][peer]
            r["targets"] = [{"text": f"minigrad <= {bound}x {peer}", "ratio": ratio,
                             "met": ratio <= bound}]  # fmt: skip
        for t in r.get("targets", []):
            verdict = "met" if t["met"] else "**missed**"
            lines.append(f"| {r['id']}: {t['text']} | {t['ratio']:.2f}x | {verdict} |")
    return "\n".join(lines)


def write_readme(text: str) -> None:
    """Replace the table between the markers in README.md (appended the first time)."""
    readme = HERE / "README.md"
    body = readme.read_text() if readme.exists() else "# Benchmarks\n"
    if BEGIN not in body:
        body += f"\n## The suite (python benchmarks/run_all.py --readme)\n\n{BEGIN}\n{END}\n"
    before, _, rest = body.partition(BEGIN)
    after = rest.partition(END)[2]
    readme.write_text(f"{before}{BEGIN}\n{text}\n{END}{after}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="run only scripts whose name starts with these")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per script")
    parser.add_argument("--readme", action="store_true", help="write the table into README.md")
    args = parser.parse_args()

    chosen = scripts(args.only)
    if not chosen:
        sys.exit(f"no benchmark matches {args.only}; there are: {[p.stem for p in scripts([])]}")
    summary, results = [], []
    for script in chosen:
        print(f"\n=== {script.name} ===", flush=True)
        summary.append((script.name, *run(script, args.timeout, results)))
    print("\n=== summary ===")
    for name, status, seconds in summary:
        print(f"  {name:<24} {status:<24} {seconds:7.1f} s")
    if results:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        text = (
            f"Measured {datetime.date.today()} on {os.cpu_count()} cores; 2 threads for every "
            f"engine; load average {load:.1f} at the end.\n\n{table(results)}"
        )
        print("\n" + text)
        if args.readme:
            write_readme(text)
    if any(status != "ok" for _, status, _ in summary):
        sys.exit(1)


if __name__ == "__main__":
    main()
