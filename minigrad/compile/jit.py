"""``mg.jit``: trace once per signature, optimize, fuse, and replay compiled code (lesson 13).

    fast = mg.jit(f)          # or @mg.jit above def f
    fast(x, y)                # first call with this signature: trace + passes + codegen
    fast(x2, y2)              # same shapes/dtypes/devices: replay, no tracing

A *signature* is what the graph depends on: the structure of the arguments
(which are tensors, how they nest in tuples, lists and dicts), each tensor's
shape, dtype and device, the values of the static arguments
(``static_argnums``, and any non-tensor inside the arguments), and the CPU
backend in use. A new signature traces again; the compiled programs are kept
per signature. So a function called with ever-changing shapes retraces every
time and jit only loses: that is the first of the costs the lesson measures.

What runs on a call:

- the usual case: the ``Program`` (``run.py``) of the optimized, fused graph,
  a loop over raw arrays with the fused kernels in it;
- when an argument (or a tensor the function closed over) requires grad,
  or carries forward-mode tangents: the optimized graph before fusion, run
  through ``apply`` so that ``mg.grad(mg.jit(f))``, ``loss.backward()`` and
  ``mg.jvp(mg.jit(f), ...)`` see every operation. (A fused kernel has no
  derivative rule; the rows it was made from do.) That path costs what eager
  mode costs; to compile the backward pass too, jit the gradient:
  ``mg.jit(mg.value_and_grad(f))``.

Called while another function is being traced (a jitted function inside a
jitted function), it simply runs ``f``: the outer trace records its
operations, and the outer program is compiled as a whole. Likewise on the
batched tensors of ``mg.vmap(mg.jit(f))``: ``f`` runs, so that vmap's batch
rules see each operation (to compile the batched program, jit the vmap:
``mg.jit(mg.vmap(f))`` traces the batch rules' operations into one graph).

**Side effects** (printing, appending to a list, changing a global) happen
when ``f`` is traced, once per signature, never when the program is replayed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from minigrad import backends
from minigrad.backends.abstract_backend import AbstractArray
from minigrad.compile.codegen import FusedKernel
from minigrad.compile.fusion import fuse
from minigrad.compile.graph import Graph
from minigrad.compile.memory import reuse_buffers
from minigrad.compile.passes import eliminate_dead_code, optimize
from minigrad.compile.run import Program, captured_arrays, needs_apply, run_through_apply
from minigrad.compile.trace import flatten, trace, unflatten
from minigrad.tensor.base import Box
from minigrad.tensor.mode import current
from minigrad.tensor.tensor import Tensor


class Compiled:
    """What jit keeps per signature: the traced, optimized and fused graphs, and the program."""

    def __init__(self, traced: Graph) -> None:
        self.traced = traced
        self.optimized = optimize(traced)
        self.fused = reuse_buffers(eliminate_dead_code(fuse(self.optimized)))
        self.program = Program(self.fused)

    def source(self) -> str:
        """The generated program (one line per operation), then each fused kernel's source."""
        kernels = [op.prim for op in self.fused.ops if isinstance(op.prim, FusedKernel)]
        parts = [f"# {self.fused.name}: the program, one line per operation\n"
                 + self.program.source]  # fmt: skip
        if kernels:
            parts += [k.source for k in kernels]
        else:
            parts.append(f"# {self.fused.name}: no group of elementwise operations to fuse\n")
        return "\n\n".join(parts)


