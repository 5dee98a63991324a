"""PyTorch's behaviour where minigrad used to differ (issue 22): pow's spellings and dtypes,
``-`` with bool tensors, the 2-norm's gradient, repeated scatter positions, ``np.asarray`` of
a tensor that requires grad. Each result (value, dtype, gradient) or error (type, first line)
is torch's, on the numpy and numba backends."""

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

F, TF = mg.nn.functional, torch.nn.functional
BACKENDS = ["numpy", "numba"]


DTYPES = {"bool": (mg.bool_, torch.bool), "int64": (mg.int64, torch.int64),
          "int32": (mg.int32, torch.int32), "float32": (mg.float32, torch.float32),
          "float64": (mg.float64, torch.float64), "float16": (mg.float16, torch.float16),
          "bfloat16": (mg.bfloat16, torch.bfloat16)}  # fmt: skip


def values_of(call):
    """``("ok", dtype name, values)`` or ``(exception type name, first line of its message)``."""
    try:
        r = call()
    except Exception as error:
        return type(error).__name__, str(error).splitlines()[0] if str(error) else ""
    values = r.detach().numpy() if hasattr(r, "detach") else np.asarray(r)
    return "ok", str(r.dtype).removeprefix("torch."), values.tolist()


def both(call, backend, outcome=values_of):
    """The ``outcome`` of ``call(library, tensor)`` with minigrad (on ``backend``) and with
    torch; ``tensor(values, dtype name)`` makes the library's tensor."""

    def make(lib, k):
        return lambda values, dtype: lib.tensor(values, dtype=DTYPES[dtype][k])

    with mg.backends.use(backend):
        ours = outcome(lambda: call(mg, make(mg, 0)))
    return ours, outcome(lambda: call(torch, make(torch, 1)))


def check(calls, backend, outcome=values_of):
    """Every call of ``calls`` (name: call) has torch's outcome."""
    for name, call in calls.items():
        ours, theirs = both(call, backend, outcome)
        assert ours == theirs, name


