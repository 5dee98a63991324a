"""mg.autocast against torch.autocast: output dtypes and values, gradients' dtypes and values."""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.tensor.mode import current

F, TF = mg.nn.functional, torch.nn.functional
RNG = np.random.default_rng(0)


def both(*shapes, grad=True, dtype=np.float32, positive=False):
    """The same random arrays as minigrad and torch tensors (float32 leaves by default)."""
    arrays = [RNG.standard_normal(s).astype(dtype) for s in shapes]
    if positive:
        arrays = [np.abs(a) + 0.1 for a in arrays]
    ours = [mg.tensor(a, requires_grad=grad) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=grad) for a in arrays]
    return ours, theirs


def as_numpy(t):
    if isinstance(t, torch.Tensor):
        return t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()
    return t.detach().numpy().astype(np.float64)


def torch_dtype(dtype):
    return {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32,
            "float64": torch.float64}[np.dtype(dtype).name]  # fmt: skip


def check(ours, theirs, tol):
    assert torch_dtype(ours.dtype) == theirs.dtype, (ours.dtype, theirs.dtype)
    np.testing.assert_allclose(as_numpy(ours), as_numpy(theirs), rtol=tol, atol=tol)


def compare(op_mg, op_torch, shapes, dtype=None, tol=3e-2, positive=False, extra=()):
    """Run both under autocast on the CPU; compare the output, then the inputs' gradients."""
    ours, theirs = both(*shapes, positive=positive)
    kind = {} if dtype is None else {"dtype": dtype}
    with mg.autocast("cpu", **({} if dtype is None else {"dtype": getattr(mg, dtype)})):
        out = op_mg(*ours, *extra)
    with torch.autocast("cpu", **({} if dtype is None else {"dtype": torch_dtype(dtype)})):
        ref = op_torch(*theirs, *[torch.tensor(e) if isinstance(e, np.ndarray) else e
                                  for e in extra])  # fmt: skip
    check(out, ref, tol)
    weights = RNG.standard_normal(tuple(ref.shape)).astype(np.float32)
    (out.float() * mg.tensor(weights)).sum().backward()
    (ref.float() * torch.tensor(weights)).sum().backward()
    for a, b in zip(ours, theirs):
        assert a.grad.dtype == mg.float32  # a float32 leaf's gradient arrives in float32
        check(a.grad, b.grad, 5 * tol)
    return out, kind


LOWER = {
    "matmul": (lambda a, b: a @ b, lambda a, b: a @ b, [(4, 8), (8, 3)]),
    "mm": (mg.mm, torch.mm, [(4, 8), (8, 3)]),
    "bmm": (mg.bmm, torch.bmm, [(2, 4, 8), (2, 8, 3)]),
    "addmm": (mg.addmm, torch.addmm, [(4, 3), (4, 8), (8, 3)]),
    "baddbmm": (mg.baddbmm, torch.baddbmm, [(2, 4, 3), (2, 4, 8), (2, 8, 3)]),
    "linear": (F.linear, TF.linear, [(4, 8), (3, 8), (3,)]),
    "conv1d": (F.conv1d, TF.conv1d, [(2, 3, 9), (4, 3, 3), (4,)]),
    "conv2d": (F.conv2d, TF.conv2d, [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]),
    "conv_transpose1d": (F.conv_transpose1d, TF.conv_transpose1d, [(2, 3, 5), (3, 4, 3), (4,)]),
    "conv_transpose2d": (
        F.conv_transpose2d,
        TF.conv_transpose2d,
        [(2, 3, 4, 4), (3, 4, 3, 3), (4,)],
    ),
    "scaled_dot_product_attention": (
        F.scaled_dot_product_attention,
        TF.scaled_dot_product_attention,
        [(2, 5, 8), (2, 6, 8), (2, 6, 4)],
    ),
}


@pytest.mark.parametrize("dtype", [None, "float16"])
@pytest.mark.parametrize("name", list(LOWER))
def test_lower_precision_ops(name, dtype):
    op_mg, op_torch, shapes = LOWER[name]
    out, _ = compare(op_mg, op_torch, shapes, dtype=dtype)
    assert out.dtype == (mg.bfloat16 if dtype is None else mg.float16)


