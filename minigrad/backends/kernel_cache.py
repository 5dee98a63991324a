"""The one kernel generator: a kernel's source from scalar functions, cached on disk (lesson 10).

Every compiled elementwise kernel in minigrad is written here, as Python
text, from the scalar functions of the table (``elementwise_ops``):

- ``kernel_source(op)``: the CPU kernels of one op for eager ``map``, ``zip``
  and ``where``, with the scalar function inlined (a large one, a special
  function, is compiled once and called: ``INLINE_BYTES``): a bare loop for operands
  that run along memory (or are one number), and a walk over the rows of
  broadcast or strided ones (``strides.row_starts`` says where each row
  starts), run on the backend's worker threads. An op with a quick form
  (``remainder``) runs it first in its bare loops, a block at a time, and its
  scalar function again only over a block where the quick form missed;
- ``reduce_source(op)``: the CPU kernel of a reduction, folding with the
  table's scalar function (``elementwise_ops.REDUCTIONS``: sum folds with add);
- ``kernel_source(op, "cuda", ndim)``: the same op on CUDA, one thread per
  element, every operand read through its strides;
- ``fused_source(...)``: the loop of a fused group (lesson 13: the fusion
  pass writes the body, one line per operation), over a range of elements on
  the CPU (the backend's worker threads run the ranges, as for the eager
  kernels), a grid-stride loop on CUDA;
- ``njit_source(source)``: a plain Python module compiled whole, each function
  under ``njit`` (``selection_steps``, the tie selections of topk and
  kthvalue: one source, interpreted on the NumPy backend, compiled on numba).

numba compiles a function for the argument types of its first call (so of
a module's kernels only those called are compiled, each for the dtypes it
meets) and, with
``cache=True``, saves the machine code so the next process loads it in
milliseconds. Its disk cache has two rules that shape this module:

- it caches functions defined in a source file. A kernel made at run time
  (a closure, or one taking the scalar function as an argument) compiles
  again in every process. So kernels are *generated*: their text is written
  to a file named by a hash of that text (``load``), imported, and cached by
  numba like any other module;
- it checks only that file for changes. The generated text therefore carries
  a fingerprint of the sources it compiles in (the scalar functions, the
  walkers, the index math): after an edit there, the text changes, a new
  file is written, and numba compiles afresh instead of loading stale code.

Where the cache lives: in the user's cache folder (``~/.cache/minigrad`` on
Linux, ``~/Library/Caches/minigrad`` on macOS, ``%LOCALAPPDATA%\\minigrad\\Cache``
on Windows: platformdirs' convention), or in ``$MINIGRAD_CACHE_DIR``, or in
``$NUMBA_CACHE_DIR/minigrad`` when only numba's variable is set; never
inside the installed package (which may be read-only, or shared by every
user of the machine). numba's cache of the package's own hand-written
kernels (``numba_matmul``, ``numba_attention``) goes there too (``PackageLocator``).

A cache never breaks a run:

- a damaged cache file (a truncated write) makes numba raise while loading
  it. ``call`` notices, deletes the damaged entries, says so once with a
  warning, and compiles again;
- an unusable cache folder (read-only, a file in the way) is noticed once
  (``caching()``): a warning, then every kernel compiles in memory, as if
  ``cache=False``; a disk that fills up while numba saves a kernel gets
  the same warning, and that kernel keeps running from memory;
- two processes that compile the same kernel at once both succeed: every
  file is written under a private name and renamed into place, which is
  atomic, and their contents are identical anyway.

    >>> [line[4 : line.index("(")] for line in kernel_source("add").splitlines()
    ...  if line.startswith("def ")]
    ['flat_aa', 'flat_an', 'flat_na', 'kernel']
"""

from __future__ import annotations

import ast
import dis
import hashlib
import importlib.util
import os
import pickle
import sys
import threading
import types
import warnings
from functools import cache
from pathlib import Path
from typing import Any

from minigrad.backends import elementwise_ops, strides
from minigrad.backends.elementwise_ops import ARITY, OPS, REDUCTIONS  # noqa: F401 (ARITY)

# -- the generator: a kernel's text from scalar functions ----------------------------------
_OPERANDS = ("x", "y", "z")  # an elementwise kernel's inputs, in order


# The layouts of a flat kernel: each operand runs along memory ("a": an array, read at
# i) or is one number ("n": read once). An all-number layout never reaches a kernel.
def flat_layouts(arity: int) -> list[str]:
    """The flat kernels of an op of ``arity`` operands, by layout.

    >>> flat_layouts(2)
    ['aa', 'an', 'na']
    """
    layouts = [""]
    for _ in range(arity):
        layouts = [layout + kind for layout in layouts for kind in "an"]
    return [layout for layout in layouts if "a" in layout]


