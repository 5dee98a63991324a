"""Comparing minigrad's errors with PyTorch's: the exception type and the first line.

Shared by the test files that check refusals against torch (``from torch_errors import
same_error_of``; ``tests/`` is on the path, see ``conftest.py``).
"""

from __future__ import annotations

import pytest
import torch

import minigrad as mg


def first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else ""


def same_error(mg_call, torch_call):
    """Both calls raise, with the same exception type and the same first line."""
    with pytest.raises(Exception) as theirs:
        torch_call()
    with pytest.raises(Exception) as ours:
        mg_call()
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    assert first_line(ours.value) == first_line(theirs.value)


def same_error_of(call, ours=mg, theirs=torch):
    """``call(minigrad)`` and ``call(torch)`` raise alike (see same_error)."""
    same_error(lambda: call(ours), lambda: call(theirs))
