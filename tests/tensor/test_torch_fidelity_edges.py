"""PyTorch's values at two edges issue 22's last checks found: float64 rounded to float16
through float32 (two roundings, as torch's half is made from a float), and
binary_cross_entropy's gradient where the probability is 0 or 1. Bit for bit against torch,
on the numpy and numba backends."""

import numpy as np
import pytest
import torch
from test_torch_fidelity import BACKENDS

import minigrad as mg


def _near_float16_ties(rng: np.random.Generator) -> np.ndarray:
    """float64 values at, just above and just below the midpoints of float16 neighbours (where
    one rounding and two differ), random values, and the ends of float16's range."""
    h = np.float16(rng.standard_normal(2000) * 100)
    mid = (h.astype(np.float64) + np.nextafter(h, np.float16(np.inf)).astype(np.float64)) / 2
    ends = [65504.0, 65519.99, 65520.0, 65520.0001, -65520.0, 6e-8, 2.98e-8, 2.0**-25,
            2.0**-25 + 2.0**-60, 2.0**-24 * 1.5, 6.1e-5, 1e-300, -0.0, np.inf, -np.inf, np.nan]  # fmt: skip
    return np.concatenate([mid, mid + 2.0**-40 * np.abs(mid), mid - 2.0**-40 * np.abs(mid),
                           rng.standard_normal(2000) * 10, ends])  # fmt: skip


def _bits16(t) -> np.ndarray:
    array = t.view(torch.int16).numpy() if isinstance(t, torch.Tensor) else t.numpy()
    return np.asarray(array).view(np.int16)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float64_to_float16_rounds_through_float32_as_torch_on_every_path(backend):
    v = _near_float16_ties(np.random.default_rng(0))
    assert (np.float16(v).view(np.int16) != np.float16(np.float32(v)).view(np.int16)).sum() > 1000
    expected = _bits16(torch.from_numpy(v).to(torch.float16))
    assert np.array_equal(expected, _bits16(torch.tensor(v.tolist(), dtype=torch.float16)))
    assert np.array_equal(expected, _bits16(torch.from_numpy(v).half()))
    with mg.backends.use(backend):
        x64 = mg.tensor(v)
        paths = {
            "tensor(list)": lambda: mg.tensor(v.tolist(), dtype=mg.float16),
            "tensor(array)": lambda: mg.tensor(v, dtype=mg.float16),
            "to": lambda: x64.to(mg.float16),
            "half": lambda: x64.half(),
            "copy_": lambda: mg.zeros(v.shape, dtype=mg.float16).copy_(x64),
        }
        for name, make in paths.items():
            assert np.array_equal(_bits16(make()), expected), name
        x16 = mg.tensor(v, dtype=mg.float16)
        assert np.array_equal(_bits16(x16.to(mg.float64).to(mg.float16)), expected)


BCE_P = [
    0.0,
    1.0,
    2.0**-126,
    1 - 2.0**-24,
    0.5,
    1e-30,
    1e-7,
    1 - 1e-7,
]  # 8: torch's one-at-a-time path


def _bce_pair(backend, dtype, p, t, w, reduction, g):
    """(ours, torch's): the loss, and the slopes for the probabilities and the targets."""
    results = []
    for lib, dt in ((mg, getattr(mg, dtype)), (torch, getattr(torch, dtype))):
        x, y = (lib.tensor(a, dtype=dt).requires_grad_() for a in (p, t))
        weight = None if w is None else lib.tensor(w, dtype=dt)
        fn = mg.nn.functional if lib is mg else torch.nn.functional
        loss = fn.binary_cross_entropy(x, y, weight, reduction=reduction)
        loss.backward(lib.tensor(g, dtype=dt))
        results.append([np.asarray(a.detach().numpy()) for a in (loss, x.grad, y.grad)])
    return results


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_binary_cross_entropy_slopes_are_torchs_bit_for_bit_at_zero_and_one(backend, dtype):
    rng = np.random.default_rng(1)
    rtol = 1e-6 if dtype == "float32" else 1e-14
    for extra in (0, 40):  # 40 more: torch's vector loop too, whose logs differ in the last bit
        p = np.array(BCE_P + list(rng.random(extra)))
        for t in (np.zeros_like(p), np.ones_like(p), np.full_like(p, 0.3), rng.random(p.size)):
            for w in (None, rng.random(p.size) * 3):
                for reduction in ("none", "sum", "mean"):
                    g = rng.random(p.size) if reduction == "none" else rng.random()
                    with mg.backends.use(backend):
                        ours, theirs = _bce_pair(backend, dtype, p, t, w, reduction, g)
                    case = (extra, t[0], w is None, reduction)
                    # the slope for the probabilities is arithmetic only: every bit, every size
                    assert np.array_equal(ours[1], theirs[1]), case
                    np.testing.assert_allclose(ours[0], theirs[0], rtol=rtol, atol=0, err_msg=case)
                    if extra == 0:  # -logit(p): torch's one-at-a-time log is the C library's
                        assert np.array_equal(ours[2], theirs[2]), case
                    else:
                        np.testing.assert_allclose(ours[2], theirs[2], rtol=rtol, err_msg=case)