def jit_scalar(function: Any, jit: Any, native: dict[str, Any] | None = None) -> Any:
    """``jit(function)``, and the functions of its module that it calls compiled by ``jit`` too.

    Compiled code can call only compiled code, so a scalar function that calls a
    helper of its own module (``fast_math.silu_float32`` calls ``_times_sigmoid``)
    is compiled with a copy of that module's namespace in which each helper it
    reaches is compiled by the same ``jit`` (``njit(inline="always")`` on the
    CPU, a CUDA device function): the modules themselves stay plain Python,
    importable without numba. A function that calls no helper is ``jit(function)``.
    ``native`` names helpers that have a compiled stand-in, used instead
    (``numba_kernels.NATIVE``: ``fast_math.muladd`` as one fused multiply-add).

    >>> calls = []
    >>> jit_scalar(abs, lambda f: calls.append(f) or f) is abs, calls == [abs]
    (True, True)
    """
    code = getattr(function, "__code__", None)
    scope = dict(getattr(function, "__globals__", {}))
    helpers, pending = {}, [code] if code else []
    while pending:
        loads = dis.get_instructions(pending.pop())
        for name in {i.argval for i in loads if i.opname == "LOAD_GLOBAL"}:
            helper = scope.get(name)
            if (
                isinstance(helper, types.FunctionType)
                and helper.__module__ == function.__module__
                and name not in helpers
            ):
                helpers[name] = helper
                pending.append(helper.__code__)
    if not helpers:
        return jit(function)
    for name, helper in helpers.items():  # looked up when numba compiles: order is free
        if native and name in native:
            scope[name] = native[name]
            continue
        scope[name] = jit(types.FunctionType(helper.__code__, scope, name, helper.__defaults__))
    return jit(types.FunctionType(code, scope, function.__name__, function.__defaults__))


# A flat kernel with a quick form runs it on this many elements at a time, then the
# body again on a block where it missed: a few misses cost a block each.
QUICK_BLOCK = 256


def _flat_lines(layout: str, names: tuple[str, ...], quick: bool) -> list[str]:
    """The flat kernel of ``layout``: one loop, or with a quick form a loop of blocks."""
    # Slices indexed from 0: numba drops its negative-index test, so LLVM
    # vectorizes the loop; no index arithmetic at all.
    arrays = [n for n, kind in zip(names, layout) if kind == "a"]
    numbers = [f"    {n}_value = {n}[0]" for n, kind in zip(names, layout) if kind == "n"]
    reads = ", ".join(
        f"{n}_run[k]" if kind == "a" else f"{n}_value" for n, kind in zip(names, layout)
    )
    head = [
        "",
        "",
        "@JIT",
        f"def flat_{layout}(start, stop, out, {', '.join(names)}):",
        f'    """out[i] = fn(...) for start <= i < stop, operands laid out as {layout!r}."""',
    ]
    if not quick:
        return [
            *head,
            "    o = out[start:stop]",
            *[f"    {n}_run = {n}[start:stop]" for n in arrays],
            *numbers,
            "    for k in range(stop - start):",
            f"        o[k] = fn({reads})",
        ]
    head[-1] = head[-1][:-3]  # the docstring goes on
    return [
        *head,
        "",
        "    A block at a time: the quick form, which also says where it is exact,",
        '    then fn again over a block where it was not (a NaN, a zero divisor, ...)."""',
        *numbers,
        "    for first in range(start, stop, BLOCK):",
        "        last = min(first + BLOCK, stop)",
        "        o = out[first:last]",
        *[f"        {n}_run = {n}[first:last]" for n in arrays],
        "        exact = True",
        "        for k in range(last - first):",
        f"            o[k], hit = quick({reads})",
        "            exact &= hit",
        "        if not exact:",
        "            for k in range(last - first):",
        f"                o[k] = fn({reads})",
    ]


# A scalar function with more bytecode than this (with the helpers it calls: a special
# function's series and recurrences) is compiled once per dtype and called by each kernel of
# its op, instead of inlined into each (the layouts' loops, the strided walk's two): numba
# compiled such a body 3 to 6 times per dtype, seconds each. A call costs little beside it.
INLINE_BYTES = 1000


def _bytecode_size(function: Any) -> int:
    """The bytecode of ``function`` and of the functions of its module it calls, in bytes."""
    scope, seen, pending, total = function.__globals__, set(), [function.__code__], 0
    while pending:
        code = pending.pop()
        total += len(code.co_code)
        for name in {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}:
            helper = scope.get(name)
            if (
                isinstance(helper, types.FunctionType)
                and helper.__module__ == function.__module__
                and name not in seen
            ):
                seen.add(name)
                pending.append(helper.__code__)
    return total


def _scalar_line(function: Any) -> str:
    """The line of a kernel module that compiles the op's scalar function as ``fn``."""
    inlined = f'jit_scalar({function.__name__}, njit(inline="always"), NATIVE)'
    if _bytecode_size(function) <= INLINE_BYTES:
        return f"fn = {inlined}"
    return f'fn = njit(error_model="numpy")({inlined}.py_func)  # called, not inlined'


