"""The numba CPU backend: compiled kernels where they pay, NumPy where faster (lessons 10, 17).

Same contract and same results as ``NumpyBackend`` (the tests diff every
primitive against it). What changes is who does the arithmetic:

- elementwise maps, zips, comparisons, ``where`` and the fused derivatives
  run in kernels that the one generator writes from the op's scalar function
  (``kernel_cache``: one small module per op), and so do the reductions. They
  read strided inputs (no copies for broadcast, transposed or sliced arrays),
  and ``threads.Workers`` runs them on every core.
- ``matmul`` calls BLAS through NumPy by default: decades of tuning make it
  the fastest honest option. The hand-written tiled kernel of the lesson
  (``numba_matmul.tiled_matmul``) is one switch away: ``matmul_kernel = "tiled"``.
- data movement that NumPy does as a view (broadcast, reshape, transpose,
  slicing) costs nothing and stays NumPy's, as do casts and concatenation.

Only pay for what helps. A kernel call has a fixed cost before it touches a
number (numba checks its arguments, the threads are woken), and a plain zip
is memory-bound; NumPy's ``exp``, ``log`` and ``tanh`` are SIMD code that
numba's per-element calls into the C library cannot match. So each op goes
to NumPy below a measured size (``NUMPY_BELOW``), the maps stay NumPy's
(``NUMPY_OPS``), and the kernels run where they were measured to win: big
zips, reductions along memory, and the fused derivatives. Big outputs go
into recycled memory (``buffers.py``): fresh pages cost a page fault each.
The measurements are in ``benchmarks/README.md`` (``benchmarks/crossover.py``).

The class reads top down in that order: first the kernels and their
contracts (``_elementwise``: maps, zips, ``where``; ``_reduce_kernel``), then
the contract's methods, each a size test and a call, then the policy below
them (``numpy_runs``, ``_kernel_pays``; the op sets are derived from the table
of elementwise operations, ``elementwise_ops``, and the sizes live in
``crossover``).

Integer and bool arrays always use NumPy: the kernels are compiled for
float32 and float64 only, which keeps the number of compilations small. And
numba itself is imported on the first array big enough to need it, so small
programs never pay for loading the compiler.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.backends import kernel_cache
from minigrad.backends.buffers import BufferPool
from minigrad.backends.crossover import NUMPY_BELOW
from minigrad.backends.elementwise_ops import ARITY, BOOL_OPS, NUMPY, OPS, scalar_body
from minigrad.backends.low_precision import is_low, low_dtype, narrow, widen
from minigrad.backends.numpy_backend import MAPS, ZIPS, NumpyBackend, quiet_context
from minigrad.backends.strides import (
    as_strided_storage,
    broadcast_strides,
    coalesce,
    read_only,
    row_starts,
)
from minigrad.backends.threads import Workers

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
REDUCE_OPS = ("sum", "max", "min")


class NumbaBackend(NumpyBackend):
    """Kernels compiled by numba for all CPU cores; NumPy below the measured crossover.

    >>> import numpy as np
    >>> backend = NumbaBackend()
    >>> backend.zip("mul", np.ones(3, np.float32), np.float32(2) * np.ones(1, np.float32))
    array([2., 2., 2.], dtype=float32)
    """

    name = "numba"
    device = "cpu"

    def __init__(self) -> None:
        # Per instance, so a test or a lesson can send every call to the kernels
        # (numpy_below = dict.fromkeys(NUMPY_BELOW, 0), numpy_ops = frozenset()).
        self.numpy_below = NUMPY_BELOW
        self.numpy_ops = NUMPY_OPS
        self.matmul_kernel = "blas"  # or "tiled": the lesson's numba kernel
        self.buffers = BufferPool()  # big outputs in recycled memory (buffers.py)
        self.workers = Workers()  # the kernels' threads, one per core (threads.py)

    # -- the kernels: what runs compiled, and its contract ------------------------------
    def _elementwise(self, op, shape, dtype, *inputs) -> np.ndarray:
        """``out[i] = f(inputs[0][...], ...)`` for every element of a fresh ``shape`` array.

        ``f`` is op ``op``'s scalar function (the table, ``elementwise_ops``;
        ``where`` is one of its rows too), or for float32 results its float32
        body where the table has one (``fast_math``: it vectorizes where the
        scalar function calls the C library), compiled into a kernel of its
        own (``kernel_cache``). When every input runs along memory like ``out``, or
        is one number, the kernel is a bare loop over ``i`` (a flat kernel, no
        index arithmetic); otherwise each input is read through its own offset
        and strides, broadcast to ``shape``: no copies either way. The workers
        run disjoint ranges of ``out`` at once.
        """
        out = self.buffers.empty(shape, np.dtype(dtype))
        if out.size == 0:
            return out
        flat = out.reshape(-1)
        body = scalar_body(op, out.dtype)  # float32: the body that vectorizes, if the table has one
        layout = _layout(shape, inputs)
        if layout is not None:
            # Every operand runs along memory or is one number: a bare loop.
            kernel = kernel_cache.elementwise_kernel(op, function=body, layout=layout)
            arguments = [read_only(a.reshape(-1)) for a in inputs]
            kernel_cache.call(self.workers.run, kernel, out.size, flat, *arguments)
            return out
        storages = [as_strided_storage(a) for a in inputs]
        flat_shape, *flat_strides = coalesce(
            shape, *(broadcast_strides(a.shape, s[2], shape) for a, s in zip(inputs, storages))
        )
        arguments = []
        for (storage, offset, _), strides in zip(storages, flat_strides):
            arguments += [storage, row_starts(flat_shape, strides, offset), int(strides[-1])]
        kernel = kernel_cache.elementwise_kernel(op, function=body)
        kernel_cache.call(self.workers.run, kernel, out.size, flat, int(flat_shape[-1]),
                          *arguments)  # fmt: skip
        return out

    def _reduce_kernel(self, op, x, axes, keepdims) -> np.ndarray:
        """Run the generated reduction kernel of ``op`` (any axes, any strides; non-empty ``x``).

        Few outputs of many elements each (a full sum) are split into one
        chunk per thread; the chunks' partial results are combined here.
        """
        kept = [a for a in range(x.ndim) if a not in axes]
        storage, offset, strides = as_strided_storage(x)
        kept_shape, kept_strides = coalesce(tuple(x.shape[a] for a in kept), strides[kept])
        reduced_shape, reduced_strides = coalesce(
            tuple(x.shape[a] for a in axes), strides[list(axes)]
        )
        outputs, count = int(np.prod(kept_shape)), int(np.prod(reduced_shape))
        workers = self.workers
        chunks = 1
        if outputs < workers.threads:  # too few outputs to give every thread one
            chunks = max(1, min(workers.threads, count // workers.grain))
        partial = np.empty(outputs * chunks, np.float64)
        kernel_cache.call(workers.run, kernel_cache.reduce_kernel(op), outputs * chunks, partial,
                          chunks, kept_shape, reduced_shape, storage, offset, kept_strides,
                          reduced_strides, grain=-(-workers.grain * chunks // count))  # fmt: skip
        combine = {"sum": np.sum, "max": np.max, "min": np.min}[op]
        out = quiet_context().run(combine, partial.reshape(outputs, chunks), axis=1)
        out = quiet_context().run(out.astype, x.dtype)  # (a float32 sum past its range: inf)
        shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
        return out.reshape(shape if keepdims else tuple(x.shape[a] for a in kept))

    @property
    def numpy_below(self) -> dict[str, int]:
        """Per kind of operation, the size below which NumPy's call is the kernel (crossover.py)."""
        return self._numpy_below

    @numpy_below.setter
    def numpy_below(self, sizes: dict[str, int]) -> None:
        self._numpy_below = dict(sizes)
        # What the small-call tests of map and zip read, worked out here once.
        self._map_below = sizes["elementwise"]
        self._map_composite_below = min(sizes["elementwise"], sizes["composite"])
        self._zip_below = min(sizes["elementwise"], sizes["fused"])
        self._zip_composite_below = min(self._zip_below, sizes["composite"])

    # -- the contract's methods: the policy picks the kernel or NumPy ------------------
    # Each method first asks, as cheaply as it can, whether the kernel pays:
    # below the crossover NumPy's call is the whole cost, so ours must add
    # next to nothing to it.
    # float16 and bfloat16 (lesson 15) take the float32 kernels and are rounded
    # once at the end (``low_precision``), as on the NumPy backend.
    def map(self, op: str, x: np.ndarray) -> np.ndarray:
        if x.dtype.itemsize == 2 and is_low(x.dtype):
            return narrow(self.map(op, widen(x)), x.dtype)
        size = x.size
        if size < self._map_below and (  # the common, small case first
            size < self._map_composite_below or _KIND[op] != "composite"
        ):
            return np.asarray(quiet_context().run(MAPS[op], x))
        if not self._kernel_pays(x.size, x.dtype, op):
            ufunc = UFUNCS.get(op)
            if ufunc is not None and x.nbytes >= self.buffers.min_bytes and x.dtype in FLOATS:
                return self._ufunc(ufunc, x)
            return super().map(op, x)
        return self._elementwise(op, x.shape, _BOOL if op in BOOL_OPS else x.dtype, x)

    def zip(self, op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if x.dtype.itemsize == 2 or y.dtype.itemsize == 2:
            low = low_dtype(x, y)
            if low is not None:
                return narrow(self.zip(op, widen(x), widen(y)), low)
        bound = x.size * y.size  # at least the result's size
        if bound < self._zip_below and (
            bound < self._zip_composite_below or _KIND[op] != "composite"
        ):
            return np.asarray(quiet_context().run(ZIPS[op], x, y))
        shape = self._big_shape(op, x, y)
        if (
            shape is None
            or x.dtype != y.dtype
            or not self._kernel_pays(math.prod(shape), x.dtype, op)
        ):
            return super().zip(op, x, y)
        return self._elementwise(op, shape, _BOOL if op in BOOL_OPS else x.dtype, x, y)

    def where(self, cond: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if x.dtype.itemsize == 2 or y.dtype.itemsize == 2:  # a choice: no arithmetic to widen
            return super().where(cond, x, y)
        shape = self._big_shape("where", cond, x, y)
        if (
            shape is None
            or x.dtype != y.dtype
            or cond.dtype != np.bool_
            or not self._kernel_pays(math.prod(shape), x.dtype, "where")
        ):
            return super().where(cond, x, y)
        if cond.size == 1:  # one condition for every element: a copy of one input
            return self._copy(np.broadcast_to(x if cond.reshape(-1)[0] else y, shape))
        return self._elementwise("where", shape, x.dtype, cond, x, y)

    def reduce(self, op: str, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        if is_low(x.dtype):  # accumulate in float32
            return narrow(self.reduce(op, widen(x), axes, keepdims), x.dtype)
        if (
            x.size < self.numpy_below["reduce"]
            or x.dtype not in FLOATS
            or x.size == 0
            or op not in REDUCE_OPS  # prod: NumPy's loop (no kernel measured to beat it)
            or not _innermost_is_reduced(x, axes)
        ):
            return super().reduce(op, x, axes, keepdims)
        return self._reduce_kernel(op, x, axes, keepdims)

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        low = low_dtype(a, b)
        if low is not None:  # the products added in float32, the sums rounded once
            return narrow(self.matmul(widen(a), widen(b)), low)
        if self.matmul_kernel == "tiled" and a.dtype == b.dtype and a.dtype in FLOATS:
            from minigrad.backends.numba_matmul import matmul as tiled_matmul

            return tiled_matmul(a, b, self.workers)
        if a.shape[-1] == 1 and a.dtype == b.dtype and a.dtype in FLOATS:
            # k = 1: each matrix is an outer product, one multiply per output element
            # and no sum: a memory-bound broadcast zip (threads, recycled memory).
            # Per-example weight gradients are a batch of these (lesson 14), where
            # NumPy's batched matmul runs a slow loop per matrix.
            return self.zip("mul", a, b)
        # NumPy hands a product to BLAS only when each matrix is contiguous (or a
        # transpose of one); anything else (a broadcast or strided view) runs in
        # its own loop, many times slower than a copy followed by BLAS.
        return np.asarray(quiet_context().run(np.matmul, _blas_ready(a), _blas_ready(b)))

    def attention(self, q, k, v, bias, scale: float, causal: bool) -> np.ndarray:
        """The fused kernel of ``numba_attention``: cache-sized tiles, BLAS products, all cores."""
        low = low_dtype(q, k, v, bias)
        if low is not None:
            bias = None if bias is None else widen(bias)
            return narrow(self.attention(widen(q), widen(k), widen(v), bias, scale, causal), low)
        if q.dtype not in FLOATS or not (q.dtype == k.dtype == v.dtype):
            return super().attention(q, k, v, bias, scale, causal)
        from minigrad.backends import numba_attention

        return numba_attention.attention(self.workers, q, k, v, bias, scale, causal)

    def attention_backward(self, q, k, v, bias, packed, g, scale: float, causal: bool):
        low = low_dtype(q, k, v, bias)
        if low is not None:
            bias = None if bias is None else widen(bias)
            out = self.attention_backward(widen(q), widen(k), widen(v), bias, widen(packed),
                                          widen(g), scale, causal)  # fmt: skip
            return narrow(out, low)
        if q.dtype not in FLOATS or not (q.dtype == k.dtype == v.dtype):
            return super().attention_backward(q, k, v, bias, packed, g, scale, causal)
        from minigrad.backends import numba_attention

        return numba_attention.attention_backward(self.workers, q, k, v, bias, packed, g, scale,
                                                  causal)  # fmt: skip

    # -- data movement that is cheaper as a NumPy view --------------------------
    def reshape(self, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        # A view when the layout allows. Otherwise a copy, which for a big array
        # (im2col, lesson 12) goes into recycled memory, split across the workers:
        # NumPy's copy loop releases the GIL, so the pieces run at the same time.
        if x.size < self.numpy_below["elementwise"] or x.flags.c_contiguous:
            return np.reshape(x, shape)
        try:
            return np.reshape(x, shape, copy=False)
        except ValueError:
            pass
        out = self.buffers.empty(x.shape, x.dtype)
        axis = max(range(x.ndim), key=lambda a: x.shape[a] if a < x.ndim - 1 else 0)
        self.workers.run(_copy_range, x.shape[axis], x, out, axis, grain=1)
        return out.reshape(shape)

    def scatter_add(self, shape: tuple[int, ...], index: object, values: np.ndarray) -> np.ndarray:
        if _is_basic(index):
            # Slices and integers never name an element twice, so a plain
            # write into the view is the sum; np.add.at is only needed when
            # an index array may repeat.
            out = np.zeros(shape, dtype=values.dtype)
            out[index] = values
            return out
        rows = _row_index(shape, index, values)
        if rows is not None:
            return _add_rows(shape, rows, values)
        return super().scatter_add(shape, index, values)

    def _copy(self, x: np.ndarray) -> np.ndarray:
        """A C-contiguous copy of ``x`` in recycled memory, on every core when ``x`` is contiguous
        (NumPy's copy releases the GIL): memory speed, where a kernel would test each element."""
        out = self.buffers.empty(x.shape, x.dtype)
        if x.flags.c_contiguous:
            self.workers.run(_copyto_range, x.size, out.reshape(-1), x.reshape(-1))
        else:
            np.copyto(out, x)
        return out

    def _ufunc(self, ufunc: np.ufunc, x: np.ndarray) -> np.ndarray:
        """NumPy's ``ufunc(x)`` into recycled memory, on every core when ``x`` is contiguous.

        NumPy's loops release the GIL too, so the workers can run its SIMD
        ``tanh`` on one half of the array each.
        """
        out = self.buffers.empty(x.shape, x.dtype)
        if x.flags.c_contiguous:
            self.workers.run(_ufunc_range, x.size, ufunc, x.reshape(-1), out.reshape(-1))
        else:
            quiet_context().run(ufunc, x, out=out)
        return out

    # -- the policy: when a kernel pays (crossover.py holds the sizes) -------------------
    def _big_shape(self, op: str, *arrays: np.ndarray) -> tuple[int, ...] | None:
        """The broadcast shape of ``arrays``, or None when it is surely below the crossover.

        A broadcast result has at most the product of the inputs' sizes, so
        that bound settles small calls without working out the shape.
        """
        bound = 1
        for a in arrays:
            bound *= a.size
        if bound < self.numpy_below[_KIND[op]]:
            return None
        return np.broadcast_shapes(*(a.shape for a in arrays))

    def numpy_runs(self, op: str, size: int) -> bool:
        """Whether ``map``/``zip`` of ``op`` over ``size`` elements is NumPy's own call.

        The compiler (``compile/run.py``) asks, once per step, and then calls
        NumPy itself: the same decision, taken where the shapes are known.
        """
        if size < self.numpy_below[_KIND[op]]:
            return True
        return ARITY[op] == 2 and op in self.numpy_ops

    def _kernel_pays(self, size: int, dtype: np.dtype, op: str) -> bool:
        if size < self.numpy_below[_KIND[op]]:
            return False
        return dtype in FLOATS and op not in self.numpy_ops


_BOOL = np.dtype(np.bool_)

# The policy, derived from the table of elementwise operations (elementwise_ops.py):
# which ops have a kernel by default, and which stay NumPy's at every size. Each
# kernel costs about a second to compile, so only the ops measured to pay have one.
# (Any op of the table still runs as a kernel when taken out of ``numpy_ops``: the
# tests do that.)
KERNEL_OPS = frozenset(name for name, row in OPS.items() if row.policy != NUMPY)
NUMPY_OPS = frozenset(OPS) - KERNEL_OPS
# The NumPy maps that are plain ufuncs giving the input's dtype, so they can
# write into a recycled buffer.
UFUNCS = {op: fn for op, fn in MAPS.items() if isinstance(fn, np.ufunc) and op not in BOOL_OPS}
# Which crossover of NUMPY_BELOW (crossover.py) each op has.
_KIND = {name: "elementwise" if row.policy == NUMPY else row.policy for name, row in OPS.items()}


def _layout(shape: tuple[int, ...], inputs: tuple[np.ndarray, ...]) -> str | None:
    """The flat kernel's layout for ``inputs`` (``kernel_cache.flat_layouts``), or None.

    ``a``: an input of the output's shape, C-contiguous (it runs along memory
    as the output does); ``n``: one number, broadcast. Anything else needs
    the strided kernel.

    >>> _layout((2, 3), (np.ones((2, 3)), np.ones(1), np.ones(())))
    'ann'
    >>> _layout((2, 3), (np.ones((2, 3)).T.T, np.ones(3))) is None
    True
    """
    layout = ""
    for a in inputs:
        if a.shape == shape and a.flags.c_contiguous:
            layout += "a"
        elif a.size == 1:
            layout += "n"
        else:
            return None
    return layout if "a" in layout else None


def _ufunc_range(start: int, stop: int, ufunc: np.ufunc, x: np.ndarray, out: np.ndarray) -> None:
    # (Quiet in a worker thread too: each thread has its own NumPy setting.)
    quiet_context().run(ufunc, x[start:stop], out=out[start:stop])


def _copyto_range(start: int, stop: int, out: np.ndarray, x: np.ndarray) -> None:
    np.copyto(out[start:stop], x[start:stop])


def _copy_range(start: int, stop: int, x: np.ndarray, out: np.ndarray, axis: int) -> None:
    part = (slice(None),) * axis + (slice(start, stop),)
    out[part] = x[part]


def _blas_ready(x: np.ndarray) -> np.ndarray:
    """``x``, or a contiguous copy unless each of its matrices is a (transposed) contiguous one.

    >>> _blas_ready(np.broadcast_to(np.ones((1, 3)), (2, 3))).strides
    (24, 8)
    """
    if x.ndim < 2:
        return x
    item = x.itemsize
    rows, cols = x.strides[-2:]
    if (cols == item and rows >= x.shape[-1] * item) or (
        rows == item and cols >= x.shape[-2] * item
    ):
        return x
    return np.ascontiguousarray(x)


def _innermost_is_reduced(x: np.ndarray, axes: tuple[int, ...]) -> bool:
    """Whether the axis that runs fastest through memory is one being reduced.

    Only then does the kernel's inner loop run along memory. Summing a
    C-ordered matrix over axis 0 instead is a row-by-row vector sum, which
    NumPy does well and our walk does not (measured: ``benchmarks/README.md``).
    """
    moving = [a for a in range(x.ndim) if x.shape[a] > 1]
    if not moving or all(a in axes for a in moving):
        return True
    return min(moving, key=lambda a: abs(x.strides[a])) in axes


def _row_index(shape: tuple[int, ...], index: object, values: np.ndarray) -> np.ndarray | None:
    """The rows an embedding's backward adds into: ``index``, one integer array naming rows of
    ``shape`` (every one in range), flattened and made non-negative; None for any other index."""
    if isinstance(index, tuple) and len(index) == 1:
        index = index[0]
    if (
        type(index) is not np.ndarray
        or index.dtype.kind not in "iu"
        or index.size == 0
        or not shape
        or values.shape != index.shape + tuple(shape[1:])
        or values.dtype not in FLOATS
    ):
        return None
    rows = index.reshape(-1)
    low, high = rows.min(), rows.max()
    if low < -shape[0] or high >= shape[0]:
        return None  # NumPy's own IndexError, from np.add.at
    return np.where(rows < 0, rows + shape[0], rows) if low < 0 else rows


def _add_rows(shape: tuple[int, ...], rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``out[rows[i]] += values[i]`` for every i, in order as ``np.add.at`` adds them (the same
    sums), by a compiled loop over whole rows (``ADD_ROWS``): ``np.add.at`` takes a slow
    path per element (~10 ms for a GPT's 2048 embedding rows of 64). An embedding's
    backward pass (lessons 10, 17): an id may repeat, so its rows' cotangents add up."""
    width = math.prod(shape[1:])
    out = np.zeros((shape[0], width), dtype=values.dtype)
    add_rows = kernel_cache.loop_kernel("add_rows", "out, rows, values", ADD_ROWS)
    add_rows(out, rows, np.ascontiguousarray(values).reshape(len(rows), width))
    return out.reshape(shape)


# out and values 2-D and C-contiguous, rows 1-D: whole rows added, first id first.
ADD_ROWS = (
    "for i in range(rows.size):",
    "    r = rows[i]",
    "    for c in range(out.shape[1]):",
    "        out[r, c] += values[i, c]",
)


def _is_basic(index: object) -> bool:
    """True for an index made of ints, slices, None and Ellipsis only (a view in NumPy)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(
        isinstance(p, (int, slice, type(None), type(Ellipsis))) and not isinstance(p, bool)
        for p in parts
    )
