"""mg.nn layers, Module state and mg.save/mg.load, against PyTorch with copied weights."""

import io
import math

import numpy as np
import pytest
import torch

import minigrad as mg

F = mg.nn.functional
TF = torch.nn.functional


def close(ours, theirs, rtol=1e-10, atol=1e-12):
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else theirs
    np.testing.assert_allclose(ours.detach().numpy(), theirs, rtol=rtol, atol=atol)


def copy_into_torch(ours, theirs):
    """Give ``theirs`` (a torch module) the state of ``ours``, through the state dict's names."""
    state = {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(state)  # strict: the names must be PyTorch's


def cnn(lib):
    """The same small CNN in either library (float64)."""
    nn = lib.nn
    kwargs = {"dtype": mg.float64} if lib is mg else {"dtype": torch.float64}
    return nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1, **kwargs),
        nn.BatchNorm2d(4, **kwargs),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(0.0),
        nn.Linear(4 * 3 * 3, 5, **kwargs),
    )


# -- a CNN against PyTorch ------------------------------------------------------------
@pytest.mark.parametrize("training", [True, False])
def test_conv_batchnorm_pool_model_matches_torch(training):
    mg.manual_seed(0)
    ours, theirs = cnn(mg), cnn(torch)
    copy_into_torch(ours, theirs)
    ours.train(training), theirs.train(training)
    rng = np.random.default_rng(1)
    for _ in range(3):  # running statistics move; eval then reads them
        x = rng.standard_normal((6, 2, 6, 6))
        labels = rng.integers(0, 5, 6)
        xs, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        loss = F.cross_entropy(ours(xs), mg.tensor(labels))
        tloss = TF.cross_entropy(theirs(xt), torch.tensor(labels))
        close(loss, tloss)
        ours.zero_grad(), theirs.zero_grad()
        loss.backward(), tloss.backward()
        close(xs.grad, xt.grad)
        for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert name == tname
            close(p.grad, tp.grad, atol=1e-11)
    for name, t in theirs.state_dict().items():
        close(ours.state_dict()[name], t)
    assert int(ours[1].num_batches_tracked) == (3 if training else 0)


def test_state_dict_names_and_order_are_torchs():
    mg.manual_seed(0)
    ours, theirs = cnn(mg), cnn(torch)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    # and a torch checkpoint loads into the minigrad model (strict)
    state = {k: mg.tensor(v.numpy()) for k, v in theirs.state_dict().items()}
    assert repr(ours.load_state_dict(state)) == "<All keys matched successfully>"
    close(ours[0].weight, theirs[0].weight)


# -- Dropout -----------------------------------------------------------------------------
def test_dropout_drops_a_fraction_p_and_scales_the_rest_while_training():
    mg.manual_seed(3)
    layer = mg.nn.Dropout(0.3)
    x = mg.ones(200, 100, requires_grad=True)
    y = layer(x)
    values = y.detach().numpy()
    assert set(np.unique(values)) <= {0.0, np.float32(1 / 0.7)}
    # 20,000 draws: the fraction dropped is 0.3 within 4 standard deviations
    assert abs((values == 0).mean() - 0.3) < 4 * math.sqrt(0.3 * 0.7 / 20000)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # the same mask, the same scale
    mg.manual_seed(3)
    np.testing.assert_array_equal(layer(mg.ones(200, 100)).numpy(), values)  # seeded


def test_dropout_is_the_identity_in_eval_mode_and_checks_p():
    layer = mg.nn.Dropout(0.5)
    x = mg.randn(4, 4)
    assert layer.eval()(x) is x and F.dropout(x, 0.5, training=False) is x
    assert not layer.training and layer.train().training
    np.testing.assert_array_equal(F.dropout(x, 1.0).numpy(), np.zeros((4, 4)))
    assert repr(layer) == repr(torch.nn.Dropout(0.5)).replace(", inplace=False", "")
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got"):
        mg.nn.Dropout(1.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout(x, -0.1)


def test_train_and_eval_reach_every_submodule_and_want_a_bool():
    model = cnn(mg)
    model.eval()
    assert all(not m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        model.train("no")


# -- BatchNorm -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [{}, {"momentum": None}, {"affine": False}, {"track_running_stats": False}, {"momentum": 0.5}],
)
@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5)])
def test_batchnorm1d_train_then_eval_matches_torch(options, shape):
    ours = mg.nn.BatchNorm1d(3, dtype=mg.float64, **options)
    theirs = torch.nn.BatchNorm1d(3, dtype=torch.float64, **options)
    rng = np.random.default_rng(2)
    if ours.weight is not None:
        with mg.no_grad():
            ours.weight.copy_(mg.tensor(rng.standard_normal(3)))
        copy_into_torch(ours, theirs)
    for training in (True, True, False):
        ours.train(training), theirs.train(training)
        x = rng.standard_normal(shape) * 3 + 1
        xs, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        y, ty = ours(xs), theirs(xt)
        close(y, ty)
        g = rng.standard_normal(shape)
        y.backward(mg.tensor(g)), ty.backward(torch.tensor(g))
        close(xs.grad, xt.grad)
        if ours.weight is not None:
            close(ours.weight.grad, theirs.weight.grad)
            close(ours.bias.grad, theirs.bias.grad)
        for name, t in theirs.state_dict().items():
            close(ours.state_dict()[name], t)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.parameters()) == [p for p in [ours.weight, ours.bias] if p is not None]


