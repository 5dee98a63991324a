"""mg.amp.GradScaler against torch.amp.GradScaler, step for step on the same gradients."""

import numpy as np
import pytest
import torch

import minigrad as mg

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def coefficient_rows(steps: int, size: int, seed: int = 0) -> list[np.ndarray]:
    """Per step, the loss's coefficients c (the gradient is c * scale); some steps overflow."""
    rng = np.random.default_rng(seed)
    rows = [rng.standard_normal(size).astype(np.float32) for _ in range(steps)]
    rows[3][1] = 1e38  # times the scale: inf
    rows[8][0] = np.nan
    rows[9][2] = -3e38
    return rows


def close(a, b):
    """Equal up to float32 rounding (the optimizers' arithmetic may differ in the last bit)."""
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)


def run_both(make_mg_opt, make_torch_opt, steps=14, unscale_first=False, **scaler_args):
    size = 5
    start = np.linspace(-1, 1, size, dtype=np.float32)
    p_mg = mg.tensor(start, requires_grad=True)
    p_t = torch.tensor(start, requires_grad=True)
    opt_mg, opt_t = make_mg_opt([p_mg]), make_torch_opt([p_t])
    s_mg = mg.amp.GradScaler("cpu", **scaler_args)
    s_t = torch.amp.GradScaler("cpu", **scaler_args)
    history = []
    for c in coefficient_rows(steps, size):
        opt_mg.zero_grad()
        opt_t.zero_grad()
        loss_mg = (p_mg * mg.tensor(c)).sum() + (p_mg * p_mg).sum()
        loss_t = (p_t * torch.tensor(c)).sum() + (p_t * p_t).sum()
        s_mg.scale(loss_mg).backward()
        s_t.scale(loss_t).backward()
        if unscale_first:
            s_mg.unscale_(opt_mg)
            s_t.unscale_(opt_t)
            close(p_mg.grad, p_t.grad)
        s_mg.step(opt_mg)
        s_t.step(opt_t)
        close(p_mg.grad, p_t.grad)  # unscaled; inf and nan where torch has them
        s_mg.update()
        s_t.update()
        assert s_mg.get_scale() == s_t.get_scale()
        assert s_mg.state_dict() == s_t.state_dict()
        close(p_mg, p_t)
        history.append(s_mg.get_scale())
    return history


@pytest.mark.parametrize("unscale_first", [False, True])
def test_sgd_momentum_step_for_step(unscale_first):
    history = run_both(
        lambda ps: mg.optim.SGD(ps, lr=0.05, momentum=0.9),
        lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9),
        unscale_first=unscale_first,
        init_scale=2.0**10,
        growth_interval=3,
    )
    # The run backed off (the injected infs) and grew (three clean steps): both rules ran.
    assert min(history) < 2.0**10 < max(history)


def test_adam_step_for_step_with_other_factors():
    run_both(
        lambda ps: mg.optim.Adam(ps, lr=0.01),
        lambda ps: torch.optim.Adam(ps, lr=0.01),
        init_scale=3.0,
        growth_factor=3.0,
        backoff_factor=0.25,
        growth_interval=2,
    )


def test_growth_stops_before_inf():
    scalers = mg.amp.GradScaler("cpu", init_scale=2.0**125, growth_interval=1), \
        torch.amp.GradScaler("cpu", init_scale=2.0**125, growth_interval=1)  # fmt: skip
    history = []
    for lib, scaler in zip((mg, torch), scalers):
        p = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        for _ in range(4):
            opt.zero_grad()
            scaler.scale((p * 1e-6).sum()).backward()
            scaler.step(opt)
            scaler.update()
            history.append(scaler.get_scale())
    assert history[:4] == history[4:] == [2.0**126, 2.0**127, 2.0**127, 2.0**127]


def test_new_scale_state_dict_and_getters():
    s_mg, s_t = mg.amp.GradScaler("cpu"), torch.amp.GradScaler("cpu")
    assert s_mg.state_dict() == s_t.state_dict()
    for s in (s_mg, s_t):
        s.scale(mg.tensor(1.0) if s is s_mg else torch.tensor(1.0))
        s.update(new_scale=123.0)
    assert s_mg.get_scale() == s_t.get_scale() == 123.0
    s_mg.update(new_scale=mg.tensor([7.0]))
    assert s_mg.get_scale() == 7.0
    with pytest.raises(AssertionError, match="new_scale should be a float"):
        s_mg.update(new_scale=mg.tensor([7.0, 8.0]))
    state = {"scale": 8.0, "growth_factor": 3.0, "backoff_factor": 0.25,
             "growth_interval": 5, "_growth_tracker": 2}  # fmt: skip
    s_mg.load_state_dict(state)
    s_t.load_state_dict(state)
    assert s_mg.state_dict() == s_t.state_dict() == state
    assert (s_mg.get_growth_factor(), s_mg.get_backoff_factor(), s_mg.get_growth_interval()) == (
        3.0, 0.25, 5,
    )  # fmt: skip
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        s_mg.load_state_dict({})


def test_misuse_raises_pytorchs_errors():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    opt = mg.optim.SGD([p], lr=0.1)
    scaler = mg.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        scaler.step(opt)
    scaler.scale((p * p).sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"^unscale_\(\) has already been called on this "):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"^step\(\) has already been called since the last"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"^unscale_\(\) is being called after step\(\)"):
        scaler.unscale_(opt)
    scaler.update()
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    with pytest.raises(AssertionError, match=r"The growth factor must be > 1\.0\."):
        mg.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match=r"The backoff factor must be < 1\.0\."):
        mg.amp.GradScaler("cpu", backoff_factor=1.0)
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        mg.amp.GradScaler("cpu").scale(3.0)


def test_scale_of_containers_and_disabled_scaler():
    scaler = mg.amp.GradScaler("cpu", init_scale=4.0)
    a, b = scaler.scale([mg.tensor(1.0), mg.tensor(2.0)])
    assert (a.item(), b.item()) == (4.0, 8.0)
    assert isinstance(scaler.scale((mg.tensor(1.0),)), tuple)
    off = mg.amp.GradScaler("cpu", enabled=False)
    x = mg.tensor(3.0)
    assert off.scale(x) is x and off.get_scale() == 1.0 and off.state_dict() == {}
    assert not off.is_enabled()


def test_cuda_scaler_without_cuda_disables_itself_like_torch():
    if mg.backends.available()["cuda"] or torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
        scaler = mg.amp.GradScaler()
    assert not scaler.is_enabled()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_scale_of_a_16_bit_loss_has_torchs_dtype_and_value(dtype, shape):
    values = np.array([1.0, 0.5, 3e-5], np.float32)[: 3 if shape else 1].reshape(shape)
    ours = mg.amp.GradScaler("cpu").scale(mg.tensor(values).to(getattr(mg, dtype)))
    theirs = torch.amp.GradScaler("cpu").scale(torch.tensor(values).to(getattr(torch, dtype)))
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())