@pytest.mark.parametrize("backend", BACKENDS)
def test_binary_cross_entropy_refuses_what_torch_refuses(backend):
    F, TF = mg.nn.functional, torch.nn.functional
    with mg.backends.use(backend):
        for name in ("binary_cross_entropy", "binary_cross_entropy_with_logits"):
            outcomes = []
            for lib, fn in ((mg, getattr(F, name)), (torch, getattr(TF, name))):
                p, t = lib.tensor([0.2, 0.5]), lib.tensor([0.0, 1.0])
                w = lib.tensor([1.0, 2.0]).requires_grad_()
                with pytest.raises(RuntimeError) as caught:
                    fn(p.requires_grad_(), t, weight=w)
                outcomes.append(str(caught.value).splitlines()[0])
                with lib.no_grad():  # nothing is recorded: accepted
                    assert fn(p, t, weight=w).requires_grad is False
            assert outcomes[0] == outcomes[1], name
        lines = []
        for lib, fn in ((mg, F.binary_cross_entropy), (torch, TF.binary_cross_entropy)):
            with pytest.raises(RuntimeError) as caught:
                fn(lib.tensor([0.2, 0.5]), lib.tensor([0.0, 1.0], dtype=lib.float64))
            lines.append(str(caught.value).splitlines()[0])
        assert lines[0] == lines[1] == "Found dtype Double but expected Float"


def test_binary_cross_entropy_second_order_forward_mode_and_vmap_agree_with_torch():
    rng = np.random.default_rng(2)
    p, t, w = rng.uniform(0.05, 0.95, (3, 4)), rng.random((3, 4)), rng.random(4)
    F, TF = mg.nn.functional, torch.nn.functional
    for reduction in ("none", "sum", "mean"):

        def ours(x, y, reduction=reduction):
            return F.binary_cross_entropy(x, y, mg.tensor(w), reduction=reduction).sum()

        def theirs(x, y, reduction=reduction):
            return TF.binary_cross_entropy(x, y, torch.tensor(w), reduction=reduction).sum()

        hess = mg.func.hessian(ours, argnums=(0, 1))(mg.tensor(p), mg.tensor(t))
        expected = torch.func.hessian(theirs, argnums=(0, 1))(torch.tensor(p), torch.tensor(t))
        for i in range(2):
            for j in range(2):
                np.testing.assert_allclose(hess[i][j].numpy(), expected[i][j].numpy(), rtol=1e-10)
        tangents = (rng.standard_normal(p.shape), rng.standard_normal(p.shape))
        _, jvp = mg.func.jvp(ours, (mg.tensor(p), mg.tensor(t)), tuple(map(mg.tensor, tangents)))
        _, want = torch.func.jvp(theirs, (torch.tensor(p), torch.tensor(t)),
                                 tuple(map(torch.tensor, tangents)))  # fmt: skip
        np.testing.assert_allclose(jvp.numpy(), want.numpy(), rtol=1e-12)
        batched = mg.vmap(lambda x, y, r=reduction: F.binary_cross_entropy(x, y, reduction=r))
        looped = np.stack([F.binary_cross_entropy(mg.tensor(a), mg.tensor(b), reduction=reduction)
                           .numpy() for a, b in zip(p, t)])  # fmt: skip
        np.testing.assert_allclose(batched(mg.tensor(p), mg.tensor(t)).numpy(), looped,
                                   rtol=1e-14)  # fmt: skip