# -- 1. pow: the method, the function, the operators, in-place; integer and bool dtypes ----
POW_CALLS = {
    "x.pow(2)": lambda m, t: t([1, -2, 3], "int64").pow(2),
    "x.pow(f)": lambda m, t: t([1, 2, 3], "int64").pow(t([0.5, 2, -1], "float32")),
    "x.pow(-1) int": lambda m, t: t([1, 2, 3], "int32").pow(-1),
    "m.pow(x, 2)": lambda m, t: m.pow(t([1.5, -2, 0], "float32"), 2),
    "m.pow(2, x)": lambda m, t: m.pow(2, t([1, 2, 3], "int64")),
    "x ** y int": lambda m, t: t([2, 3, -1], "int64") ** t([3, 0, 5], "int64"),
    "x ** -y int": lambda m, t: t([2, 1, -1], "int64") ** t([-1, -2, -3], "int64"),
    "2 ** -x": lambda m, t: 2 ** t([-1, 0, 2], "int64"),
    "x ** -2": lambda m, t: t([1, 2], "int64") ** -2,
    "mask ** True": lambda m, t: t([True, False], "bool") ** True,
    "True ** mask": lambda m, t: True ** t([True, False], "bool"),
    "mask ** mask": lambda m, t: t([True, False], "bool") ** t([False, True], "bool"),
    "mask ** 2": lambda m, t: t([True, False], "bool") ** 2,
    "mask ** -1": lambda m, t: t([True, False], "bool") ** -1,
    "x.pow_(2)": lambda m, t: t([1, 2, 3], "int64").pow_(2),
    "x.pow_(-1) int": lambda m, t: t([1, 2, 3], "int64").pow_(-1),
    "x.pow_(0.5) int": lambda m, t: t([1, 4], "int64").pow_(0.5),
    "x.pow_(y) float": lambda m, t: t([1.5, 4], "float32").pow_(t([2, -1], "int64")),
    "x **= 3": lambda m, t: t([1.5, -2], "float32").__ipow__(3),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_pow_spellings_dtypes_and_errors_are_torchs(backend):
    check(POW_CALLS, backend)


def test_pow_method_is_differentiable_as_the_operator():
    x = mg.tensor([0.5, 2.0, 3.0], requires_grad=True)
    tx = torch.tensor([0.5, 2.0, 3.0], requires_grad=True)
    (x.pow(3) + x.pow(x)).sum().backward()
    (tx.pow(3) + tx.pow(tx)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


# -- 2. `-` with a bool tensor: refused on either side, as PyTorch ---------------------------
BOOL_SUB_CALLS = {
    "1.0 - mask": lambda m, t: 1.0 - t([True, False], "bool"),
    "mask - 1.0": lambda m, t: t([True, False], "bool") - 1.0,
    "x - mask": lambda m, t: t([1.0, 2.0], "float32") - t([True, False], "bool"),
    "mask - x": lambda m, t: t([True, False], "bool") - t([1.0, 2.0], "float32"),
    "x - True": lambda m, t: t([1.0, 2.0], "float32") - True,
    "True - i": lambda m, t: True - t([1, 2], "int64"),
    "mask - True": lambda m, t: t([True, False], "bool") - True,
    "m.sub(x, mask)": lambda m, t: m.sub(t([1.5], "float32"), t([True], "bool")),
    "x.sub_(mask)": lambda m, t: t([1.0, 2.0], "float32").sub_(t([True, False], "bool")),
    "x -= mask": lambda m, t: t([1.0, 2.0], "float32").__isub__(t([True, False], "bool")),
    "-mask": lambda m, t: -t([True, False], "bool"),
    "m.neg(mask)": lambda m, t: m.neg(t(True, "bool")),
    "1.0 - mask.float()": lambda m, t: 1.0 - t([True, False], "bool").float(),
    "mask + mask": lambda m, t: t([True, False], "bool") + t([True, True], "bool"),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_subtraction_with_a_bool_tensor_is_torchs_error(backend):
    check(BOOL_SUB_CALLS, backend)


def test_maximum_minimum_gradients_still_split_ties_after_the_bool_rule():
    # Their rules used to compute ``1.0 - (x < y)`` (a number minus a mask).
    a, b = [1.0, 2.0, 3.0, float("nan")], [1.0, 3.0, 2.0, 0.0]
    x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    (mg.maximum(x, y) + 2 * mg.minimum(x, y)).sum().backward()
    (torch.maximum(tx, ty) + 2 * torch.minimum(tx, ty)).sum().backward()
    assert x.grad.tolist() == tx.grad.tolist() and y.grad.tolist() == ty.grad.tolist()


# -- 3. the 2-norm's gradient: PyTorch's rule g * (x / norm), 0 at a zero vector ------------
# Vectors whose norms both libraries compute exactly (so any gradient difference is the
# rule's rounding): one element, zero vectors, and 3-4-5 triangles scaled by powers of two
# (tiny ones underflow to a norm of 0 in float32, huge ones overflow to inf).
NORM_PAIRS = {
    "one element": ([[0.3], [-7.0], [1e-30], [0.0], [3e30]], [[2.0], [3.0], [1e-30], [1.0], [-1.0]]),
    "zero vectors": ([[0.0, 0.0], [1.0, 2.0]], [[1.0, 2.0], [0.0, 0.0]]),
    "tiny": ([[3 * 2.0**-70, -4 * 2.0**-70], [2.0**-140, 0.0]],
             [[2.0**-69, 2.0**-70], [-(2.0**-75), 2.0**-80]]),
    "huge": ([[3 * 2.0**70, 4 * 2.0**70], [2.0**100, 0.0]], [[1.0, 2.0], [2.0**90, 2.0**90]]),
    "unit": ([[0.6, 0.8], [1.0, 0.0]], [[0.6, 0.8], [0.0, -1.0]]),
}  # fmt: skip
NORM_CALLS = {
    "cosine_similarity": lambda m, f, a, b: f.cosine_similarity(a, b),
    "normalize": lambda m, f, a, b: f.normalize(a) * b,
    "vector_norm": lambda m, f, a, b: m.linalg.vector_norm(a, dim=1) * b.sum(1),
    "norm keepdim": lambda m, f, a, b: (a.norm(dim=1, keepdim=True) * b).sum(1),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pair", NORM_PAIRS)
def test_norm_gradients_are_torchs_bit_for_bit(pair, dtype, backend):
    a, b = NORM_PAIRS[pair]
    for name, call in NORM_CALLS.items():
        with warnings.catch_warnings(), mg.backends.use(backend):
            warnings.simplefilter("ignore", RuntimeWarning)
            xs = [mg.tensor(v, dtype=getattr(mg, dtype), requires_grad=True) for v in (a, b)]
            y = call(mg, F, *xs)
            y.sum().backward()
        ts = [torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True) for v in (a, b)]
        ty = call(torch, TF, *ts)
        ty.sum().backward()
        assert y.detach().numpy().tolist() == ty.detach().numpy().tolist(), name
        for x, t in zip(xs, ts):
            np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy(), err_msg=name)


def test_every_norm_of_one_element_is_its_magnitude_as_torch():
    # Squaring would underflow (1e-30) or overflow (3e30) in float32; PyTorch takes |x|.
    x = [[1e-30], [-3e30], [0.0], [-2.5]]
    for ord in (2, 1, 3, 0.5, -1, float("inf")):
        got = mg.linalg.vector_norm(mg.tensor(x), ord, dim=1)
        want = torch.linalg.vector_norm(torch.tensor(x), ord, dim=1)
        assert got.numpy().tolist() == want.numpy().tolist(), ord


def test_norm_row_reads_the_same_every_way():
    # Forward mode, second order and vmap through the 2-norm's own row, against torch.
    x = torch.tensor([[0.6, -0.8, 2.0], [0.0, 0.0, 0.0]], dtype=torch.float64)
    t = torch.tensor([[1.0, 2.0, -1.0], [1.0, 0.5, 2.0]], dtype=torch.float64)
    f = lambda lib: lambda v: lib.linalg.vector_norm(v, dim=1)
    _, want = torch.func.jvp(f(torch), (x,), (t,))
    _, got = mg.jvp(f(mg), (mg.tensor(x.numpy()),), (mg.tensor(t.numpy()),))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    h = torch.func.hessian(lambda v: torch.linalg.vector_norm(v))(x[0])
    got = mg.hessian(lambda v: mg.linalg.vector_norm(v))(mg.tensor(x[0].numpy()))
    np.testing.assert_allclose(got.numpy(), h.numpy(), rtol=1e-12, atol=1e-15)
    want = torch.vmap(torch.func.grad(lambda v: torch.linalg.vector_norm(v)))(x)
    got = mg.vmap(mg.grad(lambda v: mg.linalg.vector_norm(v)))(mg.tensor(x.numpy()))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# -- 4. a position written twice: the last write (in index order) wins, as PyTorch's CPU ----
# PyTorch's documentation leaves the winner undefined; its CPU scatter keeps the last write
# along dim, checked here on small tensors. (Its index_put runs in parallel on large ones,
# where the winner varies from run to run: not tested.) Every writer gets the gradient at
# its position, overwritten or not.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(4))
def test_repeated_positions_keep_the_last_write_as_torch(seed, backend):
    g = torch.Generator().manual_seed(seed)
    shape = [int(n) for n in torch.randint(1, 4, (3,), generator=g)]
    d = seed % 3
    ishape = [int(torch.randint(1, n + 1, (1,), generator=g)) for n in shape]
    ishape[d] = 3 * shape[d]
    index = torch.randint(0, shape[d], ishape, generator=g)
    src = torch.randn(ishape, generator=g, dtype=torch.float64)
    x0 = torch.randn(shape, generator=g, dtype=torch.float64)
    rows = index.reshape(-1) % shape[0]
    calls = {
        "scatter": lambda x, s, i, r: x.scatter(d, i, s),
        "index_put": lambda x, s, i, r: x.index_put((r,), s.reshape(-1)[: r.shape[0]]
                                                    .reshape(-1, 1, 1).expand(-1, *shape[1:])),
    }  # fmt: skip
    for name, call in calls.items():
        tx, ts = x0.clone().requires_grad_(), src.clone().requires_grad_()
        ty = call(tx, ts, index, rows)
        ty.backward(torch.ones(shape, dtype=torch.float64) * torch.arange(1.0, 1 + shape[-1]))
        with mg.backends.use(backend):
            mx = mg.tensor(x0.numpy(), requires_grad=True)
            ms = mg.tensor(src.numpy(), requires_grad=True)
            y = call(mx, ms, mg.tensor(index.numpy()), mg.tensor(rows.numpy()))
            y.backward(mg.ones(shape, dtype=mg.float64) * mg.arange(1.0, 1 + shape[-1]))
        assert y.detach().numpy().tolist() == ty.detach().numpy().tolist(), name
        assert mx.grad.numpy().tolist() == tx.grad.numpy().tolist(), name
        assert ms.grad.numpy().tolist() == ts.grad.numpy().tolist(), name


# -- found by a randomized differential run against torch --------------------------------------
FOUND_CALLS = {
    "amax over an empty dim": lambda m, t: m.amax(t([], "float32"), 0),
    "amin over an empty dim -1": lambda m, t: m.amin(t([[]], "float32"), -1),
    "amax of nothing": lambda m, t: m.amax(t([], "float32")),
    "max over an empty dim": lambda m, t: m.max(t([[]], "float32"), 1)[0],
    "argmax of nothing": lambda m, t: m.argmax(t([], "float32")),
    "remainder of bools": lambda m, t: m.remainder(t([True], "bool"), t([True], "bool")),
    "mask % True": lambda m, t: t([True, False], "bool") % True,
    "mask % 2": lambda m, t: t([True, False], "bool") % 2,
    "fmod of bools": lambda m, t: m.fmod(t([True], "bool"), t([False], "bool")),
    "logsumexp of bools": lambda m, t: m.logsumexp(t([True, False], "bool"), 0),
    "logsumexp of ints": lambda m, t: m.logsumexp(t([[1, 2], [3, 4]], "int64"), 1),
    "mean of ints, dim out of range": lambda m, t: m.mean(t([1, 2], "int64"), 3),
    "0-d x[0]": lambda m, t: t(1.5, "float32")[0],
    "0-d x[..., None, ::2]": lambda m, t: t(1.5, "float32")[..., None, ::2],
    "too many indices": lambda m, t: t([[1, 2]], "int64")[0, 0, 0],
    "index out of bounds": lambda m, t: t([[1, 2]], "int64")[:, 7],
    "tensor index out of bounds": lambda m, t: t([[1, 2]], "int64")[t([5], "int64")],
    "0-d diagonal": lambda m, t: m.diagonal(t(1.5, "float32")),
    "topk of bools": lambda m, t: m.topk(t([True, False], "bool"), 1)[0],
    "bool vector @ vector": lambda m, t: t([True], "bool") @ t([True], "bool"),
    "bool matrix @ vector": lambda m, t: t([[True]], "bool") @ t([True], "bool"),
    "bool matrix @ matrix": lambda m, t: t([[True]], "bool") @ t([[True]], "bool"),
    "bool stack @ stack": lambda m, t: t([[[True]]], "bool") @ t([[[True]]], "bool"),
    "0-d diagonal 0, -1": lambda m, t: m.diagonal(t(1.5, "float32"), 0, 0, -1),
}


def test_differential_findings_are_torchs():
    for name, call in FOUND_CALLS.items():
        ours, theirs = both(call, "numpy")
        if ours[0] == "ok" == theirs[0]:
            assert ours[1] == theirs[1], name
            np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6, err_msg=name)
        else:
            assert ours == theirs, name


def test_comparison_functions_and_methods_are_torchs():
    calls = {
        f"{name}{how}": call
        for name in ("eq", "ne", "lt", "le", "gt", "ge")
        for how, call in {
            "(x, y)": lambda m, t, n=name: getattr(m, n)(t([1.0, float("nan"), 3.0], "float32"),
                                                         t([1.0, 2.0, 4.0], "float32")),
            "(i, 2)": lambda m, t, n=name: getattr(m, n)(t([1, 2, 3], "int64"), 2),
            "x.(mask)": lambda m, t, n=name: getattr(t([0, 1], "int32"), n)(t([True, True], "bool")),
        }.items()
    }  # fmt: skip
    check(calls, "numpy")


# -- matmul and @ with NumPy arrays, lists and NumPy numbers: PyTorch's outcome ---------------
A = np.arange(4.0).reshape(2, 2)
MATMUL_CALLS = {
    "x @ ndarray": lambda m, t: t([[1, 2], [3, 4]], "float32") @ A,  # NumPy's product, a tensor
    "x @ float32 ndarray": lambda m, t: t([[1, 2], [3, 4]], "float32") @ A.astype(np.float32),
    "x @ vector ndarray": lambda m, t: t([[1, 2], [3, 4]], "float64") @ np.ones(2),
    "ndarray @ x": lambda m, t: A @ t([[1, 2], [3, 4]], "float32"),
    "m.matmul(x, ndarray)": lambda m, t: m.matmul(t([[1, 2], [3, 4]], "float32"), A),
    "m.matmul(ndarray, x)": lambda m, t: m.matmul(A, t([[1, 2], [3, 4]], "float32")),
    "x.matmul(ndarray)": lambda m, t: t([[1, 2], [3, 4]], "float32").matmul(A),
    "m.matmul(x, list)": lambda m, t: m.matmul(t([[1, 2], [3, 4]], "float32"), [[1.0, 2.0]]),
    "x @ list": lambda m, t: t([[1, 2], [3, 4]], "float32") @ [[1.0, 2.0]],
    "list @ x": lambda m, t: [[1.0, 2.0]] @ t([[1, 2], [3, 4]], "float32"),
    "x @ np.float64": lambda m, t: t([[1, 2], [3, 4]], "float32") @ np.float64(2.0),
    "np.float64 @ x": lambda m, t: np.float64(2.0) @ t([[1, 2], [3, 4]], "float32"),
    "x (requires grad) @ ndarray": lambda m, t: t([[1, 2]], "float32").requires_grad_() @ A,
}


def test_matmul_with_numpy_arrays_and_lists_is_torchs():
    with warnings.catch_warnings():  # (PyTorch's __array_wrap__ warns NumPy 2's deprecation)
        warnings.simplefilter("ignore", DeprecationWarning)
        check(MATMUL_CALLS, "numpy")
        check(MATMUL_CALLS, "numba")
    r = mg.ones((2, 2)) @ A
    assert type(r) is mg.Tensor and not r.requires_grad
