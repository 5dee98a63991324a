"""The nn.functional compositions of issue 22 and their layers: errors and modules as PyTorch's.

Values and derivatives on random inputs are the correctness database's
(tests/opdb/nn_compositions.py); here: argument errors, the layers, and the
few places where the database's reference is a formula instead of torch's kernel.
"""

import re
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

F = mg.nn.functional
TF = torch.nn.functional


def test_hardsigmoid_equals_torchs_kernel_up_to_its_float32_slope():
    x = np.array([-4.0, -3.0, -1.0, 0.0, 2.5, 3.0, 5.0, np.nan, np.inf, -np.inf])
    ours = mg.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    y, yt = F.hardsigmoid(ours), TF.hardsigmoid(theirs)
    np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
    y.sum().backward()
    yt.sum().backward()
    # torch's float64 kernel multiplies by 1/6 rounded to float32
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-7)


def test_hardswish_slopes_at_its_kinks_are_torchs():
    x = mg.tensor([-3.0, 3.0, -np.inf, np.inf], dtype=mg.float64, requires_grad=True)
    t = torch.tensor([-3.0, 3.0, -np.inf, np.inf], dtype=torch.float64, requires_grad=True)
    F.hardswish(x).sum().backward()
    TF.hardswish(t).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


def test_cosine_embedding_loss_of_a_zero_vector_is_finite_as_torchs():
    a, b = np.zeros((2, 3)), np.ones((2, 3))
    target = np.array([1, -1])
    ours = F.cosine_embedding_loss(mg.tensor(a), mg.tensor(b), mg.tensor(target), reduction="none")
    theirs = TF.cosine_embedding_loss(torch.tensor(a), torch.tensor(b), torch.tensor(target),
                                      reduction="none")  # fmt: skip
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def same_error(ours, theirs, error=RuntimeError):
    """Both calls raise ``error`` with the same first line (shapes written as tuples)."""
    with pytest.raises(error) as mine:
        ours()
    with pytest.raises(error) as reference:
        theirs()
    expected = re.sub(r"torch\.Size\((\[[\d, ]*\])\)", lambda m: str(tuple(eval(m[1]))),
                      str(reference.value).splitlines()[0])  # fmt: skip
    assert str(mine.value).splitlines()[0].strip() == expected.strip()


def test_argument_errors_are_torchs():
    same_error(lambda: F.glu(mg.zeros(2, 3)), lambda: TF.glu(torch.zeros(2, 3)))
    same_error(lambda: F.glu(mg.tensor(1.0)), lambda: TF.glu(torch.tensor(1.0)))
    same_error(lambda: F.glu(mg.zeros(2), 1), lambda: TF.glu(torch.zeros(2), 1), IndexError)
    for ids, n, dtype in [([1.0], 3, "float32"), ([-1], 3, "int64"), ([3], 3, "int64"),
                          ([], -1, "int64")]:  # fmt: skip
        same_error(lambda ids=ids, n=n, d=dtype: F.one_hot(mg.tensor(ids, dtype=d), n),
                   lambda ids=ids, n=n, d=dtype: TF.one_hot(torch.tensor(ids, dtype=getattr(torch, d)), n))  # fmt: skip
    same_error(
        lambda: F.margin_ranking_loss(mg.zeros(3), mg.zeros(3), mg.zeros(1, 3)),
        lambda: TF.margin_ranking_loss(torch.zeros(3), torch.zeros(3), torch.zeros(1, 3)),
    )
    same_error(
        lambda: F.triplet_margin_loss(mg.zeros(2, 3), mg.zeros(3), mg.zeros(2, 3)),
        lambda: TF.triplet_margin_loss(torch.zeros(2, 3), torch.zeros(3), torch.zeros(2, 3)),
    )
    same_error(
        lambda: F.cosine_embedding_loss(mg.zeros(2, 3), mg.zeros(2, 3), mg.tensor(1)),
        lambda: TF.cosine_embedding_loss(torch.zeros(2, 3), torch.zeros(2, 3), torch.tensor(1)),
    )
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        F.celu(mg.zeros(2), alpha=0.0)
    with pytest.raises(RuntimeError, match="weight should be 1-D or 2-D"):
        F.linear(mg.zeros(2, 3), mg.zeros(1, 2, 3))
    with pytest.raises(RuntimeError, match="input sizes do not match"):
        F.bilinear(mg.zeros(2, 3), mg.zeros(2, 4), mg.zeros(5, 3, 3))
    with pytest.raises(NotImplementedError, match="mish"):
        F.mish(mg.arange(3))


