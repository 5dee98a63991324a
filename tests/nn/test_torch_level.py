"""The nn functions at PyTorch's top level (``torch.conv2d``, ``torch.batch_norm``, ...):
torch's own signatures, values and gradients (nn/torch_level.py, mg's aliases)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

RNG = np.random.default_rng(0)


def _r(*shape, low=None):
    x = RNG.standard_normal(shape)
    return np.abs(x) + 0.1 if low == "positive" else x


def _sign(*shape):
    return np.where(RNG.standard_normal(shape) < 0, -1.0, 1.0)


def _idx(*shape, high=4):
    return RNG.integers(0, high, shape)


class In(int):
    """In a case's arguments: the input of this number (for signatures that mix them)."""


# (name, inputs (float arrays get gradients; integer arrays are indices), other arguments)
CASES = [
    ("conv1d", [_r(2, 4, 5), _r(6, 2, 3), _r(6)], (1, 1, 1, 2)),
    ("conv2d", [_r(1, 2, 4, 4), _r(3, 2, 2, 2)], (None, 2, 1)),
    ("conv3d", [_r(1, 1, 3, 3, 3), _r(2, 1, 2, 2, 2)], ()),
    ("conv_transpose1d", [_r(1, 2, 4), _r(2, 3, 3)], (None, 2, 1, 1)),
    ("conv_transpose2d", [_r(1, 2, 3, 3), _r(2, 1, 2, 2)], ()),
    ("conv_transpose3d", [_r(1, 1, 2, 2, 2), _r(1, 2, 2, 2, 2)], ()),
    ("softmax", [_r(2, 3)], (0,)),
    ("log_softmax", [_r(2, 3)], (1,)),
    ("embedding", [_r(5, 3), _idx(2, 3, high=5)], (-1,)),
    ("embedding", [_r(5, 3), _idx(2, 3, high=5)], (2,)),
    ("layer_norm", [_r(2, 3, 4), _r(3, 4), _r(3, 4)], (In(0), (3, 4), In(1), In(2), 1e-3, True)),
    ("group_norm", [_r(2, 4, 3), _r(4), _r(4)], (In(0), 2, In(1), In(2), 1e-4, False)),
    ("rms_norm", [_r(2, 3), _r(3)], (In(0), (3,), In(1), 1e-3)),
    ("pixel_shuffle", [_r(1, 4, 2, 3)], (2,)),
    ("pixel_unshuffle", [_r(1, 1, 4, 6)], (2,)),
    ("channel_shuffle", [_r(1, 4, 2)], (2,)),
    ("native_channel_shuffle", [_r(1, 6, 2)], (3,)),
    ("prelu", [_r(2, 3, 4), _r(3)], ()),
    ("selu", [_r(3, 4)], ()),
    ("celu", [_r(3, 4)], (0.5,)),
    ("threshold", [_r(3, 4)], (0.1, -2.0)),
    ("hardshrink", [_r(3, 4)], (0.3,)),
    ("bilinear", [_r(2, 3), _r(2, 4), _r(5, 3, 4), _r(5)], ()),
    ("pdist", [_r(4, 3)], (1.5,)),
    ("cosine_similarity", [_r(3, 4), _r(3, 4)], (0, 1e-6)),
    ("pairwise_distance", [_r(3, 4), _r(3, 4)], (3.0, 1e-6, True)),
    ("kl_div", [_r(3, 4), _r(3, 4, low="positive")], (2,)),
    ("kl_div", [_r(3, 4), _r(3, 4)], (0,), {"log_target": True}),
    ("margin_ranking_loss", [_r(5), _r(5), _sign(5)], (0.2, 2), {}, {2}),
    ("triplet_margin_loss", [_r(3, 4), _r(3, 4), _r(3, 4)], (0.5, 1.0, 1e-6, True, 0)),
    ("cosine_embedding_loss", [_r(3, 4), _r(3, 4), _sign(3)], (0.1, 1), {}, {2}),
    ("hinge_embedding_loss", [_r(3, 4), _sign(3, 4)], (0.5, 3), {}, {1}),
    ("poisson_nll_loss", [_r(3, 4), _r(3, 4, low="positive")], (True, True, 1e-8, 1)),
    ("binary_cross_entropy_with_logits", [_r(3, 4), _r(3, 4, low="positive") / 3], (None,)),
    ("binary_cross_entropy_with_logits", [_r(3, 4), _r(3, 4) ** 2, _r(4), _r(4)], (2,), {}, {2, 3}),
    ("adaptive_avg_pool1d", [_r(1, 2, 7)], (3,)),
    ("adaptive_max_pool1d", [_r(1, 2, 7)], (3,)),
    ("avg_pool1d", [_r(1, 2, 7)], (3, [], 1, True, False)),
    ("max_pool1d", [_r(1, 2, 7)], (3, [], 1, 1, True)),
    ("max_pool2d", [_r(1, 1, 5, 5)], (2, 1)),
    ("max_pool3d", [_r(1, 1, 4, 4, 4)], (2,)),
    ("affine_grid_generator", [_r(2, 2, 3)], ((2, 1, 3, 4), False)),
    ("grid_sampler", [_r(1, 2, 4, 4), _r(1, 3, 3, 2) * 0.9], (0, 1, True)),
    ("grid_sampler_2d", [_r(1, 2, 4, 4), _r(1, 3, 3, 2) * 0.9], (1, 0, False)),
    ("grid_sampler_3d", [_r(1, 1, 3, 3, 3), _r(1, 2, 2, 2, 3) * 0.9], (0, 2, False)),
]