def _cpu_source(what: str, function: Any, quick: Any = None) -> str:
    """The CPU kernels of one op: a flat loop per layout, and the strided walk.

    With a quick form (``elementwise_ops``: cheaper, exact on most inputs, and
    saying where), the flat kernels run it first, a block at a time.
    """
    names = _OPERANDS[: function.__code__.co_argcount]
    lines = [
        f'"""The numba CPU kernels of {what} (written by minigrad.backends.kernel_cache).',
        "",
        "The workers (threads.py) call a kernel on disjoint ranges [start, stop) of out.",
        '"""',
        f"# fingerprint of the sources compiled in: {fingerprint()}",
        "from numba import njit, uint64",
        "",
        'CACHE = "__file__" in globals()  # numba caches functions of a file; in memory, none',
        "",
        "from minigrad.backends.kernel_cache import jit_scalar",
        "from minigrad.backends.numba_kernels import NATIVE",
        f"from {function.__module__} import {function.__name__}",
        "",
        _scalar_line(function),
        'JIT = njit(nogil=True, cache=CACHE, error_model="numpy")',
    ]
    if quick is not None:
        lines[-2:-2] = [
            f"from {quick.__module__} import {quick.__name__}",
            f'quick = jit_scalar({quick.__name__}, njit(inline="always"), NATIVE)',
            f"BLOCK = {QUICK_BLOCK}",
        ]
    for layout in flat_layouts(len(names)):
        lines += _flat_lines(layout, names, quick is not None)
    operands = ", ".join(f"{n}, {n}_rows, {n}_step" for n in names)
    lines += [
        "",
        "",
        "@JIT",
        f"def kernel(start, stop, out, row, {operands}):",
        '    """out[i] = fn(...) for start <= i < stop, operands read through their strides.',
        "",
        "    ``out`` is a stack of rows of ``row`` elements; an operand's row r starts at",
        "    ``x[x_rows[r]]`` (the caller works those out), and steps ``x_step`` elements",
        "    along it: 1 along memory, 0 for a number broadcast along the row.",
        '    """',
        f"    along = {' and '.join(f'{n}_step == 1' for n in names)}",
        "    i = start",
        "    while i < stop:",
        "        r = i // row",
        "        j = i - r * row  # where in row r the range begins",
        "        n = min(row - j, stop - i)",
        *[f"        p{n} = {n}_rows[r] + j * {n}_step" for n in names],
        "        o = out[i : i + n]",
        "        if along:  # slices indexed from 0: no negative-index test, LLVM vectorizes",
        *[f"            {n}_run = {n}[p{n} : p{n} + n]" for n in names],
        "            for k in range(n):",
        f"                o[k] = fn({', '.join(f'{n}_run[k]' for n in names)})",
        "        else:",
        "            for k in range(n):",
        f"                o[k] = fn({', '.join(f'{n}[uint64(p{n} + k * {n}_step)]' for n in names)})",  # noqa: E501
        "        i += n",
    ]
    return "\n".join(lines) + "\n"


_CUDA_TEMPLATE = '''"""The CUDA kernel of {what} over {ndim} axes, by minigrad's kernel_cache."""
# fingerprint of the sources compiled in: {fingerprint}
from numba import config, cuda, int64

# numba's simulator caches nothing; on a GPU, functions of a file are cached.
CACHE = "__file__" in globals() and not config.ENABLE_CUDASIM

from minigrad.backends.cuda_kernels import index_to_position, to_index
from minigrad.backends.kernel_cache import jit_scalar
from {module} import {function}

fn = jit_scalar({function}, cuda.jit(device=True))


@cuda.jit(cache=CACHE)
def kernel(size, shape, out, out_offset, out_strides, {operands}):
    i = cuda.grid(1)  # one thread per element of out
    if i < size:
        index = cuda.local.array({ndim}, int64)
        to_index(i, shape, index)
{reads}
        out[index_to_position(index, out_strides, out_offset)] = fn({values})
'''


def kernel_source(op: str, device: str = "cpu", ndim: int = 1, function: Any = None) -> str:
    """The Python source of the kernels applying op ``op``'s scalar function to every element.

    CPU: one module for every layout of the operands, each function compiled on
    its first call only. ``flat_<layout>(start, stop, out, x, ...)`` for operands
    that each run along memory (``a``) or are one number (``n``): a bare loop, no
    index arithmetic; ``kernel(start, stop, out, shape, x, x_offset, x_strides,
    ...)`` for any other strides (broadcast, transposed, sliced). Both fill
    ``out[start:stop]`` (the workers run disjoint ranges at once). CUDA:
    ``kernel(size, shape, out, out_offset, out_strides, x, x_offset, x_strides,
    ...)``, one thread per element of ``out``, every operand read through its
    strides. ``function`` stands in for the table's scalar function (the CUDA
    backend's ``copy``).
    """
    function = function or OPS[op].scalar
    if device == "cpu":
        return _cpu_source(f"op {op!r}", function, OPS[op].quick if op in OPS else None)
    names = _OPERANDS[: function.__code__.co_argcount]
    operands = ", ".join(f"{n}, {n}_offset, {n}_strides" for n in names)
    reads = "\n".join(
        f"        {n}_value = {n}[index_to_position(index, {n}_strides, {n}_offset)]" for n in names
    )
    values = ", ".join(f"{n}_value" for n in names)
    fields = dict(what=f"op {op!r}", fingerprint=fingerprint(), module=function.__module__,
                  function=function.__name__, operands=operands)  # fmt: skip
    return _CUDA_TEMPLATE.format(ndim=ndim, reads=reads, values=values, **fields)