@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_softmin_without_dim_warns_and_picks_torchs_axis(ndim):
    x = np.random.default_rng(ndim).standard_normal((2,) * ndim)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = F.softmin(mg.tensor(x))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        want = TF.softmin(torch.tensor(x))
    assert "Implicit dimension choice for softmin" in str(ours[0].message)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


LAYERS = [
    ("ReLU6", (), 1), ("Hardsigmoid", (), 1), ("Hardswish", (), 1), ("Mish", (), 1),
    ("SELU", (), 1), ("LogSigmoid", (), 1), ("Softsign", (), 1), ("CELU", (0.7,), 1),
    ("GLU", (0,), 1), ("Softmin", (1,), 1), ("CosineSimilarity", (0,), 2),
    ("PairwiseDistance", (1.0,), 2), ("MarginRankingLoss", (0.2,), 3),
    ("TripletMarginLoss", (0.5,), 3), ("CosineEmbeddingLoss", (0.1,), 3),
]  # fmt: skip


@pytest.mark.parametrize("name, args, inputs", LAYERS, ids=[n for n, _, _ in LAYERS])
def test_layers_equal_torchs(name, args, inputs):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((4, 6)) for _ in range(inputs)]
    if name in ("MarginRankingLoss",):
        arrays = [arrays[0][0], arrays[1][0], np.sign(arrays[2][0])]
    if name == "CosineEmbeddingLoss":
        arrays[2] = np.array([1, -1, 1, -1])
    ours = getattr(mg.nn, name)(*args)
    theirs = getattr(torch.nn, name)(*args)
    got = ours(*[mg.tensor(a) for a in arrays])
    want = theirs(*[torch.tensor(a) for a in arrays])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    if name not in ("LogSigmoid", "Softsign", "CosineSimilarity", "PairwiseDistance"):
        assert repr(ours) == repr(theirs)


def test_bilinear_layer_matches_torch_with_copied_weights():
    ours, theirs = mg.nn.Bilinear(2, 3, 4, dtype=mg.float64), torch.nn.Bilinear(2, 3, 4).double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x1, x2 = np.random.default_rng(1).standard_normal((2, 5, 2)), np.ones((5, 3))
    np.testing.assert_allclose(
        ours(mg.tensor(x1[0]), mg.tensor(x2)).detach().numpy(),
        theirs(torch.tensor(x1[0]), torch.tensor(x2)).detach().numpy(),
        rtol=1e-12,
    )
    assert repr(ours) == repr(theirs)
    bound = 1 / np.sqrt(2)
    assert (
        np.abs(ours.weight.detach().numpy()).max() <= bound
        and ours.weight.detach().numpy().std() > bound / 4
    )


