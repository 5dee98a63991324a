"""The CUDA backend: the reference contract, on GPU memory (lessons 11, 17).

A ``"cuda"`` tensor holds a ``CudaArray``: a flat buffer in GPU memory plus a
shape, strides (in elements) and an offset, exactly the picture of
``minigrad.backends.strides``. Numbers stay on the GPU from one operation to
the next: only ``from_numpy`` (``x.to("cuda")``) and ``to_numpy``
(``.numpy()``, printing, ``.item()``) copy between host and device, and
``uploads``/``downloads`` count those copies.

What moves no numbers makes no copy and launches no kernel: ``transpose``,
``broadcast_to`` (stride 0), ``reshape`` of a contiguous array and basic
slicing only change the strides. Everything else launches one of the kernels
of ``minigrad.backends.cuda_kernels``.

Integer-array and boolean-mask indexing compute the storage positions on the
host, with NumPy (``x[index]`` applied to each axis's position grid, so every
NumPy indexing rule holds), and upload them: the data stays on the GPU, the
index makes one round trip (a download if it lived on the GPU, then an upload
of one position per selected element).

Run it without a GPU by setting ``NUMBA_ENABLE_CUDASIM=1`` before numba is
imported: numba's simulator runs the same kernels in Python.
"""

from __future__ import annotations

import threading
from functools import cache, partial
from typing import Any

import numba
import numpy as np
from numba import cuda

from minigrad.backends import cuda_kernels as kernels
from minigrad.backends import indexing
from minigrad.backends import numpy_backend as reference
from minigrad.backends.low_precision import is_low
from minigrad.backends.strides import (
    broadcast_strides,
    coalesce,
    contiguous_strides,
    diagonal_strides,
    window_strides,
)

FLOAT32 = np.dtype(np.float32)
UINT16, UINT32 = np.dtype(np.uint16), np.dtype(np.uint32)
#: numba-cuda 0.30 (in maintenance, the last release) registers ``np.row_stack``, which
#: NumPy 2.5 removed, when it compiles its first kernel.
NUMPY_TOO_NEW = (
    "numba-cuda could not compile a kernel: it needs np.row_stack, which NumPy 2.5 removed. "
    "minigrad's 'cuda' backend needs NumPy below 2.5 with numba-cuda 0.30: "
    "pip install 'numpy<2.5' (the cuda extra, pip install 'minigrad[cuda]', asks for it)."
)
MAX_BLOCKS = 65535  # blocks per launch along y and z (CUDA's limit); kernels loop past it
MANY_BLOCKS = 1024  # enough blocks to keep every multiprocessor of a GPU busy


class CudaArray:
    """A strided view of a flat buffer in GPU memory: what a ``"cuda"`` tensor holds.

    ``element(index) = buffer[offset + sum(index[k] * strides[k])]``.
    """

    __slots__ = ("buffer", "offset", "shape", "strides")

    def __init__(
        self, buffer: Any, shape: tuple, strides: tuple | None = None, offset: int = 0
    ) -> None:
        self.buffer = buffer
        self.shape = tuple(int(n) for n in shape)
        strides = contiguous_strides(self.shape) if strides is None else strides
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)

    dtype = property(lambda self: self.buffer.dtype)
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    @property
    def contiguous(self) -> bool:
        """Row-major without gaps, so any reshape is a view (size-1 axes don't count)."""
        rows = contiguous_strides(self.shape)
        return all(s == r for n, s, r in zip(self.shape, self.strides, rows) if n != 1)

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError(
            "can't convert cuda device type tensor to numpy. Use Tensor.cpu() to copy the "
            "tensor to host memory first (or .numpy(), which copies)."
        )

    def __repr__(self) -> str:
        return f"CudaArray(shape={self.shape}, dtype={self.dtype}, strides={self.strides})"


