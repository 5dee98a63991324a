"""Code generation: one kernel for a group of elementwise operations (lessons 13, 15).

A fused group (``fusion.py``) is a handful of elementwise rows of the
registry that run over one shape, perhaps ending in a sum over everything.
Eager mode runs them one kernel each: every intermediate makes a trip to
memory and back. Here they become one loop whose body calls the rows'
scalar functions (``minigrad.backends.scalar_functions``, the same bodies
every backend compiles) one after the other, on numbers held in registers:
each input is read once, and only the results someone needs are written.

This pass writes the loop's body as text, one line per operation, named
after the graph's variables with a comment each, so it can be read
(``mg.jit(f).source(*args)``). The loop around it, and the file it lives in,
come from the backends' one kernel generator (``kernel_cache.fused_source``
and ``kernel_cache.load``, which write the eager kernels too): numba caches
compiled code only for functions defined in a file, so a new process loads
the kernel instead of compiling it again. The file's name is a hash of its
text, which depends only on the group's structure (operations, shapes,
dtypes), and the text carries the fingerprint of the scalar functions it
compiles in.

- CPU: ``numba.njit``, a loop over a range of elements, run by the
  backend's worker threads as the eager kernels are (``threads.Workers``,
  with their grain: below a few hundred thousand elements the caller runs
  the loop alone; above, each thread takes ranges as it comes free, so on
  a busy machine a late thread takes fewer and nobody waits for it to
  start); a sum is kept in float64 per range, and the ranges' sums are
  added exactly (``math.fsum``).
- CUDA: ``numba.cuda.jit``, one thread per element in a grid-stride loop;
  no reduction (the backend's reduction kernel runs after it).

float16 and bfloat16 (lesson 15, CPU): the kernel computes in float32 and
rounds each operation's result to its 16-bit dtype on the next line, where
eager mode rounds it, so a fused chain gives eager's bits. numba has no
16-bit float type on the CPU: such arrays travel as ``uint16`` words, widened
when read and rounded when written by bit arithmetic (``rounding.py``, and
``low_precision.bfloat16_bits`` for bfloat16). A cast (``astype``) between
float dtypes is one more line: exact when it widens, a rounding when it narrows.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import keyword
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from minigrad.backends import elementwise_ops, kernel_cache, low_precision
from minigrad.backends.low_precision import is_low
from minigrad.backends.threads import Workers
from minigrad.compile import rounding
from minigrad.compile.graph import Op, Var, uniform_value

_TYPES = {"float32": "_np.float32", "float64": "_np.float64", "bool": "_np.bool_"}
# A 16-bit value lives in the kernel as a float32 on its dtype's grid: ``_WIDEN`` reads
# a uint16 word as that float32 (exact), ``_BITS`` rounds a float32 to the word.
LOW = ("float16", "bfloat16")
_WIDEN = {"float16": "_np.uint32(_float16_value({})).view(_np.float32)",
          "bfloat16": "_np.uint32(_bfloat16_value({})).view(_np.float32)"}  # fmt: skip
_BITS = {d: f"_{d}_bits(_np.int64(_np.float32({{}}).view(_np.uint32)))" for d in LOW}
_ROUNDING = [(m.__name__, f) for m, fs in [(rounding, ("float16_bits", "float16_value")),
             (low_precision, ("bfloat16_bits", "bfloat16_value"))] for f in fs]  # fmt: skip


def _round(dtype: str, value: str) -> str:
    """The kernel's expression for ``value`` (a float32) rounded to 16-bit ``dtype``."""
    return _WIDEN[dtype].format(_BITS[dtype].format(value))


@functools.cache
def _rounding_fingerprint() -> str:
    """A hash of the bit functions' files: written into a 16-bit kernel's text, so an edit
    to them makes a new kernel file (numba's cache checks only the kernel's own file)."""
    files = (rounding.__file__, low_precision.__file__)
    return hashlib.sha256(b"".join(Path(f).read_bytes() for f in files)).hexdigest()[:16]


def _words(a: Any) -> Any:
    """A 16-bit float array as its uint16 words (a view); any other array as it is."""
    return a.view(np.uint16) if a.dtype.itemsize == 2 and is_low(a.dtype) else a


def identifier(name: str) -> str:
    """A graph variable's name, usable in Python (``in`` -> ``in_``)."""
    return name + "_" if keyword.iskeyword(name) or name.startswith("_") else name


