"""PyTorch's behaviour where its own OpInfo samples found minigrad differing (issue 22):
kthvalue's index among ties, a reduction naming one axis twice, tensordot's size-1
contracted axes, dot's and mm's dtype errors. Each result (value, dtype) or error (type,
first line) is torch's, on the numpy and numba backends."""

import numpy as np
import pytest
import torch
from test_torch_fidelity import BACKENDS, check

import minigrad as mg

TIES = [[2, 1, 1, 0, 0], [0, 0, 0, 0, 2], [1, 2, 1, 1, 2], [2, 0, 0, 2, 0], [1, 0, 0, 0, 0]]
NAN = float("nan")

CALLS = {
    # kthvalue: the index is the one PyTorch's quickselect leaves at k among equal values
    **{
        f"kthvalue k={k}": (lambda m, t, k=k: m.kthvalue(t(TIES, "int64"), k, 1).indices)
        for k in range(1, 6)
    },
    "kthvalue dim 0 keepdim": lambda m, t: m.kthvalue(t(TIES, "int64"), 3, 0, True).indices,
    "kthvalue NaN ties": lambda m, t: (
        m.kthvalue(t([[NAN, 1.0, NAN, 1.0, 0.0, 1.0, 1.0]], "float64"), 3).indices
    ),
    "kthvalue NaN": lambda m, t: m.kthvalue(t([NAN, 1.0, NAN, 1.0], "float32"), 4).indices,
    # topk: the positions PyTorch's selection (libstdc++'s nth_element, sort, partial_sort)
    # leaves among equal values, sorted or not; NaN counts as the largest
    "topk ties": lambda m, t: m.topk(t([3, 1, 3, 0, 3, 3], "int64"), 3).indices,
    "topk ties smallest": lambda m, t: m.topk(t(TIES, "int64"), 2, 1, False).indices,
    "topk unsorted": lambda m, t: m.topk(t([2, 2, 2, 2], "int64"), 3, largest=False, sorted=False)[
        1
    ],
    "topk unsorted distinct": lambda m, t: m.topk(
        t([5.0, 1.0, 4.0, 9.0, 7.0], "float32"), 3, sorted=False
    )[1],
    "topk NaN": lambda m, t: m.topk(t([1.0, NAN, 3.0, NAN, 3.0], "float64"), 3).indices,
    "topk NaN smallest": lambda m, t: m.topk(t([NAN, 1.0, NAN, 1.0], "float64"), 3, 0, False)[1],
    "topk heap (64 k <= n)": lambda m, t: m.topk(t(np.arange(130) % 3, "int64"), 2).indices,
    "topk k=0": lambda m, t: m.topk(t(TIES, "int64"), 0).indices,
    # one axis named twice: RuntimeError naming the axis
    "amax (0, 0)": lambda m, t: m.amax(t(np.ones((2, 3)), "float32"), (0, 0)),
    "amin (0, -2)": lambda m, t: m.amin(t(np.ones((2, 3)), "float32"), (0, -2)),
    "sum (2, 0, -1)": lambda m, t: m.sum(t(np.ones((2, 3, 4)), "float32"), (2, 0, -1)),
    "mean 0-d (0, -1)": lambda m, t: m.mean(t(1.0, "float32"), (0, -1)),
    # tensordot: a contracted axis of size 1 broadcasts against its partner
    "tensordot 1 vs 2": lambda m, t: m.tensordot(
        t(np.arange(1.0, 2.0).reshape(1, 1, 1), "float64"),
        t(np.arange(4.0).reshape(2, 1, 2), "float64"),
        dims=([0, 1], [2, 0]),
    ),
    "tensordot 2 vs 1 int": lambda m, t: m.tensordot(
        t(np.arange(6).reshape(2, 3), "int64"), t([[1, -2, 3]], "int64"), dims=([0], [0])
    ),
    "tensordot 1 vs 3, both": lambda m, t: m.tensordot(
        t(np.arange(6.0).reshape(2, 3), "float32"),
        t([[1.0, -2.0, 3.0]], "float32"),
        dims=([0, 1], [0, 1]),
    ),
    # dot checks dtypes before lengths; PyTorch's C++ names for 16-bit types
    "dot Float and Half": lambda m, t: m.dot(t([1.0], "float32"), t([1.0, 2.0, 3.0], "float16")),
    "dot Long and Bool": lambda m, t: m.dot(t([1, 2], "int64"), t([True], "bool")),
    "mm BFloat16": lambda m, t: m.mm(t(np.ones((2, 2)), "bfloat16"), t(np.ones((2, 2)), "float32")),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_results_and_errors_are_torchs(backend):
    check(CALLS, backend)


def test_kthvalue_gradient_goes_to_torchs_index():
    a = np.array(TIES, dtype=np.float64)
    x, t = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    mg.kthvalue(x, 2, 1).values.sum().backward()
    torch.kthvalue(t, 2, 1).values.sum().backward()
    assert np.array_equal(x.grad.numpy(), t.grad.numpy())


def test_tensordot_size_one_gradients_are_torchs():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 1, 4)), rng.standard_normal((3, 4, 5))
    x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    g = rng.standard_normal((2, 5))
    (mg.tensordot(x, y, dims=([1, 2], [0, 1])) * mg.tensor(g)).sum().backward()
    (torch.tensordot(tx, ty, dims=([1, 2], [0, 1])) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-12)


def test_sizes_that_do_not_meet_are_runtime_errors_with_torchs_line():
    for call in (
        lambda m: m.tensordot(m.ones((2, 3)), m.ones((3, 3)), dims=([0], [0])),
        lambda m: m.dot(m.ones(1), m.ones(2)),
    ):
        with pytest.raises(RuntimeError) as ours:
            call(mg)
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_rmatmul_called_with_a_tensor_is_the_product_and_declines_the_rest():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    for lib in (mg, torch):
        assert lib.tensor(b.tolist()).__rmatmul__(lib.tensor([1.0, 2.0, 3.0])).tolist() == [
            32,
            38,
            44,
            50,
        ]
        assert lib.tensor(b).__rmatmul__(a.tolist()) is NotImplemented
        assert lib.tensor(b).__rmatmul__(2.0) is NotImplemented
    x = mg.tensor(b, requires_grad=True)
    x.__rmatmul__(mg.tensor(a)).sum().backward()
    assert x.grad.tolist() == (a.T @ np.ones((2, 4))).tolist()
