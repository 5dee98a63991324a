"""cov, corrcoef, quantile, nanquantile, nanmedian, gcd and lcm: PyTorch's refusals and
corner cases, which the correctness database (values and gradients) cannot express."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


def _both(build):
    """``build(lib)`` in minigrad and in torch: (result or exception) each."""
    got = []
    for lib in (mg, torch):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got.append(build(lib))
        except Exception as error:
            got.append(error)
    return got


REFUSALS = {
    "cov 3-d": lambda L: L.cov(L.zeros(2, 2, 2)),
    "cov bool": lambda L: L.cov(L.tensor([True, False])),
    "cov float correction": lambda L: L.cov(L.ones(3), correction=1.5),
    "cov fweights 2-d": lambda L: L.cov(L.ones(3), fweights=L.ones(3, 3, dtype=L.int64)),
    "cov fweights float": lambda L: L.cov(L.ones(3), fweights=L.ones(3)),
    "cov aweights int": lambda L: L.cov(L.ones(3), aweights=L.tensor([1, 1, 1])),
    "cov fweights numel": lambda L: L.cov(L.ones(3), fweights=L.tensor([1])),
    "cov fweights negative": lambda L: L.cov(L.ones(3), fweights=L.tensor([1, -1, 1])),
    "cov aweights negative": lambda L: L.cov(L.ones(3), aweights=L.tensor([1.0, -1.0, 1.0])),
    "cov weights sum to 0": lambda L: L.cov(L.ones(3), fweights=L.tensor([0, 0, 0])),
    "cov empty weights": lambda L: L.cov(L.zeros(2, 0), aweights=L.zeros(0)),
    "corrcoef 3-d": lambda L: L.corrcoef(L.zeros(2, 2, 2)),
    "quantile q > 1": lambda L: L.quantile(L.ones(3), 1.5),
    "quantile q tensor > 1": lambda L: L.quantile(L.ones(3), L.tensor([0.5, 1.5])),
    "quantile q NaN": lambda L: L.quantile(L.ones(3), L.tensor([float("nan")])),
    "quantile int input": lambda L: L.quantile(L.tensor([1, 2]), 0.5),
    "quantile q dtype": lambda L: L.quantile(L.ones(3), L.tensor([0.5], dtype=L.float64)),
    "quantile empty": lambda L: L.quantile(L.zeros(0), 0.5),
    "quantile interpolation": lambda L: L.quantile(L.ones(3), 0.5, interpolation="cubic"),
    "quantile q 2-d": lambda L: L.quantile(L.ones(3), L.full((2, 2), 0.5)),
    "quantile dim": lambda L: L.quantile(L.ones(2, 3), 0.5, dim=2),
    "quantile q list": lambda L: L.quantile(L.ones(3), [0.5]),
    "nanquantile q < 0": lambda L: L.nanquantile(L.ones(3), -0.1),
    "nanmedian bool": lambda L: L.nanmedian(L.tensor([True])),
    "nanmedian bool dim": lambda L: L.nanmedian(L.tensor([True]), 0),
    "nanmedian empty dim": lambda L: L.nanmedian(L.zeros(2, 0), 1),
    "gcd float": lambda L: L.gcd(L.tensor([1.0]), L.tensor([2.0])),
    "gcd bool": lambda L: L.gcd(L.tensor([True]), L.tensor([False])),
    "gcd number": lambda L: L.gcd(L.tensor([4]), 2),
    "lcm float and int": lambda L: L.lcm(L.tensor([1.0]), L.tensor([2])),
    "dist int": lambda L: L.dist(L.tensor([1, 2]), L.tensor([3, 4])),
    "dist number": lambda L: L.dist(L.tensor([1.0, 2.0]), 3.0),
    "renorm 1-d": lambda L: L.renorm(L.ones(3), 2, 0, 1.0),
    "renorm maxnorm": lambda L: L.renorm(L.ones(2, 2), 2, 0, -1.0),
    "renorm p": lambda L: L.renorm(L.ones(2, 2), 0, 0, 1.0),
    "renorm int": lambda L: L.renorm(L.ones(2, 2, dtype=L.int64), 2, 0, 1.0),
    "renorm dim": lambda L: L.renorm(L.ones(2, 2), 2, 2, 1.0),
    "trapezoid x and dx": lambda L: L.trapezoid(L.ones(3), L.ones(3), dx=2.0),
    "trapezoid x size": lambda L: L.trapezoid(L.ones(3), L.ones(2)),
    "trapezoid 0-d": lambda L: L.trapezoid(L.tensor(1.0)),
    "trapezoid dx bool": lambda L: L.trapezoid(L.ones(3), dx=True),
    "cumulative_trapezoid 0-d": lambda L: L.cumulative_trapezoid(L.tensor(1.0)),
    "cumulative_trapezoid x size": lambda L: L.cumulative_trapezoid(L.ones(3), L.ones(2)),
    "bucketize 2-d boundaries": lambda L: L.bucketize(L.ones(3), L.ones(2, 2)),
    "isin bool": lambda L: L.isin(L.ones(2) > 0, L.ones(1) > 0),
    "isin numbers": lambda L: L.isin(1, 2),
    "nextafter int": lambda L: L.nextafter(L.tensor([1]), L.tensor([2])),
    "nextafter number": lambda L: L.nextafter(L.tensor([1.0]), 2.0),
    "frexp int": lambda L: L.frexp(L.tensor([1])),
    "mode empty": lambda L: L.mode(L.ones(0)),
    "histc int": lambda L: L.histc(L.tensor([1, 2]), bins=3),
    "histc bins": lambda L: L.histc(L.tensor([1.0, 2.0]), bins=0),
    "histc min > max": lambda L: L.histc(L.tensor([1.0, 2.0]), bins=3, min=3, max=1),
    "histc inf": lambda L: L.histc(L.tensor([1.0, float("inf")]), bins=3),
    "histogram int": lambda L: L.histogram(L.tensor([1, 2]), bins=2),
    "histogram range": lambda L: L.histogram(L.tensor([1.0, 2.0]), bins=2, range=(3.0, 1.0)),
    "histogram inf": lambda L: L.histogram(L.tensor([1.0, float("inf")]), bins=2),
    "histogram bins dtype": lambda L: L.histogram(L.ones(2), bins=L.ones(3, dtype=L.float64)),
    "histogram weight": lambda L: L.histogram(L.ones(2), bins=2, weight=L.ones(1)),
    "histogram 2-d bins": lambda L: L.histogram(L.ones(2), bins=L.ones(1, 3)),
    "unique_consecutive two empty": lambda L: L.unique_consecutive(L.ones(0, 0), dim=0),
    "unique_consecutive empty": lambda L: L.unique_consecutive(L.ones(2, 0), dim=0),
    "unique_consecutive 0-d dim": lambda L: L.unique_consecutive(L.tensor(3.0), dim=0),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_are_torch(name):
    mine, theirs = _both(REFUSALS[name])
    assert isinstance(theirs, Exception), f"torch accepts {name}: {theirs}"
    assert type(mine) is type(theirs), f"{type(mine).__name__}: {mine}"
    assert str(mine).splitlines()[0] == str(theirs).splitlines()[0]


CORNERS = {
    # one observation with one kind of weight: zeros (torch zeroes the input in place first)
    "cov one weighted observation": lambda L: L.cov(L.tensor([[5.0], [7.0]]), fweights=L.tensor([2])),
    "cov one aweighted observation": lambda L: L.cov(L.tensor([3.0]), aweights=L.tensor([0.5])),
    "cov no degrees of freedom": lambda L: L.cov(L.tensor([1.0, 2.0, 4.0]), correction=3),
    "cov 0-d": lambda L: L.cov(L.tensor(3.0)),
    "cov empty": lambda L: L.cov(L.zeros(2, 0)),
    "cov int": lambda L: L.cov(L.tensor([[1, 2, 6], [0, 3, 3]])),  # exact means: no rounding
    "corrcoef one variable": lambda L: L.corrcoef(L.tensor([1, 2, 4])),
    # integers whose variances are squares (4, 1, 9): every step is exact in float32
    "corrcoef int": lambda L: L.corrcoef(L.tensor([[2, -2, 0], [1, 0, -1], [0, 3, -3]])),
    "corrcoef constant": lambda L: L.corrcoef(L.tensor([[1.0, 1.0], [1.0, 2.0]])),
    "quantile 0-d with dim": lambda L: L.quantile(L.tensor(2.0), 0.5, dim=0),
    "quantile keepdim without dim": lambda L: L.quantile(L.ones(2, 3), L.tensor([0.2, 0.5]), keepdim=True),
    "quantile NaN": lambda L: L.quantile(L.tensor([1.0, float("nan"), 3.0]), 0.5),
    "nanquantile all NaN": lambda L: L.nanquantile(L.full((2, 3), float("nan")), 0.3, dim=1),
    "nanmedian all NaN": lambda L: tuple(L.nanmedian(L.full((n,), float("nan")), 0).indices.item() for n in range(1, 12)),
    "nanmedian ties": lambda L: L.nanmedian(L.tensor([[3.0, 3.0, 3.0, 1.0]]), 1),
    "nanmedian empty": lambda L: L.nanmedian(L.zeros(0)),
    "gcd edges": lambda L: L.gcd(L.tensor([0, -4, 6, -2**63]), L.tensor([0, 6, -9, 0])),
    "lcm overflow": lambda L: L.lcm(L.tensor([2**62, -4, 0]), L.tensor([3, 6, 0])),
    "gcd dtypes": lambda L: L.gcd(L.tensor([4], dtype=L.int32), L.tensor([True])),
    "trapezoid empty": lambda L: L.trapezoid(L.ones(2, 0)),
    "trapezoid int": lambda L: L.trapezoid(L.tensor([1, 2, 4]), L.tensor([0, 1, 3])),
    "cumulative_trapezoid empty": lambda L: L.cumulative_trapezoid(L.ones(2, 0)).shape,
    "bucketize number": lambda L: L.bucketize(2.5, L.tensor([1.0, 2.0, 3.0])),
    "isin scalars": lambda L: (L.isin(2, L.tensor([1, 2])), L.isin(L.tensor([1, 2]), 2)),
    "isin mixed dtypes": lambda L: L.isin(L.tensor([1, 2]), L.tensor([1.5, 2.0])),
    "frexp edges": lambda L: L.frexp(L.tensor([0.0, -0.0, 8.0, float("inf"), 1e-40, -3.0])),
    "frexp float64 extremes": lambda L: L.frexp(L.tensor([1e300, 5e-324], dtype=L.float64)),
    "mode bool": lambda L: L.mode(L.tensor([True, False, True])),
    "mode ties": lambda L: L.mode(L.tensor([3, 1, 3, 1, 2])),
    "mode 0-d": lambda L: L.mode(L.tensor(True), 0, True),
    "mode long row": lambda L: L.mode(L.tensor([(i * 7) % 5 for i in range(40)])),
    "histc data range": lambda L: L.histc(L.tensor([2.0, 2.0, float("nan")]), bins=3, min=1, max=3),
    "histogram empty": lambda L: L.histogram(L.ones(0), bins=2),
    "histogram weighted density": lambda L: L.histogram(
        L.tensor([1.0, 2, 1, 4, 2.5]), bins=3, weight=L.tensor([1.0, 2, 3, 4, 5]), density=True
    ),
    "unique_consecutive runs": lambda L: L.unique_consecutive(
        L.tensor([[1, 1, 2], [1, 1, 3]]), return_inverse=True, return_counts=True, dim=1
    ),
    "unique_consecutive NaN and zeros": lambda L: L.unique_consecutive(
        L.tensor([float("nan"), float("nan"), 0.0, -0.0]), return_counts=True
    ),
}  # fmt: skip


def _plain(value):
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, (mg.Tensor, torch.Tensor)):
        array = value.detach().numpy() if isinstance(value, torch.Tensor) else value.numpy()
        return array.tolist(), str(array.dtype)
    return value


@pytest.mark.parametrize("name", sorted(CORNERS))
def test_corner_cases_are_torch(name):
    mine, theirs = _both(CORNERS[name])
    assert not isinstance(mine, Exception), mine
    a, b = _plain(mine), _plain(theirs)
    assert str(a) == str(b)  # NaN equal to NaN, dtypes and shapes too


def test_cov_warns_as_torch_and_never_changes_its_input():
    x = mg.tensor([[5.0], [7.0]])
    with pytest.warns(UserWarning, match=r"cov\(\): degrees of freedom is <= 0"):
        mg.cov(mg.tensor([1.0, 2.0]), correction=2)
    mg.cov(x, fweights=mg.tensor([2]))
    assert x.tolist() == [[5.0], [7.0]]  # torch zeroes it here; minigrad does not
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        mg.cov(mg.tensor([[5.0]], requires_grad=True), aweights=mg.tensor([1.0]))


def test_in_place_gcd_keeps_its_dtype():
    x = mg.tensor([4, 9], dtype=mg.int32)
    assert x.gcd_(mg.tensor([6, 6])) is x and x.tolist() == [2, 3] and x.dtype == mg.int32
    assert mg.tensor([4, 9]).lcm_(mg.tensor([6, 6])).tolist() == [12, 18]


def test_nanmedian_of_everything_shares_the_gradient_among_equal_elements():
    x = mg.tensor([3.0, 1.0, 3.0, float("nan"), 3.0], requires_grad=True)
    mg.nanmedian(x).backward()
    t = torch.tensor([3.0, 1.0, 3.0, float("nan"), 3.0], requires_grad=True)
    torch.nanmedian(t).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())


def test_frexp_mantissa_slope_is_torch_past_float32_powers():
    """PyTorch's slope ``grad / 2 ** exponent`` takes the power in float32: inf above 2^127."""
    got = []
    for lib in (mg, torch):
        x = lib.tensor([3.0, 1e300, 5e-324], dtype=lib.float64, requires_grad=True)
        lib.frexp(x).mantissa.sum().backward()
        got.append(x.grad.tolist())
    assert got[0] == got[1]


def test_nextafter_slope_is_torch_where_input_equals_other():
    got = []
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0, float("nan"), 0.0, -0.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([1.0, 3.0, 1.0, 0.0, 0.0], dtype=lib.float64)
        lib.nextafter(x, y).sum().backward()
        got.append(x.grad.tolist())
    assert got[0] == got[1] == [0.0, 1.0, 1.0, 0.0, 0.0]
