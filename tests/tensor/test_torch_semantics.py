"""Where minigrad once differed from PyTorch without saying so (issue 22, part A).

Each test pins one behaviour that used to differ silently (a different value,
gradient, dtype or shape) or crash unclearly, and checks it against PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg


def same(ours, theirs, atol=1e-6):
    """Values, shape and dtype equal to PyTorch's (NaN equal to NaN)."""
    theirs = theirs.detach().numpy()
    ours = ours.detach().numpy()
    assert ours.shape == theirs.shape
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    np.testing.assert_allclose(ours, theirs, atol=atol, equal_nan=True)


def first_line(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value).splitlines()[0] if str(info.value) else ""


def same_error(ours, theirs):
    """The same first line, and an exception that ``except TheirType`` catches."""
    (kind, line), (their_kind, their_line) = first_line(ours), first_line(theirs)
    assert issubclass(kind, their_kind) and line == their_line, (kind, line, their_kind)


# -- transpose(dim0, dim1) ------------------------------------------------------------------
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (-2, -1), (-1, 0), (0, 0)])
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4)])
def test_transpose_swaps_two_axes_as_torch(shape, dims):
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    x, t = mg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours, theirs = x.transpose(*dims), t.transpose(*dims)
    same(ours, theirs)
    same(mg.transpose(x, *dims), torch.transpose(t, *dims))
    weights = np.arange(np.prod(theirs.shape), dtype=np.float32).reshape(theirs.shape)
    (ours * mg.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    same(x.grad, t.grad)


def test_transpose_out_of_range_is_torch_error():
    same_error(lambda: mg.zeros(2, 3).transpose(0, 2), lambda: torch.zeros(2, 3).transpose(0, 2))


# -- max / min along a dim: (values, indices) ------------------------------------------------
ROWS = [[1.0, 5.0, 5.0, -1.0], [7.0, 0.0, float("nan"), 7.0], [-np.inf, -np.inf, 2.0, 2.0]]


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_along_a_dim_return_values_and_indices(name, dim, keepdim):
    x, t = mg.tensor(ROWS, requires_grad=True), torch.tensor(ROWS, requires_grad=True)
    ours, theirs = getattr(x, name)(dim, keepdim), getattr(t, name)(dim, keepdim)
    values, indices = ours  # unpacks into two, not into the rows
    same(values, theirs.values)
    same(indices, theirs.indices)
    assert ours.values is values and ours.indices is indices
    fn, torch_fn = getattr(mg, name), getattr(torch, name)
    same(fn(x, dim=dim, keepdim=keepdim).indices, torch_fn(t, dim=dim, keepdim=keepdim).indices)
    weights = np.arange(1.0, 1.0 + values.size, dtype=np.float32).reshape(values.shape)
    (values * mg.tensor(weights)).sum().backward()
    (theirs.values * torch.tensor(weights)).sum().backward()
    same(x.grad, t.grad)  # the gradient goes to the index returned, not shared by ties


@pytest.mark.parametrize("data", [[[True, False], [False, False]], [[3, -2], [5, 7]]])
def test_max_min_along_a_dim_keep_integer_and_bool_dtypes(data):
    for name in ("max", "min"):
        ours, theirs = getattr(mg.tensor(data), name)(1), getattr(torch.tensor(data), name)(1)
        same(ours.values, theirs.values)
        same(ours.indices, theirs.indices)


def test_max_of_everything_and_of_another_tensor_as_torch():
    x, t = mg.tensor(ROWS[0], requires_grad=True), torch.tensor(ROWS[0], requires_grad=True)
    x.max().backward(), t.max().backward()
    same(x.grad, t.grad)  # ties share evenly
    same(x.max(mg.tensor(3.0)), t.max(torch.tensor(3.0)))
    same(mg.min(x, mg.zeros(4)), torch.min(t, torch.zeros(4)))
    values, indices = mg.tensor(3.0).max(0)
    assert values.item() == 3.0 and indices.item() == 0 and indices.dtype == mg.int64


# -- var / std: correction=1 by default ------------------------------------------------------
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_default_to_torch_correction(name):
    data = [[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]]
    x, t = mg.tensor(data), torch.tensor(data)
    same(getattr(x, name)(), getattr(t, name)())
    same(getattr(x, name)(1), getattr(t, name)(1))
    same(getattr(mg, name)(x, 1, False), getattr(torch, name)(t, 1, False))
    same(getattr(x, name)(1, True, True), getattr(t, name)(1, True, True))
    same(getattr(x, name)(dim=0, unbiased=False), getattr(t, name)(dim=0, unbiased=False))
    same(getattr(x, name)(0, correction=2, keepdim=True),
         getattr(t, name)(0, correction=2, keepdim=True))  # fmt: skip
    assert mg.tensor([1.0, 2.0, 4.0]).std().item() == pytest.approx(1.5275252)


def test_var_refuses_two_corrections():
    for name in ("var", "std"):
        with pytest.raises(TypeError, match=f"{name}\\(\\) received an invalid combination"):
            getattr(mg.ones(3), name)(unbiased=True, correction=0)


# -- empty axes --------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, dim", [((0,), 0), ((2, 0), 1), ((0, 3), 0), ((2, 0), None)])
def test_logsumexp_over_an_empty_axis_is_minus_inf(shape, dim):
    dims = dim if dim is not None else tuple(range(len(shape)))
    same(mg.zeros(shape).logsumexp(dim), torch.zeros(shape).logsumexp(dims))


@pytest.mark.parametrize("shape, dim", [((0,), 0), ((2, 0), 1), ((0, 3), 0), ((0, 3), 1)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_over_an_empty_axis_is_empty(shape, dim, name):
    x = mg.zeros(shape, requires_grad=True)
    ours = getattr(mg.nn.functional, name)(x, dim)
    same(ours, getattr(torch.nn.functional, name)(torch.zeros(shape), dim))
    ours.sum().backward()
    assert x.grad.shape == shape


def test_softmax_of_a_0d_tensor_checks_the_dim():
    for dim in (0, -1):
        same(mg.nn.functional.softmax(mg.tensor(2.0), dim), torch.tensor(2.0).softmax(dim))
    same_error(lambda: mg.nn.functional.softmax(mg.tensor(2.0), 1),
               lambda: torch.tensor(2.0).softmax(1))  # fmt: skip


# -- max_pool2d of integers --------------------------------------------------------------------
@pytest.mark.parametrize("padding", [0, 1])
def test_max_pool2d_of_integers_as_torch(padding):
    data = np.arange(-8, 17).reshape(1, 1, 5, 5)
    ours = mg.nn.functional.max_pool2d(mg.tensor(data), 2, padding=padding)
    same(ours, torch.nn.functional.max_pool2d(torch.tensor(data), 2, padding=padding))
    same_error(lambda: mg.nn.functional.max_pool2d(mg.tensor(data > 0), 2),
               lambda: torch.nn.functional.max_pool2d(torch.tensor(data > 0), 2))  # fmt: skip


# -- array protocols ---------------------------------------------------------------------------
def test_numpy_reads_a_tensor_as_one_array_not_an_object_array():
    x = mg.arange(2000.0).reshape(40, 50)
    array = np.asarray(x)
    assert array.dtype == np.float32 and array.shape == (40, 50)
    assert np.shares_memory(array, x.numpy())  # no copy, no per-element tensors
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    assert np.array(mg.tensor([True, False])).dtype == np.bool_


@pytest.mark.parametrize("in_graph", [False, True])
def test_numpy_of_a_tensor_that_requires_grad_is_torchs_error(in_graph):
    x, t = mg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    if in_graph:
        x, t = x * 2, t * 2
    same_error(lambda: x.numpy(), lambda: t.numpy())
    same_error(lambda: np.asarray(x), lambda: np.asarray(t))
    with mg.no_grad(), torch.no_grad():  # allowed where nothing is recorded, as in torch
        assert x.numpy().tolist() == t.numpy().tolist()
        assert np.asarray(x).tolist() == np.asarray(t).tolist()
    same_error(lambda: x.__dlpack__(), lambda: t.__dlpack__())
    assert x.detach().numpy().tolist() == t.detach().numpy().tolist()
    forced = x.numpy(force=True)
    assert forced.tolist() == t.numpy(force=True).tolist()
    assert not np.shares_memory(forced, x.detach().numpy())  # force copies, as torch's
    assert x.tolist() == t.tolist() and f"{x.sum():.1f}" == f"{t.sum():.1f}"
    leaf = mg.ones(2)
    assert np.shares_memory(leaf.numpy(), leaf.detach().numpy())


def test_dlpack_both_ways_shares_memory():
    x = mg.arange(4.0)
    t = torch.from_dlpack(x)
    assert x.__dlpack_device__() == t.__dlpack_device__()
    t[0] = 7.0
    assert x.tolist() == [7.0, 1.0, 2.0, 3.0]
    source = torch.arange(3)
    y = mg.from_dlpack(source)
    source[1] = 9
    assert y.tolist() == [0, 9, 2] and y.dtype == mg.int64
    with pytest.raises(TypeError):
        mg.from_dlpack([1, 2])


def test_from_numpy_shares_memory_both_ways():
    array = np.arange(6.0).reshape(2, 3)[:, ::2]  # a strided view
    x = mg.from_numpy(array)
    array[0, 0] = 9.0
    assert x.tolist() == [[9.0, 2.0], [3.0, 5.0]] and x.dtype == mg.float64
    x += 1
    assert array.tolist() == [[10.0, 3.0], [4.0, 6.0]]
    # minigrad has seven dtypes (PyTorch more): the others are refused, never reinterpreted
    with pytest.raises(TypeError, match=r"can't convert np\.ndarray of type numpy\.uint16"):
        mg.from_numpy(np.zeros(2, np.uint16))
    same_error(lambda: mg.from_numpy([1.0]), lambda: torch.from_numpy([1.0]))


def test_format_as_torch():
    for value in (3.14159, -0.0, float("nan")):
        x, t = mg.tensor(value), torch.tensor(value)
        for spec in (".2f", "", ">8.3e"):
            assert f"{x:{spec}}" == f"{t:{spec}}"
    assert f"{mg.tensor(7):04d}" == f"{torch.tensor(7):04d}"
    assert f"{mg.ones(2)}" == str(mg.ones(2))
    same_error(lambda: f"{mg.ones(2):.2f}", lambda: f"{torch.ones(2):.2f}")


def test_size_is_torch_method_and_numpy_count():
    x, t = mg.zeros(2, 3, 4), torch.zeros(2, 3, 4)
    assert x.size() == tuple(t.size()) and x.numel() == t.numel() == 24
    for d in (0, 2, -1, -3):
        assert x.size(d) == t.size(d)
    assert x.size == 24 and mg.tensor(5.0).size() == () and mg.tensor(5.0).numel() == 1
    same_error(lambda: x.size(3), lambda: t.size(3))
    same_error(lambda: x.size(1.0), lambda: t.size(1.0))


# -- NaN and kinks: PyTorch's conventions --------------------------------------------------------
NAN, INF = float("nan"), float("inf")
UNARY_AT_KINKS = {
    "sign": (lambda x: x.sign(), lambda t: t.sign()),
    "relu": (lambda x: x.relu(), lambda t: t.relu()),
    "abs": (lambda x: x.abs(), lambda t: t.abs()),
    "hardtanh": (mg.nn.functional.hardtanh, torch.nn.functional.hardtanh),
    "elu": (mg.nn.functional.elu, torch.nn.functional.elu),
}


@pytest.mark.parametrize("name", sorted(UNARY_AT_KINKS))
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_values_and_slopes_at_nan_and_kinks(name, backend):
    values = [NAN, 0.0, 1.0, -1.0, -2.0, INF, -INF]
    fn, torch_fn = UNARY_AT_KINKS[name]
    with mg.backends.use(backend):
        x = mg.tensor(values, dtype=mg.float64, requires_grad=True)
        out = fn(x)
        out.sum().backward()
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    theirs = torch_fn(t)
    theirs.sum().backward()
    same(out, theirs)
    same(x.grad, t.grad)


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_split_the_gradient_at_nan_as_torch(name):
    a, b = [INF, NAN, NAN, 1.0, 2.0, -INF], [NAN, 1.0, NAN, 1.0, 3.0, -INF]
    x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    s, u = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ours, theirs = getattr(mg, name)(x, y), getattr(torch, name)(s, u)
    ours.sum().backward(), theirs.sum().backward()
    same(ours, theirs)
    same(x.grad, s.grad)
    same(y.grad, u.grad)


def test_atan2_slopes_at_the_origin_are_zero():
    a, b = [0.0, -0.0, 0.0, 1.0], [0.0, 0.0, -0.0, 2.0]
    x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    s, u = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    mg.atan2(x, y).sum().backward(), torch.atan2(s, u).sum().backward()
    same(x.grad, s.grad)
    same(y.grad, u.grad)
    second = mg.autograd.grad(mg.atan2(x, y).sum(), x, create_graph=True)[0].sum()
    (h,) = mg.autograd.grad(second, x)
    assert np.isfinite(h.numpy()).all()  # no 0 * inf from the dropped branch


def test_remainder_slope_in_the_divisor_is_the_exact_quotient():
    a, b = [1.0, 1.0, 3.0, -1.0, 0.7, 1.0], [0.004, 0.1, 0.3, 0.1, 0.1, 0.0]
    x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    s, u = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ours, theirs = mg.remainder(x, y), torch.remainder(s, u)
    ours.sum().backward(), theirs.sum().backward()
    same(ours, theirs)
    same(y.grad, u.grad)  # 1.0 % 0.004 in float32: quotient 249, not round(250.0)


# -- padding, indexing, norms -------------------------------------------------------------------
@pytest.mark.parametrize("pad", [(-1, 2), (2, -1), (1, -3), (-2, -1), (2, 2)])
def test_circular_pad_crops_then_wraps(pad):
    data = np.arange(5.0).reshape(1, 1, 5)
    x, t = mg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours, theirs = mg.pad(x, pad, mode="circular"), torch.nn.functional.pad(t, pad, "circular")
    same(ours, theirs)
    weights = np.arange(1.0, 1.0 + theirs.numel()).reshape(theirs.shape)
    (ours * mg.tensor(weights)).sum().backward(), (theirs * torch.tensor(weights)).sum().backward()
    same(x.grad, t.grad)
    same_error(lambda: mg.pad(mg.tensor(data), (6, 0), mode="circular"),
               lambda: torch.nn.functional.pad(torch.tensor(data), (6, 0), mode="circular"))  # fmt: skip


def test_index_select_of_a_0d_tensor_is_0d():
    for index in ([0], 0):
        same(mg.tensor(3.0).index_select(0, mg.tensor(index)),
             torch.tensor(3.0).index_select(0, torch.tensor(index)))  # fmt: skip


@pytest.mark.parametrize("ord", [0, 0.5, -1.5, 3])
@pytest.mark.parametrize("values", [[0.0, 0.0, 0.0], [1.0, 0.0, -2.0]])
def test_vector_norm_gradients_at_zero_as_torch(ord, values):
    x, t = mg.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    ours, theirs = mg.linalg.vector_norm(x, ord), torch.linalg.vector_norm(t, ord)
    same(ours, theirs)
    (g,) = mg.autograd.grad(ours, x)
    (h,) = torch.autograd.grad(theirs, t, materialize_grads=True)
    same(g, h)


def test_narrow_takes_a_0d_integer_tensor_start():
    same(mg.arange(6).narrow(0, mg.tensor(2), 3), torch.arange(6).narrow(0, torch.tensor(2), 3))
    same(
        mg.narrow(mg.arange(6), 0, 1, mg.tensor(2)),
        torch.narrow(torch.arange(6), 0, 1, torch.tensor(2)),
    )
    for start in (mg.tensor([2]), mg.tensor(2.0)):
        with pytest.raises(RuntimeError, match="start must be an 0-dim integral Tensor"):
            mg.arange(6).narrow(0, start, 3)
    with pytest.raises(TypeError, match="narrow"):
        mg.arange(6).narrow(0, 2.0, 3)


# -- errors and dtypes --------------------------------------------------------------------------
def test_integer_to_a_negative_power_is_torch_error():
    same_error(lambda: mg.tensor([2]) ** -2, lambda: torch.tensor([2]) ** -2)
    same_error(lambda: mg.diagonal(mg.ones(2, 2), 0, 0, 0),
               lambda: torch.diagonal(torch.ones(2, 2), 0, 0, 0))  # fmt: skip


def test_bool_to_an_integer_power_is_int64():
    for exponent in (0, 2):
        same(mg.tensor([True, False]) ** exponent, torch.tensor([True, False]) ** exponent)


# -- views are views for in-place purposes ----------------------------------------------------
def _both(program):
    """``program(lib)`` run with minigrad and with torch: what it returns, as lists."""
    return [program(lib) for lib in (mg, torch)]


def test_a_write_through_a_slice_is_recorded():
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y[1:].mul_(x[:2])
        y.sum().backward()
        return y.tolist(), x.grad.tolist()

    ours, theirs = _both(program)
    assert ours == theirs == ([2.0, 4.0, 12.0], [6.0, 8.0, 4.0])


def test_views_of_a_changed_base_see_its_numbers_and_graph():
    def program(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        row, cols, flat = y[0], y.T, y.reshape(4)
        y[1].add_(x[0] ** 2)  # through one view; the others see it
        flat[0:1].mul_(3)  # through a view of a view
        loss = (row * 3).sum() + (cols * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum()
        loss.backward()
        return y.tolist(), row.tolist(), cols.tolist(), flat.tolist(), x.grad.tolist()

    ours, theirs = _both(program)
    assert ours == theirs


def test_a_slice_shares_its_base_version():
    x = mg.tensor([1.0, 2.0, 3.0])
    view = x[1:]
    view.add_(1)
    assert x.tolist() == [1.0, 3.0, 4.0] and x._version == view._version == 1


def test_a_view_of_a_leaf_that_requires_grad_cannot_change_in_place():
    same_error(lambda: mg.tensor([1.0, 2.0], requires_grad=True)[0:1].add_(1),
               lambda: torch.tensor([1.0, 2.0], requires_grad=True)[0:1].add_(1))  # fmt: skip
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.no_grad():
        x[0:1].add_(1)  # an optimizer's kind of change: allowed, and seen by x
    assert x.tolist() == [2.0, 2.0]


CHANGES = {
    "through a slice": lambda y: y[0:2].add_(1),
    "through detach": lambda y: y.detach().zero_(),
    "through a slice of detach": lambda y: y.detach()[1:].zero_(),
    "through a reshape": lambda y: y.reshape(3, 1).mul_(2),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_saved_tensor_changed_through_a_view_stops_backward(change):
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        z = y * y  # saves y
        CHANGES[change](y)
        with pytest.raises(RuntimeError) as info:
            z.sum().backward()
        return str(info.value).split(":")[0]

    ours, theirs = _both(program)
    assert ours == theirs


POWERS = {
    "int ** int tensor": lambda L: (
        L.tensor([2, -3, 1, -1, 0, 5]) ** L.tensor([3, 2, -2, -3, -1, -1])
    ),
    "int ** 0-d int": lambda L: L.tensor([2, -1, 3]) ** L.tensor(-1),
    "number ** int tensor": lambda L: 2 ** L.tensor([3, 0, -1]),
    "number ** bool tensor": lambda L: 2 ** L.tensor([True, False]),
    "bool tensor ** int tensor": lambda L: L.tensor([True, False]) ** L.tensor([2, 3]),
    "bool tensor ** True": lambda L: L.tensor([True, False]) ** True,
    "int32 ** int32": lambda L: L.tensor([2, 3], dtype=L.int32) ** L.tensor([2, -1], dtype=L.int32),
    "float ** int tensor": lambda L: 2.0 ** L.tensor([3, -1]),
}


@pytest.mark.parametrize("case", sorted(POWERS))
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_integer_powers_stay_integers_as_torch(case, backend):
    with mg.backends.use(backend):
        ours = POWERS[case](mg)
    same(ours, POWERS[case](torch))
    if case == "int ** int tensor":
        jitted = mg.jit(lambda: POWERS[case](mg))()
        same(jitted, POWERS[case](torch))


def test_views_and_their_bases_pickle_and_copy_as_their_own_memory():
    import copy
    import pickle

    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    row, cols = x[0], x.T
    for copied in (pickle.loads(pickle.dumps(row)), copy.deepcopy(cols), copy.deepcopy(x)):
        copied.add_(1)
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert pickle.loads(pickle.dumps(cols)).tolist() == [[1.0, 3.0], [2.0, 4.0]]
