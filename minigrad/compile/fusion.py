"""Elementwise fusion: connected elementwise ops become one generated kernel (lessons 13, 15).

Which operations can share a loop? Those the registry marks elementwise with
a scalar body (``prim.scalar``: ``out[i]`` depends only on element ``i`` of
each input), plus ``broadcast_to`` (reading a smaller input with stride 0)
and, to end a group, a ``sum`` over every axis (a running total the loop
keeps). A group runs over one shape; its inputs may be that shape, one
number, or (CPU) any shape that broadcasts to it.

The grouping walks the operations in order. An operation joins the group of
one of its inputs when every *other* input was ready before that group
started; otherwise it starts a group of its own. That one rule keeps the
program acyclic: a group runs where its first operation stood, and all it
reads exists by then. A group's *outputs* are the values some operation
outside it (or the program's result) reads; everything else stays in
registers and never reaches memory.

    >>> import minigrad as mg
    >>> from minigrad.compile.passes import optimize
    >>> g = optimize(mg.make_graph(lambda a, b: (a * b).tanh().sum())(mg.ones(8), mg.ones(8)))
    >>> [op.name for op in fuse(g, fuse_from=1)]  # (8 elements: too few to pay, by default)
    ['fused_mul_tanh_sum']

float16 and bfloat16 (lesson 15, on the CPU): eager mode computes each 16-bit
operation in float32 and rounds its result once; a kernel can do the same,
line by line (``codegen.py``), so elementwise ops on 16-bit values fuse, and
so do the casts (``astype``) between float dtypes that autocast inserts. What
the kernel could not compute as eager does stays out: the transcendental
ops (the table's ``EXACT_IN_FLOAT32``), float64 -> float16 (NumPy rounds it in one step, not
through float32), an op with a parameter (eager
converts it to the 16-bit dtype first), a 16-bit op reading float64, the
casts to and from integers and bools, and 16-bit sums (eager adds in float32,
the kernel's running total is float64).
"""

from __future__ import annotations

import importlib.util
import math
from typing import Any

from minigrad.backends.crossover import FUSE_FROM
from minigrad.backends.elementwise_ops import EXACT_IN_FLOAT32
from minigrad.compile.codegen import FusedKernel, kernel_source, scalar_body
from minigrad.compile.graph import Graph, Op, Var, uniform_value

FLOATS = ("float32", "float64")
LOW = ("float16", "bfloat16")
# The casts a kernel computes as eager does (codegen._cast): between float dtypes,
# but float64 -> float16, which NumPy rounds directly (through float32 it would round twice).
CASTS = {(a, b) for a in (*FLOATS, *LOW) for b in (*FLOATS, *LOW) if a != b} - {
    ("float64", "float16")
}
# Longer groups compile for longer (LLVM's time grows with the loop body); a
# chain longer than this is cut into several kernels.
MAX_GROUP = 400


def _fusable(op: Op, fuse_from: int) -> bool:
    """An elementwise row with a scalar body (or a broadcast), on float or bool values."""
    device = op.out.device
    if device == "cpu" and importlib.util.find_spec("numba") is None:
        return False
    if _size(op.out) < fuse_from:
        return False
    out, ins = op.out.dtype.name, [v.dtype.name for v in op.inputs]
    if op.prim.name == "astype":
        return device == "cpu" and (ins[0], out) in CASTS
    if out in LOW or any(d in LOW for d in ins):
        if not _low_fusable(op, out, ins):
            return False
    elif out not in (*FLOATS, "bool") or any(d not in (*FLOATS, "bool") for d in ins):
        return False
    if op.prim.name == "broadcast_to":
        return device == "cpu" or _is_number(op.inputs[0])
    if op.prim.scalar is None or (op.prim.name == "where" and device == "cuda"):
        return False
    # A parameter (pow_scalar's exponent, elu's alpha) is the scalar body's last
    # argument, written into the kernel as a constant.
    arity = scalar_body(op).__code__.co_argcount
    return not op.params or len(op.inputs) + len(op.params) == arity


def _low_fusable(op: Op, out: str, ins: list[str]) -> bool:
    """Whether a kernel computes ``op`` on 16-bit values as eager does: on the CPU, its
    inputs widened to float32 (16-bit, float32 or bool ones), an ``EXACT_IN_FLOAT32`` op with no
    parameter (or a broadcast), and a 16-bit
    result rounded to its own dtype (or a bool)."""
    if op.out.device != "cpu":
        return False
    if op.prim.name != "broadcast_to" and (op.params or op.prim.scalar not in EXACT_IN_FLOAT32):
        return False
    if out in LOW:
        return all(d in (out, "float32", "bool") for d in ins)
    return out == "bool" and all(d in (*LOW, "float32", "bool") for d in ins)


def _size(v: Var) -> int:
    return math.prod(v.shape)


def _is_number(v: Var) -> bool:
    return all(n == 1 for n in v.shape)


def _sum_of_all(op: Op) -> bool:
    if op.prim.name != "sum" or op.out.device != "cpu":
        return False
    x = op.inputs[0]
    return sorted(op.params["axes"]) == list(range(len(x.shape))) and x.dtype.name in FLOATS