# -- normalizations, pools, resampling, transposed convolutions ------------------------------------
def test_max_pool1d_indices_and_adaptive_max_pool2d_indices_are_torchs():
    x = np.random.default_rng(3).standard_normal((2, 3, 9))
    got = F.max_pool1d(mg.tensor(x), 3, 2, 1, return_indices=True)
    want = TF.max_pool1d(torch.tensor(x), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    y = np.random.default_rng(4).standard_normal((2, 5, 7))
    got = F.adaptive_max_pool2d(mg.tensor(y), (3, 4), return_indices=True)
    want = TF.adaptive_max_pool2d(torch.tensor(y), (3, 4), return_indices=True)
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    assert got[1].dtype == mg.int64


def test_grid_argument_errors_are_torchs():
    same_error(lambda: F.group_norm(mg.zeros(2, 3, 4), 2),
               lambda: TF.group_norm(torch.zeros(2, 3, 4), 2))  # fmt: skip
    same_error(lambda: F.pixel_shuffle(mg.zeros(1, 5, 2, 2), 2),
               lambda: TF.pixel_shuffle(torch.zeros(1, 5, 2, 2), 2))  # fmt: skip
    same_error(lambda: F.interpolate(mg.zeros(1, 1, 2, 2)),
               lambda: TF.interpolate(torch.zeros(1, 1, 2, 2)), ValueError)  # fmt: skip
    same_error(lambda: F.interpolate(mg.zeros(1, 1, 2, 2), size=3, scale_factor=2),
               lambda: TF.interpolate(torch.zeros(1, 1, 2, 2), size=3, scale_factor=2),
               ValueError)  # fmt: skip
    same_error(lambda: F.interpolate(mg.zeros(1, 1, 2), size=3, align_corners=True),
               lambda: TF.interpolate(torch.zeros(1, 1, 2), size=3, align_corners=True),
               ValueError)  # fmt: skip
    same_error(lambda: F.instance_norm(mg.zeros(2, 3, 1)),
               lambda: TF.instance_norm(torch.zeros(2, 3, 1)), ValueError)  # fmt: skip
    same_error(
        lambda: F.conv_transpose2d(mg.zeros(1, 2, 3, 3), mg.zeros(2, 1, 3, 3), stride=2,
                                   output_padding=2),
        lambda: TF.conv_transpose2d(torch.zeros(1, 2, 3, 3), torch.zeros(2, 1, 3, 3), stride=2,
                                    output_padding=2),
    )  # fmt: skip
    same_error(  # antialias is for 4-D input (bilinear, bicubic): 3-D linear is refused
        lambda: F.interpolate(mg.zeros(1, 1, 4), size=3, mode="linear", antialias=True),
        lambda: TF.interpolate(torch.zeros(1, 1, 4), size=3, mode="linear", antialias=True),
        ValueError,
    )


GRID_LAYERS = [
    ("GroupNorm", (2, 4), (2, 4, 3, 3)), ("InstanceNorm1d", (4,), (2, 4, 5)),
    ("InstanceNorm2d", (4,), (4, 3, 3)), ("RMSNorm", ((3, 3),), (2, 4, 3, 3)),
    ("MaxPool1d", (2,), (2, 4, 5)), ("AvgPool1d", (3, 2, 1), (2, 4, 5)),
    ("AdaptiveAvgPool1d", (3,), (2, 4, 5)), ("AdaptiveAvgPool2d", ((2, None),), (2, 4, 5, 5)),
    ("AdaptiveMaxPool2d", (2,), (2, 4, 5, 5)), ("Upsample", (None, 2.0, "bilinear"), (1, 2, 3, 3)),
    ("PixelShuffle", (2,), (1, 8, 2, 2)), ("PixelUnshuffle", (2,), (1, 2, 4, 4)),
    ("Unfold", ((2, 2),), (1, 2, 3, 3)), ("Fold", ((3, 3), 2), (1, 8, 4)),
]  # fmt: skip


@pytest.mark.parametrize("name, args, shape", GRID_LAYERS, ids=[n for n, _, _ in GRID_LAYERS])
def test_grid_layers_equal_torchs(name, args, shape):
    x = np.random.default_rng(5).standard_normal(shape)
    ours, theirs = getattr(mg.nn, name)(*args), getattr(torch.nn, name)(*args)
    for key, value in ours.state_dict().items():  # same (default) state, as float64
        assert tuple(value.shape) == tuple(theirs.state_dict()[key].shape)
    theirs.double()
    got, want = ours(mg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_instance_norm_running_statistics_move_as_torchs():
    ours = mg.nn.InstanceNorm1d(3, track_running_stats=True, dtype=mg.float64)
    theirs = torch.nn.InstanceNorm1d(3, track_running_stats=True).double()
    x = np.random.default_rng(6).standard_normal((4, 3, 5))
    ours(mg.tensor(x))
    theirs(torch.tensor(x))
    for key in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(ours.state_dict()[key].numpy(),
                                   theirs.state_dict()[key].numpy(), rtol=1e-12)  # fmt: skip
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(mg.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(),
                               rtol=1e-10)  # fmt: skip


@pytest.mark.parametrize("cls, shape", [("ConvTranspose1d", (2, 4, 5)),
                                        ("ConvTranspose2d", (2, 4, 3, 3))])  # fmt: skip
def test_conv_transpose_layers_match_torch_and_use_its_initial_bound(cls, shape):
    kwargs = dict(stride=2, padding=1, output_padding=1, groups=2, dilation=1)
    ours = getattr(mg.nn, cls)(4, 6, 3, dtype=mg.float64, **kwargs)
    theirs = getattr(torch.nn, cls)(4, 6, 3, **kwargs).double()
    assert repr(ours) == repr(theirs)
    assert ours.weight.shape == tuple(theirs.weight.shape)
    bound = 1 / np.sqrt(3 * 3 ** (len(shape) - 2))  # fan-in: C_out / groups * kernel
    assert (
        np.abs(ours.weight.detach().numpy()).max() <= bound
        and ours.weight.detach().numpy().std() > bound / 4
    )
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(7).standard_normal(shape)
    np.testing.assert_allclose(ours(mg.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10)  # fmt: skip


def test_instance_norm_values_and_gradients_equal_torchs_kernel():
    rng = np.random.default_rng(8)
    x, w, b = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal(3), rng.standard_normal(3)
    ours = [mg.tensor(a, requires_grad=True) for a in (x, w, b)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    y = F.instance_norm(ours[0], weight=ours[1], bias=ours[2])
    yt = TF.instance_norm(theirs[0], weight=theirs[1], bias=theirs[2])
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    cotangent = rng.standard_normal(x.shape)
    got = mg.autograd.grad(y, ours, mg.tensor(cotangent))
    want = torch.autograd.grad(yt, theirs, torch.tensor(cotangent))
    for g, t in zip(got, want, strict=True):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "name", ["relu6", "celu", "selu", "hardsigmoid", "mish", "logsigmoid", "softsign"]
)
def test_values_and_slopes_at_nan_and_infinities_are_eager_torchs(name):
    # Six float64 elements: torch's scalar code path, whose slope at NaN minigrad takes
    # (its vectorized path, for longer tensors, gives another: docs/api.md).
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0])
    ours = mg.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    y, yt = getattr(F, name)(ours), getattr(TF, name)(theirs)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-7)


