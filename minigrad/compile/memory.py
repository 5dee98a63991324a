"""Buffer reuse by liveness: a kernel writes into the memory of a value that just died (lesson 13).

The program knows, for every value, the last operation that reads it (its
*liveness*). ``Program`` already drops each value right after its last read,
so memory in use follows what the program still needs. This pass goes one
step further for the fused kernels, which write big fresh arrays: when a
value of the same shape and dtype dies at the kernel's own step, the kernel
may write its result into that memory instead of asking for new pages (a
fresh page costs a fault on first touch; a reused one is already mapped).

A value may be given away only when nobody else can see its memory:

- it is not an input (the caller owns those), a constant, a captured tensor
  or an output of the program;
- it was made by an operation that returns fresh memory (a fused kernel,
  an elementwise row, a reduction, a matmul), not a view;
- no view of it exists: every operation that reads it returns fresh memory too.

The pass marks the donation in the graph itself: the dead value becomes an
extra input of the kernel (``FusedKernel.donated`` counts them), so the
printed graph shows it and the liveness of ``Program`` stays right.
"""

from __future__ import annotations

from minigrad.compile.codegen import FusedKernel
from minigrad.compile.graph import Graph, Op, Var

# Below this, fresh memory is cheap (the allocator recycles small blocks itself).
REUSE_FROM_BYTES = 1 << 20
_FRESH = frozenset({"matmul", "sum", "max", "min"})


def _returns_fresh(op: Op) -> bool:
    if isinstance(op.prim, FusedKernel):
        return True
    return op.prim.scalar is not None or op.prim.name in _FRESH


def reuse_buffers(graph: Graph) -> Graph:
    """Give each fused kernel's outputs the memory of same-sized values that die at its step."""
    last_read: dict[Var, int] = {}
    readers: dict[Var, list[Op]] = {}
    for k, op in enumerate(graph.ops):
        for v in op.inputs:
            last_read[v] = k
            readers.setdefault(v, []).append(op)
    private = set(graph.inputs) | set(graph.outputs) | set(graph.constants)
    private |= {v for v, _ in graph.captured}
    donors: dict[Var, bool] = {}
    for op in graph.ops:
        for v in op.outs:
            donors[v] = (
                _returns_fresh(op)
                and v not in private
                and all(_returns_fresh(r) for r in readers.get(v, []))
            )
    ops = []
    for k, op in enumerate(graph.ops):
        kernel = op.prim
        if not isinstance(kernel, FusedKernel) or kernel.device != "cpu":
            ops.append(op)
            continue
        dying = [v for v in dict.fromkeys(op.inputs) if donors.get(v) and last_read[v] == k]
        donated, positions = [], []
        for j, (out, reduced) in enumerate(zip(op.outs, kernel.reduced)):
            if reduced or out.dtype.itemsize * _size(out) < REUSE_FROM_BYTES:
                continue
            match = next((v for v in dying if v.shape == out.shape and v.dtype == out.dtype), None)
            if match is not None:
                dying.remove(match)
                donated.append(match)
                positions.append(j)
        if donated:
            kernel = kernel.with_donations(positions)
            op = Op(kernel, (*op.inputs, *donated), op.params, op.outs)
        ops.append(op)
    return graph.replace(ops)


def _size(v: Var) -> int:
    n = 1
    for s in v.shape:
        n *= s
    return n
