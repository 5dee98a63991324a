"""The student edition of the course: everything but the answers (the autograder).

A teacher keeps one private repository with ``solutions/``; students get a
copy made by ``python -m minigrad.grade release DIR``, the way nbgrader
releases an assignment: the package, the lessons (without outputs), the
exercises as stubs generated afresh from ``solutions/``, the tests that
reveal no answer, and a README without the teachers' part. The grader's
answer key, ``minigrad/grade/references.py``, stays behind: the edition gets
instead the values it gives on the edition's own inputs (``answers.json``,
see ``minigrad.grade.answers``). Before it finishes, it reads every file it
wrote and refuses (deleting the copy) if any holds a line of an answer.

    >>> block = "    # BEGIN SOLUTION\\n    return x * x + 1.0\\n    # END SOLUTION\\n"
    >>> answer_runs("def f(x):\\n" + block)
    {('return x * x + 1.0',)}
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from minigrad.grade.answers import ANSWERS, stored_answers
from minigrad.grade.checks import EXERCISES
from minigrad.grade.generate import BEGIN, END, strip_solutions

# What a student gets from the course root; everything else stays behind.
SHIPPED = [
    "minigrad",
    "lessons",
    "tests",
    "docs",
    "benchmarks",
    ".ci",
    "setup.sh",
    "pyproject.toml",
]
SKIPPED_NAMES = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", "_build", "grade_fixtures"}
# The docs build fills these (from lessons/ and from the MathJax package).
SKIPPED_PATHS = {"docs/lessons", "docs/generated", "docs/_static/mathjax"}
# The grader's answer key, and the answers stored in an edition (made afresh).
TEACHERS_FILES = {"minigrad/grade/references.py", "minigrad/grade/answers.json"}
TEACHERS_ONLY = ("<!-- teachers -->", "<!-- /teachers -->")
GITIGNORE = ".venv/\n__pycache__/\n*.egg-info/\n.pytest_cache/\n.ipynb_checkpoints/\ndocs/_build/\n"
# A leak is this many consecutive lines of one answer block (or the whole of a
# shorter block) in one file: single lines such as ``i = cuda.grid(1)`` are the
# idioms the lessons teach, and appear in the library too.
LEAK_RUN = 3


class ReleaseError(Exception):
    """The student edition could not be made safely; nothing was left behind."""


def _code_lines(text: str) -> list[str]:
    """The stripped lines that carry code: no blank lines, no comments."""
    return [s for s in (line.strip() for line in text.splitlines()) if s and s[0] != "#"]


def answer_runs(solution: str) -> set[tuple[str, ...]]:
    """Every run of ``LEAK_RUN`` consecutive code lines inside a solution block.

    A block shorter than that is one run. Runs of lines that stand outside
    the blocks too (code the exercise gives) do not count.
    """
    blocks, outside, current = [], [], None
    for line in solution.splitlines():
        if BEGIN.match(line):
            current = []
        elif END.match(line):
            blocks.append(_code_lines("\n".join(current or [])))
            current = None
        elif current is not None:
            current.append(line)
        else:
            outside.append(line)
    given = _runs(_code_lines("\n".join(outside)))
    return {run for block in blocks for run in _runs(block)} - given


def _runs(lines: list[str]) -> set[tuple[str, ...]]:
    size = min(LEAK_RUN, len(lines))
    return {tuple(lines[i : i + size]) for i in range(len(lines) - size + 1)} if size else set()


def students_readme(readme: str) -> str:
    """The README without the parts between ``<!-- teachers -->`` markers.

    >>> students_readme("a\\n<!-- teachers -->\\nsecret\\n<!-- /teachers -->\\nb\\n")
    'a\\nb\\n'
    """
    start, end = TEACHERS_ONLY
    out, hidden = [], False
    for line in readme.splitlines(keepends=True):
        if line.strip() == start:
            hidden = True
        elif line.strip() == end:
            hidden = False
        elif not hidden:
            out.append(line)
    return "".join(out)


def clean_notebook(text: str) -> str:
    """A notebook's JSON with every output and execution count removed."""
    notebook = json.loads(text)
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def _files(root: Path) -> Iterator[Path]:
    """The shipped files under ``root``, relative to it."""
    for top in SHIPPED:
        path = root / top
        candidates = [path] if path.is_file() else sorted(path.rglob("*"))
        for file in candidates:
            relative = file.relative_to(root)
            if not file.is_file() or file.suffix == ".pyc":
                continue
            if SKIPPED_NAMES & set(relative.parts):
                continue
            if any(relative.as_posix().startswith(skip + "/") for skip in SKIPPED_PATHS):
                continue
            if relative.as_posix() in TEACHERS_FILES:
                continue
            if relative.parts[0] == "tests" and _touches_solutions(file):
                continue  # a teacher's test: it reads solutions/
            yield relative


