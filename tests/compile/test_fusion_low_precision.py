"""Fusion of float16 and bfloat16 chains and of autocast's casts (lessons 13, 15).

A fused kernel computes each 16-bit operation in float32 and rounds its result
where eager mode does, so jit's answer is eager's, bit for bit; what it could
not compute so stays out of the kernel.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.compile import fusion, passes
from minigrad.compile.fusion import fuse

ml_dtypes = pytest.importorskip("ml_dtypes")
pytest.importorskip("numba")

DTYPES = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def fused(f, *args):
    return fuse(passes.optimize(mg.make_graph(f)(*args)), fuse_from=1)


def names(graph) -> list[str]:
    return [op.name for op in graph]


def bits(t: mg.Tensor) -> np.ndarray:
    a = t.detach().numpy()
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def edge_values(dtype: str, n: int, seed: int) -> np.ndarray:
    """float32 numbers around ``dtype``'s edges: NaN, +-inf, +-0, past float16's largest
    (65520 rounds to inf), ties, subnormals of both formats, and random ones."""
    rng = np.random.default_rng(seed)
    tiny = np.float32(2.0**-24 if dtype == "float16" else 2.0**-133)
    special = np.array(
        [np.nan, np.inf, -np.inf, 0.0, -0.0, 65504.0, 65519.0, 65520.0, -7.0e4, 1.0e5,
         1.0 + 2.0**-11, 1.0 + 2.0**-8, 3.0 * 2.0**-9, tiny, -tiny, 3 * tiny, tiny / 2, 1e-40],
        dtype=np.float32,
    )  # fmt: skip
    spread = rng.standard_normal(n - special.size) * np.exp2(
        rng.integers(-30, 18, n - special.size)
    )
    return rng.permutation(np.concatenate([special, spread.astype(np.float32)]))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_a_16_bit_chain_fuses_with_its_casts_and_equals_eager_bit_for_bit(dtype):
    a = mg.tensor(edge_values(dtype, 512, 0))
    b = mg.tensor(edge_values(dtype, 512, 1)).to(dtype)
    d = getattr(mg, dtype)

    def f(a, b):
        x = a.to(d)  # a float32 -> 16-bit cast: one rounding
        y = (x * b + 0.5) / (b - x)  # each result rounded, as eager rounds it
        z = mg.where(y > b, y.relu(), -y.abs()).maximum(x).reciprocal()
        return z.float() * a, (z + z * z).to(mg.float64)

    graph = fused(f, a, b)
    assert len(graph) == 1 and names(graph)[0].startswith("fused_"), names(graph)
    source = graph.ops[0].prim.source
    assert f"# astype(a, {dtype})" in source and "# where(" in source, source
    for got, want in zip(graph(a, b), f(a, b)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(bits(got), bits(want))


def test_casts_between_the_16_bit_formats_and_from_float64_equal_eager():
    x = mg.tensor(edge_values("bfloat16", 256, 2).astype(np.float64) * (1 + 2.0**-30))

    def f(x):
        h = x.to(mg.float32).half()  # float64 -> float32 -> float16: two casts, two roundings
        return (h.bfloat16() * 2.0).half(), x.bfloat16() + h.bfloat16(), h.bfloat16().half()

    graph = fused(f, x)
    assert len(graph) == 1 and names(graph)[0].startswith("fused_astype"), names(graph)
    for got, want in zip(graph(x), f(x)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(bits(got), bits(want))


def test_jit_of_an_autocast_mlp_step_fuses_the_casts(monkeypatch):
    monkeypatch.setattr(fusion, "FUSE_FROM", 1)
    rng = np.random.default_rng(3)
    w1, b1, w2 = (
        mg.tensor(rng.standard_normal(s).astype(np.float32)) for s in [(8, 16), (16,), (16, 4)]
    )
    x, y = (mg.tensor(rng.standard_normal(s).astype(np.float32)) for s in [(32, 8), (32, 4)])

    def loss(w1, b1, w2, x, y):
        with mg.autocast("cpu"):
            h = (x @ w1 + b1).relu()
            return ((h @ w2).float() - y).square().mean()

    step = mg.jit(mg.grad(loss, argnums=(0, 1, 2)))
    fused_ops = [n for n in names(step.graph(w1, b1, w2, x, y)) if n.startswith("fused_")]
    assert any("astype" in n and "relu" in n for n in fused_ops), fused_ops
    source = step.source(w1, b1, w2, x, y)
    assert "# astype(" in source and "_bfloat16_bits(" in source, source
    for got, want in zip(
        step(w1, b1, w2, x, y), mg.grad(loss, argnums=(0, 1, 2))(w1, b1, w2, x, y)
    ):
        assert got.dtype == want.dtype == mg.float32
        np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x.half().long().float(),  # to an integer: not a float cast
        lambda x: x.half().bool().float(),
        lambda x: x.double().half().float(),  # float64 -> float16: NumPy rounds it in one step
        lambda x: x.half().tanh().float(),  # a transcendental body may differ in float32's last bit
        lambda x: x.half().sqrt().float(),  # sqrt(-1)'s NaN has the other sign than NumPy's
        lambda x: (x.bfloat16() ** 3).float(),  # a parameter (eager rounds it to bfloat16 first)
        lambda x: x.half().sum().float(),  # eager sums 16-bit values in float32
    ],
    ids=["long", "bool", "float64_to_float16", "tanh", "sqrt", "pow_scalar", "sum"],
)
def test_fusion_leaves_out_what_it_cannot_compute_as_eager(f):
    x = mg.tensor(edge_values("float16", 64, 4))
    graph = fused(f, x)
    assert not any(n.startswith("fused_") for n in names(graph)), names(graph)
    np.testing.assert_array_equal(bits(graph(x)), bits(f(x)))
