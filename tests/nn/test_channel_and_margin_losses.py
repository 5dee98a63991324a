"""The margin and likelihood losses, the channel layers and pdist against PyTorch: refusals
(type and first line), the layers (values, gradients, repr, state), and the conventions the
correctness database cannot draw (integer hinge margins, pdist's ties under p = inf)."""

import numpy as np
import pytest
import torch

import minigrad as mg

F, TF = mg.nn.functional, torch.nn.functional
RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
LABELS = np.array([0, 3, 1])
LISTS = np.array([[0, 2, -1, 1], [3, -1, 0, 0], [1, 1, 2, 3]])


def _both(build):
    """``build(lib, functional, tensor)`` run with minigrad and with torch: (ours, theirs)."""
    return build(mg, F, mg.tensor), build(torch, TF, torch.tensor)


def _x(t, dtype=None):
    return t(X if dtype is None else X.astype(dtype))


REFUSALS = {
    "multi_margin p": lambda lib, f, t: f.multi_margin_loss(_x(t), t(LABELS), p=3),
    "multi_margin reduction": lambda lib, f, t: f.multi_margin_loss(_x(t), t(LABELS), reduction="x"),
    "multi_margin weight 2-D": lambda lib, f, t: f.multi_margin_loss(_x(t), t(LABELS), weight=t(np.ones((2, 2)))),
    "multi_margin label range": lambda lib, f, t: f.multi_margin_loss(_x(t), t([0, 4, 1])),
    "multi_margin negative label": lambda lib, f, t: f.multi_margin_loss(_x(t), t([0, -1, 1])),
    "multi_margin target size": lambda lib, f, t: f.multi_margin_loss(_x(t), t(LABELS[:2])),
    "multi_margin target dtype": lambda lib, f, t: f.multi_margin_loss(_x(t), t(LABELS.astype(float))),
    "multi_margin 3-D": lambda lib, f, t: f.multi_margin_loss(_x(t).unsqueeze(0), t(LABELS)),
    "multi_margin no classes": lambda lib, f, t: f.multi_margin_loss(t(np.zeros((2, 0))), t([0, 0])),
    "multi_margin weight size": lambda lib, f, t: f.multi_margin_loss(_x(t), t(LABELS), weight=t(np.ones(3))),
    "multi_margin weight grad": lambda lib, f, t: f.multi_margin_loss(_x(t), t(LABELS), weight=t(np.ones(4), requires_grad=True)),
    "soft_margin target grad": lambda lib, f, t: f.soft_margin_loss(_x(t), t(np.sign(X), requires_grad=True)),
    "multi_margin integer scores": lambda lib, f, t: f.multi_margin_loss(t(LABELS.reshape(3, 1) * 0), t([0, 0, 0])),
    "multilabel target size": lambda lib, f, t: f.multilabel_margin_loss(_x(t), t(LISTS[:2])),
    "multilabel target range": lambda lib, f, t: f.multilabel_margin_loss(_x(t), t(LISTS * 0 + 9)),
    "multilabel below -1": lambda lib, f, t: f.multilabel_margin_loss(_x(t), t(LISTS * 0 - 2)),
    "multilabel target dtype": lambda lib, f, t: f.multilabel_margin_loss(_x(t), t(LISTS.astype(np.int32))),
    "multilabel_soft reduction": lambda lib, f, t: f.multilabel_soft_margin_loss(_x(t), _x(t), reduction="x"),
    "soft_margin integer": lambda lib, f, t: f.soft_margin_loss(t(LISTS), t(LISTS)),
    "soft_margin shapes": lambda lib, f, t: f.soft_margin_loss(_x(t), t(np.ones(5))),
    "hinge bool": lambda lib, f, t: f.hinge_embedding_loss(t(LISTS > 0), t(LISTS)),
    "poisson reduction": lambda lib, f, t: f.poisson_nll_loss(_x(t), _x(t), reduction="x"),
    "gaussian negative var": lambda lib, f, t: f.gaussian_nll_loss(_x(t), _x(t), -1.0),
    "gaussian negative var tensor": lambda lib, f, t: f.gaussian_nll_loss(_x(t), _x(t), t(-np.ones(4))),
    "gaussian var size": lambda lib, f, t: f.gaussian_nll_loss(_x(t), _x(t), t(np.ones(4))),
    "gaussian int var": lambda lib, f, t: f.gaussian_nll_loss(_x(t), _x(t), 1),
    "gaussian reduction": lambda lib, f, t: f.gaussian_nll_loss(_x(t), _x(t), 1.0, reduction="x"),
    "triplet margin": lambda lib, f, t: f.triplet_margin_with_distance_loss(_x(t), _x(t), _x(t), margin=0.0),
    "triplet ranks": lambda lib, f, t: f.triplet_margin_with_distance_loss(_x(t), _x(t)[0], _x(t)),
    "pdist p": lambda lib, f, t: f.pdist(_x(t), -1.0),
    "pdist 1-D": lambda lib, f, t: f.pdist(_x(t)[0]),
    "pdist integer": lambda lib, f, t: f.pdist(t(LISTS)),
    "channel_shuffle 2-D": lambda lib, f, t: f.channel_shuffle(_x(t), 2),
    "channel_shuffle divisible": lambda lib, f, t: f.channel_shuffle(t(np.ones((1, 3, 2))), 2),
    "channel_shuffle groups": lambda lib, f, t: f.channel_shuffle(t(np.ones((1, 4, 2))), 0),
    "channel_shuffle float groups": lambda lib, f, t: f.channel_shuffle(t(np.ones((1, 4, 2))), 2.0),
    "prelu dtypes": lambda lib, f, t: f.prelu(_x(t), t(np.ones(1, np.float32))),
    "prelu channels": lambda lib, f, t: f.prelu(_x(t), t(np.ones(3))),
    "prelu 2-D weight": lambda lib, f, t: f.prelu(_x(t), t(np.ones((2, 2)))),
    "prelu 0-d input": lambda lib, f, t: f.prelu(_x(t)[0, 0], t(np.ones(4))),
    "prelu integer": lambda lib, f, t: f.prelu(t(LISTS), t([1])),
    "prelu float weight": lambda lib, f, t: f.prelu(_x(t), 0.25),
    "local_response_norm 2-D": lambda lib, f, t: f.local_response_norm(_x(t), 2),
    "bag offsets start": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([1, 2])),
    "bag offsets past the end": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([0, 7])),
    "bag float ids": lambda lib, f, t: f.embedding_bag(t(IDS.astype(float)), _x(t), t([0, 2])),
    "bag float offsets": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([0.0, 2.0])),
    "bag id range": lambda lib, f, t: f.embedding_bag(t([0, 5]), _x(t), t([0])),
    "bag negative id": lambda lib, f, t: f.embedding_bag(t([0, -1]), _x(t), t([0])),
    "bag mode": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([0, 2]), mode="min"),
    "bag weights for a mean": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([0, 2]), per_sample_weights=t(np.ones(5))),
    "bag weights' shape": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([0, 2]), mode="sum", per_sample_weights=t(np.ones(4))),
    "bag weights' dtype": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([0, 2]), mode="sum", per_sample_weights=t(np.ones(5, np.float32))),
    "bag padding_idx": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([0, 2]), padding_idx=3),
    "bag 2-D with offsets": lambda lib, f, t: f.embedding_bag(t(IDS.reshape(1, 5)), _x(t), t([0])),
    "bag 3-D": lambda lib, f, t: f.embedding_bag(t(IDS.reshape(1, 5, 1)), _x(t)),
    "bag no offsets": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t)),
    "bag 2-D offsets": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([[0, 2]])),
    "bag 1-D table": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t)[0], t([0, 2])),
    "bag integer table": lambda lib, f, t: f.embedding_bag(t(IDS), t(LISTS), t([0, 2])),
    "bag max by frequency": lambda lib, f, t: f.embedding_bag(t(IDS), _x(t), t([0, 2]), mode="max", scale_grad_by_freq=True),
    "bag no columns": lambda lib, f, t: f.embedding_bag(t(np.zeros((2, 0), np.int64)), _x(t)),
    "grid mode": lambda lib, f, t: f.grid_sample(t(IMAGE), t(POINTS), mode="area", align_corners=False),
    "grid padding": lambda lib, f, t: f.grid_sample(t(IMAGE), t(POINTS), padding_mode="wrap", align_corners=False),
    "grid dtypes": lambda lib, f, t: f.grid_sample(t(IMAGE), t(POINTS.astype(np.float32)), align_corners=False),
    "grid ranks": lambda lib, f, t: f.grid_sample(t(IMAGE), t(POINTS[0]), align_corners=False),
    "grid batch": lambda lib, f, t: f.grid_sample(t(IMAGE), t(np.concatenate([POINTS, POINTS])), align_corners=False),
    "grid last axis": lambda lib, f, t: f.grid_sample(t(IMAGE), t(POINTS[..., :1]), align_corners=False),
    "grid empty image": lambda lib, f, t: f.grid_sample(t(IMAGE[:, :, :0]), t(POINTS), align_corners=False),
    "grid 3-D grid for an image": lambda lib, f, t: f.grid_sample(t(IMAGE), t(np.zeros((1, 2, 2, 2, 2))), align_corners=False),
    "grid integer image": lambda lib, f, t: f.grid_sample(t(IMAGE.astype(np.int64)), t(POINTS.astype(np.int64)), align_corners=False),
    "grid integer volume": lambda lib, f, t: f.grid_sample(t(np.zeros((1, 1, 2, 2, 2), np.int64)), t(np.zeros((1, 1, 1, 1, 3), np.int64)), align_corners=False),
    "grid 1-D image": lambda lib, f, t: f.grid_sample(t(np.zeros((1, 1, 2))), t(np.zeros((1, 1, 1))), align_corners=False),
    "grid bicubic 3-D": lambda lib, f, t: f.grid_sample(t(IMAGE[..., None]), t(np.zeros((1, 1, 1, 1, 3))), mode="bicubic", align_corners=False),
    "affine integer theta": lambda lib, f, t: f.affine_grid(t(np.zeros((1, 2, 3), np.int64)), [1, 1, 2, 2], align_corners=False),
    "affine theta shape": lambda lib, f, t: f.affine_grid(t(np.zeros((1, 3, 3))), [1, 1, 2, 2], align_corners=False),
    "affine 3-D theta shape": lambda lib, f, t: f.affine_grid(t(np.zeros((1, 2, 3))), [1, 1, 2, 2, 2], align_corners=False),
    "affine size": lambda lib, f, t: f.affine_grid(t(np.zeros((1, 2, 3))), [1, 2, 2], align_corners=False),
    "affine empty size": lambda lib, f, t: f.affine_grid(t(np.zeros((1, 2, 3))), [1, 1, 0, 2], align_corners=False),
}  # fmt: skip
IDS = np.array([0, 2, 1, 2, 2])
IMAGE = RNG.standard_normal((1, 2, 3, 4))
POINTS = RNG.uniform(-1, 1, size=(1, 2, 2, 2))


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_are_torchs(name):
    outcomes = []
    for lib, f, t in ((mg, F, mg.tensor), (torch, TF, torch.tensor)):
        with pytest.raises(Exception) as caught:
            REFUSALS[name](lib, f, t)
        outcomes.append((type(caught.value), str(caught.value).split("\n")[0]))
    (ours, our_line), (theirs, their_line) = outcomes
    # (a message that names the argument's class names minigrad's)
    their_line = their_line.replace("<class 'torch.Tensor'>", str(mg.Tensor))
    assert issubclass(ours, theirs) and our_line == their_line


