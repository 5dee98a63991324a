"""What may travel from a graded submission back to the grader (the autograder).

A submission runs in a child process and the grader trusts nothing it makes:
not its objects (an ``__eq__`` that always says yes), not its copy of NumPy
(it may have patched ``allclose``), not its stdout. So the child hands back
*outputs only*, as plain data: ``None``, booleans, numbers, strings, lists,
string-keyed dicts and NumPy arrays (sent as little-endian float64 bytes in
base64, plus a shape). The grader decodes each message itself, rebuilds arrays
with its own NumPy, and compares against references it computed itself. A
child never sends a verdict, so there is no verdict to forge.

Reading is *total*: any bytes at all give, per check, an output, an error
text, or nothing; never an exception in the grader. Sizes are bounded: a line
longer than ``MAX_LINE_BYTES`` is skipped, integers beyond int64 and arrays
over ``MAX_ARRAY_ITEMS`` are refused.

    >>> line = message(0, output={"y": np.arange(3.0), "n": 2})
    >>> read_messages(line, 1)[0]["output"]
    {'y': array([0., 1., 2.]), 'n': 2}
    >>> read_messages(b'{"check": 0, "output": 1' + b"0" * 400 + b"}\\n", 1)[0]["error"]
    'the output could not be read back: an integer beyond 64 bits came back'
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from typing import Any

import numpy as np

ARRAY_KEY = "__ndarray__"
MAX_DEPTH = 32
MAX_LINE_BYTES = 4 * 2**20
MAX_ARRAY_ITEMS = MAX_LINE_BYTES // 8
INT64 = 2**63


class NotPlainData(TypeError):
    """A submission returned something that is not plain data."""


def encode(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready plain data (runs in the child, on submission outputs).

    >>> encode((1, np.float64(2.5), np.array([[1, 2]])))
    [1, 2.5, {'__ndarray__': 'AAAAAAAA8D8AAAAAAAAAQA==', 'shape': [1, 2]}]
    """
    if depth > MAX_DEPTH:
        raise NotPlainData("the output is nested too deeply")
    kind = type(value)
    # Exact type checks: a subclass of float or list could carry its own __eq__.
    if value is None or kind in (bool, int, str, float):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return encode(value.item(), depth + 1)
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        flat = np.ascontiguousarray(value, dtype="<f8").tobytes()
        return {ARRAY_KEY: base64.b64encode(flat).decode(), "shape": [int(n) for n in value.shape]}
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

    >>> decode({"__ndarray__": "AAAAAAAA8D8AAAAAAAAAQA==", "shape": [2, 1]}).shape
    (2, 1)
    """
    if depth > MAX_DEPTH:
        raise NotPlainData("the output is nested too deeply")
    kind = type(value)
    if kind is int and not -INT64 <= value < INT64:
        raise NotPlainData("an integer beyond 64 bits came back")
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is list:
        return [decode(item, depth + 1) for item in value]
    if kind is dict and ARRAY_KEY in value:
        return _array(value)
    if kind is dict:
        return {str(key): decode(item, depth + 1) for key, item in value.items()}
    raise NotPlainData(f"a {kind.__name__} came back")


def _array(value: dict) -> np.ndarray:
    data, shape = value.get(ARRAY_KEY), value.get("shape")
    if (
        set(value) != {ARRAY_KEY, "shape"}
        or type(data) is not str
        or type(shape) is not list
        or len(shape) > MAX_DEPTH
        or not all(type(n) is int and 0 <= n <= MAX_ARRAY_ITEMS for n in shape)
        or math.prod(shape) > MAX_ARRAY_ITEMS
    ):
        raise NotPlainData("a malformed array came back")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise NotPlainData("a malformed array came back") from None
    if len(raw) != 8 * math.prod(shape):
        raise NotPlainData("a malformed array came back")
    return np.frombuffer(raw, dtype="<f8").astype(np.float64).reshape(shape)


def message(check: int, **fields: Any) -> bytes:
    """One line on the channel: the check's index and its fields."""
    body = {"check": check}
    body.update({key: encode(value) for key, value in fields.items()})
    return (json.dumps(body, allow_nan=True) + "\n").encode()


def read_messages(raw: bytes, n_checks: int) -> dict[int, dict[str, Any]]:
    """The first well-formed message per check index; anything else is ignored.

    A message carries exactly one of ``output`` (decoded here) or ``error``
    (a string). This function never raises, whatever ``raw`` holds.
    """
    found: dict[int, dict[str, Any]] = {}
    for line in raw.split(b"\n"):
        if len(line) > MAX_LINE_BYTES:
            continue
        try:
            reply = _reply(line, n_checks, found)
        except Exception:  # a line no rule above foresaw: skipped, never fatal
            continue
        if reply is not None:
            found[reply[0]] = reply[1]
    return found


def _reply(line: bytes, n_checks: int, found: dict) -> tuple[int, dict[str, Any]] | None:
    try:
        body = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if type(body) is not dict:
        return None
    index = body.get("check")
    if type(index) is not int or not 0 <= index < n_checks or index in found:
        return None
    if "output" in body and "error" not in body:
        try:
            return index, {"output": decode(body["output"])}
        except (NotPlainData, RecursionError, ValueError, OverflowError, MemoryError) as error:
            return index, {"error": f"the output could not be read back: {error}"}
    if type(body.get("error")) is str and "output" not in body:
        return index, {"error": body["error"][:4000]}
    return None
