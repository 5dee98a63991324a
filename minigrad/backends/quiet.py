"""NumPy's arithmetic without its floating-point warnings, as PyTorch computes (lessons 04-05).

``np.log(np.zeros(1))`` is ``-inf`` and a ``RuntimeWarning: divide by zero``;
``torch.log(torch.zeros(1))`` is the same ``-inf`` and nothing else. Small
tensors (and every tensor on the NumPy backend) are computed by NumPy, so
minigrad would warn where PyTorch is silent, and a program run with
``warnings.simplefilter("error")`` would even fail. So the places where
minigrad computes (a row's kernel in ``apply``, the backward pass, a jitted
program, making a tensor from data) run with NumPy's error handling set to
"ignore", and the user's own NumPy code keeps its setting: ``np.geterr()``
outside minigrad is never changed.

NumPy 2 keeps that setting in a context variable (``contextvars``), read by
every ufunc call. ``with np.errstate(all="ignore")`` costs about a
microsecond, as much as a small operation itself, and even setting and
resetting the variable directly costs a quarter of that (a new mapping of
the context's variables each time, and every variable's cache emptied).
Running a function in another context costs next to nothing, so ``apply``
runs each kernel in a copy of ``QUIET_CONTEXT``, a context made once in
which the setting is "ignore"::

    data = QUIET_CONTEXT.copy().run(prim.forward, backend, x.data)

(A copy, so that two threads, or a kernel that runs another, never enter one
context twice.) A kernel reads no context variable but NumPy's (not the
gradient mode, not the backend chosen: ``apply`` has read those already), so
the context it runs in matters to nothing else. Code that may read them (the
backward pass, a jitted program) sets the variable instead, once per pass or
per call: ``with quiet():`` or the decorator ``@quietly``. On NumPy 1.x, where
the setting is ``np.seterr``'s, per thread, all of them do that.

    >>> import numpy as np
    >>> before = np.geterr()
    >>> with quiet():
    ...     float(np.log(np.zeros(()))), np.geterr()["divide"]
    (-inf, 'ignore')
    >>> float(QUIET_CONTEXT.copy().run(np.log, np.zeros(())))
    -inf
    >>> np.geterr() == before
    True
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

try:  # NumPy 2: the setting is a context variable, read by every ufunc call
    from numpy._core._ufunc_config import _extobj_contextvar
except ImportError:  # pragma: no cover (NumPy 1.x)
    _extobj_contextvar = None


class _Seterr:
    """NumPy 1.x: ``set``/``reset`` of a context variable, over ``np.seterr`` (per thread)."""

    @staticmethod
    def set(value: Any) -> dict:
        return np.seterr(**value)

    @staticmethod
    def reset(token: dict) -> None:
        np.seterr(**token)

    @staticmethod
    def get() -> dict:
        return np.geterr()


class _SeterrContext:
    """NumPy 1.x: what ``QUIET_CONTEXT`` offers (``copy().run``), over ``np.seterr``."""

    def copy(self) -> _SeterrContext:
        return self

    @staticmethod
    def run(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)


NUMPY_ERRORS: Any
QUIET: Any
QUIET_CONTEXT: Any
if _extobj_contextvar is not None:
    NUMPY_ERRORS = _extobj_contextvar
    with np.errstate(all="ignore"):
        QUIET = _extobj_contextvar.get()  # the setting "ignore every error", made once
    QUIET_CONTEXT = contextvars.Context()
    QUIET_CONTEXT.run(NUMPY_ERRORS.set, QUIET)
else:  # pragma: no cover
    NUMPY_ERRORS = _Seterr()
    QUIET = {"all": "ignore"}
    QUIET_CONTEXT = _SeterrContext()


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Inside the block NumPy computes without floating-point warnings (see above)."""
    token = NUMPY_ERRORS.set(QUIET)
    try:
        yield
    finally:
        NUMPY_ERRORS.reset(token)


def quietly(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, run without NumPy's floating-point warnings (a decorator)."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        token = NUMPY_ERRORS.set(QUIET)
        try:
            return function(*args, **kwargs)
        finally:
            NUMPY_ERRORS.reset(token)

    return run
