"""The autograder for ``exercises/`` (every lesson has exercises; see README, "Grading").

From a shell::

    python -m minigrad.grade [DIR] [--exercise NAME] [--json results.json] [--timeout S]

From a lesson notebook::

    import minigrad.grade
    minigrad.grade.check("1.1")      # or "numerical_derivative": grade it, show the table

Each exercise runs in its own child process with a time limit; the child
hands back outputs only, and the grader compares them with references it
computed itself (see ``runner`` and ``channel``).

    >>> [ex.title for ex in select(["1.1"])]
    ['1.1 numerical_derivative']
"""

from __future__ import annotations

import os
from pathlib import Path

from minigrad.grade.answers import default_seed
from minigrad.grade.checks import EXERCISES
from minigrad.grade.report import Report
from minigrad.grade.runner import DEFAULT_TIMEOUT, PACKAGE_ROOT, grade
from minigrad.grade.spec import Exercise

__all__ = ["EXERCISES", "Report", "check", "find_exercises", "grade", "select"]


def select(names: list[str] | None = None) -> list[Exercise]:
    """The exercises named (number, name, or both; a bare lesson number means all of it).

    Unknown names raise ``ValueError`` listing what exists.
    """
    if not names:
        return list(EXERCISES)
    chosen: list[Exercise] = []
    for name in names:
        found = [ex for ex in EXERCISES if ex.matches(name) or name.strip() == str(ex.lesson)]
        if not found:
            known = ", ".join(ex.title for ex in EXERCISES)
            raise ValueError(f"no exercise called {name!r}; the exercises are: {known}")
        chosen += [ex for ex in found if ex not in chosen]
    return chosen


def find_exercises(start: str | os.PathLike | None = None) -> Path:
    """The ``exercises/`` folder to grade, found from any folder inside the course.

    It walks up from ``start`` (default: the working folder): a folder named
    ``exercises`` is the one; else the first ancestor holding ``exercises/``.
    Outside any course it falls back to the one beside the package.
    """
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if folder.name == "exercises" and folder.is_dir():
            return folder
        if (folder / "exercises").is_dir():
            return folder / "exercises"
    if (PACKAGE_ROOT / "exercises").is_dir():
        return PACKAGE_ROOT / "exercises"
    raise FileNotFoundError(
        f"no exercises/ folder in {here} or any folder above it; "
        "run from inside the course, or pass the folder: check(name, directory=...)"
    )


def check(
    name: str,
    directory: str | os.PathLike | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    sandbox: bool | str = True,
) -> Report:
    """Grade one exercise of the student's file as saved now; show the table; return it.

    ``directory`` defaults to the ``exercises/`` folder ``find_exercises`` finds.
    In Jupyter the table is shown as HTML, elsewhere printed as text.
    """
    folder = Path(directory) if directory is not None else find_exercises()
    seed = default_seed(None)  # fresh, but in the students' edition its stored inputs
    report = grade(folder, select([name]), timeout=timeout, sandbox=sandbox, seed=seed)
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(report)
        report.shown = True  # the cell's echo of the returned report shows nothing more
    else:
        print(report.to_text())
    return report