@cache
def kernel_module(op: str, device: str = "cpu", ndim: int = 1, function: Any = None) -> Any:
    """The module of op ``op``'s kernels (``kernel_source``), loaded from its cached file."""
    return load(op, kernel_source(op, device, ndim, function))


def elementwise_kernel(op: str, device: str = "cpu", ndim: int = 1, function: Any = None,
                       layout: str | None = None) -> Any:  # fmt: skip
    """The compiled kernel of op ``op``: the strided one, or the flat one of ``layout``.

    ``function`` stands in for the op's scalar function: ``elementwise_ops.scalar_body``
    (the float32 body that vectorizes) or the CUDA backend's ``copy``.
    """
    module = kernel_module(op, device, ndim, function or OPS[op].scalar)
    return module.kernel if layout is None else getattr(module, f"flat_{layout}")


def reduce_source(op: str, device: str = "cpu", dtype: str = "float64", kept_ndim: int = 1,
                  reduced_ndim: int = 1, threads: int = 256) -> str:  # fmt: skip
    """The kernel of reduction ``op`` (``elementwise_ops.REDUCTIONS``: sum, max, ...).

    CPU (below); CUDA: ``_cuda_reduce_source``.

    ``kernel(start, stop, partial, chunks, kept_shape, reduced_shape, x, x_offset,
    kept_strides, reduced_strides)``: ``partial[t]`` folds chunk ``t % chunks``
    of output ``t // chunks`` with the table's scalar function for ``op``
    (``add`` for sum), from its identity, in float64. The reduced elements of
    each output are split into ``chunks`` equal pieces so that a reduction to
    one number keeps every thread busy too; the caller combines the ``chunks``
    partial results of each output. A sum may be reordered
    (``fastmath={"reassoc"}``), which is what vectorizing it means.
    """
    combine, identity = REDUCTIONS[op]
    function = OPS[combine].scalar
    if device == "cuda":
        return _cuda_reduce_source(op, function, dtype, kept_ndim, reduced_ndim, threads)
    fast = ', fastmath={"reassoc"}' if combine == "add" else ""
    return f'''"""The numba CPU kernel of reduction {op!r} (by minigrad.backends.kernel_cache)."""
# fingerprint of the sources compiled in: {fingerprint()}
import numpy as np
from numba import float64, njit

CACHE = "__file__" in globals()  # numba caches functions of a file; in memory, none

from minigrad.backends.numba_kernels import advance, index_to_position, to_index
from {function.__module__} import {function.__name__}

fn = njit(inline="always")({function.__name__})
IDENTITY = float("{identity}")  # where a fold starts: {combine}(IDENTITY, v) is v


@njit(nogil=True, cache=CACHE, error_model="numpy"{fast})
def kernel(start, stop, partial, chunks, kept_shape, reduced_shape, x, x_offset, kept_strides,
           reduced_strides):
    """partial[t] = {op} over chunk t % chunks of output t // chunks, for start <= t < stop."""
    count = 1
    for n in reduced_shape:
        count *= n
    last = reduced_shape.size - 1
    step = reduced_strides[last]
    kept_index = np.empty(kept_shape.size, np.int64)
    index = np.empty(reduced_shape.size, np.int64)
    for task in range(start, stop):
        o, chunk = task // chunks, task % chunks
        first = count * chunk // chunks
        end = count * (chunk + 1) // chunks
        to_index(o, kept_shape, kept_index)
        base = index_to_position(kept_index, kept_strides, x_offset)
        to_index(first, reduced_shape, index)
        acc = float64(IDENTITY)
        i = first
        while i < end:
            p = index_to_position(index, reduced_strides, base)
            n = min(reduced_shape[last] - index[last], end - i)
            if step == 1:
                run = x[p : p + n]  # a slice indexed from 0: the loop vectorizes
                for k in range(n):
                    acc = fn(acc, float64(run[k]))
            else:
                for k in range(n):
                    acc = fn(acc, float64(x[p + k * step]))
            i += n
            advance(index, reduced_shape, n)
        partial[task] = acc
'''


