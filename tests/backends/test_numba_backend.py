"""The numba CPU backend equals the NumPy reference (lesson 10).

Three levels:

1. the index math of ``strides.py``: a storage, offset and strides reach the
   same elements as NumPy's own indexing, and ``coalesce`` keeps the order;
2. the kernels, called through ``NumbaBackend`` with the NumPy crossover set
   to 0 (so even one element goes through numba) on hypothesis-drawn views:
   broadcast (stride 0), transposed, sliced, reversed and empty, float32 and
   float64, against ``NumpyBackend``; plus the matmul kernels;
3. every primitive of the tensor layer: the catalogue of
   correctness database (``tests/opdb``) run on both backends, values and
   gradients compared, in float32 and float64.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from opdb import DATABASE as CASES
from opdb import NO_GRAD, SEEDS
from opdb.oracles import hessian_vector, single_output
from opdb.oracles import torch_check as run_torch_check
from opdb.strategies import Case, inputs, normal

import minigrad as mg
from minigrad import backends
from minigrad.backends import kernel_cache, numba_matmul, strides
from minigrad.backends.buffers import BufferPool
from minigrad.backends.numba_backend import BOOL_OPS, NUMPY_BELOW, NumbaBackend
from minigrad.backends.numpy_backend import NumpyBackend
from minigrad.backends.threads import Workers

REFERENCE = NumpyBackend()
MAP_OPS = sorted(op for op, arity in kernel_cache.ARITY.items() if arity == 1)
ZIP_OPS = sorted(op for op, arity in kernel_cache.ARITY.items() if arity == 2)
TOLERANCE = {np.float32: {"rtol": 1e-5, "atol": 1e-5}, np.float64: {"rtol": 1e-12, "atol": 1e-12}}
DTYPES = st.sampled_from([np.float32, np.float64])


@pytest.fixture(scope="module")
def kernels_only():
    """The shared numba backend with every size sent to the kernels (none to NumPy)."""
    backend = backends.get("numba")
    saved = backend.numpy_below, backend.numpy_ops
    backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    backend.numpy_ops = frozenset()
    yield backend
    backend.numpy_below, backend.numpy_ops = saved


def all_kernels() -> NumbaBackend:
    backend = NumbaBackend()
    backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    backend.numpy_ops = frozenset()  # tanh and friends too
    return backend


# -- views of every layout --------------------------------------------------------------------
LAYOUTS = st.sampled_from(["contiguous", "transposed", "strided", "reversed", "broadcast"])


@st.composite
def views(draw, shape, dtype, min_side=0):
    """A NumPy view of ``shape``: contiguous, transposed, every other, reversed or stride-0."""
    rng = np.random.default_rng(draw(SEEDS))
    layout = draw(LAYOUTS)
    ndim = len(shape)
    if layout == "transposed" and ndim >= 2:
        return rng.standard_normal(shape[::-1]).astype(dtype).T
    if layout == "strided" and ndim >= 1:
        return rng.standard_normal((*shape[:-1], 2 * shape[-1])).astype(dtype)[..., ::2]
    if layout == "reversed" and ndim >= 1:
        return rng.standard_normal(shape).astype(dtype)[::-1]
    if layout == "broadcast" and ndim >= 1:
        return np.broadcast_to(rng.standard_normal((1, *shape[1:])).astype(dtype), shape)
    return rng.standard_normal(shape).astype(dtype)


SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


@st.composite
def broadcast_pair(draw, dtype):
    x_shape, y_shape = draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=5
        )
    ).input_shapes
    return draw(views(x_shape, dtype)), draw(views(y_shape, dtype))


def assert_same(ours: np.ndarray, reference: np.ndarray, dtype) -> None:
    assert type(ours) is np.ndarray and ours.shape == reference.shape
    assert ours.dtype == reference.dtype
    np.testing.assert_allclose(ours, reference, **TOLERANCE[np.dtype(dtype).type])


# -- 1. the index math --------------------------------------------------------------------------
@settings(max_examples=60)
@given(data=st.data(), shape=SHAPES, dtype=DTYPES)
def test_storage_offset_and_strides_reach_every_element(data, shape, dtype):
    x = data.draw(views(shape, dtype))
    storage, offset, x_strides = strides.as_strided_storage(x)
    index = np.zeros(len(shape), np.int64)
    for ordinal in range(x.size):
        strides.to_index(ordinal, np.array(shape, np.int64), index)
        assert tuple(index) == np.unravel_index(ordinal, shape)
        assert storage[strides.index_to_position(index, x_strides, offset)] == x[tuple(index)]


@settings(max_examples=60)
@given(data=st.data(), dtype=DTYPES)
def test_coalesced_axes_visit_the_same_positions_in_order(data, dtype):
    x, y = data.draw(broadcast_pair(dtype))
    shape = np.broadcast_shapes(x.shape, y.shape)
    originals = [strides.broadcast_strides(a.shape, strides.as_strided_storage(a)[2], shape)
                 for a in (x, y)]  # fmt: skip
    merged_shape, *merged = strides.coalesce(shape, *originals)
    assert int(np.prod(merged_shape)) == int(np.prod(shape))

    def positions(shape, axis_strides):
        grid = np.indices(shape).reshape(len(shape), -1).T if len(shape) else np.zeros((1, 0))
        return (grid @ np.asarray(axis_strides)).astype(np.int64)

    for before, after in zip(originals, merged):
        np.testing.assert_array_equal(positions(shape, before), positions(merged_shape, after))


def test_next_index_walks_like_an_odometer():
    shape, index = np.array([2, 3]), np.array([0, 0])
    seen = [tuple(index)]
    while strides.next_index(index, shape, 1):
        seen.append(tuple(index))
    assert seen == list(np.ndindex(2, 3))


# -- 2. the kernels ---------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=25)
@given(data=st.data(), shape=SHAPES, dtype=DTYPES,
       op=st.sampled_from(MAP_OPS))  # fmt: skip
def test_map_kernel_equals_numpy(data, shape, dtype, op):
    x = data.draw(views(shape, dtype))
    if op in BOOL_OPS:
        x = np.round(x)  # zeros too: logical_not of 0.0 is True
    ours = all_kernels().map(op, x)
    assert_same(ours, REFERENCE.map(op, x), dtype)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=25)
@given(data=st.data(), dtype=DTYPES,
       op=st.sampled_from(ZIP_OPS))  # fmt: skip
def test_zip_kernel_equals_numpy_with_broadcasting(data, dtype, op):
    x, y = data.draw(broadcast_pair(dtype))
    if op == "pow":
        x = np.abs(x)  # a negative base to a fractional power is NaN: not what we test
    assert_same(all_kernels().zip(op, x, y), REFERENCE.zip(op, x, y), dtype)


@settings(max_examples=40)
@given(data=st.data(), dtype=DTYPES)
def test_where_kernel_equals_numpy(data, dtype):
    shapes = data.draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=3, min_dims=0, max_dims=3, min_side=0, max_side=4
        )
    ).input_shapes
    cond = data.draw(views(shapes[0], np.float64)) > 0
    x, y = data.draw(views(shapes[1], dtype)), data.draw(views(shapes[2], dtype))
    assert_same(all_kernels().where(cond, x, y), REFERENCE.where(cond, x, y), dtype)


@st.composite
def reduced_axes(draw, ndim):
    return tuple(sorted(draw(st.sets(st.integers(0, ndim - 1), max_size=ndim)))) if ndim else ()


@settings(max_examples=50)
@given(data=st.data(), shape=SHAPES, dtype=DTYPES, op=st.sampled_from(["sum", "max", "min"]),
       keepdims=st.booleans())  # fmt: skip
def test_reduce_kernel_equals_numpy(data, shape, dtype, op, keepdims):
    x = data.draw(views(shape, dtype))
    axes = data.draw(reduced_axes(len(shape)))
    if op != "sum" and any(shape[a] == 0 for a in axes):
        return  # max of nothing is an error, raised by the tensor layer before any kernel
    backend = all_kernels()
    # Every axis choice through the kernel itself (the backend sends some to NumPy).
    ours = (
        backend._reduce_kernel(op, x, axes, keepdims)
        if x.size
        else backend.reduce(op, x, axes, keepdims)
    )
    assert_same(ours, REFERENCE.reduce(op, x, axes, keepdims), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "broadcast"])
def test_kernels_over_many_blocks(dtype, layout):
    # Larger than BLOCK, with rows that end mid-block: the odometer must carry.
    rng = np.random.default_rng(5)
    base = rng.standard_normal((37, 999)).astype(dtype)
    x = {"contiguous": base, "transposed": base.T.copy().T, "broadcast": base[:1]}[layout]
    x = np.broadcast_to(x, base.shape)
    y = rng.standard_normal(999).astype(dtype)
    backend = all_kernels()
    assert_same(backend.zip("tanh_grad", x, y), REFERENCE.zip("tanh_grad", x, y), dtype)
    assert_same(backend.map("relu", x), REFERENCE.map("relu", x), dtype)
    for axes in [(0,), (1,), (0, 1)]:
        for op in ("sum", "max", "min"):
            ours = backend._reduce_kernel(op, x, axes, False)
            assert_same(ours, REFERENCE.reduce(op, x, axes, False), dtype)


def test_nan_propagates_like_numpy():
    x = np.array([1.0, np.nan, -2.0, 0.0])
    y = np.array([np.nan, 0.0, -3.0, -0.0])
    backend = all_kernels()
    for op in ("maximum", "minimum", "relu_grad"):
        np.testing.assert_array_equal(backend.zip(op, x, y), REFERENCE.zip(op, x, y))
    for op in ("relu", "sign", "abs", "neg"):
        np.testing.assert_array_equal(backend.map(op, x), REFERENCE.map(op, x))
    for op in ("max", "min", "sum"):
        np.testing.assert_array_equal(
            backend.reduce(op, x, (0,), False), REFERENCE.reduce(op, x, (0,), False)
        )


@pytest.mark.parametrize("op, kind", [("add", "elementwise"), ("tanh_grad", "fused"),
                                      ("remainder", "elementwise"), ("gelu_grad", "composite")])  # fmt: skip
def test_sizes_below_the_crossover_go_to_numpy(monkeypatch, op, kind):
    calls = []
    monkeypatch.setattr(
        kernel_cache, "elementwise_kernel", lambda op, **_: lambda *a: calls.append(a)
    )
    backend = NumbaBackend()
    small = np.ones(backend.numpy_below[kind] - 1, np.float32)
    np.testing.assert_array_equal(backend.zip(op, small, small), REFERENCE.zip(op, small, small))
    assert calls == []  # NumPy did it
    big = np.ones(backend.numpy_below[kind], np.float32)
    backend.zip(op, big, big)
    workers = backend.workers
    assert 1 <= len(calls) <= workers.threads * workers.split  # a few pieces per thread


def test_operands_along_memory_take_the_flat_kernel(monkeypatch):
    # Contiguous operands of the output's shape ("a") and single numbers ("n") run a
    # bare loop; a transposed or row-broadcast operand takes the strided kernel (None).
    real, layouts = kernel_cache.elementwise_kernel, []

    def record(op, **kwargs):
        layouts.append(kwargs.get("layout"))
        return real(op, **kwargs)

    monkeypatch.setattr(kernel_cache, "elementwise_kernel", record)
    backend = NumbaBackend()
    backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    backend.numpy_ops = frozenset()
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    two = np.float32(2) * np.ones((), np.float32)
    cases = [
        (backend.zip("sub", x, x), x - x),
        (backend.zip("sub", x, two), x - 2),
        (backend.zip("sub", two, x), 2 - x),
        (backend.zip("sub", x, x[0]), x - x[0]),
        (backend.zip("sub", x, x.T.copy().T), x - x),
        (backend.where(x > 0, x, two), np.where(x > 0, x, 2)),
        (backend.map("neg", x[:, ::2]), -x[:, ::2]),
    ]
    assert layouts == ["aa", "an", "na", None, None, "aan", None]
    for got, want in cases:
        np.testing.assert_array_equal(got, want)


def test_reductions_across_memory_go_to_numpy(monkeypatch):
    calls = []
    monkeypatch.setattr(kernel_cache, "reduce_kernel", lambda op: lambda *a: calls.append(a))
    backend = NumbaBackend()
    backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    x = np.ones((4, 3), np.float32)
    backend.reduce("sum", x, (0,), False)  # down the columns: NumPy adds rows
    assert calls == []
    backend.reduce("sum", x, (1,), False)  # along each row: the kernel's inner loop
    backend.reduce("sum", x.T, (0,), False)  # the same memory, transposed
    assert len(calls) == 2


def test_buffer_pool_reuses_memory_only_when_nothing_views_it():
    pool = BufferPool(min_bytes=0)
    a = pool.empty((4, 5), np.dtype(np.float32))
    view = a.T[1:]  # a view keeps the memory alive after a is gone
    del a
    b = pool.empty((4, 5), np.dtype(np.float32))
    assert not np.shares_memory(b, view) and pool.reused == 0
    del view
    c = pool.empty((20,), np.dtype(np.float32))  # same bytes, another shape
    assert pool.reused == 1 and not np.shares_memory(c, b)
    b[...] = 1.0
    c[...] = 2.0
    assert (b == 1.0).all()  # distinct buffers, never handed out twice


@st.composite
def matmul_operands(draw, dtype):
    m, k, n = (draw(st.integers(0, 70)) for _ in range(3))
    batch = draw(st.sampled_from([(), (2,), (2, 1)]))
    rng = np.random.default_rng(draw(SEEDS))
    a = rng.standard_normal((*batch, m, k)).astype(dtype)
    b = rng.standard_normal((*batch, n, k)).astype(dtype)
    return a, np.swapaxes(b, -1, -2)  # b as a transposed view: not contiguous


@settings(max_examples=30)
@given(data=st.data(), dtype=DTYPES)
def test_tiled_matmul_equals_blas(data, dtype):
    a, b = data.draw(matmul_operands(dtype))
    ours = numba_matmul.matmul(a, b)
    tolerance = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {}
    np.testing.assert_allclose(ours, np.matmul(a, b), **tolerance)
    assert ours.dtype == dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [((5, 1), (1, 7)), ((3, 40, 1), (3, 1, 30)),
                                   ((4, 300, 1), (4, 1, 1000)), ((2, 0, 1), (2, 1, 3))])  # fmt: skip
def test_outer_products_are_a_multiply(dtype, shape):
    """k = 1 (per-example weight gradients): a broadcast multiply, equal to BLAS's answer,
    also for a strided operand and above the size where the zip kernel runs."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal(shape[0]).astype(dtype)
    b = np.swapaxes(rng.standard_normal((*shape[1][:-2], shape[1][-1], 1)).astype(dtype), -1, -2)
    ours = NumbaBackend().matmul(a, b)
    assert ours.dtype == dtype and ours.shape == np.matmul(a, b).shape
    np.testing.assert_array_equal(ours, np.matmul(a, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, ids", [((103, 8), (16, 12)), ((5,), (7,)), ((4, 3, 2), (2, 5)),
                                        ((3, 0), (4,))])  # fmt: skip
