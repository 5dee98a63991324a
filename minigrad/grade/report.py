"""Grading results: a table for people, ``results.json`` for Gradescope (the autograder).

>>> result = CheckResult("forward", 1.0, None)
>>> result.passed, result.score
(True, 1.0)
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minigrad.grade.spec import HINT, Exercise

EDGE_ALONE = (
    "right, but a function that does nothing gets this case right too: "
    "it counts once a check of the general case passes"
)


@dataclass
class CheckResult:
    """One check: its points and, when it failed, why (``problem``)."""

    name: str
    max_score: float
    problem: str | None

    @property
    def passed(self) -> bool:
        return self.problem is None

    @property
    def score(self) -> float:
        return self.max_score if self.passed else 0.0


@dataclass
class ExerciseResult:
    """The checks of one exercise, the hint to show, and the tail of what it printed."""

    exercise: Exercise
    checks: list[CheckResult]
    output: str
    hint: str = ""

    def __post_init__(self) -> None:
        # An edge check alone proves nothing: a function that does nothing passes it.
        edges = self.exercise.edge_checks
        if edges and not any(c.passed for c in self.checks if c.name not in edges):
            for check in self.checks:
                if check.name in edges and check.passed:
                    check.problem = EDGE_ALONE

    @property
    def score(self) -> float:
        return sum(check.score for check in self.checks)

    @property
    def max_score(self) -> float:
        return sum(check.max_score for check in self.checks)

    def failures(self) -> list[tuple[str, str]]:
        """``(which checks, why)`` for each distinct reason checks failed."""
        reasons: dict[str, list[str]] = {}
        for check in self.checks:
            if not check.passed:
                reasons.setdefault(check.problem or "", []).append(check.name)
        return [
            ("all checks" if len(names) == len(self.checks) > 1 else "; ".join(names), problem)
            for problem, names in reasons.items()
        ]

    def hint_shown(self) -> bool:
        """Whether a failure already reads out the hint (a stub's error carries it)."""
        body = HINT.match(self.hint)
        text = " ".join((body.group(2) if body else self.hint).split())
        return bool(text) and any(text in " ".join(p.split()) for _, p in self.failures())

    def details(self) -> str:
        """The failures, the hint and the tail of what the submission printed: plain text."""
        passed = sum(check.passed for check in self.checks)
        lines = [f"{passed}/{len(self.checks)} checks passed"]
        failures = self.failures()
        for which, problem in failures:
            lines.append(f"FAILED {which}:\n  " + problem.replace("\n", "\n  "))
        if failures and self.hint and not self.hint_shown():
            lines.append(self.hint)
        if self.output.strip():
            lines.append("What the submission printed (last lines):\n" + self.output.rstrip())
        return "\n".join(lines)


def _points(x: float) -> str:
    return f"{x:g}"


@dataclass
class Report:
    """All graded exercises of one submission folder."""

    exercises: list[ExerciseResult]
    directory: Path
    execution_time: float | None = None  # seconds, when the caller timed the grading
    seed: int | None = None  # of the random inputs (fresh each run unless fixed)
    left_out: list[str] = field(default_factory=list)  # of the submission's copy (submission)
    # check() sets it after showing the table, so that the report it returns,
    # echoed as a notebook cell's value, does not show the table a second time.
    shown: bool = field(default=False, repr=False, compare=False)

    @property
    def score(self) -> float:
        return sum(result.score for result in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(result.max_score for result in self.exercises)

    def __repr__(self) -> str:
        return f"<grade report: {_points(self.score)}/{_points(self.max_score)} points>"

    def _ipython_display_(self) -> None:
        from IPython.display import HTML, display

        if self.shown:
            self.shown = False
            return
        display(HTML(self.to_html()))

    def to_text(self) -> str:
        """A readable table: one row per exercise, then the failing checks."""
        width = max([len(r.exercise.title) for r in self.exercises] + [8])
        lines = [f"{'exercise':<{width}}  score", "-" * (width + 12)]
        for result in self.exercises:
            mark = "ok" if result.score == result.max_score else ""
            points = f"{_points(result.score)}/{_points(result.max_score)}"
            lines.append(f"{result.exercise.title:<{width}}  {points:<8} {mark}")
        lines.append("-" * (width + 12))
        lines.append(f"{'total':<{width}}  {_points(self.score)}/{_points(self.max_score)}")
        if self.seed is not None:
            lines.append(f"(inputs drawn with seed {self.seed}: --seed {self.seed} repeats them)")
        if self.left_out:
            lines.append("not copied for grading: " + "; ".join(self.left_out[:10]))
        for result in self.exercises:
            if result.score < result.max_score:
                body = result.details().replace("\n", "\n    ")
                lines.append(f"\n{result.exercise.title}:\n    {body}")
        return "\n".join(lines)

    def to_html(self) -> str:
        """The same table as HTML, for a notebook."""
        rows = []
        for result in self.exercises:
            failing = result.failures()
            detail = "".join(
                f"<div><b>{html.escape(which)}</b>:<pre>{html.escape(problem)}</pre></div>"
                for which, problem in failing
            )
            if failing and result.hint and not result.hint_shown():
                detail += f"<div><i>{html.escape(result.hint)}</i></div>"
            color = "#2e7d32" if not failing else "#c62828"
            rows.append(
                f"<tr><td>{html.escape(result.exercise.title)}</td>"
                f'<td style="color:{color}">{_points(result.score)}/'
                f"{_points(result.max_score)}</td>"
                f'<td style="text-align:left">{detail or "all checks passed"}</td></tr>'
            )
        return (
            "<table><tr><th>exercise</th><th>score</th><th>details</th></tr>"
            + "".join(rows)
            + f"<tr><td><b>total</b></td><td><b>{_points(self.score)}/"
            f"{_points(self.max_score)}</b></td><td></td></tr></table>"
        )

    def to_gradescope(self, visibility: str = "visible") -> dict[str, Any]:
        """Gradescope's ``results.json``: the total score and one test per exercise.

        ``visibility`` applies to the whole result and to each test (Gradescope's
        values: ``visible``, ``hidden``, ``after_due_date``, ``after_published``).

        >>> Report([], Path("."), execution_time=1.25).to_gradescope()["execution_time"]
        1.25
        """
        results: dict[str, Any] = {
            "score": self.score,
            "execution_time": round(self.execution_time or 0.0, 3),
            "visibility": visibility,
            "stdout_visibility": visibility,
            "output": f"minigrad grader: {_points(self.score)}/{_points(self.max_score)} points"
            + (f" (inputs drawn with seed {self.seed})" if self.seed is not None else ""),
            "tests": [
                {
                    "name": result.exercise.title,
                    "number": result.exercise.number,
                    "score": result.score,
                    "max_score": result.max_score,
                    "output": result.details(),
                    "visibility": visibility,
                }
                for result in self.exercises
            ],
        }
        return results

    def write_json(self, path: str | os.PathLike, visibility: str = "visible") -> None:
        """Write ``to_gradescope()`` to ``path``, creating its folder if missing."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self.to_gradescope(visibility), indent=2) + "\n")