def _tensors(arrays, fixed):
    wanted = [a.dtype.kind == "f" and i not in fixed for i, a in enumerate(arrays)]
    ours = [mg.tensor(a, requires_grad=w) for a, w in zip(arrays, wanted)]
    theirs = [torch.tensor(a, requires_grad=w) for a, w in zip(arrays, wanted)]
    return ours, theirs


def _outputs(result):
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(case):
    name, arrays, args, *rest = case
    kwargs = rest[0] if rest else {}
    ours, theirs = _tensors(arrays, rest[1] if len(rest) > 1 else set())
    if name == "embedding":  # (weight, indices): the indices are no input to differentiate
        ours[1], theirs[1] = mg.tensor(arrays[1]), torch.tensor(arrays[1])
    if any(isinstance(a, In) for a in args):
        mine = [ours[a] if isinstance(a, In) else a for a in args]
        other = [theirs[a] if isinstance(a, In) else a for a in args]
    else:
        mine, other = [*ours, *args], [*theirs, *args]
    got = _outputs(getattr(mg, name)(*mine, **kwargs))
    # torch's native_channel_shuffle has no derivative: its gradient is channel_shuffle's
    oracle = "channel_shuffle" if name == "native_channel_shuffle" else name
    want = _outputs(getattr(torch, oracle)(*other, **kwargs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape) and np.dtype(g.dtype).name == str(w.dtype)[6:]
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-9, atol=1e-12)
    cotangent = RNG.standard_normal(tuple(want[0].shape))
    (got[0] * mg.tensor(cotangent)).sum().backward()
    (want[0] * torch.tensor(cotangent)).sum().backward()
    for x, t in zip(ours, theirs):
        if t.requires_grad:
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_batch_and_instance_norm_take_the_affine_parameters_first():
    x, w, b = _r(3, 2, 4), _r(2), _r(2)
    for training in (True, False):
        rm, rv = _r(2), _r(2, low="positive")
        ours_stats = [mg.tensor(rm), mg.tensor(rv)]
        theirs_stats = [torch.tensor(rm), torch.tensor(rv)]
        got = mg.batch_norm(mg.tensor(x), mg.tensor(w), mg.tensor(b), *ours_stats, training,
                            0.2, 1e-5, True)  # fmt: skip
        want = torch.batch_norm(torch.tensor(x), torch.tensor(w), torch.tensor(b), *theirs_stats,
                                training, 0.2, 1e-5, True)  # fmt: skip
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9)
        for ours, theirs in zip(ours_stats, theirs_stats):  # running statistics updated alike
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9)
    got = mg.instance_norm(mg.tensor(x), mg.tensor(w), mg.tensor(b), None, None, True, 0.1,
                           1e-5, False)  # fmt: skip
    want = torch.instance_norm(torch.tensor(x), torch.tensor(w), torch.tensor(b), None, None,
                               True, 0.1, 1e-5, False)  # fmt: skip
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        mg.batch_norm(mg.tensor(x), None, None, None, None, False, 0.1, 1e-5, True)


def _raises_like(ours, theirs, words=True):
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(type(expected.value)) as got:
        ours()
    if words:
        assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]


