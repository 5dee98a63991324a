"""PyTorch's behaviour where the peers' suites (tinygrad's test_ops, HIPS autograd's tests),
run against minigrad, found it differing: a number scattered twice to one place, error types
of meshgrid and einsum, linspace to bool. Each result (value, dtype) or error (type, first
line) is torch's, on the numpy and numba backends."""

import pytest
from test_torch_fidelity import BACKENDS, check

SCATTER_CALLS = {
    "x.scatter(0, i, 3.0) repeated": lambda m, t: t([[0.0] * 3] * 2, "float32").scatter(
        0, t([[0, 1, 1], [0, 1, 1]], "int64"), 3.0
    ),
    "x.scatter(1, i, value=2) repeated": lambda m, t: t([[1, 2, 3]], "int64").scatter(
        1, t([[2, 2, 0, 2]], "int64"), value=2
    ),
    "x.scatter(0, i, inf, reduce=multiply)": lambda m, t: t([1.0, -2.0, 0.5], "float32").scatter(
        0, t([0, 0, 2], "int64"), float("inf"), reduce="multiply"
    ),
    "x.scatter(0, i, 2.0, reduce=add)": lambda m, t: t([1.0, -2.0, 0.5], "float32").scatter(
        0, t([0, 0, 2], "int64"), 2.0, reduce="add"
    ),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_number_scattered_twice_to_one_place_is_written_once_as_torchs(backend):
    check(SCATTER_CALLS, backend)