def test_an_integer_hinge_truncates_its_margin_as_torch():
    x, y = np.array([-2, 0, 1, 3]), np.array([-1, -1, 1, 0])
    for margin in (1.5, 2.7, -0.5):
        ours, theirs = _both(lambda lib, f, t, m=margin: f.hinge_embedding_loss(
            t(x), t(y), margin=m, reduction="none"))  # fmt: skip
        assert ours.dtype == mg.int64 and ours.tolist() == theirs.tolist()


def test_pdist_gives_every_tied_element_of_an_inf_norm_the_whole_slope():
    x = np.array([[0.0, 0.0], [1.0, -1.0], [0.5, 2.0]])
    grads = []
    for f, t in ((F, mg.tensor), (TF, torch.tensor)):
        xs = t(x, requires_grad=True)
        f.pdist(xs, float("inf")).sum().backward()
        grads.append(np.asarray(xs.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1])
    assert grads[0][0].tolist() == [-1.0, 0.0]  # row 0 - row 1 = (-1, 1): both tied at 1


def _module_pair(name, *args, **kwargs):
    ours = {k: mg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    theirs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    return getattr(mg.nn, name)(*args, **ours), getattr(torch.nn, name)(*args, **theirs)


LAYERS = [
    ("SoftMarginLoss", {}, lambda t: (_x(t), t(np.sign(X).astype(np.float32)))),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5}, lambda t: (_x(t), t(LABELS))),
    ("MultiLabelMarginLoss", {"reduction": "sum"}, lambda t: (_x(t), t(LISTS))),
    ("MultiLabelSoftMarginLoss", {}, lambda t: (_x(t), t((X > 0).astype(float)))),
    ("HingeEmbeddingLoss", {"margin": 0.5}, lambda t: (_x(t), t(np.sign(X)))),
    ("PoissonNLLLoss", {"log_input": False, "full": True}, lambda t: (t(np.abs(X)), t(3 * np.abs(X)))),
    ("GaussianNLLLoss", {"full": True}, lambda t: (_x(t), t(X[::-1].copy()), t(np.abs(X) + 0.1))),
    ("TripletMarginWithDistanceLoss", {"swap": True}, lambda t: (_x(t), t(X[::-1].copy()), t(X ** 2))),
    ("PReLU", {"num_parameters": 4, "init": 0.1}, lambda t: (_x(t).reshape(3, 4, 1),)),
    ("LocalResponseNorm", {"size": 3, "alpha": 0.5}, lambda t: (_x(t).reshape(1, 3, 4),)),
    ("ChannelShuffle", {"groups": 2}, lambda t: (_x(t).reshape(1, 4, 3),)),
    ("EmbeddingBag", {"num_embeddings": 3, "embedding_dim": 4, "mode": "max", "padding_idx": -1,
                      "_weight": X}, lambda t: (t(IDS), t([0, 1, 1]))),
    ("EmbeddingBag", {"num_embeddings": 3, "embedding_dim": 4, "mode": "sum", "_weight": X},
     lambda t: (t(IDS.reshape(1, 5)), None, _x(t)[0, :].repeat(2)[:5].reshape(1, 5))),
]  # fmt: skip