def test_embedding_rows_add_up_as_np_add_at_does(monkeypatch, dtype, shape, ids):
    """An integer array of rows (an embedding's backward, ids repeating and negative) is added
    by the generated row loop (ADD_ROWS), not np.add.at's slow path: the same sums, bit for bit."""
    rng = np.random.default_rng(11)
    index = rng.integers(-shape[0], shape[0], ids)
    values = rng.standard_normal(ids + shape[1:]).astype(dtype)
    reference = REFERENCE.scatter_add  # np.add.at
    monkeypatch.setattr(type(REFERENCE), "scatter_add", None)
    ours = NumbaBackend().scatter_add(shape, index, values)
    monkeypatch.setattr(type(REFERENCE), "scatter_add", lambda self, *a: reference(*a))
    expected = REFERENCE.scatter_add(shape, index, values)
    assert ours.dtype == dtype and ours.shape == shape
    np.testing.assert_array_equal(ours, expected)
    with pytest.raises(IndexError):  # out of range: NumPy's own error
        NumbaBackend().scatter_add(shape, np.array([shape[0]]), np.ones((1, *shape[1:]), dtype))


def test_tiled_matmul_crosses_tile_edges():
    # Every dimension one past a tile, plus remainders of the 4 x 4 register block.
    rng = np.random.default_rng(6)
    m, k, n = numba_matmul.TILE_M + 1, 259, 2 * numba_matmul.TILE_N + 3
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    np.testing.assert_allclose(numba_matmul.matmul(a, b), a @ b, rtol=1e-12, atol=1e-12)


