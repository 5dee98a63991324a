"""Gradient mode and the stack of transforms, one level each (lessons 04, 07, 13-15).

*Gradient mode* decides whether operations record the graph that reverse mode
walks back. ``no_grad`` turns recording off, as in PyTorch: inside it, results
never require grad, and nothing is kept for a backward pass.

**The stack of interpreters.** Every transform that changes what an operation
*means* is a ``Level`` on one stack: forward mode (``mg.jvp``, lesson 07),
tracing (``mg.jit``, ``mg.make_graph``, lesson 13), batching (``mg.vmap``,
lesson 14), autocast (lesson 15). Reverse mode's function transforms
(``mg.grad``, ``mg.vjp``, lesson 08) open a level too, which changes no
operation: it notes whether ``f`` used a tensor that something outside it
differentiates, and so whether its backward pass must be recorded.
``apply`` (``record.py``) is the door of
every operation, and it is a *bind*, as in JAX (Autodidax) and functorch's
dynamic layers: it asks the innermost level whose kind the inputs carry to
process the primitive; with no such level left, it runs the kernel and
records the eager tape (reverse mode, PyTorch's semantics, is the base).
This module knows no particular transform: each one lives in its own module
and subclasses ``Level``.

A level processes a primitive by doing its own work and passing what is left
to the levels *below* it: ``with self.lowered(): apply(...)``. Inside that
block the level and every level above it are hidden (``state.ceiling``), so a
forward level's tangent rule never sees its own tangents ("perturbation
confusion") and a batching rule never batches again at its own level. Levels
are numbered by one counter as they open, so an outer transform always has
the smaller id; nesting (``jvp`` of ``vmap`` of ``jit``) is the stack's order.

**How to add an interpreter** (autocast is the example):

1. Subclass ``Level``; give it a ``kind`` (a short name) and whatever it
   needs to remember (``Level.__init__`` gives it its ``id``).
2. ``claims(inputs, params)``: does this level act on an operation with these
   inputs? A forward level claims inputs that carry its tangents, a batching
   level inputs that carry its batch; a level that sees every operation
   (tracing, autocast) keeps the default, True.
3. ``process(prim, inputs, params)``: return the result tensor. Do your part,
   then bind again below yourself::

       class Autocast(Level):
           kind = "autocast"

           def process(self, prim, inputs, params):
               with self.lowered():  # what we bind now skips this level
                   if prim.name in CAST:
                       inputs = tuple(x.to(self.dtype) for x in inputs)
                   return apply(prim, inputs, **params)

4. Open it around the user's code: ``with Autocast(...):`` pushes it on this
   thread's stack and pops it at the end (``Level.__enter__``/``__exit__``).

Control flow's rows (``cond``, ``scan``, ``while_loop``: lesson 16) reach
``process`` like any other, with several results (``prim.multiple_results``,
a list): a level that binds them below with ``apply`` needs nothing more; the
built-in levels read the row's rule for their kind, ``prim.rules[self.kind]``.

Gradient mode and the stack belong to the thread that sets them, as in
PyTorch: one thread's ``no_grad`` block or trace does not reach another
thread.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class ModeState:
    """The switches of one thread."""

    __slots__ = ("ceiling", "grad_enabled", "inference", "keep_inputs", "stack")

    def __init__(self) -> None:
        self.grad_enabled = True
        self.inference = False  # inside ``inference_mode``: recording is off as in no_grad
        # The open transforms, outermost first (see the module docstring).
        self.stack: list[Level] = []
        # Only levels with an id below this take part now: a level that binds
        # on to the levels below it sets it to its own id (``Level.lowered``).
        self.ceiling: float = math.inf
        # While set to a record serial t, records also keep the input tensors
        # made before t: checkpoint (lesson 09) needs the tensors fn closed over.
        self.keep_inputs: int | None = None

    @property
    def tracing(self) -> Any:
        """The innermost open trace (lesson 13), or None: the tracer's ``Level``."""
        for level in reversed(self.stack):
            if level.kind == "trace":
                return level
        return None

    def open_levels(self, kind: str) -> list[Level]:
        """The open levels of ``kind``, outermost first."""
        return [level for level in self.stack if level.kind == kind]


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


