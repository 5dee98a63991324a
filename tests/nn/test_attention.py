"""scaled_dot_product_attention's fused kernels and MultiheadAttention, against PyTorch.

The correctness database (tests/opdb/attention.py) draws small random shapes
for every oracle; here the shapes span several tiles of the kernels (64 and
128 rows), the masks include fully masked rows, and the fused path's claims
are checked: the backward kernel runs, and a record keeps no (L, S) array.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.backends.numba_backend import NumbaBackend
from minigrad.backends.numpy_backend import NumpyBackend

F = mg.nn.functional
TF = torch.nn.functional


def run_both(shapes, dtype=np.float64, backend="numba", seed=0, mask=None, **options):
    """(ours, theirs): outputs and gradients of q, k, v for one cotangent, both libraries."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    with mg.backends.use(backend):
        xs = [mg.tensor(a, requires_grad=True) for a in arrays]
        m = (
            None
            if mask is None
            else mg.tensor(mask, dtype=mg.bool_ if mask.dtype == bool else dtype)
        )
        out = F.scaled_dot_product_attention(*xs, attn_mask=m, **options)
        g = rng.standard_normal(out.shape).astype(dtype)
        out.backward(mg.tensor(g))
        ours = [out.detach().numpy()] + [x.grad.detach().numpy() for x in xs]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    tm = None if mask is None else torch.from_numpy(mask)
    tout = TF.scaled_dot_product_attention(*ts, attn_mask=tm, **options)
    tout.backward(torch.from_numpy(g))
    return ours, [tout.detach().numpy()] + [t.grad.detach().numpy() for t in ts]


TOL = {np.float64: dict(rtol=1e-9, atol=1e-11), np.float32: dict(rtol=2e-4, atol=2e-5)}
SHAPES = [  # several query and key tiles, with ragged last tiles; L > S and L < S
    [(2, 3, 130, 8), (2, 3, 70, 8), (2, 3, 70, 5)],
    [(1, 2, 65, 4), (1, 2, 200, 4), (1, 2, 200, 6)],
]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shapes", SHAPES)
def test_fused_attention_matches_torch_across_tiles(backend, dtype, causal, shapes):
    ours, theirs = run_both(shapes, dtype, backend, is_causal=causal)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, **TOL[dtype])


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_masks_with_fully_masked_rows_and_broadcast_masks(backend):
    rng = np.random.default_rng(1)
    shapes = [(2, 3, 90, 4), (2, 3, 70, 4), (2, 3, 70, 3)]
    boolean = rng.random((3, 90, 70)) > 0.5
    boolean[1, 7] = False  # a query that may see no key: output and gradients 0
    additive = np.where(rng.random((2, 1, 1, 70)) > 0.3, rng.standard_normal((2, 1, 1, 70)),
                        -np.inf)  # fmt: skip
    for mask in (boolean, additive):
        ours, theirs = run_both(shapes, backend=backend, mask=mask)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
    assert np.all(ours[0][:, 1, 7] == 0) if mask is boolean else True


def test_size_one_and_empty_axes():
    for shapes in ([(1, 1, 1), (1, 1, 1), (1, 1, 1)], [(0, 3, 4), (0, 5, 4), (0, 5, 2)],
                   [(2, 3, 4), (2, 0, 4), (2, 0, 2)], [(2, 1, 3, 4), (2, 1, 5, 4), (1, 5, 2)]):  # fmt: skip
        ours, theirs = run_both(shapes)
        for a, b in zip(ours, theirs):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_the_backward_pass_runs_the_fused_kernel(monkeypatch):
    calls = []
    original = NumbaBackend.attention_backward

    def counted(self, *args):
        calls.append(args[0].shape)
        return original(self, *args)

    monkeypatch.setattr(NumbaBackend, "attention_backward", counted)
    q = mg.randn(2, 40, 8, requires_grad=True)
    F.scaled_dot_product_attention(q, q, q).sum().backward()
    assert calls == [(2, 40, 8)]


def test_a_record_keeps_no_score_matrix():
    """The row saves q, k, v and (out | lse): nothing of size L * S."""
    q = mg.randn(1, 300, 4, requires_grad=True)
    out = F.scaled_dot_product_attention(q, q, q)
    record = out.grad_fn.parents[0]  # the slice's parent: the fused row
    assert record.prim.name == "scaled_dot_product_attention"
    assert record.saved_out.shape == (1, 300, 5)
    sizes = [x.data.size for x in record.saved] + [record.saved_out.size]
    assert max(sizes) < 300 * 300 / 50


def test_numba_kernel_equals_the_numpy_reference_on_raw_arrays():
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal(s) for s in ((3, 77, 6), (3, 150, 6), (3, 150, 4)))
    bias = np.where(rng.random((1, 77, 150)) > 0.2, 0.0, -np.inf)
    ref, fused = NumpyBackend(), NumbaBackend()
    for causal in (False, True):
        a = ref.attention(q, k, v, bias, 0.3, causal)
        b = fused.attention(q, k, v, bias, 0.3, causal)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        g = rng.standard_normal(a.shape)  # with a cotangent for lse too
        np.testing.assert_allclose(ref.attention_backward(q, k, v, bias, a, g, 0.3, causal),
                                   fused.attention_backward(q, k, v, bias, b, g, 0.3, causal),
                                   rtol=1e-10, atol=1e-12)  # fmt: skip