@cache
def _dtype(kind: str, op: str, *dtypes: np.dtype) -> np.dtype:
    """The dtype the NumPy reference gives ``op``: one rule, shared by both backends."""
    table = {"map": reference.MAPS, "zip": reference.ZIPS, "reduce": reference.REDUCES}[kind]
    return np.asarray(table[op](*(np.ones(1, d) for d in dtypes))).dtype


def _is_bfloat16(dtype: np.dtype) -> bool:
    return dtype.kind == "V" and dtype.name == "bfloat16"


def _words(arg: Any) -> Any:
    """A bfloat16 device array as the uint16 words kernels read and write (else ``arg``)."""
    dtype = getattr(arg, "dtype", None)
    return arg.view(UINT16) if dtype is not None and _is_bfloat16(dtype) else arg


def _identity(op: str, dtype: np.dtype) -> Any:
    """The value a reduction starts from: 0 for sum, 1 for prod, the lowest value for max."""
    if op in ("sum", "prod"):
        return dtype.type(op == "prod")
    if dtype.kind == "f":
        return dtype.type(-np.inf if op == "max" else np.inf)
    if dtype.kind == "b":
        return dtype.type(op == "min")
    info = np.iinfo(dtype)
    return dtype.type(info.min if op == "max" else info.max)


def _axes(x: CudaArray, axes: Any) -> tuple[list[int], list[int]]:
    """The sizes and strides of ``x`` along ``axes``, in that order."""
    return [x.shape[a] for a in axes], [x.strides[a] for a in axes]


