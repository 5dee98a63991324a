"""Expected values without the answer key: the student edition's stored answers.

A check whose ``expected`` is an ``Answer`` gets its value here, before
grading. In the teacher's course and in the Gradescope bundle the teacher's
``minigrad.grade.references`` computes it. The student edition has no
references (they are the answer key); ``release`` stores instead, in
``ANSWERS`` beside this module, the value each ``Answer`` had on the inputs
the edition's grader makes (seed 0, its default: ``default_seed``), keyed by
a hash of the exercise, the check and its inputs. The student edition therefore grades its
own inputs exactly as the teacher's course does, and knows nothing about any
other input: a fresh seed (which Gradescope uses) has no stored answer.

    >>> unpack(pack((1, [float("nan")], {"a": None})))
    (1, [nan], {'a': None})
    >>> value = unpack(pack(named(y=np.arange(2), n=2.5)))
    >>> value._fields, value.y.dtype.name, value.n
    (('y', 'n'), 'int64', 2.5)
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import zlib
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from minigrad.grade.spec import ANSWER_FILLERS, Answer, Check, Exercise, named

ANSWERS = Path(__file__).with_name("answers.json")
# The seeds whose answers the student edition stores: the grader's default.
STORED_SEEDS = (0,)
NO_ANSWER = (
    "this student edition stores the expected answers for the inputs of seed 0 only; "
    "grade without --seed (or with --seed 0)"
)


def references() -> ModuleType | None:
    """The teacher's answer key, or None where it is not shipped (the student edition)."""
    try:
        return importlib.import_module("minigrad.grade.references")
    except ModuleNotFoundError as error:
        if error.name != "minigrad.grade.references":
            raise
        return None


def pack(value: Any) -> Any:
    """``value`` as JSON data that ``unpack`` rebuilds exactly (types, dtypes, tuples' names)."""
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value if np.isfinite(value) else {"float": repr(value)}
    if isinstance(value, np.generic):
        return pack(value.item())
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return {
            "array": base64.b64encode(data.tobytes()).decode(),
            "dtype": data.dtype.str,
            "shape": list(data.shape),
        }
    if isinstance(value, tuple):
        fields = getattr(value, "_fields", None)
        return {"tuple": [pack(item) for item in value], "fields": list(fields or [])}
    if kind is list:
        return [pack(item) for item in value]
    if kind is dict:
        return {"dict": [[pack(k), pack(v)] for k, v in value.items()]}
    raise TypeError(f"cannot store an expected value of type {kind.__name__}")


def unpack(data: Any) -> Any:
    if data is None or type(data) in (bool, int, str, float):
        return data
    if type(data) is list:
        return [unpack(item) for item in data]
    if "float" in data:
        return float(data["float"])
    if "array" in data:
        raw = base64.b64decode(data["array"])
        return np.frombuffer(raw, dtype=np.dtype(data["dtype"])).reshape(data["shape"]).copy()
    if "tuple" in data:
        items = [unpack(item) for item in data["tuple"]]
        return named(**dict(zip(data["fields"], items))) if data["fields"] else tuple(items)
    return {unpack(k): unpack(v) for k, v in data["dict"]}


def default_seed(seed: int | None) -> int | None:
    """``seed``; where it is None and the references are missing (the student
    edition), the seed whose answers are stored, else None (a fresh one)."""
    if seed is None and references() is None:
        return STORED_SEEDS[0]
    return seed


def answer_key(number: str, check: Check, answer: Answer) -> str:
    """The hash that names one check's answer: exercise, check, reference and inputs."""
    text = json.dumps(pack((number, check.name, answer.function, answer.args)), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


_stored: dict[str, Any] | None = None


def _stored_answers() -> dict[str, Any]:
    global _stored
    if _stored is None:
        try:
            _stored = json.loads(ANSWERS.read_text())
        except FileNotFoundError:
            _stored = {}
    return _stored


def _no_answer(expected: Any, got: Any) -> str:
    return NO_ANSWER


def fill_answers(number: str, checks: list[Check]) -> list[Check]:
    """Replace every ``Answer`` in ``checks`` by its value (see the module's docstring).

    A check with no value to be had compares as failed, saying why.
    """
    for check in checks:
        answer = check.expected
        if not isinstance(answer, Answer):
            continue
        check.answer_key = key = answer_key(number, check, answer)
        teacher = references()
        if teacher is not None:
            check.expected = getattr(teacher, answer.function)(*answer.args)
        elif key in _stored_answers():
            check.expected = unpack(_stored_answers()[key])
        else:
            check.expected, check.compare = None, _no_answer
    return checks


def checks_rng(seed: int, number: str) -> np.random.Generator:
    """The generator the grader makes an exercise's inputs from (as ``runner.grade_exercise``)."""
    return np.random.default_rng([seed, zlib.crc32(number.encode())])


def stored_answers(exercises: Iterable[Exercise], seeds: Iterable[int] = STORED_SEEDS) -> dict:
    """``{key: packed value}`` of every ``Answer`` on the inputs of ``seeds`` (teacher side)."""
    if references() is None:
        raise RuntimeError("the answers can only be stored where minigrad.grade.references is")
    table = {}
    for seed in seeds:
        for exercise in exercises:
            for check in exercise.make_checks(checks_rng(seed, exercise.number)):
                if check.answer_key:
                    table[check.answer_key] = pack(check.expected)
    return table


ANSWER_FILLERS.append(fill_answers)