@pytest.mark.parametrize(("name", "settings", "data"), LAYERS, ids=lambda v: str(v)[:30])
def test_a_layer_is_torchs_in_value_gradient_repr_and_state(name, settings, data):
    ours, theirs = _module_pair(name, **settings)
    assert repr(ours) == repr(theirs)
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    args = [[a.requires_grad_() if a is not None and a.dtype == dtype else a for a in data(t)]
            for t, dtype in ((mg.tensor, mg.float64), (torch.tensor, torch.float64))]  # fmt: skip
    ours, theirs = ours.double(), theirs.double()
    out, want = ours(*args[0]), theirs(*args[1])
    np.testing.assert_allclose(np.asarray(out.tolist()), np.asarray(want.tolist()), rtol=1e-6)
    out.sum().backward()
    want.sum().backward()
    learned = [(p, q) for p, q in zip(ours.parameters(), theirs.parameters())]
    for a, b in [*zip(args[0], args[1]), *learned]:
        if b is not None and b.grad is not None:
            np.testing.assert_allclose(np.asarray(a.grad.tolist()), b.grad.numpy(), rtol=1e-6)


def test_the_layers_refuse_as_torch():
    for build in (lambda nn: nn.MultiMarginLoss(p=3),
                  lambda nn: nn.MultiMarginLoss(weight=(mg if nn is mg.nn else torch).ones(2, 2)),
                  lambda nn: nn.TripletMarginWithDistanceLoss(margin=-1.0)):  # fmt: skip
        lines = []
        for nn in (mg.nn, torch.nn):
            with pytest.raises(ValueError) as caught:
                build(nn)
            lines.append(str(caught.value).split("\n")[0])
        assert lines[0] == lines[1]