INTEGER_INPUTS = [
    ("relu6", ()), ("hardsigmoid", ()), ("hardswish", ()), ("mish", ()), ("logsigmoid", ()),
    ("softsign", ()), ("celu", ()), ("selu", ()), ("glu", ()), ("normalize", ()),
    ("softmin", (-1,)), ("group_norm", (1,)), ("instance_norm", ()), ("rms_norm", ([4],)),
    ("adaptive_avg_pool2d", (2,)), ("adaptive_max_pool2d", (2,)), ("unfold", (2,)),
    ("interpolate", (None, 2.0)), ("pixel_shuffle", (1,)),
]  # fmt: skip


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize("name, args", INTEGER_INPUTS, ids=[n for n, _ in INTEGER_INPUTS])
def test_integer_and_bool_inputs_give_torchs_result_or_error(name, args, dtype):
    x = np.array([[[[1, -4, 7, 0], [2, 3, -1, 5]]]]).astype(dtype)
    try:
        want = getattr(TF, name)(torch.tensor(x), *args)
    except Exception as error:  # torch refuses: the same type of error, the same first line
        with pytest.raises(type(error)) as ours:
            getattr(F, name)(mg.tensor(x), *args)
        assert str(ours.value).splitlines()[0] == str(error).splitlines()[0]
        return
    got = getattr(F, name)(mg.tensor(x), *args)
    assert str(got.dtype) == str(want.dtype).removeprefix("torch.")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_bool_inputs_of_linear_pairwise_distance_and_conv_transpose_are_refused_as_torch():
    b = np.ones((1, 1, 2, 2), dtype=bool)
    same_error(lambda: F.linear(mg.tensor(b), mg.tensor(b[0, 0])),
               lambda: TF.linear(torch.tensor(b), torch.tensor(b[0, 0])),
               NotImplementedError)  # fmt: skip
    same_error(lambda: F.pairwise_distance(mg.tensor(b), mg.tensor(b)),
               lambda: TF.pairwise_distance(torch.tensor(b), torch.tensor(b)))  # fmt: skip
    same_error(lambda: F.conv_transpose2d(mg.tensor(b), mg.tensor(b)),
               lambda: TF.conv_transpose2d(torch.tensor(b), torch.tensor(b)),
               NotImplementedError)  # fmt: skip