def test_batchnorm_running_stats_are_buffers_updated_in_place():
    bn = mg.nn.BatchNorm2d(2)
    mean, var = bn.running_mean, bn.running_var
    bn(mg.randn(4, 2, 3, 3))
    assert bn.running_mean is mean and bn.running_var is var  # the same objects
    assert not np.allclose(mean.numpy(), 0) and bn.num_batches_tracked.item() == 1
    assert bn.num_batches_tracked.dtype == mg.int64
    assert {n for n, _ in bn.named_buffers()} == {"running_mean", "running_var",
                                                  "num_batches_tracked"}  # fmt: skip
    assert {n for n, _ in bn.named_parameters()} == {"weight", "bias"}


def test_batchnorm_errors_are_torchs():
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        mg.nn.BatchNorm1d(3)(mg.zeros(2, 3, 4, 5))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        mg.nn.BatchNorm2d(3)(mg.zeros(2, 3, 4))
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        mg.nn.BatchNorm1d(3)(mg.zeros(2, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        mg.nn.BatchNorm1d(3)(mg.zeros(1, 3))
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(mg.zeros(2, 3), None, None)


# -- LayerNorm, Embedding, Flatten ---------------------------------------------------------
@pytest.mark.parametrize("normalized", [4, (3, 4)])
def test_layernorm_matches_torch(normalized):
    ours = mg.nn.LayerNorm(normalized, dtype=mg.float64)
    theirs = torch.nn.LayerNorm(normalized, dtype=torch.float64)
    rng = np.random.default_rng(3)
    with mg.no_grad():
        ours.weight.copy_(mg.tensor(rng.standard_normal(ours.weight.shape)))
        ours.bias.copy_(mg.tensor(rng.standard_normal(ours.bias.shape)))
    copy_into_torch(ours, theirs)
    x = rng.standard_normal((2, 3, 4))
    xs, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = ours(xs), theirs(xt)
    close(y, ty)
    g = rng.standard_normal(y.shape)
    y.backward(mg.tensor(g)), ty.backward(torch.tensor(g))
    close(xs.grad, xt.grad)
    close(ours.weight.grad, theirs.weight.grad)
    assert repr(ours) == repr(theirs)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[5\], expected input with"):
        F.layer_norm(mg.zeros(2, 4), (5,))


def test_embedding_matches_torch_and_keeps_its_padding_row():
    mg.manual_seed(4)
    ours = mg.nn.Embedding(6, 3, padding_idx=2, dtype=mg.float64)
    theirs = torch.nn.Embedding(6, 3, padding_idx=2, dtype=torch.float64)
    np.testing.assert_array_equal(ours.weight.detach().numpy()[2], 0.0)
    copy_into_torch(ours, theirs)
    ids = np.array([[0, 2, 5], [5, 5, 1]])
    y, ty = ours(mg.tensor(ids)), theirs(torch.from_numpy(ids))
    close(y, ty)
    g = np.random.default_rng(5).standard_normal(y.shape)
    y.backward(mg.tensor(g)), ty.backward(torch.tensor(g))
    close(ours.weight.grad, theirs.weight.grad)
    assert repr(ours) == repr(theirs)
    with pytest.raises(IndexError, match="index out of range in self"):
        ours(mg.tensor([6]))
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices'"):
        ours(mg.tensor([0.5]))


def test_embedding_init_is_standard_normal():
    mg.manual_seed(0)
    w = mg.nn.Embedding(1000, 100).weight.detach().numpy()
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01


@pytest.mark.parametrize("dims", [(1, -1), (0, -1), (1, 2), (-2, -1), (0, 0)])
def test_flatten_matches_torch(dims):
    x = np.arange(2 * 3 * 4 * 5.0).reshape(2, 3, 4, 5)
    y = mg.nn.Flatten(*dims)(mg.tensor(x))
    close(y, torch.nn.Flatten(*dims)(torch.tensor(x)))
    assert repr(mg.nn.Flatten(*dims)) == repr(torch.nn.Flatten(*dims))


def test_flatten_errors_are_torchs():
    with pytest.raises(IndexError, match="Dimension out of range"):
        mg.nn.Flatten()(mg.zeros(3))
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        mg.nn.Flatten(2, 1)(mg.zeros(2, 3, 4))


# -- convolution and pooling layers ----------------------------------------------------------
def test_conv_init_is_kaiming_uniform_with_torchs_bound():
    mg.manual_seed(0)
    layer = mg.nn.Conv2d(8, 64, (3, 5), groups=2)
    fan_in = 8 // 2 * 3 * 5
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)): gain sqrt(1/3) * sqrt(3/fan_in)
    w = layer.weight.detach().numpy()
    assert layer.weight.shape == (64, 4, 3, 5) and layer.bias.shape == (64,)
    assert np.abs(w).max() <= bound and np.abs(layer.bias.detach().numpy()).max() <= bound
    assert abs(w.std() / (bound / math.sqrt(3)) - 1) < 0.05  # U(-b, b): std b / sqrt(3)


