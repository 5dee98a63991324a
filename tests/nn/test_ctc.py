"""ctc_loss against PyTorch: layouts, lengths, reductions, errors, its gradient formula and the
transforms (lesson 06); rrelu and gumbel_softmax's draws and errors.

The correctness database (tests/opdb/nn_random.py) checks values and gradients on random
inputs; here are the cases a random draw does not reach on purpose.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg

F = mg.nn.functional


def _pair(array, dtype=None):
    return mg.tensor(array), torch.tensor(array)


def _log_probs(shape, seed=0, normalized=True, dtype=np.float64):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    if normalized:
        x = x - np.log(np.exp(x).sum(-1, keepdims=True))
    return x


def _both(call_mg, call_torch):
    """The two results, or the two errors' (type, first line)."""
    out = []
    for call in (call_mg, call_torch):
        try:
            out.append(call())
        except Exception as e:
            out.append((type(e).__name__, str(e).splitlines()[0]))
    return out


LP = _log_probs((4, 2, 5))
CASES = {  # targets, input_lengths, target_lengths, keywords
    "padded": ([[1, 2], [1, 1]], [4, 4], [2, 2], {}),
    "concatenated": ([1, 2, 1], [4, 3], [2, 1], {}),
    "tensor lengths": ([[1, 2], [3, 3]], "t[4, 2]", "t[2, 2]", {"reduction": "none"}),
    "int32 lengths": ([[1, 2], [3, 3]], "i[4, 2]", "i[2, 2]", {"reduction": "sum"}),
    "2-D length tensor": ([1, 2, 1], "t[[4, 4]]", "t[2, 1]", {}),
    "float targets": ([1.0, 2.0, 1.0], [4, 4], [2, 1], {}),
    "target equal to blank": ([0, 2, 0, 0], [4, 4], [2, 2], {"reduction": "none"}),
    "empty transcript": ([1, 2], [4, 3], [0, 2], {"reduction": "none"}),
    "empty input": ([1, 2], [0, 4], [0, 2], {"reduction": "none"}),
    "impossible": ([[1, 1, 1], [2, 2, 2]], [4, 4], [3, 2], {"reduction": "none"}),
    "impossible, zero_infinity": ([[1, 1, 1], [2, 2, 2]], [4, 4], [3, 2],
                                  {"reduction": "mean", "zero_infinity": True}),
    "empty input, long transcript": ([1, 2], [0, 0], [1, 1], {"reduction": "none"}),
    "other blank": ([[0, 2], [0, 0]], [4, 4], [2, 1], {"blank": 4, "reduction": "none"}),
    # PyTorch's errors, in its order
    "bad reduction": ([[1, 2], [1, 1]], [4, 4], [2, 2], {"reduction": "avg"}),
    "short target_lengths": ([[1, 2], [1, 1]], [4, 4], [2], {}),
    "long input_lengths": ([[1, 2], [1, 1]], [4, 4, 4], [2, 2], {}),
    "input too long": ([[1, 2], [1, 1]], [4, 5], [2, 2], {}),
    "negative input length": ([[1, 2], [1, 1]], [4, -1], [2, 2], {}),
    "negative target length": ([[1, 2], [1, 1]], [4, 4], [2, -1], {}),
    "padded too narrow": ([[1, 2], [1, 1]], [4, 4], [2, 3], {}),
    "padded too few rows": ([[1, 2]], [4, 4], [2, 2], {}),
    "concatenated too short": ([1, 2, 1], [4, 4], [2, 2], {}),
    "3-D targets": ([[[1, 2]], [[1, 1]]], [4, 4], [2, 2], {}),
    "blank out of range": ([1, 2, 1, 1], [4, 4], [2, 2], {"blank": 5}),
    "negative blank": ([1, 2, 1, 1], [4, 4], [2, 2], {"blank": -1}),
    "float length tensor": ([1, 2, 1, 1], "f[4, 4]", "t[2, 2]", {}),
    "bool length tensor": ([1, 2, 1, 1], "t[4, 4]", "b[1, 1]", {}),
    "length tensor of the wrong size": ([1, 2, 1, 1], "t[4]", "t[2, 2]", {}),
    "float lengths in a list": ([1, 2, 1, 1], [4.0, 4.0], [2, 2], {}),
    "a tensor and a list": ([1, 2, 1, 1], "t[4, 4]", [2, 2], {}),
    "an int length": ([1, 2, 1, 1], 4, [2, 2], {}),
}  # fmt: skip