def test_a_bag_scales_by_each_rows_own_frequency_where_torchs_cpu_kernel_does_not():
    """Row 2 is read once, row 3 twice, row 1 three times: their slopes are 1/1, 2/2 and
    3/3 (PyTorch's documented rule, and its ``embedding``'s). torch 2.13's CPU embedding_bag
    divides the k-th distinct id's slopes by the count of the k-th smallest id instead."""
    ids = [[2, 1, 1, 1, 3, 3]]
    grads = []
    for f, t in ((F, mg.tensor), (TF, torch.tensor)):
        w = t(np.ones((5, 1)), requires_grad=True)
        f.embedding_bag(t(ids), w, mode="sum", scale_grad_by_freq=True).sum().backward()
        grads.append(np.asarray(w.grad.tolist()).ravel().tolist())
    assert grads[0] == [0.0, 1.0, 1.0, 1.0, 0.0]
    reference = torch.ones(5, 1, dtype=torch.float64, requires_grad=True)
    TF.embedding(torch.tensor(ids), reference, scale_grad_by_freq=True).sum().backward()
    assert reference.grad.ravel().tolist() == grads[0]
    assert grads[1] == [0.0, 1.0, 1 / 3, 2 / 3, 0.0]  # torch's CPU bag kernel (differs)


def test_an_embedding_bag_layer_from_a_table():
    table = mg.tensor(X)
    bag = mg.nn.EmbeddingBag.from_pretrained(table, mode="sum")
    assert not bag.weight.requires_grad and repr(bag) == "EmbeddingBag(3, 4, mode='sum')"
    assert bag(mg.tensor([[0, 2]])).tolist() == [(X[0] + X[2]).tolist()]
    fresh = mg.nn.EmbeddingBag(5, 2, padding_idx=1)
    assert fresh.weight.shape == (5, 2) and fresh.weight[1].tolist() == [0.0, 0.0]