LABELS = np.array([1, 0, 2, 1])
FLOAT32 = {
    "cross_entropy": (F.cross_entropy, TF.cross_entropy, [(4, 3)], (LABELS,)),
    "nll_loss": (
        lambda x, y: F.nll_loss(F.log_softmax(x, dim=1), y),
        lambda x, y: TF.nll_loss(TF.log_softmax(x, dim=1), y),
        [(4, 3)],
        (LABELS,),
    ),
    "mse_loss": (F.mse_loss, TF.mse_loss, [(4, 3), (4, 3)], ()),
    "l1_loss": (F.l1_loss, TF.l1_loss, [(4, 3), (4, 3)], ()),
    "smooth_l1_loss": (F.smooth_l1_loss, TF.smooth_l1_loss, [(4, 3), (4, 3)], ()),
    "huber_loss": (F.huber_loss, TF.huber_loss, [(4, 3), (4, 3)], ()),
    "kl_div": (
        lambda a, b: F.kl_div(a, b, reduction="batchmean"),
        lambda a, b: TF.kl_div(a, b, reduction="batchmean"),
        [(4, 3), (4, 3)],
        (),
    ),
    "binary_cross_entropy_with_logits": (
        F.binary_cross_entropy_with_logits,
        TF.binary_cross_entropy_with_logits,
        [(4, 3), (4, 3)],
        (),
    ),
    "cosine_embedding_loss": (
        F.cosine_embedding_loss,
        TF.cosine_embedding_loss,
        [(4, 3), (4, 3)],
        (np.array([1.0, -1.0, 1.0, -1.0], np.float32),),
    ),
    "margin_ranking_loss": (
        F.margin_ranking_loss,
        TF.margin_ranking_loss,
        [(4,), (4,)],
        (np.array([1.0, -1.0, 1.0, -1.0], np.float32),),
    ),
    "triplet_margin_loss": (
        F.triplet_margin_loss,
        TF.triplet_margin_loss,
        [(4, 3), (4, 3), (4, 3)],
        (),
    ),
    "prod": (lambda x: x.prod(), lambda x: x.prod(), [(5,)], ()),
    "trace": (mg.trace, torch.trace, [(4, 4)], ()),
    "cdist": (mg.cdist, torch.cdist, [(4, 3), (5, 3)], ()),
}


@pytest.mark.parametrize("name", list(FLOAT32))
def test_float32_ops_cast_low_inputs_up(name):
    """Fed bfloat16 (the output of a lower-precision op), these run in float32."""
    op_mg, op_torch, shapes, extra = FLOAT32[name]

    def low_first(op, lib):
        # The first input passes through a matmul with the identity: bfloat16 under autocast.
        def run(x, *rest):
            eye = lib.eye(x.shape[-1])
            return op(x @ eye, *rest)

        return run

    extra_mg = tuple(mg.tensor(e) if isinstance(e, np.ndarray) else e for e in extra)
    ours, theirs = both(*shapes)
    with mg.autocast("cpu"):
        low = ours[0] @ mg.eye(ours[0].shape[-1])
        assert low.dtype == mg.bfloat16
        out = op_mg(low, *ours[1:], *extra_mg)
    with torch.autocast("cpu"):
        ref = op_torch(theirs[0] @ torch.eye(theirs[0].shape[-1]), *theirs[1:],
                       *[torch.tensor(e) for e in extra])  # fmt: skip
    check(out, ref, 3e-2)
    assert out.dtype == mg.float32
    out.sum().backward()
    ref.sum().backward()
    for a, b in zip(ours, theirs):
        check(a.grad, b.grad, 0.1)


KEPT = {
    "mv": (mg.mv, torch.mv, [(4, 8), (8,)]),
    "dot": (mg.dot, torch.dot, [(8,), (8,)]),
    "outer": (mg.outer, torch.outer, [(3,), (4,)]),
    "bilinear": (F.bilinear, TF.bilinear, [(4, 3), (4, 2), (5, 3, 2), (5,)]),
    "einsum": (
        lambda a, b: mg.einsum("ij,jk->ik", a, b),
        lambda a, b: torch.einsum("ij,jk->ik", a, b),
        [(4, 3), (3, 2)],
    ),
    "tensordot": (
        lambda a, b: mg.tensordot(a, b, 1),
        lambda a, b: torch.tensordot(a, b, 1),
        [(4, 3), (3, 2)],
    ),
}