_CUDA_REDUCE_TEMPLATE = '''"""The CUDA kernel of reduction {op!r} ({dtype}).

{kept_ndim} kept axes, {reduced_ndim} reduced; folds with the table's {function!r}
(REDUCTIONS). Written by minigrad.backends.kernel_cache.
"""
# fingerprint of the sources compiled in: {fingerprint}
import numpy as np
from numba import config, cuda, int64
from numba.np.numpy_support import from_dtype

# numba's simulator caches nothing; on a GPU, functions of a file are cached.
CACHE = "__file__" in globals() and not config.ENABLE_CUDASIM

from minigrad.backends.cuda_kernels import index_to_position, to_index
from minigrad.backends.kernel_cache import jit_scalar
from {module} import {function}

fn = jit_scalar({function}, cuda.jit(device=True))
DTYPE = from_dtype(np.dtype("{dtype}"))
THREADS = {threads}  # the largest block; blockDim.x is a power of two no larger


@cuda.jit(cache=CACHE)
def kernel(out, x, x_offset, kept_shape, kept_strides, red_shape, red_strides, count, parts, init):
    """out[job] = {op} over part job % parts of output job // parts, one block per job."""
    partial = cuda.shared.array(THREADS, DTYPE)
    t = cuda.threadIdx.x
    kept = cuda.local.array({kept_ndim}, int64)
    reduced = cuda.local.array({reduced_ndim}, int64)
    chunk = (count + parts - 1) // parts
    for job in range(cuda.blockIdx.x, out.size, cuda.gridDim.x):
        to_index(job // parts, kept_shape, kept)
        base = index_to_position(kept, kept_strides, x_offset)
        start = (job % parts) * chunk
        acc = init  # the identity: {function}(init, v) is v
        for r in range(start + t, min(start + chunk, count), cuda.blockDim.x):
            to_index(r, red_shape, reduced)
            acc = fn(acc, x[index_to_position(reduced, red_strides, base)])
        partial[t] = acc
        cuda.syncthreads()
        half = cuda.blockDim.x // 2
        while half > 0:  # a tree in shared memory: log2(blockDim.x) steps
            if t < half:
                partial[t] = fn(partial[t], partial[t + half])
            cuda.syncthreads()
            half //= 2
        if t == 0:
            out[job] = partial[0]
        cuda.syncthreads()  # partial[0] is read before the next job overwrites it
'''


def _cuda_reduce_source(op: str, function: Any, dtype: str, kept_ndim: int, reduced_ndim: int,
                        threads: int) -> str:  # fmt: skip
    """The CUDA kernel of reduction ``op``, one block per output (or part of one).

    ``kernel(out, x, x_offset, kept_shape, kept_strides, red_shape, red_strides,
    count, parts, init)``: thread t of a block folds the reduced elements t,
    t + blockDim, ... (neighbouring threads read neighbouring elements:
    coalesced) with the table's scalar function for ``op``, from ``init``; then
    the block halves its partial results in shared memory until one is left.
    With ``parts`` > 1 each output's elements are split into ``parts`` chunks,
    one block each, and ``out`` holds ``parts`` partial results per output (for
    a second, small launch to combine).
    """
    return _CUDA_REDUCE_TEMPLATE.format(
        op=op, dtype=dtype, kept_ndim=kept_ndim, reduced_ndim=reduced_ndim, threads=threads,
        fingerprint=fingerprint(), module=function.__module__, function=function.__name__,
    )  # fmt: skip


@cache
def reduce_kernel(op: str, device: str = "cpu", dtype: str = "float64", kept_ndim: int = 1,
                  reduced_ndim: int = 1, threads: int = 256) -> Any:  # fmt: skip
    """The compiled kernel of reduction ``op`` (``reduce_source``), from its cached file."""
    name = f"reduce_{op}" if device == "cpu" else f"cuda_reduce_{op}"
    return load(name, reduce_source(op, device, dtype, kept_ndim, reduced_ndim, threads)).kernel


_CUDA_THREAD_TEMPLATE = '''"""The CUDA kernel {what}, one thread per element (by kernel_cache)."""
from numba import config, cuda, int64

# numba's simulator caches nothing; on a GPU, functions of a file are cached.
CACHE = "__file__" in globals() and not config.ENABLE_CUDASIM

from minigrad.backends.cuda_kernels import index_to_position, to_index


@cuda.jit(cache=CACHE)
def kernel({parameters}):
    i = cuda.grid(1)  # one thread per element
    if i < {size}:
{body}
'''


def thread_source(what: str, parameters: str, size: str, body: list[str]) -> str:
    """A CUDA kernel that runs ``body`` once per element ``i < size``, one thread each.

    For the CUDA backend's data movement, which applies no function of the
    table (a fill, a gather, a scatter-add): the backend says what one element
    does, the generator writes the kernel around it. ``to_index``,
    ``index_to_position`` (the shared index math) and ``int64`` are in scope.

    >>> source = thread_source("fill", "out, value", "out.size", ["out[i] = value"])
    >>> print(source[source.index("def kernel") :].strip())
    def kernel(out, value):
        i = cuda.grid(1)  # one thread per element
        if i < out.size:
            out[i] = value
    """
    lines = "\n".join(f"        {line}" for line in body)
    return _CUDA_THREAD_TEMPLATE.format(what=what, parameters=parameters, size=size, body=lines)


@cache
def thread_kernel(what: str, parameters: str, size: str, body: tuple[str, ...]) -> Any:
    """The compiled kernel of ``thread_source``, from its cached file."""
    return load(f"cuda_{what}", thread_source(what, parameters, size, list(body))).kernel