def _ints(values: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


class CudaBackend:
    """Kernels over ``CudaArray``: the contract of ``NumpyBackend``, run by numba.cuda."""

    name = "cuda"
    device = "cuda"

    def __init__(self) -> None:
        if not kernels.SIMULATOR and not cuda.is_available():
            raise RuntimeError(
                "No CUDA GPUs are available\n"
                "minigrad's 'cuda' device needs an NVIDIA GPU and its driver, or numba's CUDA "
                "simulator: set NUMBA_ENABLE_CUDASIM=1 before anything imports numba. "
                "mg.backends.available() tells what this machine can run."
            )
        self.uploads = 0  # host -> device copies so far
        self.downloads = 0  # device -> host copies so far
        self.tile = kernels.TILE  # matmul tile side
        self.reduce_threads = kernels.REDUCE_THREADS  # the largest reduction block
        self.elements_per_thread = 16  # a reduction splits outputs with more per thread
        # One launch at a time from this process's threads: numba's simulator
        # refuses concurrent kernels. On a GPU a launch only queues the kernel
        # (it runs asynchronously), so holding the lock costs next to nothing.
        self._launching = threading.Lock()
        self._bfloat16 = False  # set by the first bfloat16 array: kernels then get its words

    # -- storage -----------------------------------------------------------------
    # bfloat16 (lesson 15) is stored as uint16 words (``cuda_low_precision``): the buffer
    # is a bfloat16 view of them, so its dtype is the tensor's, and ``run`` hands the
    # kernels the words. float16 is numba's own float16.
    def empty(self, shape: tuple, dtype: np.dtype) -> CudaArray:
        size = int(np.prod(shape, dtype=np.int64))
        dtype = np.dtype(dtype)
        if _is_bfloat16(dtype):
            self._bfloat16 = True
            return CudaArray(cuda.device_array(size, dtype=UINT16).view(dtype), shape)
        return CudaArray(cuda.device_array(size, dtype=dtype), shape)

    def from_numpy(self, array: np.ndarray) -> CudaArray:
        if array.ndim == 0:  # a scalar rides along as a kernel argument: no copy
            return self.full((), array.item(), array.dtype)
        if array.size == 0:
            return self.empty(array.shape, array.dtype)
        self.uploads += 1
        flat = np.ascontiguousarray(array).reshape(-1)
        if _is_bfloat16(flat.dtype):
            self._bfloat16 = True
            return CudaArray(cuda.to_device(flat.view(UINT16)).view(flat.dtype), array.shape)
        return CudaArray(cuda.to_device(flat), array.shape)

    def to_numpy(self, x: CudaArray) -> np.ndarray:
        x = self.contiguous(x)
        self.downloads += 1
        if x.size == 0:
            return np.empty(x.shape, x.dtype)
        words = _words(x.buffer)[x.offset : x.offset + x.size].copy_to_host()
        return words.view(x.dtype).reshape(x.shape)

    def full(self, shape: tuple[int, ...], value: float, dtype: np.dtype) -> CudaArray:
        out = self.empty(shape, dtype)
        value = np.dtype(dtype).type(value)
        if _is_bfloat16(out.dtype):
            value = np.asarray(value).view(UINT16)[()]  # its word
        self._launch(kernels.fill_kernel(), out.size, out.buffer, value)
        return out

    # -- float16 and bfloat16 (lesson 15): in float32, rounded once ------------------------
    def _widen(self, x: CudaArray) -> CudaArray:
        """A float16 or bfloat16 array as float32 (exact); any other array as it is."""
        if not is_low(x.dtype):
            return x
        if not _is_bfloat16(x.dtype):
            return self.astype(x, FLOAT32)  # numba's float16 to float32 conversion
        from minigrad.backends import cuda_low_precision

        x = self.contiguous(x)
        out = self.empty(x.shape, FLOAT32)
        self._launch(cuda_low_precision.widen_kernel(), out.size, out.buffer.view(UINT32),
                     _words(x.buffer)[x.offset : x.offset + x.size])  # fmt: skip
        return out

    def _narrow(self, x: CudaArray, dtype: np.dtype) -> CudaArray:
        """A float32 result rounded to ``dtype`` (nearest, ties to even); others as they are."""
        if x.dtype != FLOAT32:
            return x
        if not _is_bfloat16(dtype):
            return self.astype(x, dtype)
        from minigrad.backends import cuda_low_precision

        x = self.contiguous(x)
        out = self.empty(x.shape, dtype)
        self._launch(cuda_low_precision.narrow_kernel(), out.size, _words(out.buffer),
                     x.buffer[x.offset : x.offset + x.size].view(UINT32))  # fmt: skip
        return out

    # -- the four higher-order kernels ---------------------------------------------
    def map(self, op: str, x: CudaArray) -> CudaArray:
        if is_low(x.dtype):
            return self._narrow(self.map(op, self._widen(x)), x.dtype)
        dtype = _dtype("map", op, x.dtype)
        if dtype.kind == "f" and x.dtype != dtype:
            x = self.astype(x, dtype)  # exp of an integer: the scalar function sees a float
        out = self.empty(x.shape, dtype)
        self._elementwise(partial(kernels.map_kernel, op), out, x)
        return out

    def zip(self, op: str, x: CudaArray, y: CudaArray) -> CudaArray:
        low = x.dtype if is_low(x.dtype) else y.dtype if is_low(y.dtype) else None
        if low is not None:
            return self._narrow(self.zip(op, self._widen(x), self._widen(y)), low)
        out = self.empty(np.broadcast_shapes(x.shape, y.shape), _dtype("zip", op, x.dtype, y.dtype))
        self._elementwise(partial(kernels.zip_kernel, op), out, x, y)
        return out

    def reduce(self, op: str, x: CudaArray, axes: tuple[int, ...], keepdims: bool) -> CudaArray:
        if is_low(x.dtype):  # accumulate in float32
            return self._narrow(self.reduce(op, self._widen(x), axes, keepdims), x.dtype)
        dtype = _dtype("reduce", op, x.dtype)
        kept = [a for a in range(x.ndim) if a not in axes]
        kept_shape, kept_strides = coalesce(*_axes(x, kept))
        red_shape, red_strides = coalesce(*_axes(x, axes))
        if keepdims:
            shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
        else:
            shape = tuple(x.shape[a] for a in kept)
        outputs, count = int(np.prod(kept_shape)), int(np.prod(red_shape))
        # Few outputs of many elements each: split each output's elements over
        # several blocks (aiming at ~1024 blocks in all), then combine the parts.
        work = self.reduce_threads * self.elements_per_thread
        parts = max(1, min(count // work, MANY_BLOCKS // max(outputs, 1)))
        out = self.empty((outputs * parts,), dtype)
        # Threads per block: a power of two, no more than there are elements.
        threads = 1 << max(min(-(-count // parts), self.reduce_threads) - 1, 0).bit_length()
        kernel = kernels.reduce_kernel(
            op, numba.from_dtype(dtype), len(kept_shape), len(red_shape), self.reduce_threads
        )
        if out.size:
            self.run(
                kernel,
                min(out.size, MAX_BLOCKS),
                threads,
                out.buffer,
                x.buffer,
                x.offset,
                *(_ints(v) for v in (kept_shape, kept_strides, red_shape, red_strides)),
                count,
                parts,
                _identity(op, dtype),
            )
        if parts > 1:
            out = self.reduce(op, CudaArray(out.buffer, (outputs, parts)), (1,), False)
        return CudaArray(out.buffer, shape)

    def matmul(self, a: CudaArray, b: CudaArray) -> CudaArray:
        low = a.dtype if is_low(a.dtype) else b.dtype if is_low(b.dtype) else None
        if low is not None:  # products added in float32, each sum rounded once
            return self._narrow(self.matmul(self._widen(a), self._widen(b)), low)
        dtype = np.result_type(a.dtype, b.dtype)
        if dtype == np.bool_:  # true where some a[i, k] and b[k, j] are both true
            product = self.matmul(self.astype(a, np.int64), self.astype(b, np.int64))
            return self.zip("ne", product, self.full((), 0, np.int64))
        a, b = self.astype(a, dtype), self.astype(b, dtype)
        (m, k), n, batch = a.shape[-2:], b.shape[-1], a.shape[:-2]
        out = self.empty((*batch, m, n), dtype)
        if not out.size:
            return out
        batch, _, a_batch, b_batch = coalesce(batch, *(t.strides[:-2] for t in (out, a, b)))
        tile = self.tile
        kernel = kernels.matmul_kernel(numba.from_dtype(dtype), len(batch), tile)
        grid = (-(-n // tile), -(-m // tile), min(out.size // (m * n), MAX_BLOCKS))
        self.run(
            kernel,
            grid,
            (tile, tile),
            out.buffer,
            _ints(batch),
            m,
            n,
            k,
            dtype.type(0),
            *(a.buffer, a.offset, _ints(a_batch), a.strides[-2], a.strides[-1]),
            *(b.buffer, b.offset, _ints(b_batch), b.strides[-2], b.strides[-1]),
        )
        return out

    def scan(self, op: str, x: CudaArray, axis: int) -> CudaArray:
        """Running sums or products by doubling (Hillis and Steele): log2(n) zips.

        After step k every element holds the total of the 2**k elements ending
        at it, so it adds (or multiplies) the partial total 2**k places back;
        the first 2**k elements have none and keep theirs. Each step is one
        ``zip`` launch over the shifted slices: the existing kernels, no new one.
        """
        if is_low(x.dtype):
            return self._narrow(self.scan(op, self._widen(x), axis), x.dtype)
        dtype = np.asarray(reference.SCANS[op](np.ones(1, x.dtype))).dtype
        out = self.astype(x, dtype)
        n, shift = x.shape[axis], 1
        before = (slice(None),) * axis
        while shift < n:
            head = _view(out, (*before, slice(0, shift)))
            tail = self.zip(
                "add" if op == "sum" else "mul",
                _view(out, (*before, slice(shift, n))),
                _view(out, (*before, slice(0, n - shift))),
            )
            out = self.concatenate([head, tail], axis)
            shift *= 2
        if out is x:  # nothing to add up: still a fresh array, as NumPy's
            out = self.empty(x.shape, dtype)
            self._elementwise(partial(kernels.map_kernel, "copy"), out, x)
        return out

    # -- selection and data movement ------------------------------------------------
    def where(self, cond: CudaArray, x: CudaArray, y: CudaArray) -> CudaArray:
        shape = np.broadcast_shapes(cond.shape, x.shape, y.shape)
        out = self.empty(shape, np.result_type(x.dtype, y.dtype))
        self._elementwise(kernels.where_kernel, out, cond, x, y)
        return out

    def astype(self, x: CudaArray, dtype: np.dtype) -> CudaArray:
        if x.dtype == dtype:
            return x  # arrays are never written after they are made: sharing is safe
        dtype = np.dtype(dtype)
        if _is_bfloat16(x.dtype):  # its words are no numbers to convert: widen them first
            return self.astype(self._widen(x), dtype)
        if _is_bfloat16(dtype):  # to float32, then rounded on the bits
            return self._narrow(self.astype(x, FLOAT32), dtype)
        if x.dtype == np.float64 and dtype == np.float16:  # through float32, as PyTorch rounds
            return self.astype(self.astype(x, FLOAT32), dtype)
        if x.dtype == np.float16 and dtype.kind in "iub":
            # numba.cuda converts a half to an integer to nearest (0.19 -> 1 on an H100);
            # PyTorch truncates. float16 -> float32 is exact, and float32 -> int truncates.
            return self.astype(self.astype(x, FLOAT32), dtype)
        out = self.empty(x.shape, dtype)
        self._elementwise(partial(kernels.map_kernel, "copy"), out, x)
        return out

    def write(self, target: CudaArray, values: CudaArray) -> None:
        """Copy ``values`` (broadcast to ``target``'s shape) into the memory ``target`` covers,
        strided or not: the one kernel that changes an array after it is made (in-place
        operations, ``minigrad.tensor.ops.inplace``)."""
        self._elementwise(partial(kernels.map_kernel, "copy"), target, values)

    def broadcast_to(self, x: CudaArray, shape: tuple[int, ...]) -> CudaArray:
        return CudaArray(x.buffer, shape, broadcast_strides(x.shape, x.strides, shape), x.offset)

    def reshape(self, x: CudaArray, shape: tuple[int, ...]) -> CudaArray:
        x = self.contiguous(x)
        return CudaArray(x.buffer, shape, None, x.offset)

    def transpose(self, x: CudaArray, axes: tuple[int, ...]) -> CudaArray:
        shape, strides = _axes(x, axes)
        return CudaArray(x.buffer, shape, strides, x.offset)

    def diagonal(self, x: CudaArray, offset: int, dim1: int, dim2: int) -> CudaArray:
        shape, strides, start = diagonal_strides(x.shape, x.strides, offset, dim1, dim2)
        return CudaArray(x.buffer, shape, strides, x.offset + start)

    def getitem(self, x: CudaArray, index: object) -> CudaArray:
        if indexing.is_basic(index):
            return _view(x, index)
        positions = self._positions(x, index)
        out = self.empty(positions.shape, x.dtype)
        self._launch(kernels.gather_kernel(), out.size, out.buffer, x.buffer, positions.buffer)
        return out

    def scatter_add(self, shape: tuple[int, ...], index: object, values: CudaArray) -> CudaArray:
        if is_low(values.dtype):  # added up in float32 (atomically), rounded once
            return self._narrow(self.scatter_add(shape, index, self._widen(values)), values.dtype)
        if values.dtype == np.bool_:  # CUDA has no atomic add of bools: counted, then != 0
            counts = self.scatter_add(shape, index, self.astype(values, np.dtype(np.int32)))
            return self.astype(counts, values.dtype)
        out = self.full(shape, 0, values.dtype)
        if indexing.is_basic(index):
            # A basic index never names an element twice: adding to zeros is copying.
            self._elementwise(partial(kernels.map_kernel, "copy"), _view(out, index), values)
            return out
        positions = self._positions(out, index)
        self._elementwise(kernels.scatter_add_kernel, positions, values, tail=(out.buffer,))
        return out

    def concatenate(self, xs: list[CudaArray], axis: int) -> CudaArray:
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        out = self.empty(tuple(shape), np.result_type(*(x.dtype for x in xs)))
        start = 0
        for x in xs:
            part = (slice(None),) * axis + (slice(start, start + x.shape[axis]),)
            self._elementwise(partial(kernels.map_kernel, "copy"), _view(out, part), x)
            start += x.shape[axis]
        return out

    def windows(self, x: CudaArray, kernel: tuple[int, ...], step: tuple[int, ...],
                dilation: tuple[int, ...]) -> CudaArray:  # fmt: skip
        # Like broadcasting, a picture of the same buffer: new strides, no kernel.
        shape, strides = window_strides(x.shape, x.strides, kernel, step, dilation)
        return CudaArray(x.buffer, shape, strides, x.offset)

    # -- fused attention (lesson 17): cuda_attention's shared-memory kernels ------------
    def _attention_operands(self, q, k, v, bias):
        """Contiguous ``q, k, v``; the bias as (buffer, bias_of, offset, strides)."""
        from minigrad.backends.attention import bias_numbers

        q, k, v = (self.contiguous(x) for x in (q, k, v))
        batch = q.shape[:-2]
        if bias is None:
            bias_of = np.zeros(max(int(np.prod(batch, dtype=np.int64)), 1), np.int64)
            operands = (self.full((1,), 0, q.dtype).buffer, self.from_numpy(bias_of).buffer,
                        0, 0, 0, 0)  # fmt: skip
            return q, k, v, operands, False
        bias = self.contiguous(bias)
        rows, cols = bias.shape[-2:]
        bias_of = bias_numbers(bias.shape[:-2], batch)
        bias_of = bias_of if bias_of.size else np.zeros(1, np.int64)
        # Row-major (rows, cols) matrices one after another; stride 0 where broadcast.
        operands = (bias.buffer, self.from_numpy(bias_of).buffer, bias.offset, rows * cols,
                    cols if rows > 1 else 0, 1 if cols > 1 else 0)  # fmt: skip
        return q, k, v, operands, True

    def attention(self, q, k, v, bias, scale: float, causal: bool) -> CudaArray:
        from minigrad.backends import cuda_attention as fused

        if is_low(q.dtype):
            bias = None if bias is None else self._widen(bias)
            wide = (self._widen(t) for t in (q, k, v))
            return self._narrow(self.attention(*wide, bias, scale, causal), q.dtype)

        q, k, v, bias_operands, has_bias = self._attention_operands(q, k, v, bias)
        batch, (length, e), (keys, ev) = q.shape[:-2], q.shape[-2:], v.shape[-2:]
        n = int(np.prod(batch, dtype=np.int64))
        packed = self.empty((*batch, length, ev + 1), q.dtype)
        if packed.size == 0:
            return packed
        kernel = fused.forward_kernel(numba.from_dtype(q.dtype), e, ev)
        self.run(kernel, *fused.grid(length, n), packed.buffer, q.buffer, k.buffer, v.buffer,
                 q.offset, k.offset, v.offset, *bias_operands, has_bias, scale, causal, n, length,
                 keys)  # fmt: skip
        return packed

    def attention_backward(self, q, k, v, bias, packed, g, scale: float, causal: bool):
        from minigrad.backends import cuda_attention as fused

        if is_low(q.dtype):
            bias = None if bias is None else self._widen(bias)
            wide = (
                self._widen(t)
                for t in (
                    q,
                    k,
                    v,
                )
            )
            grads = self.attention_backward(*wide, bias, self._widen(packed), self._widen(g),
                                            scale, causal)  # fmt: skip
            return self._narrow(grads, q.dtype)

        q, k, v, bias_operands, has_bias = self._attention_operands(q, k, v, bias)
        packed, g = self.contiguous(packed), self.contiguous(self.astype(g, q.dtype))
        batch, (length, e), (keys, ev) = q.shape[:-2], q.shape[-2:], v.shape[-2:]
        n = int(np.prod(batch, dtype=np.int64))
        stride = length * e + keys * e + keys * ev
        grads = self.full((*batch, stride), 0, q.dtype)
        if grads.size == 0:
            return grads
        dtype = numba.from_dtype(q.dtype)
        common = (q.buffer, k.buffer, v.buffer, q.offset, k.offset, v.offset,
                  packed.buffer[packed.offset :], g.buffer[g.offset :], *bias_operands, has_bias,
                  scale, causal, n, length, keys)  # fmt: skip
        if keys:
            self.run(fused.key_kernel(dtype, e, ev), *fused.grid(keys, n), grads.buffer, stride,
                     *common)  # fmt: skip
        if length:
            self.run(fused.query_kernel(dtype, e, ev), *fused.grid(length, n), grads.buffer,
                     stride, *common)  # fmt: skip
        return grads

    # -- plumbing ---------------------------------------------------------------------
    def _launch(self, kernel: Any, size: int, *args: Any) -> None:
        """Run ``kernel`` with at least one thread per element of a ``size``-element output."""
        if size:
            self.run(kernel, *kernels.blocks(size), *args)

    def run(self, kernel: Any, grid: Any, block: Any, *args: Any) -> None:
        """Launch ``kernel[grid, block](*args)``, one launch at a time (safe for threads)."""
        if self._bfloat16:
            args = tuple(_words(a) for a in args)
        with self._launching:
            try:
                kernel[grid, block](*args)
            except AttributeError as error:
                if "row_stack" in str(error):  # numba-cuda's first compile, under NumPy 2.5
                    raise RuntimeError(NUMPY_TOO_NEW) from error
                raise

    def _elementwise(self, kernel_for: Any, out: CudaArray, *inputs: CudaArray,
                     tail: tuple = ()) -> None:  # fmt: skip
        """One thread per element of ``out``: run ``kernel_for(ndim)`` on strided operands.

        Each operand is passed as (buffer, offset, strides), the inputs' strides
        broadcast to ``out``'s shape. Axes that every operand walks as one are
        merged first (``coalesce``): fewer axes, less index math per thread.
        """
        strides = [broadcast_strides(x.shape, x.strides, out.shape) for x in inputs]
        shape, *strides = coalesce(out.shape, out.strides, *strides)
        operands = [
            arg for x, s in zip((out, *inputs), strides) for arg in (x.buffer, x.offset, _ints(s))
        ]
        kernel = kernel_for(len(shape))
        self._launch(kernel, out.size, out.size, _ints(shape), *operands, *tail)

    def contiguous(self, x: CudaArray) -> CudaArray:
        """``x``, or a contiguous copy of it (one thread per element) when it is a strided view."""
        if x.contiguous:
            return x
        out = self.empty(x.shape, x.dtype)
        self._elementwise(partial(kernels.map_kernel, "copy"), out, x)
        return out

    def _positions(self, x: CudaArray, index: Any) -> CudaArray:
        """The storage positions of ``x[index]`` (an advanced index), worked out on the host."""
        parts = index if isinstance(index, tuple) else (index,)
        parts = tuple(self.to_numpy(p) if isinstance(p, CudaArray) else p for p in parts)
        return self.from_numpy(indexing.positions(x.shape, x.strides, x.offset, parts))


def _view(x: CudaArray, index: Any) -> CudaArray:
    """``x[index]`` for a basic index: the same buffer, new strides."""
    return CudaArray(x.buffer, *indexing.basic_view(x.shape, x.strides, x.offset, index))