class FusedKernel:
    """A generated kernel standing in a graph as one operation with several outputs.

    It has what ``Program`` needs of a primitive (``name``, ``forward``) and
    ``source``, the generated text. ``kinds[i]`` says how input ``i`` is read:
    ``"full"`` (the group's shape), ``"number"`` (one element, broadcast) or
    ``"broadcast"`` (another shape, read with stride 0 along broadcast axes).
    """

    def __init__(self, name: str, source: str, device: str, shape: tuple[int, ...],
                 kinds: Sequence[str], outs: Sequence[Var], reduced: Sequence[bool],
                 nd: bool) -> None:  # fmt: skip
        self.name = name
        self.source = source
        self.device = device
        self.shape = shape
        self.kinds = tuple(kinds)
        self.outs = tuple(outs)
        self.reduced = tuple(reduced)
        self.nd = nd
        self.donations: tuple[int, ...] = ()  # outputs written into donated memory (memory.py)
        self._kernel = None

    def with_donations(self, positions: Sequence[int]) -> FusedKernel:
        """This kernel, taking one extra (dying) input per position, whose memory output
        ``positions[j]`` is written into."""
        twin = copy.copy(self)
        twin.donations = tuple(positions)
        return twin

    @property
    def kernel(self) -> Any:
        """The compiled kernel, loaded from its generated file on first use."""
        if self._kernel is None:
            self._kernel = kernel_cache.load("fused", self.source).kernel
        return self._kernel

    def forward(self, backend: Any, *arrays: Any) -> Any:
        if self.device == "cuda":
            return self._forward_cuda(backend, arrays)
        shape, size = self.shape, math.prod(self.shape)
        given = dict(zip(self.donations, arrays[len(self.kinds) :]))
        args = []
        for a, kind in zip(arrays, self.kinds):
            if kind == "number":
                args.append(np.asarray(a).reshape(-1)[:1])
            elif kind == "broadcast":
                args.append(np.broadcast_to(a, shape))
            elif self.nd:
                args.append(np.ascontiguousarray(a))
            else:
                args.append(np.ascontiguousarray(a).reshape(-1))
        outs = [
            _buffer(given.get(j), shape if self.nd else (size,), v.dtype, backend)
            for j, (v, r) in enumerate(zip(self.outs, self.reduced)) if not r
        ]  # fmt: skip
        words = [_words(a) for a in (*args, *outs)]  # float16, bfloat16: as uint16 words
        sums = kernel_cache.call(self._run_cpu, self.kernel, backend, tuple(words))
        return self._results(
            outs, sums, lambda a, v: a.reshape(v.shape),
            lambda s, v: np.asarray(s, dtype=v.dtype).reshape(v.shape),
        )  # fmt: skip

    def _run_cpu(self, kernel: Any, backend: Any, arrays: tuple) -> Any:
        """Run ``kernel`` over every element, a range at a time on the worker threads;
        its sums (the ranges' partial sums, added exactly)."""
        rows = self.shape[0] if self.nd else math.prod(self.shape)
        per_row = math.prod(self.shape[1:]) if self.nd else 1
        partial: dict[int, Any] = {}

        def piece(start: int, stop: int) -> None:
            partial[start] = kernel(start, stop, *arrays)

        workers = getattr(backend, "workers", None) or _workers()
        workers.run(piece, rows, grain=max(1, -(-workers.grain // max(per_row, 1))))
        if not any(self.reduced):
            return ()
        ranges = [r if isinstance(r, tuple) else (r,) for r in partial.values()]
        return tuple(math.fsum(column) for column in zip(*ranges))

    def _forward_cuda(self, backend: Any, arrays: Sequence[Any]) -> Any:
        from minigrad.backends.cuda_backend import CudaArray

        size = math.prod(self.shape)
        args = []
        for a in arrays:
            a = backend.contiguous(a)
            args.append(a.buffer[a.offset : a.offset + max(a.size, 1)])
        outs = [backend.empty((size,), v.dtype) for v in self.outs]
        if size:
            threads = 256
            blocks = min(-(-size // threads), 1024)
            backend.run(self.kernel, blocks, threads, size, *args, *[o.buffer for o in outs])
        return self._results(outs, (), lambda a, v: CudaArray(a.buffer, v.shape), None)

    def _results(self, outs: list, sums: Any, shaped: Any, summed: Any) -> Any:
        sums = sums if isinstance(sums, tuple) else (sums,)
        arrays, si, oi = [], 0, 0
        for v, r in zip(self.outs, self.reduced):
            if r:
                arrays.append(summed(sums[si], v))
                si += 1
            else:
                arrays.append(shaped(outs[oi], v))
                oi += 1
        return arrays[0] if len(arrays) == 1 else arrays

    def __repr__(self) -> str:
        return f"FusedKernel({self.name!r}, {len(self.outs)} outputs)"


@functools.cache
def _workers() -> Workers:
    """Threads for the fused kernels when the backend has none of its own (NumPy's)."""
    return Workers()


def scalar_body(op: Op) -> Any:
    """The scalar function the kernel calls for ``op``: the table's, or for float32 a
    version that vectorizes (``elementwise_ops.scalar_body``); a 16-bit result is
    computed by the float32 one, as eager mode computes it."""
    dtype = np.float32 if op.out.dtype.name in LOW else op.out.dtype
    return elementwise_ops.scalar_body(op.prim.scalar, dtype)


def _buffer(donated: Any, shape: tuple[int, ...], dtype: Any, backend: Any) -> np.ndarray:
    """The donated array as ``shape`` when it is contiguous memory of its own, else one from
    the backend's pool of recycled buffers (``backends/buffers.py``), else a fresh one.

    Fresh pages fault on first touch; for a memory-bound kernel that costs more than
    its arithmetic, so a fused kernel recycles memory as the eager kernels do.
    """
    flags = getattr(donated, "flags", None)
    if flags is not None and flags.c_contiguous and flags.writeable and donated.dtype == dtype:
        return donated.reshape(shape)
    pool = getattr(backend, "buffers", None)
    return pool.empty(shape, np.dtype(dtype)) if pool is not None else np.empty(shape, dtype)


def kernel_source(ops: Sequence[Op], inputs: Sequence[Var], outputs: Sequence[Var],
                  constants: dict[Var, Any], names: dict[Var, str], shape: tuple[int, ...],
                  kinds: Sequence[str], device: str, title: str) -> tuple[str, bool]:  # fmt: skip
    """The text of the kernel computing ``outputs`` of ``ops`` from ``inputs``; and whether
    its loop is n-dimensional (needed when an input is broadcast along some axes).

    This pass writes the loop's body, one line per operation; the backends' one
    generator (``kernel_cache.fused_source``) writes the loop around it.
    """
    name = lambda v: identifier(names[v])
    reduced_vars = {op.out for op in ops if op.prim.name == "sum"}
    functions = sorted({(scalar_body(op).__module__, scalar_body(op).__name__)
                        for op in ops if op.prim.scalar is not None})  # fmt: skip
    low = any(v.dtype.name in LOW for op in ops for v in (*op.inputs, *op.outs))
    if low:
        functions += _ROUNDING
    doc = [
        f"A fused kernel of {title}, generated by minigrad.compile.codegen (lesson 13).",
        "",
        f"{len(ops)} operations over shape {shape} in one loop; inputs: "
        + ", ".join(f"{name(v)} {v.type} ({k})" for v, k in zip(inputs, kinds))
        + ".",
    ]
    if low:
        doc += ["", "16-bit values are float32 here, each result rounded to its dtype where eager",
                f"rounds it (bit functions' fingerprint: {_rounding_fingerprint()})."]  # fmt: skip
    # Constants that are one number everywhere become literals of their dtype.
    literal: dict[Var, str] = {}
    for v in constants:
        number = uniform_value(constants[v])
        if v.dtype.name in LOW:  # a 16-bit number is a float32 exactly
            literal[v] = f"_np.float32({float(number)!r})"
        else:
            literal[v] = f"{_TYPES[v.dtype.name]}({number!r})"
    local = {v: f"{name(v)}_i" for v in inputs}  # the generator reads input x into x_i
    body = []
    for v in inputs:
        if v.dtype.name in LOW:  # read as a uint16 word: widen it to the float32 it holds
            body.append(f"{name(v)}_f = {_WIDEN[v.dtype.name].format(local[v])}  # {v.type}")
            local[v] = f"{name(v)}_f"
    read = lambda v: local.get(v) or literal.get(v) or name(v)
    for op in ops:
        target = name(op.out)
        args = [read(v) for v in op.inputs]
        if op.prim.name == "astype":
            cast = _cast(target, args[0], op.inputs[0].dtype.name, op.out.dtype.name)
            body.append(f"{cast}  # astype({names[op.inputs[0]]}, {op.out.dtype.name})")
            continue
        if op.prim.name == "sum":
            body.append(f"sum_{target} += {args[0]}  # {target} = sum({args[0]})")
            continue
        if op.prim.name == "broadcast_to":  # reading through stride 0: the value itself
            body.append(f"{target} = {args[0]}  # broadcast_to")
            continue
        for value in op.params.values():  # pow_scalar's exponent, in x's dtype
            args.append(f"{_TYPES[op.out.dtype.name]}({value!r})")
        function = scalar_body(op).__name__
        comment = f"{op.prim.name}({', '.join(names[v] for v in op.inputs)})"
        body.append(f"{target} = _{function}({', '.join(args)})  # {comment}")
        if op.out.dtype.name in LOW:
            body.append(f"{target} = {_round(op.out.dtype.name, target)}  # to {op.out.type}")
    stored = lambda v: (
        _BITS[v.dtype.name].format(read(v)) if v.dtype.name in LOW else read(v)
    )  # fmt: skip
    return kernel_cache.fused_source(
        doc, functions, [(name(v), k) for v, k in zip(inputs, kinds)], body,
        [(name(v), stored(v)) for v in outputs if v not in reduced_vars],
        [name(v) for v in outputs if v in reduced_vars], shape, device,
    )  # fmt: skip


def _cast(target: str, value: str, source: str, dtype: str) -> str:
    """The kernel's line for ``target = astype(value)`` between float dtypes.

    Widening is exact; float64 -> float32 rounds once (``_np.float32``); to a
    16-bit dtype rounds the float32 value, and from float64 first goes through
    float32 (ml_dtypes' bfloat16 cast does the same; fusion leaves float64 ->
    float16 out, which NumPy rounds in one step).
    """
    if dtype == "float64":
        return f"{target} = _np.float64({value})"
    if source == "float64":
        value = f"_np.float32({value})"
    if dtype == "float32":
        return f"{target} = {value}"
    return f"{target} = {_round(dtype, value)}"