@pytest.mark.parametrize("name", list(KEPT))
def test_unlisted_ops_as_torch_runs_them(name):
    """mv, dot, outer, bilinear are not listed for the CPU (float32 in, float32 out); einsum
    and tensordot are not either, but PyTorch's are matmuls inside, which are listed."""
    op_mg, op_torch, shapes = KEPT[name]
    compare(op_mg, op_torch, shapes)


def test_other_ops_keep_their_inputs_dtype():
    x = mg.tensor(RNG.standard_normal((3, 4)).astype(np.float32))
    with mg.autocast("cpu"):
        low = x @ mg.eye(4)
        for f in (mg.exp, mg.tanh, mg.relu, lambda t: t.sum(), lambda t: F.softmax(t, dim=-1),
                  lambda t: F.log_softmax(t, dim=-1), lambda t: t * 2.0):  # fmt: skip
            assert f(low).dtype == mg.bfloat16
            assert f(x).dtype == mg.float32
        assert (low + x).dtype == mg.float32  # promotion, as without autocast
        mixed = {  # PyTorch's "promote" list: the widest input dtype
            "cat": (mg.concatenate([low, x]), lambda lo, t: torch.cat([lo, t])),
            "stack": (mg.stack([low, x]), lambda lo, t: torch.stack([lo, t])),
            "where": (mg.where(x > 0, low, x), lambda lo, t: torch.where(t > 0, lo, t)),
            "atan2": (mg.atan2(low, x), torch.atan2),
        }
    t = torch.tensor(x.numpy())
    with torch.autocast("cpu"):
        t_low = t @ torch.eye(4)
        for name, (ours, theirs) in mixed.items():
            assert torch_dtype(ours.dtype) == theirs(t_low, t).dtype, name
    with mg.autocast("cpu"):
        wide = mg.tensor(RNG.standard_normal((3, 4)), dtype=mg.float64)
        assert (wide @ mg.eye(4, dtype=mg.float64)).dtype == mg.float64  # never cast
        assert F.mse_loss(wide, wide).dtype == mg.float64


def models(lib):
    nn = lib.nn
    mlp = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(4 * 4 * 4, 3))  # fmt: skip
    return mlp, cnn


@pytest.mark.parametrize("which, shape", [(0, (5, 6)), (1, (5, 1, 8, 8))])
def test_mlp_and_cnn_training_step_match_torch(which, shape):
    ours, theirs = models(mg)[which], models(torch)[which]
    with torch.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            q.copy_(torch.tensor(p.detach().numpy()))
    x = RNG.standard_normal(shape).astype(np.float32)
    y = np.array([0, 2, 1, 1, 0])
    with mg.autocast("cpu"):
        logits = ours(mg.tensor(x))
        loss = F.cross_entropy(logits, mg.tensor(y))
    with torch.autocast("cpu"):
        t_logits = theirs(torch.tensor(x))
        t_loss = TF.cross_entropy(t_logits, torch.tensor(y))
    check(logits, t_logits, 3e-2)
    check(loss, t_loss, 1e-2)
    loss.backward()
    t_loss.backward()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert p.dtype == p.grad.dtype == mg.float32
        check(p.grad, q.grad, 5e-2)


def test_disabled_inside_enabled_decorator_and_errors():
    a, b = mg.ones((2, 2)), mg.ones((2, 2))
    with mg.autocast("cpu"):
        with mg.autocast("cpu", enabled=False):
            assert (a @ b).dtype == mg.float32
        assert (a @ b).dtype == mg.bfloat16
    assert (a @ b).dtype == mg.float32

    @mg.autocast("cpu", dtype=mg.float16)
    def f(x, y):
        return x @ y

    assert f(a, b).dtype == mg.float16
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        mg.autocast(0)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        mg.autocast("tpu")
    with pytest.warns(UserWarning, match="CPU autocast, but the target dtype is not supported"):
        off = mg.autocast("cpu", dtype=mg.float64)
    with off:
        assert (a @ b).dtype == mg.float32
    with pytest.raises(TypeError, match=r"autocast\(\)\(func\) requires a callable"):
        mg.autocast("cpu")(3)