_CPU_LOOP_TEMPLATE = '''"""The numba CPU kernel {what}, a loop written by kernel_cache."""
from numba import njit

CACHE = "__file__" in globals()  # numba caches functions of a file; in memory, none


@njit(nogil=True, cache=CACHE)
def kernel({parameters}):
{body}
'''


def loop_source(what: str, parameters: str, body: list[str]) -> str:
    """A numba CPU kernel whose body is ``body``: the CPU's counterpart of ``thread_source``,
    for data movement that applies no function of the table (an embedding's rows added
    back into its table): the backend says what the loop does, the generator writes it.

    >>> source = loop_source("fill", "out, value", ["for i in range(out.size):",
    ...                                             "    out[i] = value"])
    >>> print(source[source.index("def kernel") :].strip())
    def kernel(out, value):
        for i in range(out.size):
            out[i] = value
    """
    lines = "\n".join(f"    {line}" for line in body)
    return _CPU_LOOP_TEMPLATE.format(what=what, parameters=parameters, body=lines)


@cache
def loop_kernel(what: str, parameters: str, body: tuple[str, ...]) -> Any:
    """The compiled kernel of ``loop_source``, from its cached file."""
    return load(f"cpu_{what}", loop_source(what, parameters, list(body))).kernel


def fused_source(doc: list[str], functions: list[tuple[str, str]], inputs: list[tuple[str, str]],
                 body: list[str], outputs: list[tuple[str, str]], sums: list[str],
                 shape: tuple[int, ...], device: str) -> tuple[str, bool]:  # fmt: skip
    """The text of a fused kernel (lesson 13) around ``body``, and whether its loop is n-d.

    ``functions``: the scalar functions the body calls, as (module, name), each
    bound to ``_name``; ``inputs``: (name, kind) with kind ``"full"``, ``"number"``
    (one element) or ``"broadcast"``; input ``x`` is read into ``x_i`` before the
    body runs. ``outputs``: (name, expression) written to ``out_name``; ``sums``:
    running totals ``sum_name`` that the body adds to, returned. CPU: one loop
    over the elements (n-d when an input is broadcast: over rows
    ``[_start, _stop)`` of axis 0, else elements ``[_start, _stop)``), so the
    backend's worker threads can each run a range (``threads.Workers``: a core
    that a busy machine runs late takes fewer ranges, where numba's ``prange``
    gives each thread one fixed share and waits for the slowest); each range
    returns its partial sums. CUDA: one thread per element in a grid-stride
    loop, no sums.
    """
    kinds = [kind for _, kind in inputs]
    nd = "broadcast" in kinds and device == "cpu" and len(shape) > 1
    lines = [
        '"""' + "\n".join(doc),
        '"""',
        f"# fingerprint of the scalar functions compiled in: {fingerprint()}",
        "import numpy as _np",
        "",
        '_CACHE = "__file__" in globals()  # numba caches functions of a file; in memory, none',
    ]
    lines.append("from minigrad.backends.kernel_cache import jit_scalar as _jit_scalar")
    if device == "cuda":
        lines += ["from numba import cuda as _cuda", ""]
        lines += [f"from {m} import {f} as _py_{f}" for m, f in functions]
        lines += [f"_{f} = _jit_scalar(_py_{f}, _cuda.jit(device=True))" for _, f in functions]
    else:
        lines += ["from numba import njit as _njit", ""]
        lines += ["from minigrad.backends.numba_kernels import NATIVE as _NATIVE", ""]
        lines += [f"from {m} import {f} as _py_{f}" for m, f in functions]
        lines += [
            f'_{f} = _jit_scalar(_py_{f}, _njit(inline="always"), _NATIVE)' for _, f in functions
        ]
    bounds = ["_n"] if device == "cuda" else ["_start", "_stop"]
    params = [*bounds, *[n for n, _ in inputs], *[f"out_{n}" for n, _ in outputs]]
    lines += ["", ""]
    if device == "cuda":
        lines.append("@_cuda.jit")
    else:
        # A running sum vectorizes only if LLVM may reorder its additions.
        fast = ', fastmath={"reassoc"}' if sums else ""
        lines.append(f'@_njit(cache=_CACHE, nogil=True, error_model="numpy"{fast})')
    lines.append(f"def kernel({', '.join(params)}):")
    indent = "        "
    if device == "cuda":
        lines += ["    for _i in range(_cuda.grid(1), _n, _cuda.gridsize(1)):"]
        index = "_i"
    else:
        lines += [f"    sum_{n} = 0.0" for n in sums]
        # The range as slices indexed from 0: numba then drops its negative-index
        # test, and LLVM vectorizes the loop (an index from _start would keep it).
        sliced = [n for n, kind in inputs if kind != "number"] + [f"out_{n}" for n, _ in outputs]
        lines += [f"    {n} = {n}[_start:_stop]" for n in sliced]
        if nd:
            for axis, n in enumerate(shape):
                span = "_stop - _start" if axis == 0 else n
                lines.append(f"{'    ' * (axis + 1)}for _i{axis} in range({span}):")
            indent = "    " * (len(shape) + 1)
            index = ", ".join(f"_i{axis}" for axis in range(len(shape)))
        else:
            lines.append("    for _i in range(_stop - _start):")
            index = "_i"
    for n, kind in inputs:
        lines.append(f"{indent}{n}_i = {n}[{'0' if kind == 'number' else index}]")
    lines += [indent + line for line in body]
    lines += [f"{indent}out_{n}[{index}] = {value}" for n, value in outputs]
    if sums:
        lines.append(f"    return {', '.join(f'sum_{n}' for n in sums)}")
    return "\n".join(lines) + "\n", nd


