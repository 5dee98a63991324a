"""Passes: small pure functions from a Graph to a better Graph (lesson 13).

A whole program, written down, can be improved in ways eager mode never sees,
because eager mode meets one operation at a time. Each pass here reads a
graph and returns a new one; none changes its argument, so a lesson can
print (or draw) the graph before and after each of them.

- ``eliminate_dead_code``: drop operations whose results nobody reads;
- ``eliminate_common_subexpressions``: compute ``f(x)`` once when it is
  written twice (same primitive, same inputs, same parameters);
- ``fold_constants``: an operation on constants only is done now, once;
- ``simplify``: algebra that needs no numbers: ``x * 1``, ``x + 0``,
  ``-(-x)``, a reshape of a reshape, a transpose of a transpose.

They are the first four passes of ``optimize``; fusion (``fusion.py``) and
buffer reuse (``memory.py``) come after.

    >>> import minigrad as mg
    >>> g = mg.make_graph(lambda x: (x * 1 + 0).exp() + (x * 1 + 0).exp())(mg.ones(2))
    >>> len(g), len(optimize(g))
    (7, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.backends.numpy_backend import NumpyBackend
from minigrad.compile.graph import Graph, Op, Var, uniform_value
from minigrad.tensor.primitive import REGISTRY

# Operations with an effect: each one runs, in order, even when nobody reads its result
# and when another is written the same way (two draws of random numbers differ).
# An optimization barrier (checkpoint's recomputation under jit, lesson 09) is one too:
# CSE must not merge the recomputation back into the forward pass it repeats.
EFFECTS = frozenset({"draw", "optimization_barrier"})

# Folding computes at compile time and keeps the result in the program:
# worth it for small constants, not for a 4M-element broadcast of one number.
FOLD_LIMIT = 4096
_NUMPY = NumpyBackend()


def _renamed(op: Op, renames: dict[Var, Var]) -> Op:
    """``op`` reading the renamed inputs (the same object when nothing changed)."""
    if not any(v in renames for v in op.inputs):
        return op
    return Op(op.prim, tuple(renames.get(v, v) for v in op.inputs), op.params, op.outs)


def _finish(graph: Graph, ops: list[Op], renames: dict[Var, Var],
            constants: dict[Var, Any] | None = None) -> Graph:  # fmt: skip
    outputs = [renames.get(v, v) for v in graph.outputs]
    return graph.replace(ops, outputs, constants)


def eliminate_dead_code(graph: Graph) -> Graph:
    """Keep only the operations an output depends on (and the constants they read).

    Walk backwards from the outputs: an operation is live when one of its
    results is read by a live operation or is an output.
    """
    live = set(graph.outputs)
    kept = []
    for op in reversed(graph.ops):
        if any(v in live for v in op.outs) or op.prim.name in EFFECTS:
            prune = getattr(op.prim, "prune", None)  # a loop drops the outputs nobody reads
            if prune is not None:
                op = prune(op, live)
            kept.append(op)
            live.update(op.inputs)
    constants = {v: value for v, value in graph.constants.items() if v in live}
    return graph.replace(kept[::-1], constants=constants)


def freeze(value: Any) -> Any:
    """A hashable stand-in for a parameter (tuples, slices, arrays, dtypes)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, *map(freeze, value))
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.str, value.tobytes())
    try:
        hash(value)
    except TypeError:
        return ("repr", repr(value))
    return (type(value).__name__, value)


def _constant_key(v: Var, value: Any) -> Any:
    number = uniform_value(value)
    body = ("number", number) if number is not None else freeze(np.asarray(value))
    return (v.shape, v.dtype.str, v.device, body)


def eliminate_common_subexpressions(graph: Graph) -> Graph:
    """Compute each distinct ``prim(inputs, params)`` once; equal constants become one.

    Two operations are the same when they apply the same primitive to the
    same variables with equal parameters: every primitive is a pure function,
    so they give the same numbers.
    """
    renames: dict[Var, Var] = {}
    constants: dict[Var, Any] = {}
    seen_constants: dict[Any, Var] = {}
    for v, value in graph.constants.items():
        key = _constant_key(v, value)
        if key in seen_constants:
            renames[v] = seen_constants[key]
        else:
            seen_constants[key] = v
            constants[v] = value
    seen: dict[Any, Op] = {}
    ops = []
    for op in graph.ops:
        op = _renamed(op, renames)
        if op.prim.name in EFFECTS:
            ops.append(op)
            continue
        key = (id(op.prim), op.inputs, freeze(op.params))
        first = seen.get(key)
        if first is None:
            seen[key] = op
            ops.append(op)
        else:
            renames.update(zip(op.outs, first.outs))
    return _finish(graph, ops, renames, constants)


