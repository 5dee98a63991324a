"""``python -m minigrad.grade``: grade a folder of exercises (see README, "Grading").

Two more commands, for teachers:

    python -m minigrad.grade release DIR          # the student edition, without answers
    python -m minigrad.grade gradescope OUT.zip   # the Gradescope autograder bundle
    python -m minigrad.grade gradescope OUT.zip --exercise 13   # one lesson's assignment
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from minigrad.grade import DEFAULT_TIMEOUT, find_exercises, grade, select
from minigrad.grade.answers import default_seed
from minigrad.grade.gradescope import bundle
from minigrad.grade.release import ReleaseError, release
from minigrad.grade.runner import PACKAGE_ROOT
from minigrad.grade.sandbox import SandboxError

COMMANDS = ("release", "gradescope")


def teacher_command(argv: list[str]) -> int:
    """``release DIR`` or ``gradescope OUT.zip``, run on the course this package is in."""
    parser = argparse.ArgumentParser(prog="python -m minigrad.grade")
    commands = parser.add_subparsers(dest="command", required=True)
    student = commands.add_parser(
        "release", help="write the student edition of the course (no solutions) into DIR"
    )
    student.add_argument("directory", type=Path, help="a new or empty folder")
    student.add_argument(
        "--git", action="store_true", help="make it a git repository with one fresh commit"
    )
    zipped = commands.add_parser("gradescope", help="write the Gradescope autograder zip")
    zipped.add_argument("out", type=Path, metavar="OUT.zip")
    zipped.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S")
    zipped.add_argument(
        "--exercise",
        action="append",
        metavar="NAME",
        help="grade only this exercise ('13.1', its name, or a lesson '13'); repeatable: "
        "an assignment of part of the course",
    )
    args = parser.parse_args(argv)
    if args.command == "release":
        try:
            written = release(PACKAGE_ROOT, args.directory, git=args.git)
        except ReleaseError as error:
            print(f"release: {error}", file=sys.stderr)
            return 1
        print(f"wrote the student edition ({len(written)} files) to {args.directory}")
        return 0
    if args.out.suffix != ".zip":
        parser.error(f"the bundle is a zip file: {args.out} does not end in .zip")
    try:
        names = bundle(PACKAGE_ROOT, args.out, timeout=args.timeout, exercises=args.exercise)
    except ValueError as error:
        parser.error(str(error))
    graded = ", ".join(args.exercise) if args.exercise else "every exercise"
    print(
        f"wrote {args.out} ({len(names)} files, grading {graded}): upload it as the "
        "autograder on Gradescope"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in COMMANDS:
        return teacher_command(argv)
    parser = argparse.ArgumentParser(
        prog="python -m minigrad.grade",
        description="Grade minigrad exercises, each in its own sandboxed process with a time "
        "limit. Exits 0 whenever grading ran, whatever the score; 3 when the sandbox cannot "
        "engage (nothing graded).",
    )
    parser.add_argument(
        "directory",
        nargs="?",
        type=Path,
        help="folder with the lessonNN_*.py files (default: the course's exercises/, "
        "found from any folder inside the course)",
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
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the random inputs (default: a fresh one each run, printed with the "
        "scores; in the students' edition, 0, the inputs whose answers it stores)",
    )
    parser.add_argument(
        "--sandbox",
        choices=("namespaces", "account"),
        default=None,
        help="the sandbox to use (default: namespaces where the kernel allows them; as root "
        "where it does not, a made-up user per exercise); it fails when unavailable",
    )
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run the exercises as your own user, with resource limits only: for work you "
        "trust. Without it the grader refuses to run where its sandbox cannot engage",
    )
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
    if args.directory is None:
        try:
            args.directory = find_exercises()
        except FileNotFoundError as error:
            parser.error(str(error))
    if not args.directory.is_dir():
        parser.error(f"no folder {args.directory} to grade")
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    started = time.monotonic()
    try:
        report = grade(
            args.directory,
            exercises,
            timeout=args.timeout,
            seed=default_seed(args.seed),
            jobs=args.jobs,
            sandbox=False if args.no_sandbox else (args.sandbox or True),
        )
    except SandboxError as error:
        print(f"minigrad grader: nothing was graded: {error}", file=sys.stderr)
        return 3
    report.execution_time = time.monotonic() - started
    print(report.to_text())
    if args.json:
        try:
            report.write_json(args.json)
        except OSError as error:
            print(f"could not write {args.json}: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