# The header of a plain module compiled whole (``njit_source``): the entry points are
# cached on disk; the steps they call are compiled into them.
_NJIT_HEADER = [
    "# Written by minigrad.backends.kernel_cache: the module above and below, every function",
    "# under numba's njit. numba caches the functions of a file; a module in memory caches none.",
    "from numba import njit as _njit",
    '_CACHE = "__file__" in globals()',
    "",
    "",
]
_NJIT_ENTRY = "@_njit(cache=_CACHE, nogil=True)"
_NJIT_STEP = "@_njit(nogil=True)"


def njit_source(source: str) -> str:
    """A plain Python module's ``source`` with every top-level function under numba's ``njit``.

    For a host algorithm written once, in Python that numba can compile
    (``selection_steps``): the interpreter runs the module as it stands, and
    ``load`` of this text compiles the same lines. The text is the source's,
    line for line, with a decorator before each function and numba's import
    before the first. Functions named without a leading underscore are the entry
    points, cached on disk; the others are the steps they call, compiled into them.

    >>> print(njit_source("import numpy as np\\n\\n\\ndef _f(x):\\n    return x\\n"))
    import numpy as np
    <BLANKLINE>
    <BLANKLINE>
    # Written by ...
    _CACHE = "__file__" in globals()
    <BLANKLINE>
    <BLANKLINE>
    @_njit(nogil=True)
    def _f(x):
        return x
    """
    lines = source.splitlines()
    functions = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]
    for node in reversed(functions):  # from the end, so earlier line numbers stay right
        lines.insert(node.lineno - 1, _NJIT_STEP if node.name.startswith("_") else _NJIT_ENTRY)
    first = functions[0].lineno - 1  # now its decorator's line: the header goes before it
    lines[first:first] = _NJIT_HEADER
    return "\n".join(lines) + "\n"


def load(name: str, source: str) -> Any:
    """The module of generated ``source``, kept on disk under a hash of its text.

    Same text, same file: a new process finds it, and numba loads its cached
    machine code instead of compiling. Any change (an edited scalar function
    changes the fingerprint in the text) makes a new file, compiled afresh.
    """
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    return generated_module(f"{name}_{digest}", source)


@cache
def fingerprint() -> str:
    walkers = Path(__file__).with_name("numba_kernels.py")
    # The table's functions live in the scalar_* modules it names them from.
    functions = [
        body for row in OPS.values() for body in (row.scalar, row.float32, row.quick) if body
    ]
    tables = {Path(fn.__code__.co_filename) for fn in functions}
    sources = (Path(elementwise_ops.__file__), *sorted(tables), Path(strides.__file__), walkers)
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources))
    return digest.hexdigest()[:16]


def user_cache_folder(app: str = "minigrad") -> Path:
    """The per-user cache folder of ``app``, by platformdirs' convention (``user_cache_dir``)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / app / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / app
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return Path(base if os.path.isabs(base) else Path.home() / ".cache") / app


def cache_folder() -> Path:
    """Where minigrad caches compiled kernels: ``$MINIGRAD_CACHE_DIR``, else
    ``$NUMBA_CACHE_DIR/minigrad``, else the user's cache folder (read at each call)."""
    chosen = os.environ.get("MINIGRAD_CACHE_DIR")
    if chosen:
        return Path(chosen).expanduser()
    numba_folder = os.environ.get("NUMBA_CACHE_DIR")
    if numba_folder:
        return Path(numba_folder).expanduser() / "minigrad"
    return user_cache_folder()


def source_folder() -> Path:
    """Where generated kernels' source files live (numba's cache of them sits beside)."""
    return cache_folder() / "kernels"


_unusable: dict[str, str] = {}  # folder -> why, for the folders found unusable (warned once)