class _Group:
    def __init__(self, start: int, shape: tuple[int, ...], device: str) -> None:
        self.start, self.shape, self.device = start, shape, device
        self.ops: list[Op] = []
        self.made: set[Var] = set()  # elementwise results (readable inside the group)
        self.sums: set[Var] = set()  # totals (ready only when the loop ends)


def fuse(graph: Graph, max_group: int = MAX_GROUP, fuse_from: int | None = None) -> Graph:
    """Replace each group of two or more fusable operations by one ``FusedKernel`` operation.

    ``fuse_from``: the fewest elements a group must have (default ``FUSE_FROM``, read
    at each call, so a test or a lesson may lower it for small arrays).
    """
    fuse_from = FUSE_FROM if fuse_from is None else fuse_from
    ready: dict[Var, int] = {}  # where each value exists: its op's position, or its group's start
    group_of: dict[Var, _Group] = {}
    latest: dict[Any, _Group] = {}  # the last group started per (shape, device)
    placed: list[Any] = []  # the new program: Ops and _Groups, in order
    for k, op in enumerate(graph.ops):
        group = None
        if _fusable(op, fuse_from):
            group = _join(op, group_of, ready, max_group, latest)
            if group is None:
                fresh = _Group(k, op.out.shape, op.out.device)
                # A CUDA kernel reads its inputs flat: each must be the group's shape or a number.
                if all(_readable(v, fresh) for v in op.inputs):
                    group = latest[fresh.shape, fresh.device] = fresh
                    placed.append(group)
            if group is not None:
                group.ops.append(op)
                group.made.update(op.outs)
        elif _sum_of_all(op) and op.inputs[0] in group_of:
            candidate = group_of[op.inputs[0]]
            if op.inputs[0] in candidate.made and len(candidate.ops) < max_group:
                group = candidate
                group.ops.append(op)
                group.sums.add(op.out)
        if group is None:
            placed.append(op)
            ready.update((v, k) for v in op.outs)
        else:
            for v in op.outs:
                ready[v] = group.start
                group_of[v] = group
    names = graph.names()
    used_outside = _readers_outside(graph)
    ops = []
    for item in placed:
        if isinstance(item, Op):
            ops.append(item)
        elif len(item.ops) < 2:
            ops.extend(item.ops)
        else:
            ops.append(_kernel_op(item, graph, names, used_outside))
    return graph.replace(ops)


def _join(op: Op, group_of: dict, ready: dict, max_group: int, latest: dict) -> _Group | None:
    """The group ``op`` may join (the latest-started one that works), or None.

    Candidates: the groups that made its inputs, and the last group of its
    shape (which an op reading only older values, a broadcast of a
    constant, can join too).
    """
    candidates = {group_of[v] for v in op.inputs if v in group_of and v in group_of[v].made}
    if (op.out.shape, op.out.device) in latest:
        candidates.add(latest[op.out.shape, op.out.device])
    for group in sorted(candidates, key=lambda g: -g.start):
        if group.shape != op.out.shape or group.device != op.out.device:
            continue
        if len(group.ops) >= max_group:
            continue
        fits = all(
            v in group.made
            or (v not in group.sums and ready.get(v, -1) < group.start and _readable(v, group))
            for v in op.inputs
        )
        if fits:
            return group
    return None


def _readable(v: Var, group: _Group) -> bool:
    """Whether a kernel over ``group.shape`` can read ``v`` (same shape, a number, a broadcast)."""
    if v.shape == group.shape or _is_number(v):
        return True
    return group.device == "cpu" and len(v.shape) <= len(group.shape)


def _readers_outside(graph: Graph) -> dict[Var, set[int]]:
    """For each Var, the ids of the operations that read it (and -1 for a program output)."""
    readers: dict[Var, set[int]] = {}
    for op in graph.ops:
        for v in op.inputs:
            readers.setdefault(v, set()).add(id(op))
    for v in graph.outputs:
        readers.setdefault(v, set()).add(-1)
    return readers


def _kernel_op(group: _Group, graph: Graph, names: dict, readers: dict) -> Op:
    members = {id(op) for op in group.ops}
    made = group.made | group.sums
    inputs: list[Var] = []
    constants: dict[Var, Any] = {}
    for op in group.ops:
        for v in op.inputs:
            if v in made or v in inputs or v in constants:
                continue
            value = graph.constants.get(v)
            if value is not None and uniform_value(value) is not None:
                constants[v] = value  # a number written into the kernel's text
            else:
                inputs.append(v)
    outputs = [v for op in group.ops for v in op.outs if readers.get(v, set()) - members]
    kinds = [
        "full" if v.shape == group.shape else "number" if _is_number(v) else "broadcast"
        for v in inputs
    ]
    title = "_".join(dict.fromkeys(op.prim.name for op in group.ops))
    title = title if len(title) <= 40 else f"{len(group.ops)}_ops"
    source, nd = kernel_source(group.ops, inputs, outputs, constants, names, group.shape, kinds,
                               group.device, f"{graph.name}: {title}")  # fmt: skip
    reduced = [v in group.sums for v in outputs]
    kernel = FusedKernel(f"fused_{title}", source, group.device, group.shape, kinds, outputs,
                         reduced, nd)  # fmt: skip
    return Op(kernel, tuple(inputs), {}, tuple(outputs))