class Level:
    """One open transform on this thread's stack: an interpreter of primitives.

    Subclasses set ``kind`` and override ``claims`` and ``process`` (see the
    module docstring, "How to add an interpreter").
    """

    kind = "level"

    def __init__(self) -> None:
        self.id = next(_level_ids)  # one counter for every kind: order = nesting
        self.open = False

    def claims(self, inputs: Sequence[Any], params: dict) -> bool:
        """Does this level act on an operation with these ``inputs``? (Default: every one.)"""
        return True

    def process(self, prim: Any, inputs: tuple, params: dict) -> Any:
        """The result of ``prim(*inputs, **params)`` as this level reads it."""
        raise NotImplementedError(f"{type(self).__name__} does not say how it processes {prim}")

    @contextlib.contextmanager
    def lowered(self) -> Iterator[None]:
        """Inside the block, operations bind to the levels below this one only."""
        state = current()
        saved = state.ceiling
        state.ceiling = self.id
        try:
            yield
        finally:
            state.ceiling = saved

    def __enter__(self) -> Level:
        current().stack.append(self)
        self.open = True
        return self

    def __exit__(self, *exc: object) -> None:
        self.open = False
        current().stack.remove(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.kind} level {self.id}>"


def claiming(state: ModeState, inputs: Sequence[Any], params: dict) -> Level | None:
    """The innermost live level that claims an operation on ``inputs``, or None (the base)."""
    ceiling = state.ceiling
    for level in reversed(state.stack):
        if level.id < ceiling and level.claims(inputs, params):
            return level
    return None


@contextlib.contextmanager
def fresh_stack() -> Iterator[ModeState]:
    """Inside the block no transform of the caller is open, and gradient mode is off.

    For tracing a loop body or a branch as it is (lesson 16): the caller's
    levels do not reach inside.
    """
    state = current()
    saved = (state.stack, state.ceiling, state.grad_enabled)
    state.stack, state.ceiling, state.grad_enabled = [], math.inf, False
    try:
        yield state
    finally:
        state.stack, state.ceiling, state.grad_enabled = saved


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


class set_grad_enabled(_GradMode):
    """Turn recording on or off: at once when called (``mg.set_grad_enabled(False)``), and
    back to what it was at the end of a ``with`` block or of a decorated function.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0], requires_grad=True)
    >>> with mg.set_grad_enabled(False):
    ...     (x * 2).requires_grad
    False
    """

    def __init__(self, mode: bool) -> None:
        self._state = current()
        self._saved, self.value = self._state.grad_enabled, bool(mode)
        self._state.grad_enabled = self.value  # PyTorch sets the mode on the call itself

    def __enter__(self) -> None:
        pass

    def __call__(self, fn: F) -> F:
        self._state.grad_enabled = self._saved  # as a decorator: only inside ``fn``
        value = self.value

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(value):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class inference_mode:
    """``no_grad`` for code that will never need gradients (``torch.inference_mode``):
    recording is off inside (``mode=False``: on, as in PyTorch). A ``with`` block or a
    decorator. minigrad keeps no separate kind of "inference tensor": tensors made inside
    may enter a graph later, where PyTorch refuses them.

    >>> import minigrad as mg
    >>> with mg.inference_mode():
    ...     mg.is_inference_mode_enabled(), mg.is_grad_enabled()
    (True, False)
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self._state = state = current()
        self._saved = state.inference, state.grad_enabled
        state.inference, state.grad_enabled = self.mode, not self.mode

    def __exit__(self, *exc: object) -> None:
        self._state.inference, self._state.grad_enabled = self._saved

    def __call__(self, fn: F) -> F:
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


def is_inference_mode_enabled() -> bool:
    """Whether code runs inside ``inference_mode`` now."""
    return current().inference


class keep_inputs(_Switch):
    """Records made in this block keep their inputs that were made before record ``since``.

    (Leaves count as made before.) Checkpoint (lesson 09) reads them to find
    the older tensors a function used, such as its weights.
    """

    field = "keep_inputs"

    def __init__(self, since: int) -> None:
        self.value = since