def caching() -> bool:
    """Whether kernels are cached on disk: the cache folder can be written (checked once).

    An unusable folder (a file in the way, read-only, no space) is reported
    once with a warning; kernels then compile in memory, and a run never fails
    for its cache.
    """
    _install_locator()
    folder = source_folder()
    key = str(folder)
    if key in _checked:
        return key not in _unusable
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe.{os.getpid()}.{threading.get_ident()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        _report_unusable(key, f"{type(error).__name__}: {error}")
    _checked.add(key)
    return key not in _unusable


_checked: set[str] = set()
PACKAGE = Path(__file__).resolve().parents[1]  # minigrad/


@cache
def _install_locator() -> None:
    """Put ``PackageLocator`` first in numba's list of cache locators (once)."""
    from numba.core import caching as numba_caching

    class PackageLocator(numba_caching._SourceFileBackedLocatorMixin,
                         numba_caching._CacheLocator):  # fmt: skip
        """numba's cache of minigrad's kernels (the package's own files and the generated
        ones) in ``cache_folder()/numba``: never in the package's ``__pycache__``."""

        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            subpath = self.get_suitable_cache_subpath(py_file)
            self._cache_path = str(cache_folder() / "numba" / subpath)

        def get_cache_path(self) -> str:
            return self._cache_path

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            path = Path(py_file).resolve()
            if PACKAGE not in path.parents and source_folder().resolve() not in path.parents:
                return None  # not minigrad's: numba's own locators decide
            return super().from_function(py_func, py_file)

    impl = getattr(numba_caching, "CacheImpl", None) or numba_caching._CacheImpl  # numba < 0.62
    impl._locator_classes.insert(0, PackageLocator)


def _report_unusable(folder: str, why: str) -> None:
    if not _unusable:
        warnings.warn(
            f"minigrad: the kernel cache folder {folder} cannot be used ({why}); compiling "
            "kernels in memory, so each process compiles them again. Set MINIGRAD_CACHE_DIR "
            "to a writable folder to cache them.",
            RuntimeWarning,
            stacklevel=3,
        )
    _unusable[folder] = why


def generated_module(name: str, source: str) -> Any:
    """Import generated ``source`` as module ``minigrad_kernels.<name>``, from a file on disk.

    The file is written only when it is missing or differs (rewriting it
    would make numba's cache stale); the fusion pass (lesson 13) loads its
    generated kernels here too.
    """
    if not caching():
        return _module_in_memory(name, source)
    folder = source_folder()
    path = folder / f"{name}.py"
    try:
        current = path.read_text() if path.exists() else None
    except (OSError, UnicodeDecodeError):
        current = None
    if current != source:
        partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            partial.write_text(source)
            os.replace(partial, path)  # atomic: another process never reads half a file
        except OSError as error:  # a full disk, a folder made read-only since caching()
            partial.unlink(missing_ok=True)
            _report_unusable(str(folder), f"{type(error).__name__}: {error}")
            return _module_in_memory(name, source)
    spec = importlib.util.spec_from_file_location(f"minigrad_kernels.{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _module_in_memory(name: str, source: str) -> Any:
    """``source`` run as module ``minigrad_kernels.<name>`` with no file: numba caches nothing."""
    module = types.ModuleType(f"minigrad_kernels.{name}")
    exec(compile(source, f"<minigrad kernel {name}>", "exec"), module.__dict__)
    return module


_reported: list[str] = []


def call(run: Any, kernel: Any, *args: Any, **kwargs: Any) -> Any:
    """``run(kernel, *args, **kwargs)``, repairing ``kernel``'s disk cache once if loading it fails.

    >>> call(lambda kernel, x: kernel(x), abs, -2)
    2
    """
    try:
        return run(kernel, *args, **kwargs)
    except OSError as error:
        # numba compiled the kernel, then failed to save it (a full disk, a folder
        # made read-only): run it from memory from now on.
        cache = getattr(kernel, "_cache", None)
        if cache is None or type(cache).__name__ == "NullCache":
            raise
        why = f"{type(error).__name__}: {error}"
        _report_unusable(str(getattr(cache, "_cache_path", "?")), why)
        from numba.core.caching import NullCache

        kernel._cache = NullCache()
        return run(kernel, *args, **kwargs)
    except Exception as error:
        damaged = damaged_cache_files(kernel)
        if not damaged:
            raise
        for path in damaged:
            path.unlink(missing_ok=True)
        if not _reported:
            _reported.append(str(damaged[0]))
            warnings.warn(
                f"minigrad: numba's kernel cache was damaged ({type(error).__name__} reading "
                f"{damaged[0]}); deleted {len(damaged)} file(s) and compiled again",
                RuntimeWarning,
                stacklevel=2,
            )
        return run(kernel, *args, **kwargs)


def damaged_cache_files(kernel: Any) -> list[Path]:
    """The cache files of a numba ``kernel`` that cannot be read back (empty: all sound).

    A sound index unpickles after its version header, and so does each data
    file it names. A damaged index takes its data files with it.
    """
    cache_file = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    if cache_file is None:
        return []
    index = Path(cache_file._index_path)
    folder = index.parent
    siblings = sorted(folder.glob(index.name[: -len(".nbi")] + ".*.nbc"))
    if not index.exists():
        return []
    try:
        with open(index, "rb") as f:
            if pickle.load(f) != cache_file._version:
                return []  # another numba's cache: numba ignores it
            _, overloads = pickle.loads(f.read())
    except Exception:
        return [index, *siblings]
    damaged = []
    for name in overloads.values():
        try:
            cache_file._load_data(name)
        except FileNotFoundError:
            continue
        except Exception:
            damaged.append(folder / name)
    return [index, *damaged] if damaged else []