def _touches_solutions(file: Path) -> bool:
    try:
        text = file.read_text()
    except (UnicodeDecodeError, OSError):
        return False
    return (
        "solutions" in text.lower()
        or "BEGIN SOLUTION" in text
        or "minigrad.grade.references" in text
        or "grade import references" in text
    )


def find_leaks(edition: Path, solutions: Path) -> list[str]:
    """``"file:line: text (from solution)"`` for every answer run found in ``edition``."""
    secrets: dict[tuple[str, ...], str] = {}
    for solution in sorted(solutions.glob("lesson*.py")):
        for run in answer_runs(solution.read_text()):
            secrets.setdefault(run, solution.name)
    sizes = {len(run) for run in secrets}
    leaks = []
    for file in sorted(p for p in edition.rglob("*") if p.is_file() and ".git" not in p.parts):
        try:
            text = file.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        if file.suffix == ".ipynb":
            text = "\n".join(
                "".join(cell.get("source", "")) for cell in json.loads(text).get("cells", [])
            )
        where = file.relative_to(edition)
        if any(BEGIN.match(line) or END.match(line) for line in text.splitlines()):
            leaks.append(f"{where}: holds a solution marker")
        lines = _code_lines(text)
        for size in sizes:
            for i in range(len(lines) - size + 1):
                run = tuple(lines[i : i + size])
                if run in secrets:
                    leaks.append(f"{where}: {' / '.join(run)} (from {secrets[run]})")
    return leaks


def release(course: Path, target: Path, git: bool = False) -> list[Path]:
    """Write the student edition of ``course`` into ``target`` (new or empty).

    Returns the files written, relative to ``target``. Raises ``ReleaseError``
    (and removes what it wrote) if ``target`` has files or an answer leaked.
    With ``git``, the edition becomes a repository with one fresh commit.
    """
    solutions = course / "solutions"
    if not solutions.is_dir():
        raise ReleaseError(f"{course} has no solutions/ folder: is it the teacher's course?")
    if target.exists() and any(target.iterdir()):
        raise ReleaseError(f"{target} is not empty: release writes into a new folder")
    if target.resolve().is_relative_to(course.resolve()):
        raise ReleaseError(f"{target} is inside the course; choose a folder outside it")
    written = []
    target.mkdir(parents=True, exist_ok=True)
    try:
        for relative in _files(course):
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            source = course / relative
            if source.suffix == ".ipynb":
                destination.write_text(clean_notebook(source.read_text()))
            else:
                shutil.copy2(source, destination)
            written.append(relative)
        for solution in sorted(solutions.glob("lesson*.py")):
            stub = Path("exercises") / solution.name
            (target / "exercises").mkdir(exist_ok=True)
            (target / stub).write_text(strip_solutions(solution.read_text()))
            written.append(stub)
        answers = target / "minigrad" / "grade" / ANSWERS.name
        answers.write_text(json.dumps(stored_answers(EXERCISES), sort_keys=True) + "\n")
        written.append(answers.relative_to(target))
        readme = students_readme((course / "README.md").read_text())
        (target / "README.md").write_text(readme)
        (target / ".gitignore").write_text(GITIGNORE)
        written += [Path("README.md"), Path(".gitignore")]
        leaks = find_leaks(target, solutions)
        if leaks:
            raise ReleaseError("answer text would ship:\n  " + "\n  ".join(leaks[:20]))
        if git:
            _fresh_repository(target)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return written


def _fresh_repository(target: Path) -> None:
    """One commit, no history: nothing of the teacher's repository comes along."""
    if shutil.which("git") is None:
        raise ReleaseError("--git needs the git program")
    identity = ["-c", "user.name=minigrad release", "-c", "user.email=release@minigrad.invalid"]
    for command in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", *identity, "commit", "-q", "-m", "minigrad course: student edition"],
    ):
        run = subprocess.run(command, cwd=target, capture_output=True, text=True)
        if run.returncode != 0:
            raise ReleaseError(f"{' '.join(command)} failed: {run.stderr.strip()}")