def test_top_level_signatures_and_errors_are_torchs():
    x = mg.zeros(2, 3)
    t = torch.zeros(2, 3)
    # a missing argument: Python's TypeError (torch's words differ: "arguments", quotes)
    _raises_like(lambda: mg.softmax(x), lambda: torch.softmax(t), words=False)
    _raises_like(lambda: mg.dropout(x, 1.5, True), lambda: torch.dropout(t, 1.5, True))
    _raises_like(lambda: mg.alpha_dropout(x, -1, False), lambda: torch.alpha_dropout(t, -1, False))
    _raises_like(lambda: mg.dropout(x, 0.5), lambda: torch.dropout(t, 0.5), words=False)
    _raises_like(lambda: mg.selu(x, True), lambda: torch.selu(t, True))
    _raises_like(
        lambda: mg.feature_dropout(mg.ones(3), 0.5, True),
        lambda: torch.feature_dropout(torch.ones(3), 0.5, True),
    )
    _raises_like(
        lambda: mg.margin_ranking_loss(x, x, x, 0.0, "mean"),
        lambda: torch.margin_ranking_loss(t, t, t, 0.0, "mean"),
    )
    _raises_like(
        lambda: mg.grid_sampler_2d(mg.zeros(1, 1, 2, 2, 2), mg.zeros(1, 1, 1, 1, 3), 0, 0, False),
        lambda: torch.grid_sampler_2d(
            torch.zeros(1, 1, 2, 2, 2), torch.zeros(1, 1, 1, 1, 3), 0, 0, False
        ),
    )
    # a reduction number other than 0, 1, 2 leaves the losses unreduced, as PyTorch's kernels
    a, b = _r(2, 3), _r(2, 3)
    got = mg.kl_div(mg.tensor(a), mg.tensor(b), 7)
    np.testing.assert_allclose(got.numpy(), torch.kl_div(torch.tensor(a), torch.tensor(b), 7))
    # and the default is 0 (unreduced), as torch's Python binding reads its schema's default
    for name, args in (
        ("kl_div", (a, b)),
        ("hinge_embedding_loss", (a, np.sign(b))),
        ("margin_ranking_loss", (a, b, np.sign(b))),
        ("triplet_margin_loss", (a, b, a)),
        ("cosine_embedding_loss", (a, b, np.sign(b[:, 0]))),
        ("binary_cross_entropy_with_logits", (a, b)),
    ):
        got = getattr(mg, name)(*[mg.tensor(v) for v in args])
        want = getattr(torch, name)(*[torch.tensor(v) for v in args])
        assert got.shape == tuple(want.shape), name


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_dropout",
                                  "feature_alpha_dropout"])  # fmt: skip
def test_dropouts_keep_or_drop_as_torch_and_write_in_place(name):
    x = mg.tensor(_r(4, 6, 5))
    assert getattr(mg, name)(x, 0.5, False) is x  # not training: the input itself
    assert getattr(mg, name)(x, 0.0, True) is x
    mg.manual_seed(0)
    y = getattr(mg, name)(x, 0.4, True)
    drawn = getattr(mg, name + "_")(x.clone(), 0.4, True)
    assert y.shape == x.shape and drawn.shape == x.shape
    if name.startswith("feature"):  # one draw per (example, channel): a dropped one is constant
        dropped = np.ptp(y.numpy(), axis=2) == 0
        assert dropped.any() and not dropped.all()
        if name == "feature_dropout":
            assert np.all(y.numpy()[dropped] == 0)
    if name == "dropout":
        kept = y.numpy() != 0
        np.testing.assert_allclose(y.numpy()[kept] / x.numpy()[kept], 1 / 0.6)
        assert 0 < kept.mean() < 1
    z = x.clone()
    mg.manual_seed(0)
    out = getattr(mg, name + "_")(z, 0.4, True)
    assert out is z and np.array_equal(z.numpy(), y.numpy())


def test_in_place_activations_change_their_input():
    for name, args in (("selu_", ()), ("celu_", (0.7,)), ("threshold_", (0.0, 5.0))):
        a = _r(3, 4)
        z = mg.tensor(a)
        assert getattr(mg, name)(z, *args) is z
        np.testing.assert_allclose(z.numpy(), getattr(torch, name)(torch.tensor(a), *args))