def test_float32_kernel_exp_is_within_an_ulp_and_keeps_masks_and_nans():
    """float32 tiles take the vectorized exp (numba_attention._exp_shifted): within 1.1 ulp of
    exp in float64 for x in [-1, 0] (a softmax's big terms), 5 ulp down to float32's smallest
    normal number (measured: 4.5 at x near -83), exactly 0 for a masked score, NaN for NaN."""
    from minigrad.backends import numba_attention

    x = np.concatenate([-np.logspace(-8, 1.94, 3000), [0.0, -0.0, -np.inf, np.nan, -87.0]])
    row = x.astype(np.float32)
    bits = np.empty(row.size, np.int32)
    numba_attention._exp_shifted(row, row.size, np.float32(0), bits, bits.view(np.float32))
    expected = np.exp(x.astype(np.float32).astype(np.float64))
    finite = np.isfinite(expected) & (expected > 1.2e-38)
    ulp = np.spacing(expected[finite].astype(np.float32)).astype(np.float64)
    ulps = np.abs(row[finite] - expected[finite]) / ulp
    assert ulps.max() <= 5 and ulps[x[finite] >= -1].max() <= 1.1
    assert row[-3] == 0 and np.isnan(row[-2])
    rng = np.random.default_rng(4)  # and the kernels agree with the reference in float32
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in ((2, 70, 16), (2, 70, 16),
                                                                  (2, 70, 8)))  # fmt: skip
    for causal in (False, True):
        a = NumpyBackend().attention(q, k, v, None, 0.25, causal)
        b = NumbaBackend().attention(q, k, v, None, 0.25, causal)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        g = rng.standard_normal(a.shape).astype(np.float32)
        np.testing.assert_allclose(NumpyBackend().attention_backward(q, k, v, None, a, g, 0.25,
                                                                     causal),
                                   NumbaBackend().attention_backward(q, k, v, None, b, g, 0.25,
                                                                     causal),
                                   rtol=1e-4, atol=1e-5)  # fmt: skip


def test_dropout_keeps_expected_value_and_uses_the_reference():
    mg.manual_seed(0)
    q = mg.ones(1, 4, 2)
    v = mg.arange(8.0).reshape(1, 4, 2)
    kept = F.scaled_dot_product_attention(q, q, v, dropout_p=0.5)
    # each weight is 1/4 or 0 or 1/2 (dropped or doubled): rows are sums of value rows / 2
    doubled = (kept.detach().numpy() * 2) / 1
    assert np.allclose(doubled, np.round(doubled))
    assert F.scaled_dot_product_attention(q, q, v, dropout_p=0.0).shape == (1, 4, 2)


def test_bad_input_gets_pytorch_errors():
    q = mg.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mg.ones(3, 3, dtype=mg.bool_),
                                       is_causal=True)  # fmt: skip
    with pytest.raises(RuntimeError, match="at least 2 dimensional"):
        F.scaled_dot_product_attention(mg.zeros(4), q, q)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.scaled_dot_product_attention(q, q.to(mg.float64), q)
    with pytest.raises(RuntimeError, match="query and key need the same last axis"):
        F.scaled_dot_product_attention(q, mg.zeros(2, 3, 5), q)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mg.ones(5, 2, 3, 3, dtype=mg.bool_))
    with pytest.raises(ValueError, match="dropout probability"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)


# -- MultiheadAttention ------------------------------------------------------------------
def _pair(embed=8, heads=2, **options):
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(embed, heads, dtype=torch.float64, **options)
    ours = mg.nn.MultiheadAttention(embed, heads, dtype=mg.float64, **options)
    ours.load_state_dict({k: v.detach().numpy().copy() for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_matches_torch(batch_first, need_weights):
    ours, theirs = _pair(batch_first=batch_first)
    rng = np.random.default_rng(3)
    shape_q = (2, 5, 8) if batch_first else (5, 2, 8)
    shape_kv = (2, 7, 8) if batch_first else (7, 2, 8)
    arrays = [rng.standard_normal(s) for s in (shape_q, shape_kv, shape_kv)]
    padding = np.zeros((2, 7), bool)
    padding[0, 5:] = True
    causal = np.triu(np.ones((5, 7), bool), 1)
    xs = [mg.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, w = ours(*xs, key_padding_mask=mg.tensor(padding), attn_mask=mg.tensor(causal),
                  need_weights=need_weights)  # fmt: skip
    tout, tw = theirs(*ts, key_padding_mask=torch.from_numpy(padding),
                      attn_mask=torch.from_numpy(causal), need_weights=need_weights)  # fmt: skip
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    if need_weights:
        np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
    else:
        assert w is None and tw is None
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g))
    tout.backward(torch.from_numpy(g))
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(
            x.grad.detach().numpy(), t.grad.detach().numpy(), rtol=1e-9, atol=1e-11
        )
    named = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.detach().numpy(), named[name].grad.detach().numpy(), rtol=1e-9,
                                   atol=1e-11)  # fmt: skip


