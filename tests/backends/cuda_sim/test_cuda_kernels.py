"""Every CUDA backend method equals the NumPy reference backend (lesson 11).

Inputs reach the kernels in every layout a view can have: contiguous,
transposed, strided (every other element), reversed (a negative stride) and
broadcast (stride 0), so the index math is exercised, not only the fast path.
Shapes are tiny: under the simulator every CUDA thread is a Python thread.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from minigrad.backends import cuda_kernels
from minigrad.backends.cuda_backend import CudaArray
from minigrad.backends.numpy_backend import MAPS, ZIPS, NumpyBackend

REF = NumpyBackend()
LAYOUTS = ["contiguous", "transposed", "strided", "reversed", "broadcast"]


def device_view(backend, layout: str, value: np.ndarray) -> CudaArray:
    """A CudaArray that reads as ``value`` through a view of the given layout."""
    if layout == "transposed" and value.ndim >= 2:
        axes = tuple(reversed(range(value.ndim)))
        return backend.transpose(backend.from_numpy(value.transpose(axes).copy()), axes)
    if layout == "strided" and value.ndim >= 1:
        base = np.zeros((*value.shape[:-1], 2 * value.shape[-1]), value.dtype)
        base[..., ::2] = value
        return backend.getitem(backend.from_numpy(base), (Ellipsis, slice(None, None, 2)))
    if layout == "reversed" and value.ndim >= 1:
        return backend.getitem(backend.from_numpy(value[::-1].copy()), slice(None, None, -1))
    if layout == "broadcast" and value.ndim >= 1:
        first = value[:1]
        assert (value == first).all() or value.shape[0] == 1
        return backend.broadcast_to(backend.from_numpy(first.copy()), value.shape)
    return backend.from_numpy(value)


def sample(rng, shape, dtype, layout="contiguous", low=-2.0, high=2.0):
    """Random values of ``dtype``; equal rows for the broadcast layout."""
    rows = (1, *shape[1:]) if layout == "broadcast" and shape else shape
    if np.dtype(dtype).kind == "b":
        value = rng.random(rows) < 0.5
    elif np.dtype(dtype).kind in "iu":
        value = rng.integers(-5, 6, rows).astype(dtype)
    else:
        value = rng.uniform(low, high, rows).astype(dtype)
    return np.broadcast_to(value, shape).copy()


def same(got: np.ndarray, want: np.ndarray, rtol: float = 1e-6, atol: float | None = None) -> None:
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    atol = rtol * 1e-2 if atol is None else atol
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


# ndtr is PyTorch's (1 + erf(x / sqrt 2)) / 2: in its lower tail the sum cancels, so one ulp
# of erf (the GPU's erff and the C library's differ by one) is an absolute error of about
# 6e-8 however small the result. Its tolerance is that ulp; every other map's is relative.
MAP_TOLERANCE = {"ndtr": {"atol": 1.2e-7}}


# -- map -----------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", sorted(MAPS))
def test_map_equals_numpy(backend, op, layout):
    rng = np.random.default_rng(1)
    value = sample(rng, (3, 4), np.float32, layout, low=0.1 if op in ("log", "sqrt") else -3.0)
    got = backend.to_numpy(backend.map(op, device_view(backend, layout, value)))
    same(got, REF.map(op, value), **MAP_TOLERANCE.get(op, {}))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "tanh", "sigmoid", "relu", "sign", "abs"])
def test_map_edge_values_match_ieee(backend, op, dtype):
    # Zeros, negatives, infinities, nan and overflow give what NumPy gives, not an exception.
    value = np.array([0.0, -0.0, -1.0, 1e-30, 80.0, 800.0, -800.0, np.inf, -np.inf, np.nan], dtype)
    with np.errstate(all="ignore"):
        want = REF.map(op, value)
    same(backend.to_numpy(backend.map(op, backend.from_numpy(value))), want)


@pytest.mark.parametrize(
    ("op", "dtype"),
    [
        ("neg", np.int64),
        ("abs", np.int32),
        ("sign", np.int64),
        ("logical_not", np.bool_),
        ("logical_not", np.float32),
        ("neg", np.float64),
    ],
)
def test_map_keeps_numpy_dtypes(backend, op, dtype):
    value = sample(np.random.default_rng(2), (5,), dtype)
    same(backend.to_numpy(backend.map(op, backend.from_numpy(value))), REF.map(op, value))


# -- zip -----------------------------------------------------------------------------------
SHAPE_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 1, 4), (5, 4)),
    ((), (2, 3)),
    ((4, 1), (1,)),
    ((2, 0), (2, 1)),
]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.parametrize("op", sorted(ZIPS))
def test_zip_broadcasts_like_numpy(backend, op, shapes):
    rng = np.random.default_rng(3)
    dtype = np.bool_ if op.startswith("logical") else np.float32
    # pow and div away from their poles; the activation slopes away from their zeros
    # (gelu's at -0.75, silu's at -1.28), where a relative error says nothing.
    slopes = ("gelu_grad", "gelu_tanh_grad", "silu_grad")
    low = 0.5 if op in ("pow", "div") else -0.5 if op in slopes else -2.0
    x, y = (sample(rng, s, dtype, low=low) for s in shapes)
    got = backend.zip(op, backend.from_numpy(x), backend.from_numpy(y))
    same(backend.to_numpy(got), REF.zip(op, x, y), rtol=2e-6)


@pytest.mark.parametrize("layouts", [("transposed", "strided"), ("reversed", "broadcast")])
@pytest.mark.parametrize("op", ["sub", "maximum", "lt"])
def test_zip_reads_strided_views(backend, op, layouts):
    rng = np.random.default_rng(4)
    x, y = (sample(rng, (3, 4), np.float64, layout) for layout in layouts)
    dx, dy = (device_view(backend, layout, v) for layout, v in zip(layouts, (x, y)))
    same(backend.to_numpy(backend.zip(op, dx, dy)), REF.zip(op, x, y))


@pytest.mark.parametrize("op", ["add", "mul", "maximum", "minimum", "eq", "sub"])
def test_zip_on_integers(backend, op):
    rng = np.random.default_rng(5)
    x, y = sample(rng, (2, 3), np.int64), sample(rng, (3,), np.int64)
    same(
        backend.to_numpy(backend.zip(op, backend.from_numpy(x), backend.from_numpy(y))),
        REF.zip(op, x, y),
    )


def test_maximum_and_minimum_propagate_nan(backend):
    x = np.array([np.nan, 1.0, 2.0, np.nan], np.float32)
    y = np.array([0.0, np.nan, 1.0, np.nan], np.float32)
    for op in ("maximum", "minimum"):
        got = backend.zip(op, backend.from_numpy(x), backend.from_numpy(y))
        same(backend.to_numpy(got), REF.zip(op, x, y))


# -- reduce --------------------------------------------------------------------------------
AXES = [(), (0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
def test_reduce_over_any_axis_set(backend, op, axes, keepdims):
    value = sample(np.random.default_rng(6), (3, 4, 5), np.float64)
    got = backend.reduce(op, device_view(backend, "transposed", value), axes, keepdims)
    same(backend.to_numpy(got), REF.reduce(op, value, axes, keepdims), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_, np.float32])
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
def test_reduce_dtypes_follow_numpy(backend, op, dtype):
    value = sample(np.random.default_rng(7), (4, 3), dtype)
    for axes in [(0,), (0, 1)]:
        got = backend.reduce(op, backend.from_numpy(value), axes, False)
        same(backend.to_numpy(got), REF.reduce(op, value, axes, False), rtol=1e-6)


def test_reduce_longer_than_a_block(backend):
    # 300 elements per output: every thread folds several, then the tree runs in full.
    value = sample(np.random.default_rng(8), (2, 300), np.float32, layout="strided")
    for axes in [(1,), (0, 1)]:
        got = backend.reduce("sum", device_view(backend, "strided", value), axes, False)
        same(backend.to_numpy(got), REF.reduce("sum", value, axes, False), rtol=1e-5)
    got = backend.reduce("max", backend.from_numpy(value), (1,), True)
    same(backend.to_numpy(got), REF.reduce("max", value, (1,), True))


@pytest.mark.parametrize(
    ("op", "dtype"), [("sum", np.float64), ("max", np.float32), ("sum", np.bool_)]
)
def test_reduce_split_over_several_blocks(backend, monkeypatch, op, dtype):
    # Few outputs of many elements: each output's elements are split over blocks, then combined.
    monkeypatch.setattr(backend, "elements_per_thread", 1)
    value = sample(np.random.default_rng(20), (2, 3, 100), dtype)
    for axes, keepdims in [((1, 2), False), ((0, 1, 2), True)]:
        got = backend.reduce(op, device_view(backend, "transposed", value), axes, keepdims)
        same(backend.to_numpy(got), REF.reduce(op, value, axes, keepdims), rtol=1e-12)


@pytest.mark.parametrize("length", [0, 1, 2, 5, 8, 9])
@pytest.mark.parametrize("op", ["sum", "prod"])
def test_scan_by_doubling_equals_numpy(backend, op, length):
    # Lengths around powers of two: the last doubling step covers a part of the axis.
    value = sample(np.random.default_rng(21), (3, length, 2), np.float64)
    for axis in (0, 1, 2):
        got = backend.scan(op, device_view(backend, "transposed", value), axis)
        same(backend.to_numpy(got), REF.scan(op, value, axis), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float32])
def test_scan_dtypes_follow_numpy(backend, dtype):
    value = sample(np.random.default_rng(22), (4, 3), dtype)
    for op in ("sum", "prod"):
        got = backend.to_numpy(backend.scan(op, backend.from_numpy(value), 0))
        assert got.dtype == REF.scan(op, value, 0).dtype
        same(got, REF.scan(op, value, 0), rtol=1e-6)


def test_reduce_of_nothing(backend):
    empty = np.zeros((0, 3), np.float32)
    same(
        backend.to_numpy(backend.reduce("sum", backend.from_numpy(empty), (0,), False)),
        REF.reduce("sum", empty, (0,), False),
    )
    got = backend.reduce("sum", backend.from_numpy(empty), (1,), True)
    assert backend.to_numpy(got).shape == (0, 1)


def test_max_propagates_nan(backend):
    value = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 0.5]], np.float32)
    for op in ("max", "min"):
        same(
            backend.to_numpy(backend.reduce(op, backend.from_numpy(value), (1,), False)),
            REF.reduce(op, value, (1,), False),
        )


# -- matmul --------------------------------------------------------------------------------
MATMUL_SHAPES = [
    ((1, 1), (1, 1)),
    ((5, 7), (7, 3)),  # edges of a tile
    ((9, 6), (6, 10)),  # several tiles each way
    ((2, 5, 7), (2, 7, 3)),
    ((2, 3, 4, 5), (2, 3, 5, 2)),
    ((3, 0), (0, 4)),  # k = 0: zeros
    ((0, 3), (3, 2)),
]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
def test_matmul_equals_numpy(backend, shapes, layout):
    rng = np.random.default_rng(9)
    a, b = (sample(rng, s, np.float64) for s in shapes)
    got = backend.matmul(device_view(backend, layout, a), device_view(backend, layout, b))
    same(backend.to_numpy(got), REF.matmul(a, b), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_matmul_dtypes(backend, dtype):
    rng = np.random.default_rng(10)
    a, b = sample(rng, (2, 3, 5), dtype), sample(rng, (2, 5, 4), dtype)
    got = backend.matmul(backend.from_numpy(a), backend.from_numpy(b))
    same(backend.to_numpy(got), REF.matmul(a, b), rtol=1e-5)


def test_matmul_of_broadcast_batch(backend):
    # A stride-0 batch axis: one matrix used by every batch entry.
    rng = np.random.default_rng(11)
    a, b = sample(rng, (1, 4, 3), np.float32), sample(rng, (3, 3, 2), np.float32)
    da = backend.broadcast_to(backend.from_numpy(a), (3, 4, 3))
    same(backend.to_numpy(backend.matmul(da, backend.from_numpy(b))), np.matmul(a, b), rtol=1e-5)


def test_production_block_sizes(backend, monkeypatch):
    # The simulator runs smaller blocks by default; the GPU's sizes must give the same answers.
    monkeypatch.setattr(backend, "tile", 16)
    monkeypatch.setattr(backend, "reduce_threads", 256)
    rng = np.random.default_rng(12)
    a, b = sample(rng, (20, 18), np.float64), sample(rng, (18, 17), np.float64)
    got = backend.matmul(backend.from_numpy(a), backend.from_numpy(b))
    same(backend.to_numpy(got), a @ b, rtol=1e-12)
    value = sample(rng, (600,), np.float64)
    got = backend.reduce("sum", backend.from_numpy(value), (0,), False)
    same(backend.to_numpy(got), REF.reduce("sum", value, (0,), False), rtol=1e-12)


# -- selection, casts and data movement ---------------------------------------------------------
@pytest.mark.parametrize(
    "shapes", [((3, 4), (3, 4), (3, 4)), ((4,), (3, 1), ()), ((), (2,), (3, 2))]
)
def test_where_broadcasts_three_ways(backend, shapes):
    rng = np.random.default_rng(13)
    cond = sample(rng, shapes[0], np.bool_)
    x, y = sample(rng, shapes[1], np.float32), sample(rng, shapes[2], np.float32)
    got = backend.where(*(backend.from_numpy(v) for v in (cond, x, y)))
    same(backend.to_numpy(got), REF.where(cond, x, y))


DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("target", DTYPES)
@pytest.mark.parametrize("source", DTYPES)
def test_astype(backend, source, target):
    value = np.array([[-2.75, -1.0, 0.0], [0.5, 1.0, 3.25]]).astype(source)
    got = backend.astype(device_view(backend, "transposed", value), np.dtype(target))
    same(backend.to_numpy(got), REF.astype(value, np.dtype(target)))


@pytest.mark.parametrize("target", [np.int64, np.int32, np.bool_])
def test_half_to_integer_truncates_as_torch(backend, target):
    # On an H100, numba.cuda's own half -> integer conversion rounds to nearest (0.19 -> 1).
    value = np.array([0.19, 0.5, 0.7, 1.5, 2.5, -0.7, -1.5, -2.75, 0.0, 65504.0], np.float16)
    got = backend.to_numpy(backend.astype(backend.from_numpy(value), np.dtype(target)))
    want = torch.from_numpy(value).to(getattr(torch, np.dtype(target).name))
    same(got, want.numpy())


def test_numpy_too_new_for_numba_cuda_says_what_to_do(backend):
    # numba-cuda 0.30.4 under NumPy 2.5 fails its first compile with this AttributeError.
    class Kernel:
        def __getitem__(self, launch):
            def call(*args):
                raise AttributeError("module 'numpy' has no attribute 'row_stack'")

            return call

    with pytest.raises(RuntimeError, match=r"NumPy 2.5 removed.*pip install 'numpy<2.5'"):
        backend.run(Kernel(), 1, 1)
    with pytest.raises(AttributeError, match=r"no attribute .fail."):  # any other is left alone
        backend.run(type("K", (), {"__getitem__": lambda s, _: s.fail})(), 1, 1)


def test_views_move_no_numbers(backend):
    value = sample(np.random.default_rng(14), (2, 3, 4), np.float32)
    x = backend.from_numpy(value)
    for view in (
        backend.transpose(x, (2, 0, 1)),
        backend.broadcast_to(x, (5, 2, 3, 4)),
        backend.reshape(x, (6, 4)),
        backend.getitem(x, (1, slice(None, None, -2))),
    ):
        assert view.buffer is x.buffer
    same(backend.to_numpy(backend.transpose(x, (2, 0, 1))), value.transpose(2, 0, 1))
    same(
        backend.to_numpy(backend.broadcast_to(x, (5, 2, 3, 4))),
        np.broadcast_to(value, (5, 2, 3, 4)),
    )


def test_reshape_of_a_view_copies(backend):
    value = sample(np.random.default_rng(15), (3, 4), np.float32)
    x = backend.transpose(backend.from_numpy(value), (1, 0))
    flat = backend.reshape(x, (12,))
    assert flat.buffer is not x.buffer
    same(backend.to_numpy(flat), value.T.reshape(12))
    same(backend.to_numpy(backend.reshape(x, (2, 2, 3))), value.T.reshape(2, 2, 3))


INDEXES = [
    1,
    -1,
    (slice(None), 2),
    (slice(1, None, 2), slice(None, None, -1)),
    (Ellipsis, None, 0),
    (slice(5, 9),),
    np.array([2, 0, 0, -1]),
    [1, 1],
    (np.array([0, 2, 2]), np.array([1, 3, -4])),
    (slice(None), np.array([[0, 1], [3, 3]])),
    (np.array([0, 1]), slice(None), np.array([1, -1])),  # advanced axes apart: NumPy's rule
    np.array([True, False, True]),
    "mask",
    np.array(2),
]


def _index(value, index):
    return value > 0 if isinstance(index, str) else index


@pytest.mark.parametrize("index", INDEXES, ids=repr)
def test_getitem_equals_numpy(backend, index):
    value = sample(np.random.default_rng(16), (3, 4, 2), np.float32)
    index = _index(value, index)
    got = backend.getitem(device_view(backend, "strided", value), index)
    same(backend.to_numpy(got), REF.getitem(value, index))


@pytest.mark.parametrize("index", INDEXES, ids=repr)
def test_scatter_add_equals_numpy(backend, index):
    rng = np.random.default_rng(17)
    value = sample(rng, (3, 4, 2), np.float32)
    index = _index(value, index)
    values = sample(rng, REF.getitem(value, index).shape, np.float32)
    got = backend.scatter_add((3, 4, 2), index, backend.from_numpy(values))
    same(backend.to_numpy(got), REF.scatter_add((3, 4, 2), index, values), rtol=1e-6)


def test_index_arrays_may_live_on_the_device(backend):
    value = sample(np.random.default_rng(18), (4, 3), np.float64)
    rows, cols = np.array([3, 0, 3]), np.array([2, 2, 1])
    device_index = (backend.from_numpy(rows), backend.from_numpy(cols))
    same(
        backend.to_numpy(backend.getitem(backend.from_numpy(value), device_index)),
        value[rows, cols],
    )
    mask = value > 0
    same(
        backend.to_numpy(backend.getitem(backend.from_numpy(value), backend.from_numpy(mask))),
        value[mask],
    )


@pytest.mark.parametrize("index", [5, (0, 0, 0), np.array([0, 3]), (slice(None), np.array([-4]))])
def test_getitem_errors_like_numpy(backend, index):
    value = np.zeros((3, 3))
    with pytest.raises(IndexError) as expected:
        value[index]
    with pytest.raises(IndexError) as error:
        backend.getitem(backend.from_numpy(value), index)
    assert str(error.value) == str(expected.value)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_concatenate(backend, axis):
    rng = np.random.default_rng(19)
    shapes = [(2, 3, 4), (2, 3, 4), (2, 3, 4)]
    for i, n in enumerate((1, 2, 3)):
        shapes[i] = tuple(n if a == axis else s for a, s in enumerate(shapes[i]))
    values = [sample(rng, s, np.float32, layout) for s, layout in zip(shapes, LAYOUTS[:3])]
    parts = [device_view(backend, layout, v) for v, layout in zip(values, LAYOUTS[:3])]
    same(backend.to_numpy(backend.concatenate(parts, axis)), REF.concatenate(values, axis))


# -- storage ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value",
    [
        np.arange(12.0).reshape(3, 4)[:, ::2],
        np.float64(2.5),
        np.zeros((0, 3), np.int64),
        np.array([[True], [False]]),
        np.arange(6, dtype=np.int32)[::-1],
    ],
    ids=["strided", "0-d", "empty", "bool", "reversed"],
)
def test_round_trip(backend, value):
    value = np.asarray(value)
    same(backend.to_numpy(backend.from_numpy(value)), value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_full(backend, dtype):
    same(backend.to_numpy(backend.full((2, 3), 7, np.dtype(dtype))), REF.full((2, 3), 7, dtype))


def test_copies_between_host_and_device_are_counted(backend):
    uploads, downloads = backend.uploads, backend.downloads
    x = backend.from_numpy(np.ones((4, 4), np.float32))
    y = backend.zip("mul", backend.map("exp", x), backend.from_numpy(np.float32(2.0)))
    z = backend.reduce("sum", backend.matmul(y, backend.transpose(y, (1, 0))), (0, 1), False)
    assert (backend.uploads, backend.downloads) == (uploads + 1, downloads)  # scalars ride free
    assert backend.to_numpy(z) == pytest.approx(16 * 4 * (2 * np.e) ** 2, rel=1e-5)
    assert backend.downloads == downloads + 1


def test_device_data_refuses_silent_numpy_conversion(backend):
    with pytest.raises(TypeError, match="can't convert cuda"):
        np.asarray(backend.from_numpy(np.ones(2)))


def test_kernels_are_made_once_per_operation_and_rank():
    assert cuda_kernels.map_kernel("exp", 2) is cuda_kernels.map_kernel("exp", 2)
    assert cuda_kernels.map_kernel("exp", 2) is not cuda_kernels.map_kernel("exp", 3)
