"""How an exercise is graded: checks, probes and comparisons (the autograder).

An exercise is a list of *checks*. Each check names

- a ``probe``: a function ``probe(module, args)`` that runs in the child
  process. It feeds ``args`` to the submission's code and returns the outputs
  (plain data). A probe never decides anything.
- ``args``: inputs the grader made (random ones from a seeded generator),
- ``expected``: the reference answer, computed in the grader's own process;
  an ``Answer`` names a function of the teacher's ``minigrad.grade.references``
  (the answer key, never shipped to students) and is replaced by its value
  before grading (see ``minigrad.grade.answers``),
- ``compare(expected, got)``: runs in the grader's process; returns ``None``
  when the output is right, else a short "expected ..., got ..." message.

Checks are worth ``points`` each, so an exercise earns partial credit.

    >>> close(np.ones(2), [1.0, 1.0 + 1e-12]) is None
    True
    >>> close(np.ones(2), [1.0, 2.0])
    'expected [1. 1.], got [1. 2.]'
"""

from __future__ import annotations

import ast
import re
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

Probe = Callable[[Any, Any], Any]
Compare = Callable[[Any, Any], "str | None"]


def shown(value: Any, limit: int = 160) -> str:
    """A short printable form of a value for the results table."""
    if isinstance(value, np.ndarray):
        with np.printoptions(precision=6, threshold=12, edgeitems=3):
            text = np.array2string(value, separator=" ")
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def close(expected: Any, got: Any, rtol: float = 1e-6, atol: float = 1e-9) -> str | None:
    """Compare nested numbers, arrays, strings and tuples the way the grader does.

    Numbers and arrays must match in shape and agree to ``rtol``/``atol``;
    a tuple expects a list of the same length, compared item by item; strings,
    booleans and ``None`` must be equal. All of it runs on the grader's side.
    """
    if isinstance(expected, tuple):
        if type(got) is not list or len(got) != len(expected):
            return f"expected {len(expected)} results, got {shown(got)}"
        # A named tuple names its items (grad_a, grad_b); a plain one numbers them.
        names = getattr(expected, "_fields", None) or [f"[{i}]" for i in range(len(expected))]
        for name, want, have in zip(names, expected, got):
            problem = close(want, have, rtol, atol)
            if problem is not None:
                return f"{name}: {problem}"
        return None
    if isinstance(expected, dict):
        if type(got) is not dict or set(got) != set(expected):
            return f"expected keys {sorted(expected)}, got {shown(got)}"
        for key in expected:
            problem = close(expected[key], got[key], rtol, atol)
            if problem is not None:
                return f"{key}{problem}" if problem.startswith("[") else f"{key}: {problem}"
        return None
    if expected is None or isinstance(expected, (str, bool)):
        if type(got) is not type(expected) or got != expected:
            return f"expected {shown(expected)}, got {shown(got)}"
        return None
    want = np.asarray(expected, dtype=np.float64)
    try:
        have = np.asarray(_numeric(got), dtype=np.float64)
    except (TypeError, ValueError):
        return f"expected numbers shaped {want.shape}, got {shown(got)}"
    if have.shape != want.shape:
        return f"expected shape {want.shape}, got shape {have.shape}: {shown(have)}"
    if not np.allclose(have, want, rtol=rtol, atol=atol, equal_nan=True):
        return f"expected {shown(want)}, got {shown(have)}"
    return None


def _numeric(got: Any) -> Any:
    """Only numbers, arrays and lists of them count as numbers (not bools or strings)."""
    if isinstance(got, np.ndarray) or type(got) in (int, float):
        return got
    if type(got) is list:
        return [_numeric(item) for item in got]
    raise TypeError(type(got).__name__)


def named(**values: Any) -> tuple:
    """A tuple of expected results whose items ``close`` reports by name.

    >>> close(named(y=1.0, dy=2.0), [1.0, 3.0])
    'dy: expected 2.0, got 3.0'
    """
    return namedtuple("Results", values)(**values)


def within(rtol: float = 1e-6, atol: float = 1e-9) -> Compare:
    """``close`` with other tolerances."""
    return partial(close, rtol=rtol, atol=atol)


@dataclass(frozen=True)
class Answer:
    """The expected value ``minigrad.grade.references.<function>(*args)``.

    The references are the answer key: the teacher's course and the Gradescope
    bundle hold them, the student edition does not. There, an ``Answer`` is
    looked up among the values ``release`` stored for the edition's own inputs.
    """

    function: str
    args: tuple

    def __init__(self, function: str, *args: Any) -> None:
        object.__setattr__(self, "function", function)
        object.__setattr__(self, "args", args)


