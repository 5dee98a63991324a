"""Probes for lesson 13: passes over a static graph given as plain data.

A probe runs in the child process, on the submission: it rebuilds the
program's lines as tuples (JSON brought them as lists), calls the student's
pass, and returns the result as plain data, one ``[out, op, inputs, params]``
list per line. It decides nothing; the reference passes and the comparisons
live in ``checks`` and never reach the child.
"""

from __future__ import annotations

from typing import Any


def _frozen(value: Any) -> Any:
    """Lists (how JSON carries tuples) back to tuples, inside parameters too."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    return value


def _lines(program: list) -> list[tuple]:
    return [
        (out, op, tuple(inputs), {key: _frozen(v) for key, v in params.items()})
        for out, op, inputs, params in program
    ]


def _plain(program: Any) -> list:
    """The submission's program as plain lists (a malformed line raises, naming itself)."""
    plain = []
    for line in program:
        try:
            out, op, inputs, params = line
        except (TypeError, ValueError):
            raise TypeError(f"a line must be (out, op, inputs, params), got {line!r}") from None
        plain.append([out, op, list(inputs), dict(params)])
    return plain


def probe_dead_code(module: Any, args: dict) -> Any:
    return _plain(module.eliminate_dead_code(_lines(args["program"]), list(args["outputs"])))


def probe_common_subexpressions(module: Any, args: dict) -> Any:
    result = module.eliminate_common_subexpressions(_lines(args["program"]), list(args["outputs"]))
    try:
        program, outputs = result
    except (TypeError, ValueError):
        raise TypeError(f"expected (program, outputs), got {result!r}") from None
    return {"program": _plain(program), "outputs": list(outputs)}


def probe_fold_constants(module: Any, args: dict) -> Any:
    return _plain(module.fold_constants(_lines(args["program"])))