def _lengths(spec, library):
    if not isinstance(spec, str):
        return spec
    kind, values = spec[0], eval(spec[1:])
    if library == "torch":
        dtype = {"t": torch.int64, "i": torch.int32, "f": torch.float64, "b": torch.bool}[kind]
        return torch.tensor(values, dtype=dtype)
    dtype = {"t": mg.int64, "i": mg.int32, "f": mg.float64, "b": mg.bool_}[kind]
    return mg.tensor(values, dtype=dtype)


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctc_loss_matches_torch(case):
    targets, il, tl, kwargs = CASES[case]
    x = mg.tensor(LP, requires_grad=True)
    t = torch.tensor(LP, requires_grad=True)
    ours, theirs = _both(
        lambda: F.ctc_loss(x, mg.tensor(targets), _lengths(il, "mg"), _lengths(tl, "mg"), **kwargs),
        lambda: TF.ctc_loss(t, torch.tensor(targets), _lengths(il, "torch"),
                            _lengths(tl, "torch"), **kwargs),
    )  # fmt: skip
    if isinstance(theirs, tuple):
        assert ours == theirs
        return
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    g = np.random.default_rng(1).standard_normal(theirs.shape)
    (ref,) = torch.autograd.grad(theirs, t, torch.tensor(g))
    (grad,) = mg.autograd.grad(ours, [x], mg.tensor(g))
    np.testing.assert_allclose(grad.numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("targets", [[1, 2], [[1, 2]]])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_unbatched_input(targets, reduction):
    lp = _log_probs((4, 3))
    ours = F.ctc_loss(mg.tensor(lp), mg.tensor(targets), mg.tensor(4), mg.tensor(2),
                      reduction=reduction)  # fmt: skip
    theirs = TF.ctc_loss(torch.tensor(lp), torch.tensor(targets), torch.tensor(4),
                         torch.tensor(2), reduction=reduction)  # fmt: skip
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape", [(), (3,), (1, 2, 3, 4), (0, 2, 3)])
@pytest.mark.parametrize("dtype", ["float64", "int64", "float16"])
def test_log_probs_errors(shape, dtype):
    lp = np.zeros(shape, dtype=dtype)
    ours, theirs = _both(
        lambda: F.ctc_loss(mg.tensor(lp), mg.tensor([1]), [1], [1]),
        lambda: TF.ctc_loss(torch.tensor(lp), torch.tensor([1]), [1], [1]),
    )
    assert ours == theirs


def test_torch_level_takes_reduction_codes():
    lp, targets = mg.tensor(LP), mg.tensor([[1, 2], [1, 1]])
    for code, name in ((0, "none"), (1, "mean"), (2, "sum")):
        ref = torch.ctc_loss(torch.tensor(LP), torch.tensor([[1, 2], [1, 1]]), [4, 4], [2, 2],
                             0, code, False)  # fmt: skip
        np.testing.assert_allclose(mg.ctc_loss(lp, targets, [4, 4], [2, 2], 0, code).numpy(),
                                   ref.numpy(), rtol=1e-12)  # fmt: skip
        assert np.allclose(F.ctc_loss(lp, targets, [4, 4], [2, 2], reduction=name).numpy(),
                           ref.numpy())  # fmt: skip
    layer = mg.nn.CTCLoss(blank=0, reduction="sum")
    assert np.allclose(layer(lp, targets, [4, 4], [2, 2]).numpy(),
                       torch.nn.CTCLoss(reduction="sum")(torch.tensor(LP), torch.tensor(
                           [[1, 2], [1, 1]]), [4, 4], [2, 2]).numpy())  # fmt: skip


def test_gradient_is_torchs_formula_not_the_plain_derivative():
    """Unnormalized log_probs: PyTorch's gradient is exp(log_probs) - gamma, the plain
    derivative only -gamma; through log_softmax the two agree (finite differences)."""
    raw = _log_probs((3, 1, 3), normalized=False)
    x = mg.tensor(raw, requires_grad=True)
    loss = F.ctc_loss(x, mg.tensor([[1]]), [3], [1], reduction="sum")
    (grad,) = mg.autograd.grad(loss, [x])
    t = torch.tensor(raw, requires_grad=True)
    (ref,) = torch.autograd.grad(TF.ctc_loss(t, torch.tensor([[1]]), [3], [1], reduction="sum"), t)
    np.testing.assert_allclose(grad.numpy(), ref.numpy(), rtol=1e-12)
    eps, bump = 1e-6, np.zeros_like(raw)
    bump[0, 0, 2] = eps
    plain = (F.ctc_loss(mg.tensor(raw + bump), mg.tensor([[1]]), [3], [1], reduction="sum")
             - F.ctc_loss(mg.tensor(raw - bump), mg.tensor([[1]]), [3], [1], reduction="sum")
             ).item() / (2 * eps)  # fmt: skip
    assert grad.numpy()[0, 0, 2] == pytest.approx(plain + np.exp(raw[0, 0, 2]), rel=1e-6)
    assert mg.gradcheck(
        lambda s: F.ctc_loss(F.log_softmax(s, 2), mg.tensor([[1]]), [3], [1]), [mg.tensor(raw)]
    )


def test_transforms():
    lp = mg.tensor(LP)
    targets = mg.tensor([[1, 2], [1, 1]])

    def loss(x):
        return F.ctc_loss(F.log_softmax(x, 2), targets, [4, 3], [2, 1], reduction="none")

    # vmap over a batch of inputs equals the loop
    batch = mg.tensor(np.stack([LP, 2 * LP]))
    np.testing.assert_allclose(mg.vmap(loss)(batch).numpy(),
                               np.stack([loss(b).numpy() for b in batch]), rtol=1e-12)  # fmt: skip
    # forward mode equals <gradient, tangent>, and jit replays the loss
    v = mg.tensor(np.random.default_rng(2).standard_normal(LP.shape))
    _, tangent = mg.jvp(lambda x: loss(x).sum(), (lp,), (v,))
    (grad,) = mg.grad(lambda x: loss(x).sum(), argnums=(0,))(lp)
    assert tangent.item() == pytest.approx(float((grad.numpy() * v.numpy()).sum()), rel=1e-10)
    np.testing.assert_allclose(mg.jit(loss)(lp).numpy(), loss(lp).numpy(), rtol=1e-12)
    # like PyTorch, no second derivative
    x = mg.tensor(LP, requires_grad=True)
    (g,) = mg.autograd.grad(loss(x).sum(), [x], create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not"):
        mg.autograd.grad(g.sum(), [x])


def test_out_of_range_targets_are_refused():
    """PyTorch reads outside log_probs for them (undefined values); minigrad refuses."""
    with pytest.raises(IndexError, match="target 7 is out of bounds"):
        F.ctc_loss(mg.tensor(LP), mg.tensor([1, 7, 1, 1]), [4, 4], [2, 2])


# -- rrelu, gumbel_softmax -----------------------------------------------------------------
EDGES = np.array([-2.0, -0.0, 0.0, 3.0, np.nan, -np.inf, np.inf])


@pytest.mark.parametrize("training", [False, True])
def test_rrelu_edges_and_slopes(training):
    mg.manual_seed(3)
    x = mg.tensor(EDGES, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=training)
    (g,) = mg.autograd.grad(y.sum(), [x])
    t = torch.tensor(EDGES, requires_grad=True)
    if training:  # the same draws, rebuilt
        mg.manual_seed(3)
        slope = (0.3 - 0.1) * mg.rand(len(EDGES), dtype=mg.float64).numpy() + 0.1
        ref = torch.where(t <= 0, t * torch.tensor(slope), t)
    else:
        ref = TF.rrelu(t, 0.1, 0.3, training=False)
    (rg,) = torch.autograd.grad(ref.sum(), t)
    np.testing.assert_array_equal(y.detach().numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(np.signbit(y.detach().numpy()), np.signbit(ref.detach().numpy()))
    np.testing.assert_array_equal(g.numpy(), rg.numpy())


def test_rrelu_in_place_and_errors():
    x = mg.tensor([-1.0, 2.0])
    assert mg.rrelu_(x, 0.1, 0.3) is x and x.tolist() == pytest.approx([-0.2, 2.0])
    leaf = mg.tensor([-1.0], requires_grad=True)
    for ours, theirs in (
        (lambda: F.rrelu(leaf, 0.1, 0.3, True, True),
         lambda: TF.rrelu(torch.tensor([-1.0], requires_grad=True), 0.1, 0.3, True, True)),
        (lambda: F.rrelu(mg.tensor([1.0]), 0.3, 0.1),
         lambda: TF.rrelu(torch.tensor([1.0]), 0.3, 0.1)),
        (lambda: F.rrelu(mg.tensor([1]), training=True),
         lambda: TF.rrelu(torch.tensor([1]), training=True)),
        (lambda: F.rrelu(mg.tensor([1])), lambda: TF.rrelu(torch.tensor([1]))),
        (lambda: F.rrelu(2.0), lambda: TF.rrelu(2.0)),
    ):  # fmt: skip
        a, b = _both(ours, theirs)
        assert a == b
    assert repr(mg.nn.RReLU(0.1, 0.3, inplace=True)) == repr(torch.nn.RReLU(0.1, 0.3, True))


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_rebuilt_draws(hard):
    logits = np.array([[1.0, 2.0, 0.5], [0.0, 0.0, 0.0]])
    mg.manual_seed(5)
    x = mg.tensor(logits, requires_grad=True)
    y = F.gumbel_softmax(x, tau=0.5, hard=hard)
    mg.manual_seed(5)
    noise = mg.empty(*logits.shape, dtype=mg.float64).exponential_().numpy()
    t = torch.tensor(logits, requires_grad=True)
    soft = ((t - torch.tensor(noise).log()) / 0.5).softmax(-1)
    ref = soft
    if hard:
        index = soft.max(-1, keepdim=True)[1]
        ref = torch.zeros_like(t).scatter_(-1, index, 1.0) - soft.detach() + soft
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    w = torch.tensor([[1.0, -2.0, 0.5], [3.0, 0.0, 1.0]])
    (g,) = mg.autograd.grad((y * mg.tensor(w.numpy())).sum(), [x])
    (rg,) = torch.autograd.grad((ref * w).sum(), t)
    np.testing.assert_allclose(g.numpy(), rg.numpy(), rtol=1e-10, atol=1e-14)


def test_gumbel_softmax_edges():
    assert F.gumbel_softmax(mg.tensor(1.0), hard=True).item() == 1.0
    assert F.gumbel_softmax(mg.zeros(0, 2), hard=True).shape == (0, 2)
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(mg.tensor([1.0, 2.0]), eps=1e-5)
    for ours, theirs in (
        (lambda: F.gumbel_softmax(mg.tensor([1, 2])), lambda: TF.gumbel_softmax(
            torch.tensor([1, 2]))),
        (lambda: F.gumbel_softmax(mg.tensor([1.0]), dim=3), lambda: TF.gumbel_softmax(
            torch.tensor([1.0]), dim=3)),
        (lambda: F.gumbel_softmax(mg.zeros(2, 0), hard=True), lambda: TF.gumbel_softmax(
            torch.zeros(2, 0), hard=True)),
    ):  # fmt: skip
        a, b = _both(ours, theirs)
        assert a == b


def test_vmap_over_targets_is_refused_clearly():
    with pytest.raises(RuntimeError, match="vmap: ctc_loss reads its targets"):
        mg.vmap(lambda t: F.ctc_loss(mg.tensor(LP), t, [4, 4], [2, 2]))(
            mg.tensor([[[1, 2], [1, 1]], [[2, 2], [1, 2]]])
        )
