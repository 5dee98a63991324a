"""What a trace must not leave behind, and the in-place changes it refuses (lesson 13).

**A trace leaves nothing traced behind.** What the traced code writes into
objects from outside (``loss.backward()`` into ``p.grad``, an optimizer into
its ``state``) is written down first (``Trace.remember``) and put back when
the trace ends, so a trace that fails leaves a model that still trains
eagerly. A trace that succeeds but left a traced value in such a place raises
``TracerError``: the compiled program could never write it there. Every other
traced value that the program kept (in a global, say) expires with the trace
(``abstract_backend.expire``): using it later raises ``TracerError`` naming
the traced function.

**In-place changes.** A traced program changes nothing in place (see
``Guards.check_in_place``); where that would differ from eager mode, the
trace stops with a ``TracerError`` that says what to write instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from minigrad.backends.abstract_backend import (
    AbstractArray,
    TracerError,
    collect,
    expire,
    user_line,
)

# Rows whose eager result may share memory with their input (a view): the trace
# notes both as ``aliased``, and an in-place change of either is refused.
VIEWS = frozenset({"astype", "broadcast_to", "diagonal", "getitem", "reshape", "sum_to", "to",
                   "transpose", "windows"})  # fmt: skip


class Guards:
    """The bookkeeping of ``Trace`` (``trace.py``) that keeps the world outside it unchanged."""

    inputs: set
    aliased: set

    def __init__(self) -> None:
        super().__init__()
        # (object, attribute or None for a dict's items, what it held): put back at the end.
        self.journal: list[tuple[Any, str | None, Any]] = []
        self._remembered: set[tuple[int, str | None]] = set()

    def remember(self, obj: Any, attribute: str | None = None) -> None:
        """Note ``obj.attribute`` (or, with None, the items of dict ``obj``) before a change.

        Called by code that writes into objects from outside the traced
        function (``backward`` setting ``.grad``, optimizers their state), so
        that ``restore`` can undo it when the trace ends.
        """
        key = (id(obj), attribute)
        if key in self._remembered:
            return
        if attribute is not None and isinstance(getattr(obj, "data", None), AbstractArray):
            return  # a tensor made inside the trace: nobody outside sees it
        self._remembered.add(key)
        if attribute is None:
            was = {k: dict(v) if isinstance(v, dict) else v for k, v in obj.items()}
        else:
            was = getattr(obj, attribute)
        self.journal.append((obj, attribute, was))

    def leaks(self) -> list[str]:
        """The remembered places that now hold traced values (which must not outlive the trace)."""
        leaked = []
        for obj, attribute, _ in self.journal:
            if attribute is None:
                if any(_holds_traced(v) for v in obj.values()):
                    leaked.append(f"the state of a {type(obj).__name__}")
            elif _holds_traced(getattr(obj, attribute)):
                owner = (
                    f"a tensor of shape {tuple(obj.shape)}"
                    if hasattr(obj, "shape")
                    else f"a {type(obj).__name__}"
                )
                leaked.append(f".{attribute} of {owner}")
        return leaked

    @contextlib.contextmanager
    def nothing_left_behind(self, f: Any, name: str) -> Iterator[list]:
        """Around a trace of ``f``: yields the list of traced arrays, ``collect``'s.

        If the trace fails, everything remembered is put back; when it ends, every
        traced array expires, and traced values left in remembered places raise.
        """
        with collect() as made:
            try:
                yield made
                leaked = self.leaks()
            except BaseException:
                self.restore()  # a failed trace changes nothing outside it
                raise
            finally:
                expire(made, traced_name(f))
        self.refuse_leaks(leaked, name)

    def refuse_leaks(self, leaked: list[str], name: str) -> None:
        """Put everything back and raise, if the trace left traced values in ``leaked`` places."""
        if leaked:
            self.restore()
            raise TracerError(
                f"{name}: the traced function left traced values in {'; '.join(leaked)}, "
                "which belong to objects from outside it; the compiled program cannot write "
                "there.\nThey were put back as they were. Return what you need instead: "
                "mg.value_and_grad(loss)(params, ...) gives the gradients as results."
            )

    def restore(self) -> None:
        """Put back everything ``remember`` noted, newest change first."""
        for obj, attribute, was in reversed(self.journal):
            if attribute is None:
                obj.clear()
                obj.update(was)
            else:
                setattr(obj, attribute, was)
        self.journal.clear()
        self._remembered.clear()

    def check_in_place(self, tensor: Any, op: str) -> None:
        """Called by an in-place operation (``x.add_(y)``, ``x[i] = v``) while tracing.

        A traced program changes nothing in place: ``x`` is re-pointed at the
        result, a new value of the graph (so ``x += 1`` is ``x = x + 1``). That
        is exact for a value the function made itself and nobody else sees. It
        would silently differ from eager mode for an argument or a tensor from
        outside (the change would be lost: the program returns values, it does
        not write into its caller's tensors) and for a value that shares memory
        with a view (the view would not see the change): those raise here.
        """
        data = tensor.data
        where = f"\n  at {user_line()}\n"
        if not isinstance(data, AbstractArray):
            raise TracerError(
                f"{op}: in-place change of a tensor from outside the traced function (a "
                f"parameter, or a module's buffer such as batch_norm's running statistics) "
                f"is not supported under jit yet.{where}The compiled program returns new "
                "values; it does not write into tensors it captured. Return the new value "
                "from the function and assign it outside, or call the function without jit"
            )
        v = self.var_of(data, tensor)
        if v in self.inputs:
            raise TracerError(
                f"{op}: in-place change of an argument of the traced function is not "
                f"supported under jit yet.{where}The caller's tensor would not change. "
                "Write y = x + ... (a new tensor) and return it instead"
            )
        if v in self.aliased:
            raise TracerError(
                f"{op}: in-place change of a tensor that shares memory with a view of it "
                f"(made by reshape, indexing, transpose, broadcast_to, ...) is not supported "
                f"under jit yet.{where}Change a .clone() of it, or write y = x + ... instead"
            )


def traced_name(f: Any) -> str:
    """How a traced value that outlived its trace names the function it came from.

    >>> def step(x): ...
    >>> traced_name(step)
    'step (traced by jit or make_graph)'
    """
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    return f"{name} (traced by jit or make_graph)"


def _holds_traced(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_traced(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_traced(v) for v in value)
    return isinstance(getattr(value, "data", None), AbstractArray)