class Jitted:
    """A function compiled per signature (see the module docstring); made by ``jit``."""

    def __init__(self, f: Callable[..., Any], static_argnums: Sequence[int] = ()) -> None:
        self.f = f
        self.static_argnums = tuple(static_argnums)
        self.compiled: dict[Any, Compiled] = {}
        functools.update_wrapper(self, f)

    def _split(self, args: Sequence[Any]) -> tuple[list[Any], Any, list[Any]]:
        n = len(args)
        static = {i % n for i in self.static_argnums if -n <= i < n}
        dynamic = [a for i, a in enumerate(args) if i not in static]
        leaves, structure = flatten(dynamic)
        key_static = tuple((i, _typed(args[i])) for i in sorted(static))
        signature = (
            _typed(structure),
            tuple((t.shape, t.dtype.str, t.device) for t in leaves),
            key_static,
            backends.current(),
        )
        try:
            hash(signature)
        except TypeError:
            raise TypeError(
                f"jit({self.__name__}): a static argument (in static_argnums, or a non-tensor "
                "inside the arguments) must be hashable, like a number, a string or a tuple; "
                "pass arrays as tensors"
            ) from None
        return leaves, signature, dynamic

    def _entry(self, args: Sequence[Any]) -> tuple[Compiled, list[Any]]:
        leaves, signature, _ = self._split(args)
        entry = self.compiled.get(signature)
        if entry is None:
            entry = self.compiled[signature] = Compiled(trace(self.f, args, self.static_argnums))
        return entry, leaves

    def __call__(self, *args: Any) -> Any:
        if current().tracing is not None or _abstract(args):
            return self.f(*args)  # inside an outer trace: let it record our operations
        if _batched(args):
            return self.f(*args)  # inside mg.vmap: the batch rules see every operation
        entry, leaves = self._entry(args)
        try:
            captured = captured_arrays(entry.fused)
        except TypeError:  # a tensor the function closed over changed shape: trace again
            self.compiled.pop(self._split(args)[1])
            entry, leaves = self._entry(args)
            captured = captured_arrays(entry.fused)
        if needs_apply(leaves, entry.optimized):
            outs = run_through_apply(entry.optimized, leaves)
        else:
            arrays = entry.program.run([t.data for t in leaves], captured)
            outs = [Tensor._wrap(a, v.device) for a, v in zip(arrays, entry.fused.outputs)]
        return unflatten(entry.fused.out_tree, outs)

    def graph(self, *args: Any) -> Graph:
        """The optimized (and fused) graph that runs for arguments like ``args``."""
        return self._entry(args)[0].fused

    def source(self, *args: Any) -> str:
        """The generated source for arguments like ``args`` (a str): the program, then its
        fused kernels, if any (the program is shown whether or not anything fused)."""
        return self._entry(args)[0].source()

    def __repr__(self) -> str:
        return f"<jit {self.__name__}: {len(self.compiled)} signature(s) compiled>"


def _typed(value: Any) -> Any:
    """``value`` with the type of every number in it beside it, for the signature.

    ``2 == 2.0 == True`` and they hash alike, but ``x * 2`` keeps an int
    tensor's dtype where ``x * 2.0`` makes it float: the key must tell them apart.

    >>> _typed(("static", 2)) == _typed(("static", 2.0))
    False
    """
    if isinstance(value, tuple):
        return (type(value), tuple(_typed(v) for v in value))
    if isinstance(value, (list, dict)):
        return value  # unhashable: the signature check says so
    return (type(value), value)


def _batched(args: Sequence[Any]) -> bool:
    leaves, _ = flatten(list(args))
    return any(isinstance(t.data, Box) for t in leaves)


def _abstract(args: Sequence[Any]) -> bool:
    leaves, _ = flatten(list(args))
    return any(isinstance(t.data, AbstractArray) for t in leaves)


def jit(f: Callable[..., Any] | None = None, static_argnums: int | Sequence[int] = ()) -> Any:
    """Compile ``f``: trace on the first call per signature, replay the optimized program after.

    Use as ``mg.jit(f)``, ``mg.jit(f, static_argnums=(1,))``, ``@mg.jit`` or
    ``@mg.jit(static_argnums=1)``. The result also has ``.graph(*args)`` (the
    graph it runs) and ``.source(*args)`` (the generated kernels).

    >>> import minigrad as mg
    >>> fast = mg.jit(lambda x: (x * 2 + 1).sum())
    >>> fast(mg.ones(4)), fast(mg.ones(4))
    (tensor(12.), tensor(12.))
    >>> len(fast.compiled)
    1
    """
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    if f is None:
        return lambda g: Jitted(g, static)
    return Jitted(f, static)