def test_group_and_instance_norm_layers_without_bias_match_torch():
    for name, args in [("GroupNorm", (2, 4)), ("InstanceNorm1d", (4,))]:
        kwargs = {"affine": True, "bias": False}
        ours, theirs = (
            getattr(mg.nn, name)(*args, **kwargs),
            getattr(torch.nn, name)(*args, **kwargs),
        )
        assert list(ours.state_dict()) == list(theirs.state_dict())
        x = np.random.default_rng(9).standard_normal((2, 4, 5))
        np.testing.assert_allclose(ours(mg.tensor(x)).detach().numpy(),
                                   theirs.double()(torch.tensor(x)).detach().numpy(),
                                   rtol=1e-10)  # fmt: skip


NN_ERRORS = [
    ("margin_ranking_loss", lambda m: (m.ones(5, 4), m.ones(5, 4), m.ones(5, 4)),
     dict(reduction="abc")),
    ("triplet_margin_loss", lambda m: (m.ones(3, 4), m.ones(3, 4), m.ones(3, 4)),
     dict(reduction="abc")),
    ("triplet_margin_loss", lambda m: (m.ones(3, 4), m.ones(3, 4), m.ones(3, 4)),
     dict(margin=-1.0)),
    ("triplet_margin_loss", lambda m: (m.ones(3, 4), m.ones(3, 4), m.ones(3, 4)), dict(margin=0)),
    ("huber_loss", lambda m: (m.ones(5, 4), m.ones(5, 4)), dict(reduction="abc")),
    ("l1_loss", lambda m: (m.ones(5, 4), m.ones(5, 4)), dict(reduction="abc")),
    ("rms_norm", lambda m: (m.ones(1, 2, 3), ()), {}),
    ("rms_norm", lambda m: (m.ones(2, 2, 3), (2, 2)), {}),
    ("layer_norm", lambda m: (m.ones(1, 2, 3), ()), {}),
    ("hardtanh", lambda m: (m.ones(1),), dict(min_val=0.5, max_val=-0.5)),
    ("batch_norm", lambda m: (m.ones(3), m.zeros(3), m.ones(3)), {}),
    ("batch_norm", lambda m: (m.ones(3), None, None), dict(training=True)),
    ("batch_norm", lambda m: (m.ones(1, 3), m.zeros(3), m.ones(3)), dict(training=True)),
    ("batch_norm", lambda m: (m.ones(2, 3), None, m.ones(3)), {}),
]  # fmt: skip


@pytest.mark.parametrize("name, args, kwargs", NN_ERRORS)
def test_nn_argument_errors_are_torchs(name, args, kwargs):
    with pytest.raises(Exception) as theirs:
        getattr(TF, name)(*args(torch), **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        getattr(F, name)(*args(mg), **kwargs)
    # (shapes: minigrad's are tuples where torch's message writes torch.Size([...]))
    expected = re.sub(r"torch\.Size\((\[[\d, ]*\])\)", lambda m: str(tuple(eval(m[1]))),
                      str(theirs.value).splitlines()[0])  # fmt: skip
    assert str(ours.value).splitlines()[0] == expected


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 3, 0), (0, 3, 4)])
def test_batch_norm_of_an_empty_input_is_an_empty_result_as_torchs(shape, training):
    channels = shape[1] if len(shape) > 1 else 0
    stats = [np.zeros(channels), np.ones(channels)]
    got = F.batch_norm(mg.ones(shape), *map(mg.tensor, stats), training=training)
    want = TF.batch_norm(torch.ones(shape), *map(torch.tensor, stats), training=training)
    assert got.shape == tuple(want.shape) and str(got.dtype) == "float32"
    np.testing.assert_array_equal(stats[0], np.zeros(channels))  # nothing moved
