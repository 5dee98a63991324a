"""The two recording switches: gradient mode and forward-mode levels (lessons 04, 07).

*Gradient mode* decides whether operations record the graph that reverse mode
walks back. ``no_grad`` turns recording off, as in PyTorch: inside it, results
never require grad, and nothing is kept for a backward pass.

*Forward-mode levels* let tangents ride along with values (lesson 07). Each
``mg.jvp`` opens a level; a tensor carries one tangent per open level. Levels
nest (``jvp`` of ``jvp``), and a level's tangent rule must not see its own
level, or tangents of tangents would leak into the answer ("perturbation
confusion"). So while the rule for level L runs, only levels below L are live:
``state.ceiling`` holds that bound.

Both switches belong to the thread that sets them, as in PyTorch: one thread's
``no_grad`` block does not stop another thread from recording.
"""

from __future__ import annotations

import contextvars
import functools
import itertools
import math
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class ModeState:
    """The switches of one thread."""

    __slots__ = ("ceiling", "grad_enabled", "keep_inputs", "levels", "tracing", "vmap_levels")

    def __init__(self) -> None:
        self.grad_enabled = True
        self.levels: list[int] = []  # open forward-mode levels, innermost last
        self.ceiling = math.inf  # only levels below this propagate right now
        # While set to a record serial t, records also keep the input tensors
        # made before t: checkpoint (lesson 09) needs the tensors fn closed over.
        self.keep_inputs: int | None = None
        # While a function is traced (lesson 13): the trace that writes down
        # every operation ``apply`` runs (``minigrad.compile``).
        self.tracing: Any = None
        # Open vmap levels, innermost last (lesson 14): while any is open,
        # ``apply`` looks for batched inputs (``minigrad.tensor.batching``).
        self.vmap_levels: list[Any] = []


# One ModeState per thread. A new thread starts with an empty context, so it
# gets its own on first use; the main thread's is made here, so that code run
# in copies of its context (asyncio tasks, notebook cells) shares it. Every
# operation reads it, and a context variable reads in about half the time of a
# threading.local attribute.
_STATE: contextvars.ContextVar[ModeState] = contextvars.ContextVar("minigrad_mode")
_STATE.set(ModeState())
_get_state = _STATE.get


def current() -> ModeState:
    """This thread's switches."""
    state = _get_state(None)
    if state is None:
        state = ModeState()
        _STATE.set(state)
    return state


_level_ids = itertools.count(1)


class _Switch:
    """Set one field of this thread's ``ModeState`` inside a ``with`` block, then restore it."""

    field: str
    value: Any
    _state: ModeState

    def __enter__(self) -> None:
        self._state = state = current()
        self._saved = getattr(state, self.field)
        setattr(state, self.field, self.value)

    def __exit__(self, *exc: object) -> None:
        setattr(self._state, self.field, self._saved)


class _GradMode(_Switch):
    """A context manager and decorator that sets gradient mode."""

    field = "grad_enabled"

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with type(self)():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_GradMode):
    """Do not record operations for reverse mode (``with`` block or decorator).

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0], requires_grad=True)
    >>> with mg.no_grad():
    ...     (x * 2).requires_grad
    False
    """

    value = False


class enable_grad(_GradMode):
    """Record operations again, even inside ``no_grad``."""

    value = True


def is_grad_enabled() -> bool:
    """Whether operations are being recorded for reverse mode now."""
    return current().grad_enabled


def open_level() -> int:
    """Start a forward-mode level; returns its id (used by ``mg.jvp``)."""
    level = next(_level_ids)
    current().levels.append(level)
    return level


def close_level(level: int) -> None:
    """End the forward-mode level ``level``; its tangents stop propagating."""
    current().levels.remove(level)


class keep_inputs(_Switch):
    """Records made in this block keep their inputs that were made before record ``since``.

    (Leaves count as made before.) Checkpoint (lesson 09) reads them to find
    the older tensors a function used, such as its weights.
    """

    field = "keep_inputs"

    def __init__(self, since: int) -> None:
        self.value = since
