"""``python -m minigrad.grade``: grade a folder of exercises (see README, "Grading")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from minigrad.grade import DEFAULT_TIMEOUT, grade, select


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m minigrad.grade",
        description="Grade minigrad exercises, each in its own process with a time limit. "
        "Exits 0 whenever grading ran, whatever the score.",
    )
    parser.add_argument(
        "directory",
        nargs="?",
        default="exercises",
        type=Path,
        help="folder with the lessonNN_*.py files (default: exercises/)",
    )
    parser.add_argument(
        "--exercise",
        action="append",
        metavar="NAME",
        help="grade only this exercise ('1.1' or its name); repeatable",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="PATH",
        help="also write Gradescope's results.json format to PATH",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help=f"seconds per exercise (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--jobs", type=int, default=None, help="exercises graded at once")
    parser.add_argument("--list", action="store_true", help="list the exercises and exit")
    args = parser.parse_args(argv)
    try:
        exercises = select(args.exercise)
    except ValueError as error:
        parser.error(str(error))
    if args.list:
        for ex in exercises:
            print(f"{ex.title:<32} {ex.file}")
        return 0
    if not args.directory.is_dir():
        parser.error(f"no folder {args.directory} to grade")
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    report = grade(args.directory, exercises, timeout=args.timeout, seed=args.seed, jobs=args.jobs)
    print(report.to_text())
    if args.json:
        report.write_json(args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
