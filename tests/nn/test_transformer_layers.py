"""MultiheadAttention's options, the Transformer modules and the recurrent cells, against PyTorch.

Each module is built in both libraries, PyTorch's state dict is loaded into
minigrad's (so the names and shapes must agree), and outputs and the
gradients of every input and parameter are compared in float64. Dropout is
0, so both are deterministic. (``F.multi_head_attention_forward`` itself is
in the correctness database, ``tests/opdb/multi_head_attention.py``.)
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

F, TF = mg.nn.functional, torch.nn.functional


def _pair(name, *args, **kwargs):
    """The module ``name`` in both libraries, float64, minigrad's holding PyTorch's weights."""
    theirs = getattr(torch.nn, name)(*args, dtype=torch.float64, **kwargs)
    ours = getattr(mg.nn, name)(*args, dtype=mg.float64, **kwargs)
    state = {k: v.detach().numpy() for k, v in theirs.state_dict().items()}
    assert sorted(state) == sorted(dict(ours.state_dict()))
    ours.load_state_dict(state)
    return theirs, ours


def _inputs(rng, *shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    return ([torch.tensor(a, requires_grad=True) for a in arrays],
            [mg.tensor(a, requires_grad=True) for a in arrays])  # fmt: skip


def _same(theirs, ours, t_inputs, m_inputs, t_module, m_module, rng):
    """Equal outputs, and equal gradients of a random projection of them (NaN rows skipped)."""
    t_out = [o for o in (theirs if isinstance(theirs, tuple) else (theirs,)) if o is not None]
    m_out = [o for o in (ours if isinstance(ours, tuple) else (ours,)) if o is not None]
    assert len(t_out) == len(m_out)
    for a, b in zip(t_out, m_out):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, equal_nan=True)  # fmt: skip
    weights = [rng.standard_normal(o.shape) for o in t_out]
    sum((o * torch.tensor(w)).nansum() for o, w in zip(t_out, weights)).backward()
    sum((o * mg.tensor(w)).nan_to_num(0.0).sum() for o, w in zip(m_out, weights)).backward()
    pairs = list(zip(t_inputs, m_inputs))
    ours_named = dict(m_module.named_parameters())
    pairs += [(p, ours_named[name]) for name, p in t_module.named_parameters()]
    for a, b in pairs:
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-9, atol=1e-11,
                                       equal_nan=True)  # fmt: skip


# -- MultiheadAttention -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, need_weights",
    [
        ({"add_bias_kv": True}, True),
        ({"add_zero_attn": True, "batch_first": True}, False),
        ({"add_bias_kv": True, "add_zero_attn": True, "bias": False}, True),
        ({"kdim": 3, "vdim": 5}, False),
        ({"kdim": 3, "vdim": 5, "add_bias_kv": True, "batch_first": True}, True),
    ],
)
def test_multihead_attention_options_match_torch(options, need_weights):
    rng = np.random.default_rng(0)
    theirs, ours = _pair("MultiheadAttention", 4, 2, **options)
    n, length, keys = 2, 3, 4
    kdim, vdim = options.get("kdim", 4), options.get("vdim", 4)
    first = options.get("batch_first", False)
    shape = (lambda rows, e: (n, rows, e)) if first else (lambda rows, e: (rows, n, e))
    t_in, m_in = _inputs(rng, shape(length, 4), shape(keys, kdim), shape(keys, vdim))
    padding = rng.random((n, keys)) > 0.7
    padding[:, 0] = False
    mask = np.where(rng.random((length, keys)) > 0.3, rng.standard_normal((length, keys)), -np.inf)
    mask[:, 0] = 0.0
    kwargs = {"need_weights": need_weights, "average_attn_weights": False}
    t_out = theirs(*t_in, key_padding_mask=torch.tensor(padding), attn_mask=torch.tensor(mask),
                   **kwargs)  # fmt: skip
    m_out = ours(*m_in, key_padding_mask=mg.tensor(padding), attn_mask=mg.tensor(mask), **kwargs)
    _same(t_out, m_out, t_in, m_in, theirs, ours, rng)


def test_multihead_attention_bias_kv_init_is_xavier_normal():
    mha = mg.nn.MultiheadAttention(64, 4, add_bias_kv=True)
    assert mha.bias_k.shape == mha.bias_v.shape == (1, 1, 64)
    both = np.concatenate([mha.bias_k.detach().numpy(), mha.bias_v.detach().numpy()]).ravel()
    # xavier_normal_ of (1, 1, 64): std sqrt(2 / (64 + 64)) = 0.125; 128 draws.
    assert 0.09 < both.std() < 0.16


@pytest.mark.parametrize("need_weights", [True, False])
def test_a_query_that_sees_no_key_is_nan_with_weights_and_zero_without(need_weights):
    rng = np.random.default_rng(1)
    theirs, ours = _pair("MultiheadAttention", 4, 2)
    x = rng.standard_normal((3, 2, 4))
    padding = np.array([[True, True, True], [False, True, False]])
    t_out = theirs(*[torch.tensor(x)] * 3, key_padding_mask=torch.tensor(padding),
                   need_weights=need_weights)[0].detach().numpy()  # fmt: skip
    m_out = ours(*[mg.tensor(x)] * 3, key_padding_mask=mg.tensor(padding),
                 need_weights=need_weights)[0].detach().numpy()  # fmt: skip
    assert np.isnan(m_out[:, 0]).all() == need_weights
    np.testing.assert_allclose(m_out, t_out, rtol=1e-10, atol=1e-12, equal_nan=True)


def _error(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            f(*args, **kwargs)
        except Exception as error:  # the type is what is compared
            return type(error), str(error).splitlines()[0]
    return None


@pytest.mark.parametrize(
    "change",
    [
        {"query": (3, 2, 4, 1)},
        {"key": (4, 4)},
        {"embed_dim_to_check": 6},
        {"num_heads": 3},
        {"attn_mask": (2, 4)},
        {"attn_mask": (3, 3, 4)},
        {"key_padding_mask": (3, 4)},
        {"key_padding_mask": "int"},
        {"bias_k": "only"},
        {"is_causal": True},
        {"use_separate_proj_weight": True},
        {"static_k": (3, 4, 2)},
        {"static_k": (4, 4, 1)},
        {"value": (4, 2, 3)},
    ],
)
def test_multi_head_attention_forward_errors_are_torchs(change):
    rng = np.random.default_rng(2)
    args = {"query": (3, 2, 4), "key": (4, 2, 4), "value": (4, 2, 4), "attn_mask": None,
            "key_padding_mask": None, "bias_k": None, "static_k": None}  # fmt: skip
    args.update({k: v for k, v in change.items() if isinstance(v, tuple) or v is None})
    arrays = {k: rng.standard_normal(v) for k, v in args.items() if v is not None}
    if change.get("key_padding_mask") == "int":
        arrays["key_padding_mask"] = np.zeros((2, 4), np.int64)
    weights = [rng.standard_normal(s) for s in ((12, 4), (12,), (4, 4), (4,), (4,))]
    results = []
    for lib, tensor in ((TF, torch.tensor), (F, mg.tensor)):
        given = {k: tensor(v) for k, v in arrays.items()}
        w = [tensor(a) for a in weights]
        results.append(_error(
            lib.multi_head_attention_forward, given.pop("query"), given.pop("key"),
            given.pop("value"), change.get("embed_dim_to_check", 4), change.get("num_heads", 2),
            w[0], w[1], w[4] if change.get("bias_k") else None, None, False, 0.0, w[2], w[3],
            is_causal=change.get("is_causal", False),
            use_separate_proj_weight=change.get("use_separate_proj_weight", False), **given,
        ))  # fmt: skip
    assert results[1] is not None
    assert results[0] == results[1]


# -- Transformer ------------------------------------------------------------------------------

LAYER = {"dim_feedforward": 6, "dropout": 0.0}


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"norm_first": True, "activation": "gelu", "batch_first": True},
        {"bias": False, "layer_norm_eps": 1e-3},
    ],
)
@pytest.mark.parametrize("batched", [True, False])
def test_transformer_matches_torch(options, batched):
    rng = np.random.default_rng(3)
    theirs, ours = _pair("Transformer", 4, 2, 1, 2, **LAYER, **options)
    first, n = options.get("batch_first", False), 2
    shape = (lambda rows: (n, rows, 4) if first else (rows, n, 4)) if batched else (
        lambda rows: (rows, 4))  # fmt: skip
    t_in, m_in = _inputs(rng, shape(5), shape(3))
    causal = mg.nn.Transformer.generate_square_subsequent_mask(3, dtype=mg.float64)
    padding = np.zeros((n, 5) if batched else (5,), bool)
    padding[..., -2:] = True
    masks = {"tgt_mask": causal.numpy(), "src_key_padding_mask": padding,
             "memory_key_padding_mask": padding}  # fmt: skip
    t_out = theirs(*t_in, **{k: torch.tensor(v) for k, v in masks.items()})
    m_out = ours(*m_in, **{k: mg.tensor(v) for k, v in masks.items()})
    _same(t_out, m_out, t_in, m_in, theirs, ours, rng)


@pytest.mark.parametrize("mask", ["bool", "float", "causal"])
def test_encoder_and_decoder_stacks_match_torch(mask):
    rng = np.random.default_rng(4)
    t_layer = torch.nn.TransformerEncoderLayer(4, 2, **LAYER, dtype=torch.float64)
    m_layer = mg.nn.TransformerEncoderLayer(4, 2, **LAYER, dtype=mg.float64)
    theirs = torch.nn.TransformerEncoder(t_layer, 2, enable_nested_tensor=False)
    ours = mg.nn.TransformerEncoder(m_layer, 2)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    assert isinstance(ours.layers, mg.nn.ModuleList) and ours.layers[0] is not ours.layers[1]
    square = {"bool": rng.random((4, 4)) > 0.6, "float": rng.standard_normal((4, 4)),
              "causal": np.triu(np.full((4, 4), -np.inf), 1)}[mask]  # fmt: skip
    if mask == "bool":
        np.fill_diagonal(square, False)
    t_in, m_in = _inputs(rng, (4, 2, 4))
    _same(theirs(*t_in, mask=torch.tensor(square)), ours(*m_in, mask=mg.tensor(square)),
          t_in, m_in, theirs, ours, rng)  # fmt: skip
    t_layer = torch.nn.TransformerDecoderLayer(4, 2, **LAYER, dtype=torch.float64)
    m_layer = mg.nn.TransformerDecoderLayer(4, 2, **LAYER, dtype=mg.float64)
    theirs = torch.nn.TransformerDecoder(t_layer, 2, torch.nn.LayerNorm(4, dtype=torch.float64))
    ours = mg.nn.TransformerDecoder(m_layer, 2, mg.nn.LayerNorm(4, dtype=mg.float64))
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    t_in, m_in = _inputs(rng, (4, 2, 4), (3, 2, 4))
    _same(theirs(*t_in, tgt_mask=torch.tensor(square)), ours(*m_in, tgt_mask=mg.tensor(square)),
          t_in, m_in, theirs, ours, rng)  # fmt: skip


def test_transformer_init_names_and_errors_are_torchs():
    torch_model = torch.nn.Transformer(8, 2, 1, 1, 16)
    model = mg.nn.Transformer(8, 2, 1, 1, 16)
    theirs = {k: tuple(v.shape) for k, v in torch_model.state_dict().items()}
    assert {k: tuple(v.shape) for k, v in model.state_dict().items()} == theirs
    for name, p in model.named_parameters():
        values = p.detach().numpy()
        if p.ndim > 1:  # xavier_uniform_: U(-b, b), b = sqrt(6 / (fan_in + fan_out))
            bound = math.sqrt(6 / (p.shape[0] + p.shape[1]))
            assert np.abs(values).max() <= bound and np.abs(values).max() > bound / 2, name
    mask = mg.nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(
        mask.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(3).numpy()
    )
    assert mask.dtype == mg.float32
    src, tgt = mg.zeros(5, 2, 8), mg.zeros(3, 1, 8)
    with pytest.raises(RuntimeError, match=r"^the batch number of src and tgt must be equal$"):
        model(src, tgt)
    with pytest.raises(RuntimeError, match=r"^the feature number of src and tgt must be equal to"):
        model(src, mg.zeros(3, 2, 4))
    with pytest.raises(RuntimeError, match=r"^activation should be relu/gelu, not tanh$"):
        mg.nn.TransformerEncoderLayer(8, 2, activation="tanh")
    layer = mg.nn.TransformerEncoderLayer(8, 2, activation=mg.nn.functional.silu)
    assert layer.activation is mg.nn.functional.silu


# -- recurrent cells --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, options",
    [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}), ("GRUCell", {}),
     ("LSTMCell", {}), ("LSTMCell", {"bias": False})],
)  # fmt: skip
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(name, options, batched):
    rng = np.random.default_rng(5)
    theirs, ours = _pair(name, 3, 4, **options)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    lead = (2,) if batched else ()
    states = 2 if name == "LSTMCell" else 1
    t_in, m_in = _inputs(rng, (*lead, 3), *[(*lead, 4)] * states)
    for given in (False, True):  # a missing state starts at zeros
        pack = (lambda hs: tuple(hs)) if states == 2 else (lambda hs: hs[0])
        t_h = pack(t_in[1:]) if given else None
        m_h = pack(m_in[1:]) if given else None
        _same(theirs(t_in[0], t_h), ours(m_in[0], m_h), t_in, m_in, theirs, ours, rng)
        for x in (*t_in, *m_in, *theirs.parameters(), *ours.parameters()):
            x.grad = None


def test_a_loop_of_cells_is_the_layer():
    layer = mg.nn.LSTM(3, 4, dtype=mg.float64)
    cell = mg.nn.LSTMCell(3, 4, dtype=mg.float64)
    cell.load_state_dict({k.removesuffix("_l0"): v for k, v in layer.state_dict().items()})
    x = mg.randn(5, 2, 3, dtype=mg.float64)
    out, (_, c) = layer(x)
    state = None
    for t in range(5):
        state = cell(x[t], state)
        np.testing.assert_allclose(state[0].detach().numpy(), out[t].detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(state[1].detach().numpy(), c[0].detach().numpy(), rtol=1e-13)


@pytest.mark.parametrize(
    "name, x, h",
    [("GRUCell", (2, 3, 3), None), ("GRUCell", (2, 5), None), ("GRUCell", (2, 3), (3, 4)),
     ("RNNCell", (2, 3), (2, 5)), ("RNNCell", (3,), (2, 4)), ("RNNCell", (2, 3), (1, 2, 4)),
     ("LSTMCell", (2, 3), ((2, 4), (2, 5))), ("LSTMCell", (2, 3), ((2, 4), (1, 2, 4)))],
)  # fmt: skip
def test_cell_errors_are_torchs(name, x, h):
    results = []
    for lib in (torch, mg):
        cell = getattr(lib.nn, name)(3, 4)
        state = None if h is None else (
            tuple(lib.zeros(s) for s in h) if name == "LSTMCell" else lib.zeros(h))  # fmt: skip
        results.append(_error(cell, lib.zeros(x), state))
    assert results[1] is not None
    assert results[0] == results[1]


# -- PyTorch's inference paths ------------------------------------------------------------------


@pytest.mark.parametrize("padding", ["left_aligned", "scattered"])
def test_inference_paths_give_torchs_nan_and_zero_rows(padding):
    """In evaluation mode without gradients PyTorch runs fused kernels: a query that sees no
    key is NaN (not 0), and an encoder stack given a left-aligned padding mask runs packed
    sequences, so padded positions come out 0. minigrad gives the same numbers."""
    rng = np.random.default_rng(6)
    layer_t = torch.nn.TransformerEncoderLayer(4, 2, **LAYER, batch_first=True,
                                               dtype=torch.float64)  # fmt: skip
    layer_m = mg.nn.TransformerEncoderLayer(4, 2, **LAYER, batch_first=True, dtype=mg.float64)
    norm_t, norm_m = (
        torch.nn.LayerNorm(4, dtype=torch.float64),
        mg.nn.LayerNorm(4, dtype=mg.float64),
    )
    theirs = torch.nn.TransformerEncoder(layer_t, 2, norm_t).eval()
    ours = mg.nn.TransformerEncoder(layer_m, 2, norm_m).eval()
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = rng.standard_normal((3, 4, 4))
    mask = {"left_aligned": [[0, 0, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]],
            "scattered": [[1, 1, 1, 1], [0, 1, 0, 1], [0, 0, 0, 0]]}[padding]  # fmt: skip
    mask = np.array(mask, bool)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(mask)).numpy()
        attention = theirs.layers[0].self_attn
        xt = torch.tensor(x)
        attended = attention(xt, xt, xt, key_padding_mask=torch.tensor(mask),
                             need_weights=False)[0].numpy()  # fmt: skip
    with mg.no_grad():
        got = ours(mg.tensor(x), src_key_padding_mask=mg.tensor(mask)).numpy()
        xm = mg.tensor(x)
        ours_attended = ours.layers[0].self_attn(xm, xm, xm, key_padding_mask=mg.tensor(mask),
                                                 need_weights=False)[0].numpy()  # fmt: skip
    hidden = mask.all(1)  # the sequence whose every key is padding
    assert np.isnan(attended[hidden]).all() and np.isnan(ours_attended[hidden]).all()
    np.testing.assert_allclose(ours_attended, attended, rtol=1e-10, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12, equal_nan=True)
    # With gradients the composition runs in both: finite everywhere but the NaN-free rows.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(mask)).detach().numpy()
    np.testing.assert_allclose(ours(mg.tensor(x), src_key_padding_mask=mg.tensor(mask)).detach()
                               .numpy(), slow, rtol=1e-10, atol=1e-12, equal_nan=True)  # fmt: skip


@pytest.mark.parametrize(
    "name, x, hx",
    [("gru_cell", (3,), (4,)), ("rnn_relu_cell", (2, 3), (2, 5)),
     ("lstm_cell", (2, 3), [(2, 4)]), ("lstm_cell", (2, 3), [(3, 4), (2, 4)])],
)  # fmt: skip
def test_cell_function_errors_are_torchs(name, x, hx):
    gates = 4 if name == "lstm_cell" else 3 if name == "gru_cell" else 1
    results = []
    for lib in (torch, mg):
        state = [lib.zeros(s) for s in hx] if isinstance(hx, list) else lib.zeros(hx)
        weights = (lib.zeros(gates * 4, 3), lib.zeros(gates * 4, 4))
        results.append(_error(getattr(lib, name), lib.zeros(x), state, *weights))
    assert results[1] is not None
    assert results[0] == results[1]