@pytest.mark.parametrize(
    "cls, shape, options",
    [
        ("Conv1d", (2, 4, 9), {"stride": 2, "padding": 1}),
        ("Conv1d", (2, 4, 9), {"padding": "same", "dilation": 2, "padding_mode": "reflect"}),
        ("Conv2d", (2, 4, 7, 6), {"stride": (2, 1), "padding": (1, 2), "groups": 2}),
        ("Conv2d", (2, 4, 7, 6), {"padding": 1, "padding_mode": "circular", "bias": False}),
        ("Conv2d", (2, 4, 7, 6), {"padding": "valid", "padding_mode": "replicate"}),
    ],
)
def test_conv_layers_match_torch(cls, shape, options):
    ours = getattr(mg.nn, cls)(4, 6, 3, dtype=mg.float64, **options)
    theirs = getattr(torch.nn, cls)(4, 6, 3, dtype=torch.float64, **options)
    copy_into_torch(ours, theirs)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(6).standard_normal(shape)
    xs, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = ours(xs), theirs(xt)
    close(y, ty)
    y.sum().backward(), ty.sum().backward()
    close(xs.grad, xt.grad)
    close(ours.weight.grad, theirs.weight.grad)


def test_conv_layer_errors_are_torchs():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        mg.nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        mg.nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        mg.nn.Conv2d(4, 3, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        mg.nn.Conv1d(4, 3, 3, stride=2, padding="same")


@pytest.mark.parametrize("cls", ["MaxPool2d", "AvgPool2d"])
def test_pool_layers_match_torch(cls):
    ours, theirs = getattr(mg.nn, cls)(2), getattr(torch.nn, cls)(2)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(7).standard_normal((2, 3, 6, 5))
    xs, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = ours(xs), theirs(xt)
    close(y, ty)
    y.sum().backward(), ty.sum().backward()
    close(xs.grad, xt.grad)


# -- state dicts -----------------------------------------------------------------------------
def test_load_state_dict_copies_into_the_same_objects_so_optimizers_keep_working():
    mg.manual_seed(0)
    source, model = cnn(mg), cnn(mg)
    params = list(model.parameters())
    optimizer = mg.optim.SGD(params, lr=0.1)
    model.load_state_dict(source.state_dict())
    assert [id(p) for p in model.parameters()] == [id(p) for p in params]
    for (name, p), q in zip(model.state_dict().items(), source.state_dict().values()):
        np.testing.assert_array_equal(p.numpy(), q.numpy(), err_msg=name)
    before = model[0].weight.detach().numpy().copy()
    loss = model(mg.randn(2, 2, 6, 6, dtype=mg.float64)).sum()
    loss.backward()
    optimizer.step()
    np.testing.assert_allclose(
        model[0].weight.detach().numpy(), before - 0.1 * model[0].weight.grad.numpy(), rtol=1e-12
    )


def test_strict_loading_names_missing_unexpected_and_mismatched_keys_like_torch():
    ours, theirs = mg.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    bad = {"weight": np.zeros((2, 3)), "foo": np.zeros(1)}
    with pytest.raises(RuntimeError) as error:
        ours.load_state_dict({k: mg.tensor(v) for k, v in bad.items()})
    with pytest.raises(RuntimeError) as torch_error:
        theirs.load_state_dict({k: torch.tensor(v) for k, v in bad.items()})
    assert str(error.value) == str(torch_error.value)
    result = ours.load_state_dict({k: mg.tensor(v) for k, v in bad.items()}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["foo"]
    np.testing.assert_array_equal(ours.weight.detach().numpy(), 0.0)  # the matching key was loaded


def test_a_shape_mismatch_raises_even_when_not_strict_and_changes_nothing():
    layer = mg.nn.Linear(3, 2)
    weight, bias = layer.weight.detach().numpy().copy(), layer.bias.detach().numpy().copy()
    message = (
        r"size mismatch for weight: copying a param with shape \(3, 3\) from checkpoint, "
        r"the shape in current model is \(2, 3\)"
    )
    with pytest.raises(RuntimeError, match=message):
        layer.load_state_dict({"weight": mg.zeros(3, 3), "bias": mg.zeros(2)}, strict=False)
    np.testing.assert_array_equal(layer.weight.detach().numpy(), weight)
    np.testing.assert_array_equal(layer.bias.detach().numpy(), bias)  # not half-loaded
    with pytest.raises(RuntimeError, match="expected Tensor or NumPy array from checkpoint"):
        layer.load_state_dict({"weight": [[0.0] * 3] * 2, "bias": mg.zeros(2)})
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        layer.load_state_dict([1, 2])


def test_register_buffer():
    module = mg.nn.Module()
    module.register_buffer("count", mg.tensor(3))
    module.register_buffer("scratch", mg.zeros(2), persistent=False)
    assert list(module.state_dict()) == ["count"]
    assert [n for n, _ in module.named_buffers()] == ["count", "scratch"]
    assert list(module.parameters()) == []
    with pytest.raises(KeyError, match="attribute 'training' already exists"):
        module.register_buffer("training", mg.zeros(1))
    with pytest.raises(TypeError, match="cannot assign 'list' object to buffer 'x'"):
        module.register_buffer("x", [1.0])


# -- mg.save / mg.load --------------------------------------------------------------------------
def test_state_dict_round_trip_through_a_file(tmp_path):
    mg.manual_seed(0)
    model = cnn(mg)
    model(mg.randn(4, 2, 6, 6, dtype=mg.float64))  # move the running statistics
    path = tmp_path / "model.mg"
    mg.save(model.state_dict(), path)
    assert path.exists() and not (tmp_path / "model.mg.npz").exists()  # the path as given
    loaded = mg.load(path)
    assert list(loaded) == list(model.state_dict())
    for name, t in model.state_dict().items():
        assert loaded[name].dtype == t.dtype and loaded[name].shape == t.shape, name
        np.testing.assert_array_equal(loaded[name].numpy(), t.numpy())
    fresh = cnn(mg)
    fresh.load_state_dict(loaded)
    x = mg.randn(3, 2, 6, 6, dtype=mg.float64)
    np.testing.assert_array_equal(
        fresh.eval()(x).detach().numpy(), model.eval()(x).detach().numpy()
    )
    with np.load(path, allow_pickle=False) as archive:  # plain NumPy reads it, without pickle
        assert len(archive.files) == len(loaded) + 1


def test_save_and_load_a_tensor_and_a_dict(tmp_path):
    x = mg.tensor([[1.5, 2.5]], dtype=mg.float64, requires_grad=True)
    mg.save(x, tmp_path / "x.npz")
    y = mg.load(str(tmp_path / "x.npz"))
    assert isinstance(y, mg.Tensor) and y.dtype == mg.float64 and y.requires_grad
    np.testing.assert_array_equal(y.detach().numpy(), x.detach().numpy())
    things = {"a.b/c": mg.tensor(True), "n": mg.arange(3), "z": mg.zeros(0, 2)}
    buffer = io.BytesIO()
    mg.save(things, buffer)
    buffer.seek(0)
    back = mg.load(buffer)
    assert list(back) == list(things)
    for name, t in things.items():
        assert back[name].dtype == t.dtype and back[name].shape == t.shape
        np.testing.assert_array_equal(back[name].numpy(), t.numpy())


def test_save_and_load_refuse_what_they_cannot_store_or_read(tmp_path):
    with pytest.raises(TypeError, match=r"mg\.save stores a Tensor or a dict of Tensors"):
        mg.save([mg.zeros(1)], tmp_path / "a")
    with pytest.raises(TypeError, match="the entry 'b' is a float"):
        mg.save({"a": mg.zeros(1), "b": 1.0}, tmp_path / "a")
    (tmp_path / "junk").write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match=r"is not a NumPy \.npz archive written by mg\.save"):
        mg.load(tmp_path / "junk")
    np.savez(tmp_path / "objects.npz", a=np.array([{"x": 1}], dtype=object))
    with pytest.raises(ValueError, match="holds Python objects, not only numbers"):
        mg.load(tmp_path / "objects.npz")
    np.savez(tmp_path / "plain.npz", w=np.ones((2, 2), dtype=np.float32))
    plain = mg.load(tmp_path / "plain.npz")  # np.savez archives load as dicts
    assert list(plain) == ["w"] and plain["w"].dtype == mg.float32
