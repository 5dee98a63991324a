"""What may travel from a graded submission back to the grader (the autograder).

A submission runs in a child process and the grader trusts nothing it makes:
not its objects (an ``__eq__`` that always says yes), not its copy of NumPy
(it may have patched ``allclose``), not its stdout. So the child hands back
*outputs only*, as plain data: ``None``, booleans, numbers, strings, lists,
string-keyed dicts and NumPy arrays (sent as a flat list of floats plus a
shape). The grader decodes each message itself, rebuilds arrays with its own
NumPy, and compares against references it computed itself. A child never
sends a verdict, so there is no verdict to forge.

    >>> line = message("t0k3n", 0, output={"y": np.arange(3.0), "n": 2})
    >>> read_messages(line, "t0k3n", 1)[0]["output"]
    {'y': array([0., 1., 2.]), 'n': 2}
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

ARRAY_KEY = "__ndarray__"
MAX_DEPTH = 32


class NotPlainData(TypeError):
    """A submission returned something that is not plain data."""


def encode(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready plain data (runs in the child, on submission outputs).

    >>> encode((1, np.float64(2.5), np.array([[1, 2]])))
    [1, 2.5, {'__ndarray__': [1.0, 2.0], 'shape': [1, 2]}]
    """
    if depth > MAX_DEPTH:
        raise NotPlainData("the output is nested too deeply")
    kind = type(value)
    # Exact type checks: a subclass of float or list could carry its own __eq__.
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return encode(value.item(), depth + 1)
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        flat = np.asarray(value, dtype=np.float64).ravel()
        return {ARRAY_KEY: [float(x) for x in flat], "shape": [int(n) for n in value.shape]}
    if kind in (list, tuple):
        return [encode(item, depth + 1) for item in value]
    if kind is dict and all(type(key) is str for key in value):
        return {key: encode(item, depth + 1) for key, item in value.items()}
    raise NotPlainData(
        f"returned an object of type {kind.__name__}; expected plain numbers, strings, lists, "
        "tuples, dicts or NumPy arrays"
    )


def decode(value: Any, depth: int = 0) -> Any:
    """Rebuild arrays from plain data, refusing anything that is not plain (grader side).

    >>> decode({"__ndarray__": [1.0, 2.0], "shape": [2, 1]}).shape
    (2, 1)
    """
    if depth > MAX_DEPTH:
        raise NotPlainData("the output is nested too deeply")
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is list:
        return [decode(item, depth + 1) for item in value]
    if kind is dict and ARRAY_KEY in value:
        flat, shape = value.get(ARRAY_KEY), value.get("shape")
        if (
            set(value) != {ARRAY_KEY, "shape"}
            or type(flat) is not list
            or type(shape) is not list
            or not all(type(n) is int and n >= 0 for n in shape)
            or not all(type(x) in (int, float) for x in flat)
            or math.prod(shape) != len(flat)
        ):
            raise NotPlainData("a malformed array came back")
        return np.array(flat, dtype=np.float64).reshape(shape)
    if kind is dict:
        return {str(key): decode(item, depth + 1) for key, item in value.items()}
    raise NotPlainData(f"a {kind.__name__} came back")


def message(token: str, check: int, **fields: Any) -> bytes:
    """One line on the channel: the run's token, the check's index, and its fields."""
    body = {"token": token, "check": check}
    body.update({key: encode(value) for key, value in fields.items()})
    return (json.dumps(body, allow_nan=True) + "\n").encode()


def read_messages(raw: bytes, token: str, n_checks: int) -> dict[int, dict[str, Any]]:
    """The first well-formed message per check index; garbage lines are ignored.

    A message must carry this run's token and exactly one of ``output`` (decoded
    here) or ``error`` (a string).
    """
    found: dict[int, dict[str, Any]] = {}
    for line in raw.split(b"\n"):
        try:
            body = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if type(body) is not dict or body.get("token") != token:
            continue
        index = body.get("check")
        if type(index) is not int or not 0 <= index < n_checks or index in found:
            continue
        if "output" in body and "error" not in body:
            try:
                found[index] = {"output": decode(body["output"])}
            except (NotPlainData, RecursionError, ValueError) as error:
                found[index] = {"error": f"the output could not be read back: {error}"}
        elif type(body.get("error")) is str and "output" not in body:
            found[index] = {"error": body["error"]}
    return found