def test_multihead_attention_unbatched_and_per_head_weights():
    ours, theirs = _pair(embed=6, heads=3)
    x = np.random.default_rng(4).standard_normal((4, 6))
    out, w = ours(mg.tensor(x), mg.tensor(x), mg.tensor(x), average_attn_weights=False)
    tx = torch.from_numpy(x)
    tout, tw = theirs(tx, tx, tx, average_attn_weights=False)
    assert w.shape == tuple(tw.shape) == (3, 4, 4)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_multihead_attention_state_dict_names_and_init_are_pytorchs():
    ours = mg.nn.MultiheadAttention(8, 4)
    theirs = torch.nn.MultiheadAttention(8, 4)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert np.all(ours.in_proj_bias.detach().numpy() == 0) and np.all(
        ours.out_proj.bias.detach().numpy() == 0
    )
    bound = np.sqrt(6 / (8 + 24))  # xavier_uniform_ of a (24, 8) matrix
    assert np.abs(ours.in_proj_weight.detach().numpy()).max() <= bound
    with pytest.raises(AssertionError, match="divisible"):
        mg.nn.MultiheadAttention(6, 4)


# -- the transformer pieces -----------------------------------------------------------------
def test_transformer_block_is_torchs_pre_norm_encoder_layer_with_a_causal_mask():
    torch.manual_seed(0)
    theirs = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=32, dropout=0.0,
                                              activation="gelu", batch_first=True,
                                              norm_first=True, dtype=torch.float64)  # fmt: skip
    ours = mg.nn.TransformerBlock(8, 2, dtype=mg.float64)
    names = {"self_attn.": "attn.", "linear1.": "mlp.0.", "linear2.": "mlp.2."}
    state = {}
    for key, value in theirs.state_dict().items():
        for old, new in names.items():
            key = key.replace(old, new)
        state[key] = value.detach().numpy().copy()
    ours.load_state_dict(state)
    x = np.random.default_rng(5).standard_normal((2, 6, 8))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(6, dtype=torch.float64)
    tx = torch.tensor(x, requires_grad=True)
    want = theirs(tx, src_mask=mask, is_causal=True)
    mx = mg.tensor(x, requires_grad=True)
    got = ours(mx)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(
        mx.grad.detach().numpy(), tx.grad.detach().numpy(), rtol=1e-9, atol=1e-11
    )


def test_kv_cache_steps_equal_recomputing_the_prefix():
    mg.manual_seed(0)
    model = mg.nn.GPT(11, 16, dim=8, heads=2, layers=2, dtype=mg.float64)
    ids = mg.tensor(np.random.default_rng(6).integers(0, 11, (2, 9)))
    full = model(ids).detach().numpy()
    cache = model.new_cache(2)
    steps = [model(ids[:, :4], cache)] + [model(ids[:, t : t + 1], cache) for t in range(4, 7)]
    steps.append(model(ids[:, 7:9], cache))  # two new tokens at once: a shifted triangle
    np.testing.assert_allclose(
        mg.concatenate(steps, 1).detach().numpy(), full, rtol=1e-10, atol=1e-12
    )
    assert cache.length == 9
    a = model.generate(ids[:, :3], 10, cache=True, greedy=True)
    b = model.generate(ids[:, :3], 10, cache=False, greedy=True)
    assert a.shape == (2, 13) and np.array_equal(a.detach().numpy(), b.detach().numpy())


def test_positions():
    table = mg.nn.SinusoidalPositions(10, 6).table.detach().numpy()
    p, i = 7, 2
    assert table[p, 2 * i] == pytest.approx(np.sin(p / 10000 ** (2 * i / 6)), rel=1e-6)
    assert table[p, 2 * i + 1] == pytest.approx(np.cos(p / 10000 ** (2 * i / 6)), rel=1e-6)
    learned = mg.nn.LearnedPositions(4, 3)
    x = mg.zeros(1, 2, 3)
    np.testing.assert_array_equal(
        learned(x, start=2).detach().numpy()[0], learned.weight.detach().numpy()[2:4]
    )
    with pytest.raises(IndexError, match="max_len"):
        learned(mg.zeros(1, 3, 3), start=2)
    assert [n for n, _ in learned.named_parameters()] == ["weight"]
    assert list(mg.nn.SinusoidalPositions(4, 2).state_dict()) == []  # fixed, not saved


def test_multihead_attention_float32_matches_torch():
    torch.manual_seed(1)
    theirs = torch.nn.MultiheadAttention(8, 4, batch_first=True)
    ours = mg.nn.MultiheadAttention(8, 4, batch_first=True)
    ours.load_state_dict({k: v.detach().numpy().copy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(7).standard_normal((3, 6, 8)).astype(np.float32)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    mask = np.triu(np.ones((6, 6), bool), 1)
    out, _ = ours(mx, mx, mx, attn_mask=mg.tensor(mask), need_weights=False)
    tout, _ = theirs(tx, tx, tx, attn_mask=torch.from_numpy(mask), need_weights=False)
    assert out.dtype == mg.float32
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-4, atol=1e-5)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
