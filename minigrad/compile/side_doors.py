"""Values that enter a trace by a side door, not through ``apply`` (lesson 13).

Nearly every value of a traced program is made by an operation that ``apply``
hands to the trace (``Trace.process``, ``trace.py``). Two kinds are not, and
the trace writes them down here:

- **random draws** (``mg.randn``, ``mg.rand``, dropout's mask): the factories
  ask the open trace for a draw (``draw``), and the draw becomes an operation
  of the program, so each run of the compiled program draws new numbers, as
  eager mode does. While checkpoint (lesson 09) recomputes a function, its
  draws are the ones the program made the first time (``replay``), in order.
- **kernel calls made outside apply**: autograd sums a gradient in place,
  term after term, with ``backend.map``/``zip`` on raw arrays. The abstract
  backend notes each call on its result (``AbstractArray.made``), and
  ``made_var`` writes such results into the program as their primitives when
  the trace first reads them.
"""

from __future__ import annotations

from typing import Any

from minigrad.backends.abstract_backend import AbstractArray
from minigrad.compile.graph import Op, Var
from minigrad.tensor.primitive import REGISTRY


class SideDoors:
    """The part of ``Trace`` that writes down values no ``apply`` made."""

    ops: list[Op]

    def __init__(self) -> None:
        super().__init__()
        self.draws: list[Var] = []  # random draws (factories.randn ...), in program order
        self.replay: int | None = None  # while checkpoint recomputes: the next draw to reuse

    def draw(self, prim: Any, params: dict, device: str) -> AbstractArray:
        """Called by ``randn``/``rand`` while tracing: the draw, an operation of the program."""
        data = AbstractArray(params["shape"], params["dtype"])
        if self.replay is not None and self.replay < len(self.draws):
            data.var = self.draws[self.replay]
            self.replay += 1
            return data
        data.var = Var(data.shape, data.dtype, device)
        self.ops.append(Op(prim, (), dict(params), (data.var,)))
        self.draws.append(data.var)
        return data

    def made_var(self, data: AbstractArray, device: str) -> Var:
        """Write down the ``backend.map``/``zip`` calls that made ``data``, as their primitives.

        Such calls may build on each other (a gradient summed in place, term
        after term), so the walk to the first known array uses a stack, not recursion.
        """
        stack = [data]
        while stack:
            top = stack[-1]
            waiting = [
                a for a in top.made[2]
                if isinstance(a, AbstractArray) and a.var is None and a.value is None
            ]  # fmt: skip
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            if top.var is not None:
                continue
            _, op, arrays = top.made
            prim = REGISTRY.get(op)
            if prim is None or prim.scalar != op:
                raise RuntimeError(f"minigrad.compile: cannot trace a direct {op!r} kernel call")
            in_vars = tuple(self.var_of(a, device=device) for a in arrays)
            top.var = Var(top.shape, top.dtype, device)
            self.ops.append(Op(prim, in_vars, {}, (top.var,)))
        return data.var