def fold_constants(graph: Graph) -> Graph:
    """Run, now, each operation whose inputs are all constants (small results only).

    The NumPy reference backend computes it; the result becomes a constant of
    the graph and the operation disappears.
    """
    constants = dict(graph.constants)
    ops = []
    for op in graph.ops:
        foldable = (
            op.inputs
            and len(op.outs) == 1
            and all(v in constants for v in op.inputs)
            and op.out.device == "cpu"
            and int(np.prod(op.out.shape)) <= FOLD_LIMIT
            and op.prim.name != "to_device"
        )
        if foldable:
            value = op.prim.forward(_NUMPY, *[constants[v] for v in op.inputs], **op.params)
            constants[op.out] = np.asarray(value)
        else:
            ops.append(op)
    return eliminate_dead_code(graph.replace(ops, constants=constants))


def _is(graph: Graph, v: Var, number: float) -> bool:
    return v in graph.constants and uniform_value(graph.constants[v]) == number


def _same_type(a: Var, b: Var) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.device == b.device


def simplify(graph: Graph) -> Graph:
    """Algebraic identities: ``x*1``, ``1*x``, ``x+0``, ``0+x``, ``x-0``, ``-(-x)``,
    ``x + (-y)`` and ``x - (-y)`` (one operation less: a subtraction, an addition), and
    reshape/transpose/broadcast chains (two in a row become one; one that changes
    nothing disappears).

    An identity applies only where the result has ``x``'s own shape and
    dtype: ``x * ones(3, 4)`` for an ``x`` of shape ``(4,)`` broadcasts, so it stays.
    """
    renames: dict[Var, Var] = {}
    made: dict[Var, Op] = {}  # the (simplified) operation that made each variable
    ops = []
    for op in graph.ops:
        op = _renamed(op, renames)
        replacement = _identity(graph, op, made)
        if isinstance(replacement, Var):
            renames[op.out] = replacement
            continue
        if replacement is not None:
            op = replacement
        ops.append(op)
        for v in op.outs:
            made[v] = op
    return eliminate_dead_code(_finish(graph, ops, renames))


def _identity(graph: Graph, op: Op, made: dict[Var, Op]) -> Var | Op | None:
    """What ``op`` simplifies to: an existing Var, a simpler Op, or None (nothing)."""
    name, xs, out = op.prim.name, op.inputs, op.out
    if name in ("mul", "add", "sub") and len(xs) == 2:
        unit = 1 if name == "mul" else 0
        x, y = xs
        if _is(graph, y, unit) and _same_type(x, out):
            return x
        if name != "sub" and _is(graph, x, unit) and _same_type(y, out):
            return y
    if name == "neg":
        inner = made.get(xs[0])
        if inner is not None and inner.prim.name == "neg":
            return inner.inputs[0]
    if name in ("add", "sub") and len(xs) == 2:
        # x + (-y) = x - y, (-y) + x = x - y, x - (-y) = x + y: exactly, in floating
        # point too (subtraction is addition of the negation). Backward passes
        # make these: the cotangent of ``x - y`` for ``y`` is ``-g``, added up.
        negated = [made.get(v) is not None and made[v].prim.name == "neg" for v in xs]
        if negated[1]:
            other = "sub" if name == "add" else "add"
            return Op(REGISTRY[other], (xs[0], made[xs[1]].inputs[0]), {}, op.outs)
        if negated[0] and name == "add":
            return Op(REGISTRY["sub"], (xs[1], made[xs[0]].inputs[0]), {}, op.outs)
    if name in ("reshape", "broadcast_to", "sum_to") and _same_type(xs[0], out):
        return xs[0]
    if name == "reshape":
        inner = made.get(xs[0])
        if inner is not None and inner.prim.name == "reshape":
            source = inner.inputs[0]
            if _same_type(source, out):
                return source
            return Op(op.prim, (source,), op.params, op.outs)
    if name == "transpose":
        axes = tuple(op.params["axes"])
        if axes == tuple(range(len(axes))):
            return xs[0]
        inner = made.get(xs[0])
        if inner is not None and inner.prim.name == "transpose":
            # transpose(transpose(x, p), q) reads axis p[q[i]] of x at position i.
            first = tuple(inner.params["axes"])
            composed = tuple(first[a] for a in axes)
            if composed == tuple(range(len(composed))):
                return inner.inputs[0]
            return Op(op.prim, (inner.inputs[0],), {"axes": composed}, op.outs)
    return None


def optimize(graph: Graph) -> Graph:
    """The passes that need no code generation, in order, until nothing changes."""
    while True:
        size = (len(graph.ops), len(graph.constants))
        graph = eliminate_dead_code(graph)
        graph = fold_constants(graph)
        graph = simplify(graph)
        graph = eliminate_common_subexpressions(graph)
        if (len(graph.ops), len(graph.constants)) == size:
            return graph
