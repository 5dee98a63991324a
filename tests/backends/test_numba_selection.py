"""The compiled tie-breaking selections give the Python steps' positions, index for index (lesson 05).

``backends/selection_steps.py`` repeats PyTorch's quickselect (kthvalue) and
libstdc++'s nth_element / sort / partial_sort (topk) in plain Python; the NumPy
backend runs them over lists, and ``backends/numba_selection.py`` compiles the
same source (widened arrays, numba's integer and float semantics). Every row here is
drawn with many ties (and NaN), in int and float dtypes, at lengths that take
each branch: the insertion sort (short), the introsort and its heap fallback,
and partial_sort (64 k <= n).
"""

import numpy as np
import pytest

import minigrad as mg
from minigrad.backends import kernel_cache, numba_selection, selection_steps

DTYPES = ["float64", "float32", "float16", "int64", "int16", "uint8", "bool"]


def _rows(rng, dtype, count, n):
    """``count`` rows of length ``n`` from a few values: ties everywhere, NaN in floats."""
    rows = rng.integers(0, rng.integers(2, 6), (count, n)).astype(dtype)
    if rows.dtype.kind == "f":
        rows[rng.random(rows.shape) < 0.15] = np.nan
    return rows


def _top(row, k, largest, ordered):
    """The Python steps over lists, as the NumPy backend runs them."""
    where = list(range(len(row)))
    selection_steps.top_row(row, where, k, largest, ordered)
    return where[:k]


@pytest.mark.parametrize("dtype", DTYPES)
def test_kth_positions_match_the_python_steps(dtype):
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 7, 40, 130):
        rows = _rows(rng, dtype, 30, n)
        for k in {0, n // 3, n // 2, n - 1}:
            out = np.empty(len(rows), np.int64)
            numba_selection.kernels().kth_positions(numba_selection.compilable(rows), out, k)
            expected = [selection_steps.kth_row(row.tolist(), list(range(n)), k) for row in rows]
            assert out.tolist() == expected, (dtype, n, k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_top_positions_match_the_python_steps(dtype):
    rng = np.random.default_rng(6)
    for n in (1, 4, 17, 40, 130):
        rows = _rows(rng, dtype, 15, n)
        for k in {k for k in (1, 2, 3, n // 2, n - 1, n) if 0 < k <= n}:
            for largest in (True, False):
                for ordered in (True, False):
                    out = np.empty((len(rows), k), np.int64)
                    ready = numba_selection.compilable(rows)
                    numba_selection.kernels().top_positions(ready, out, k, largest, ordered)
                    expected = [_top(row.tolist(), k, largest, ordered) for row in rows]
                    assert out.tolist() == expected, (dtype, n, k, largest, ordered)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_positions_match_the_python_steps(dtype):
    rng = np.random.default_rng(8)
    for n in (1, 16, 17, 40, 300):  # the insertion sort alone, then the introsort
        rows = _rows(rng, dtype, 10, n)
        for largest in (True, False):
            out = np.empty(rows.shape, np.int64)
            numba_selection.kernels().sort_positions(numba_selection.compilable(rows), out, largest)
            for row, found in zip(rows, out):
                where = list(range(n))
                selection_steps.sort_row(row.tolist(), where, largest)
                assert found.tolist() == where, (dtype, n, largest)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_unstable_sort_of_bool_and_half_gives_torchs_indices(backend):
    # PyTorch sorts bool and 16-bit floats with std::sort when stable=False: the indices
    # of equal elements are where its introsort leaves them (not their first order).
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    cases = [rng.random(200) < 0.5, rng.random((3, 40)) < 0.8]
    half = rng.integers(0, 3, (4, 30)).astype(np.float16)
    half[rng.random(half.shape) < 0.1] = np.nan
    cases.append(half)
    with mg.backends.use(backend):
        for x in cases:
            for dim in (0, -1):
                for descending in (False, True):
                    for stable in (False, True):
                        how = {"dim": dim, "descending": descending, "stable": stable}
                        ours = mg.sort(mg.tensor(x), **how).indices
                        theirs = torch.sort(torch.from_numpy(x), **how)
                        assert ours.tolist() == theirs.indices.tolist(), (x.dtype, dim, descending)


def test_the_backends_agree_through_the_public_ops():
    # The numpy backend runs the Python steps, numba the compiled ones; ties and rows
    # without ties mixed in one tensor (the latter go through NumPy's sort on both).
    rng = np.random.default_rng(7)
    x = np.where(rng.random((50, 90)) < 0.5, rng.integers(0, 3, (50, 90)), rng.random((50, 90)))
    x[rng.random(x.shape) < 0.05] = np.nan
    found = {}
    for name in ("numpy", "numba"):
        with mg.backends.use(name):
            t = mg.tensor(x)
            found[name] = [mg.kthvalue(t, k).indices.numpy() for k in (1, 45, 90)] + [
                mg.topk(t, k, largest=largest, sorted=s).indices.numpy()
                for k in (1, 10, 60) for largest in (True, False) for s in (True, False)
            ]  # fmt: skip
    for a, b in zip(found["numpy"], found["numba"], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_bfloat16_nan_ties_give_torchs_indices(backend):
    # NumPy's sort does not put bfloat16 NaN last, so rows are widened to float32 first.
    torch = pytest.importorskip("torch")
    x = np.array([[np.nan, 1, 0, np.nan, 2, 2, 1, np.nan], [0, np.nan, 1, 1, 2, np.nan, 0, 1]])
    t = torch.tensor(x).to(torch.bfloat16)
    with mg.backends.use(backend):
        a = mg.tensor(x).to(mg.bfloat16)
        for k in range(1, 9):
            for largest in (True, False):
                expected = torch.topk(t, k, largest=largest).indices.tolist()
                assert mg.topk(a, k, largest=largest).indices.tolist() == expected, (k, largest)
            assert mg.kthvalue(a, k).indices.tolist() == torch.kthvalue(t, k).indices.tolist(), k


def test_the_compiled_module_is_the_steps_source_with_decorators():
    # One copy of the steps: the generated module's text is selection_steps.py's, line
    # for line, with a decorator before each function and a header (numba's import).
    with open(selection_steps.__file__) as f:
        source = f.read().splitlines()
    generated = kernel_cache.njit_source("\n".join(source)).splitlines()
    header = kernel_cache._NJIT_HEADER
    start = generated.index(header[0])
    assert generated[start : start + len(header)] == header
    del generated[start : start + len(header)]
    decorated = [i for i, line in enumerate(generated) if line.startswith("@_njit")]
    assert all(generated[i + 1].startswith("def ") for i in decorated)
    assert [line for i, line in enumerate(generated) if i not in decorated] == source
    assert len(decorated) == sum(line.startswith("def ") for line in source) > 10
    compiled = numba_selection.kernels().top_positions.py_func
    assert compiled.__code__.co_code == selection_steps.top_positions.__code__.co_code