def test_naive_matmul_equals_blas():
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((17, 9)), rng.standard_normal((9, 5))
    out = np.empty((17, 5))
    numba_matmul.naive_matmul(a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-12, atol=1e-12)


# -- 3. every primitive, through the tensor layer --------------------------------------------------
@st.composite
def softmax_case(draw, name):
    """``softmax`` / ``log_softmax`` (the primitives of tensor/softmax.py) along a random axis."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    arrays, views, _ = draw(inputs([shape], [normal]))
    ours = getattr(mg.nn.functional, name)
    theirs = getattr(torch, name)
    return Case(lambda x: ours(views[0](x), axis), lambda t: theirs(views[0](t), axis), arrays)


FUSED = {"softmax": softmax_case("softmax"), "log_softmax": softmax_case("log_softmax")}
ALL_CASES = CASES  # softmax and log_softmax are database rows too


@pytest.mark.parametrize("name", sorted(FUSED))
@settings(max_examples=20)
@given(data=st.data())
def test_fused_softmax_primitives_match_torch(name, data):
    case = data.draw(FUSED[name])
    rng = np.random.default_rng(data.draw(SEEDS))
    run_torch_check(case, rng)  # values and gradients
    shape = case.torch_fn(*[torch.from_numpy(a) for a in case.arrays]).shape
    u = rng.standard_normal(shape)
    w = [rng.standard_normal(a.shape) for a in case.arrays]
    ours = hessian_vector(mg, case.mg_fn, case.arrays, [u], w)
    theirs = hessian_vector(torch, case.torch_fn, case.arrays, [u], w)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_softmax_tangents_match_finite_differences(name):
    rng = np.random.default_rng(11)
    x, v = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    fn = getattr(mg.nn.functional, name)
    _, tangent = mg.jvp(lambda x: fn(x, 0), (mg.tensor(x),), (mg.tensor(v),))
    eps = 1e-6
    numerical = fn(mg.tensor(x + eps * v), 0).numpy() - fn(mg.tensor(x - eps * v), 0).numpy()
    np.testing.assert_allclose(tangent.numpy(), numerical / (2 * eps), rtol=1e-6, atol=1e-8)


def test_fused_tanh_and_sigmoid_rules_give_second_derivatives():
    # tanh'' = -2 tanh (1 - tanh^2), sigmoid'' = s (1 - s)(1 - 2 s): through tanh_grad's own rules.
    x = np.linspace(-2, 2, 7)
    for fn, second in [
        (mg.tanh, lambda t: -2 * t * (1 - t * t)),
        (mg.sigmoid, lambda s: s * (1 - s) * (1 - 2 * s)),
    ]:
        xt = mg.tensor(x, requires_grad=True)
        (first,) = mg.autograd.grad(fn(xt).sum(), xt, create_graph=True)
        (hess,) = mg.autograd.grad(first.sum(), xt)
        np.testing.assert_allclose(hess.numpy(), second(fn(mg.tensor(x)).numpy()), rtol=1e-12)


def run(backend_name: str, case, dtype, seed: int, grads: bool = True):
    rng = np.random.default_rng(seed)
    with backends.use(backend_name), np.errstate(all="ignore"):
        xs = [mg.tensor(a, dtype=dtype, requires_grad=grads) for a in case.arrays]
        out = case.mg_fn(*xs)
        if grads:
            out.backward(mg.tensor(rng.standard_normal(out.shape), dtype=out.dtype))
    return out.detach().numpy(), [None if x.grad is None else x.grad.numpy() for x in xs]


@pytest.mark.parametrize("name", sorted(ALL_CASES))
@settings(max_examples=10)
@given(data=st.data(), dtype=DTYPES)
def test_every_primitive_equals_the_numpy_backend(kernels_only, name, data, dtype):
    case = single_output(data.draw(ALL_CASES[name]))
    seed = data.draw(SEEDS)
    grads = name not in NO_GRAD
    ours, our_grads = run("numba", case, dtype, seed, grads)
    reference, reference_grads = run("numpy", case, dtype, seed, grads)
    assert_same(ours, reference, ours.dtype.type if ours.dtype.kind == "f" else np.float64)
    for g, r in zip(our_grads, reference_grads):
        assert (g is None) == (r is None)
        if g is not None:
            assert_same(g, r, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_matmul_through_the_tensor_layer(kernels_only, dtype):
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((3, 40, 30)), rng.standard_normal((30, 20))
    results = []
    for kernel in ("tiled", "blas"):
        kernels_only.matmul_kernel = kernel
        try:
            with backends.use("numba"):
                x, w = (
                    mg.tensor(a, dtype, requires_grad=True),
                    mg.tensor(b, dtype, requires_grad=True),
                )
                (x @ w).tanh().sum().backward()
        finally:
            kernels_only.matmul_kernel = "blas"
        results.append([x.grad.numpy(), w.grad.numpy()])
    for ours, blas in zip(*results):
        np.testing.assert_allclose(ours, blas, **TOLERANCE[dtype])


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4, 2)])
def test_empty_tensors_through_the_kernels(kernels_only, shape):
    with backends.use("numba"):
        x = mg.ones(shape, requires_grad=True)
        y = (x.tanh() * 2 + x.relu()).sum(0)
        y.sum().backward()
    assert y.shape == shape[1:] and x.grad.shape == shape


def test_large_arrays_take_the_kernel_path_and_agree():
    # At the default crossover, 2**20 elements go through the numba kernels.
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal((1024, 1024)).astype(np.float32) for _ in range(3)]
    grads = {}
    for name in ("numba", "numpy"):
        with backends.use(name):
            a, b, c = (mg.tensor(x, requires_grad=True) for x in arrays)
            (a * b + c).tanh().sum().backward()
            grads[name] = [t.grad.numpy() for t in (a, b, c)]
    for ours, reference in zip(grads["numba"], grads["numpy"]):
        np.testing.assert_allclose(ours, reference, **TOLERANCE[np.float32])


# -- the default, and no compilation at import ------------------------------------------------------
def test_numba_is_the_default_cpu_backend():
    env = {k: v for k, v in os.environ.items() if k != "MINIGRAD_BACKEND"}
    code = "import minigrad as mg; print(mg.backends.current())"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, check=True)  # fmt: skip
    assert result.stdout.strip() == "numba"
    with backends.use("numpy"):
        assert backends.current() == "numpy"


def test_import_compiles_nothing():
    code = (
        "import sys, minigrad as mg\n"
        "x = mg.ones(3) * 2\n"  # a small op runs on NumPy: numba need not even load
        "assert 'numba' not in sys.modules, 'import minigrad loaded numba'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- issue 24: a one-number condition is a copy; helpers that start late are not waited for --
@pytest.mark.parametrize("flag", [True, False])
def test_where_with_one_condition_copies_the_chosen_input(flag):
    backend = NumbaBackend()
    backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    x = np.array([[1.0, np.nan, -0.0], [np.inf, 2.0, 3.0]], np.float32)
    y = np.array([5.0, -np.inf, 0.0], np.float32)  # broadcast along the rows
    out = backend.where(np.array(flag), x, y)
    want = np.where(flag, x, y)
    assert out.dtype == want.dtype and out.shape == want.shape
    np.testing.assert_array_equal(out, want)
    assert np.signbit(out).tolist() == np.signbit(want).tolist()  # -0.0 stays -0.0
    assert out.flags.writeable and not np.shares_memory(out, x) and not np.shares_memory(out, y)


def test_workers_cover_every_piece_once():
    seen = []
    lock = threading.Lock()

    def record(start, stop):
        with lock:
            seen.append((start, stop))

    Workers(2, grain=10).run(record, 1003)
    seen.sort()
    assert seen[0][0] == 0 and seen[-1][1] == 1003
    assert all(a[1] == b[0] for a, b in itertools.pairwise(seen))  # no gap, no overlap


def test_workers_never_wait_for_a_helper_that_has_not_started():
    workers = Workers(2, grain=10)
    workers.run(lambda start, stop: None, 100)  # the pool exists now, with its one helper
    busy = threading.Event()
    workers._pool.submit(busy.wait, 30)  # the helper is busy elsewhere (another caller)
    out = np.zeros(1000)

    def fill(start, stop):
        out[start:stop] = 1

    began = time.perf_counter()
    workers.run(fill, out.size)
    took = time.perf_counter() - began
    busy.set()
    assert out.sum() == out.size
    assert took < 10, took  # the caller did every piece itself, without waiting for the helper
