"""Named composite operations: an open transform may take a whole one over (lessons 06, 15).

Most public functions are compositions of primitives: ``linear`` is a
``matmul`` and an ``add``, ``cross_entropy`` a ``log_softmax`` and a gather.
A transform on the stack (``mode.py``) sees only the primitives, and for most
transforms that is all there is to see. Autocast (lesson 15) is the
exception: PyTorch decides precision per *named* operation, so ``linear``
runs wholly in bfloat16 (its bias add included) and ``cross_entropy`` wholly
in float32, whatever primitives they are made of.

``@composite("linear")`` names a function so. When it is called, the
innermost live level that has a ``composite`` method gets the call whole,
``level.composite(name, fn, args, kwargs)``, and returns its result; with no
such level, ``fn`` just runs. One attribute lookup per open level: nothing
when no transform is open.

    >>> @composite("twice")
    ... def twice(x):
    ...     return x + x
    >>> twice(2), twice.__name__
    (4, 'twice')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, TypeVar

from minigrad.tensor.mode import current

F = TypeVar("F", bound=Callable[..., Any])


def composite(name: str) -> Callable[[F], F]:
    """Name the decorated function ``name`` for the transforms that act on named operations."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            return dispatch(name, fn, args, kwargs)

        return run  # type: ignore[return-value]

    return decorate


def dispatch(name: str, fn: Callable, args: tuple, kwargs: dict, below: float = math.inf) -> Any:
    """Hand the call to the innermost live level under id ``below`` that takes named
    operations, or run ``fn``. A level that leaves the call alone passes it on with
    ``below=self.id``."""
    state = current()
    for level in reversed(state.stack):
        take = getattr(level, "composite", None)
        if take is not None and level.id < min(state.ceiling, below):
            return take(name, fn, args, kwargs)
    return fn(*args, **kwargs)