@dataclass
class Check:
    """One graded fact about a submission."""

    name: str
    probe: Probe
    args: Any
    expected: Any
    compare: Compare = close
    points: float = 1.0
    # A property the grader also checks in the source ("recursion", "loops", "instruments"),
    # because the child could fake it (see ``source.faked``).
    measures: str = ""
    # Where an ``Answer`` gave ``expected``: its key in the student edition's table.
    answer_key: str = ""
    # An edge case that a function doing nothing (handing back its input, an empty
    # result, the input unchanged) also gets right: it earns its points only when
    # a check of the general case passes too (see ``report.ExerciseResult``).
    edge: bool = False


@dataclass
class Exercise:
    """An exercise: where it lives and how its checks are made."""

    number: str
    name: str
    file: str
    make_checks: Callable[[np.random.Generator], list[Check]]
    env: dict[str, str] = field(default_factory=dict)
    # minigrad's own implementations of this exercise: calling one scores zero.
    shortcuts: tuple[str, ...] = ()
    # The names of its edge checks (``Check.edge``), recorded as its checks are made.
    edge_checks: set[str] = field(default_factory=set)

    @property
    def title(self) -> str:
        return f"{self.number} {self.name}"

    @property
    def lesson(self) -> int:
        return int(self.number.split(".")[0])

    def matches(self, name: str) -> bool:
        """``"1.1"``, ``"numerical_derivative"`` and ``"1.1 numerical_derivative"`` all match."""
        wanted = " ".join(name.lower().split())
        return wanted in (self.number, self.name.lower(), self.title.lower())


EXERCISES: list[Exercise] = []
TITLE = re.compile(r"^Exercise (\d+\.\d+):")
HINT = re.compile(r"^Hint \(lesson (\d+)\):\s*(.*)$", re.DOTALL)


def exercise_hints(source: str) -> dict[str, str]:
    """``{"N.M": hint}`` for every exercise docstring in ``source`` (read, never run)."""
    return docstring_hints(ast.parse(source))


def docstring_hints(tree: ast.Module) -> dict[str, str]:
    """``{"N.M": hint}`` for every exercise docstring of a parsed module."""
    hints = {}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        doc = ast.get_docstring(node) or ""
        title = TITLE.match(doc)
        if not title:
            continue
        paragraphs = doc.split("\n\n")
        hint = next((p for p in paragraphs if HINT.match(p.strip())), "")
        hints[title.group(1)] = " ".join(hint.split())
    return hints


# What gives an ``Answer`` its value: ``minigrad.grade.answers`` puts its ``fill_answers``
# here when imported (the package imports it first). It imports this module, so this
# module names it only through this list: the grader's modules import one way.
ANSWER_FILLERS: list[Callable[[str, list[Check]], list[Check]]] = []


def exercise(
    number: str,
    name: str,
    file: str,
    env: dict[str, str] | None = None,
    shortcuts: tuple[str, ...] = (),
) -> Callable[[Callable[[np.random.Generator], list[Check]]], Exercise]:
    """Register the decorated check maker as exercise ``number`` in ``file``."""
    if not re.fullmatch(r"\d+\.\d+", number):
        raise ValueError(f"exercise numbers look like '3.2', not {number!r}")

    def register(make_checks: Callable[[np.random.Generator], list[Check]]) -> Exercise:
        def checks_with_answers(rng: np.random.Generator) -> list[Check]:
            checks = make_checks(rng)
            for fill in ANSWER_FILLERS:
                checks = fill(number, checks)
            entry.edge_checks.update(check.name for check in checks if check.edge)
            return checks

        checks_with_answers.__doc__ = make_checks.__doc__
        entry = Exercise(number, name, file, checks_with_answers, dict(env or {}), tuple(shortcuts))
        EXERCISES.append(entry)
        return entry

    return register


def probe_path(probe: Probe) -> str:
    """Where the child finds a probe: ``"scalars:probe_derivative"`` is a function of
    ``minigrad/grade/probes/scalars.py`` (the only place the child loads code from)."""
    package, _, module = probe.__module__.rpartition(".")
    if package != "minigrad.grade.probes":
        raise ValueError(f"probes live in minigrad.grade.probes, not {probe.__module__}")
    return f"{module}:{probe.__qualname__}"