def test_an_autocast_of_another_device_leaves_the_cpus_alone():
    if mg.backends.available()["cuda"] or mg.backends.available()["cuda_simulator"]:
        pytest.skip("CUDA is available: the cuda autocast would be enabled")
    a, w, b = mg.ones((2, 3)), mg.ones((4, 3)), mg.ones(4)
    with mg.autocast("cpu"):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            other = mg.autocast("cuda")
        with other, mg.autocast("cuda", enabled=False):
            assert (a @ w.T).dtype == mg.bfloat16
            assert F.linear(a, w, b).dtype == mg.bfloat16  # cast whole, bias add included
            assert F.mse_loss(a @ w.T, mg.zeros((2, 4))).dtype == mg.float32


def test_cache_casts_a_parameter_once():
    w = mg.ones((3, 3), requires_grad=True)
    x = mg.ones((2, 3))
    with mg.autocast("cpu"):
        (x @ w) @ w
        (autocast_level,) = current().open_levels("autocast")
        assert len(autocast_level.cache) == 1
    with mg.autocast("cpu", cache_enabled=False):
        (x @ w) @ w
        (autocast_level,) = current().open_levels("autocast")
        assert autocast_level.cache is None


def test_nests_with_grad_and_vmap():
    w = mg.tensor(RNG.standard_normal((4, 3)).astype(np.float32))
    xs = mg.tensor(RNG.standard_normal((5, 4)).astype(np.float32))

    def loss(w, x):
        with mg.autocast("cpu"):
            return ((x @ w).float() ** 2).sum()

    g = mg.grad(loss)(w, xs[0])
    assert g.dtype == mg.float32
    tw = torch.tensor(w.numpy(), requires_grad=True)
    with torch.autocast("cpu"):
        tl = ((torch.tensor(xs.numpy()[0]) @ tw).float() ** 2).sum()
    tl.backward()
    np.testing.assert_allclose(g.numpy(), tw.grad.numpy(), rtol=5e-2, atol=5e-2)
    per_example = mg.vmap(mg.grad(loss), in_axes=(None, 0))(w, xs)
    assert per_example.shape == (5, 4, 3) and per_example.dtype == mg.float32
    np.testing.assert_allclose(per_example.numpy()[0], g.numpy(), rtol=1e-6)
    with mg.autocast("cpu"):
        batched = mg.vmap(lambda x: x @ w)(xs)
    assert batched.dtype == mg.bfloat16


def test_jit_shows_the_casts_and_fuses_them():
    """The traced program holds autocast's casts; fusion puts them into its kernels with
    the float32 work after the cast up (their lines show in the source).
    256 x 256: as large as fusion's default threshold (``crossover.FUSE_FROM``)."""
    w = mg.tensor(RNG.standard_normal((256, 256)).astype(np.float32))
    x = mg.tensor(RNG.standard_normal((256, 256)).astype(np.float32))

    def f(x):
        with mg.autocast("cpu"):
            h = (x @ w).float()
            return ((h * 0.5).tanh() * 2.0 + 1.0).sum()

    traced = str(mg.make_graph(f)(x))
    assert "astype(a, dtype=bfloat16)" in traced and "dtype=float32)" in traced, traced
    fast = mg.jit(f)
    graph = fast.graph(x)
    text = str(graph)
    assert "bfloat16[256,256] = matmul" in text, text
    names = [op.name for op in graph]
    assert any(name.startswith("fused_astype") and "tanh" in name for name in names), names
    source = fast.source(x)
    assert "# astype(a, bfloat16)" in source and "# matmul" in source, source
    assert "# astype(h, float32)" in source, source
    np.testing.assert_allclose(fast(x).numpy(), f(x).numpy(), rtol=1e-4)
