"""mg.optim: SGD (with momentum) and Adam follow torch.optim's trajectories step for step."""

import numpy as np
import pytest
import torch

import minigrad as mg

STEPS = 6


def problem(seed=0):
    """A small least-squares-plus-tanh problem whose gradients change every step."""
    rng = np.random.default_rng(seed)
    start = [rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(2)]
    x = rng.standard_normal((5, 3))
    y = rng.standard_normal((5, 4))
    return start, x, y


def mg_loss(params, x, y):
    w, b, _unused = params
    return ((mg.tanh(x @ w + b) - y) ** 2).mean()


def torch_loss(params, x, y):
    w, b, _unused = params
    return ((torch.tanh(x @ w + b) - y) ** 2).mean()


def trajectories(make_ours, make_theirs, steps=STEPS, seed=0):
    """Run both optimizers side by side; return the parameters after every step."""
    start, x_np, y_np = problem(seed)
    ours = [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in start]
    theirs = [torch.tensor(a, requires_grad=True) for a in start]
    x, y, tx, ty = (
        mg.tensor(x_np, dtype=mg.float64),
        mg.tensor(y_np, dtype=mg.float64),
        torch.tensor(x_np),
        torch.tensor(y_np),
    )
    opt, topt = make_ours(ours), make_theirs(theirs)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        topt.zero_grad()
        mg_loss(ours, x, y).backward()
        torch_loss(theirs, tx, ty).backward()
        opt.step()
        topt.step()
        history.append(
            ([p.detach().numpy().copy() for p in ours], [p.detach().numpy().copy() for p in theirs])
        )
    return ours, history


def assert_same_path(history):
    for step, (ours, theirs) in enumerate(history):
        for p, tp in zip(ours, theirs):
            np.testing.assert_allclose(p, tp, rtol=1e-12, atol=1e-14, err_msg=f"step {step + 1}")


@pytest.mark.parametrize(
    "kwargs",
    [{"lr": 0.3}, {"lr": 0.3, "momentum": 0.9}, {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.01}],
)
def test_sgd_follows_torch(kwargs):
    _, history = trajectories(
        lambda p: mg.optim.SGD(p, **kwargs), lambda p: torch.optim.SGD(p, **kwargs)
    )
    assert_same_path(history)
    # The parameters moved (a test that would pass with lr=0 proves nothing).
    assert not np.allclose(history[-1][0][0], problem()[0][0])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"lr": 0.05},
        {"lr": 0.05, "betas": (0.5, 0.9), "eps": 1e-3},
        {"lr": 0.01, "weight_decay": 0.1},
    ],
)
def test_adam_follows_torch(kwargs):
    _, history = trajectories(
        lambda p: mg.optim.Adam(p, **kwargs), lambda p: torch.optim.Adam(p, **kwargs)
    )
    assert_same_path(history)
    assert not np.allclose(history[-1][0][0], problem()[0][0])


def test_a_parameter_without_gradient_is_left_alone():
    # The third parameter is never used: its .grad stays None, as in torch.
    start = problem()[0][2]
    params, _ = trajectories(
        lambda p: mg.optim.Adam(p, lr=0.1), lambda p: torch.optim.Adam(p, lr=0.1)
    )
    assert params[2].grad is None
    np.testing.assert_array_equal(params[2].detach().numpy(), start)


def test_adam_counts_steps_per_parameter():
    # A parameter that joins late gets bias correction from its own first step, as in torch.
    a, b = mg.tensor(1.0, requires_grad=True), mg.tensor(1.0, requires_grad=True)
    ta, tb = torch.tensor(1.0, requires_grad=True), torch.tensor(1.0, requires_grad=True)
    opt, topt = mg.optim.Adam([a, b], lr=0.1), torch.optim.Adam([ta, tb], lr=0.1)
    for step in range(4):
        opt.zero_grad()
        topt.zero_grad()
        ((a * a + b * b) if step >= 2 else a * a).backward()
        ((ta * ta + tb * tb) if step >= 2 else ta * ta).backward()
        opt.step()
        topt.step()
    assert [opt.state[p]["step"] for p in (a, b)] == [4, 2]
    assert a.item() == pytest.approx(ta.item(), rel=1e-6)
    assert b.item() == pytest.approx(tb.item(), rel=1e-6)


@pytest.mark.parametrize(
    "make", [lambda p: mg.optim.SGD(p, lr=0.1, momentum=0.9), lambda p: mg.optim.Adam(p)]
)
def test_step_records_nothing_and_keeps_leaves(make):
    model = mg.nn.MLP([3, 4, 2])
    params = list(model.parameters())
    ids = [id(p) for p in params]
    opt = make(params)
    model(mg.randn(5, 3)).sum().backward()
    before = [p.detach().numpy().copy() for p in params]
    opt.step()
    assert [id(p) for p in model.parameters()] == ids  # the same tensor objects, updated in place
    for p, old in zip(params, before):
        assert p.is_leaf and p.requires_grad and p.dtype == mg.float32
        assert not np.array_equal(p.detach().numpy(), old)
    # Velocities/moments are plain tensors: no graph hangs off them.
    state = [v for p in params for v in opt.state[p].values() if isinstance(v, mg.Tensor)]
    assert state and all(not s.requires_grad and s.is_leaf for s in state)


def test_zero_grad_sets_none():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    opt = mg.optim.SGD([p], lr=0.1)
    (p * p).sum().backward()
    assert p.grad is not None
    opt.zero_grad()
    assert p.grad is None


def test_training_a_model_lowers_the_loss():
    mg.manual_seed(0)
    model = mg.nn.MLP([2, 16, 1], activation="tanh")
    x = mg.randn(64, 2)
    y = (x[:, 0] * x[:, 1]).reshape(-1, 1)
    opt = mg.optim.Adam(model.parameters(), lr=0.02)
    losses = []
    for _ in range(100):
        opt.zero_grad()
        loss = mg.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0]


def test_optimizer_errors():
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        mg.optim.SGD([], lr=0.1)
    with pytest.raises(
        TypeError, match="optimizer can only optimize Tensors, but one of the params is ndarray"
    ):
        mg.optim.Adam([np.zeros(3)])
    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        mg.optim.SGD([x * 2], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        mg.optim.SGD([x], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameters"):
        mg.optim.Adam([x], betas=(0.9, 1.0))


# -- issue 12: more optimizers, schedulers, param groups, in-place steps -----------------
@pytest.mark.parametrize(
    "kwargs",
    [
        {"lr": 0.1, "momentum": 0.9, "dampening": 0.3},
        {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05},
    ],
)
def test_sgd_dampening_and_nesterov_follow_torch(kwargs):
    _, history = trajectories(
        lambda p: mg.optim.SGD(p, **kwargs), lambda p: torch.optim.SGD(p, **kwargs), steps=10
    )
    assert_same_path(history)


@pytest.mark.parametrize(
    "kwargs", [{}, {"lr": 0.05}, {"lr": 0.02, "betas": (0.8, 0.99), "weight_decay": 0.3}]
)
def test_adamw_follows_torch(kwargs):
    _, history = trajectories(
        lambda p: mg.optim.AdamW(p, **kwargs), lambda p: torch.optim.AdamW(p, **kwargs), steps=10
    )
    assert_same_path(history)
    assert not np.allclose(history[-1][0][0], problem()[0][0])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"lr": 0.003, "alpha": 0.9, "eps": 1e-6},
        {"lr": 0.003, "momentum": 0.8, "weight_decay": 0.1},
        {"lr": 0.003, "centered": True},
        {"lr": 0.003, "centered": True, "momentum": 0.5},
    ],
)
def test_rmsprop_follows_torch(kwargs):
    _, history = trajectories(
        lambda p: mg.optim.RMSprop(p, **kwargs),
        lambda p: torch.optim.RMSprop(p, **kwargs),
        steps=10,
    )
    assert_same_path(history)
    assert not np.allclose(history[-1][0][0], problem()[0][0])


def test_defaults_are_torchs():
    p = [mg.zeros(1, requires_grad=True)]
    tp = [torch.zeros(1, requires_grad=True)]
    for name in ("SGD", "Adam", "AdamW", "RMSprop"):
        ours = getattr(mg.optim, name)(p).defaults
        theirs = getattr(torch.optim, name)(tp).defaults
        for key, value in ours.items():
            assert theirs[key] == value, (name, key)


@pytest.mark.parametrize(
    "make, make_torch",
    [
        (
            lambda o: mg.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
            lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
        ),
        (
            lambda o: mg.optim.lr_scheduler.StepLR(o, 2),
            lambda o: torch.optim.lr_scheduler.StepLR(o, 2),
        ),
        (
            lambda o: mg.optim.lr_scheduler.CosineAnnealingLR(o, T_max=5, eta_min=0.01),
            lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=5, eta_min=0.01),
        ),
        (
            lambda o: mg.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4),
            lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4),
        ),
    ],
)
def test_schedulers_follow_torch(make, make_torch):
    # Two groups with different rates; 12 steps go past T_max (the cosine comes back up).
    start, x_np, y_np = problem()
    ours = [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in start]
    theirs = [torch.tensor(a, requires_grad=True) for a in start]
    opt = mg.optim.SGD([{"params": ours[:1], "lr": 0.3}, {"params": ours[1:]}], lr=0.1)
    topt = torch.optim.SGD([{"params": theirs[:1], "lr": 0.3}, {"params": theirs[1:]}], lr=0.1)
    sched, tsched = make(opt), make_torch(topt)
    x, y, tx, ty = mg.tensor(x_np), mg.tensor(y_np), torch.tensor(x_np), torch.tensor(y_np)
    for step in range(12):
        np.testing.assert_allclose(sched.get_last_lr(), tsched.get_last_lr(), rtol=1e-12)
        assert [g["lr"] for g in opt.param_groups] == sched.get_last_lr()
        opt.zero_grad(), topt.zero_grad()
        mg_loss(ours, x, y).backward()
        torch_loss(theirs, tx, ty).backward()
        opt.step(), topt.step()
        sched.step(), tsched.step()
        for p, tp in zip(ours, theirs):
            np.testing.assert_allclose(
                p.detach().numpy(), tp.detach().numpy(), rtol=1e-11, err_msg=step
            )


def test_param_groups_and_errors():
    a, b = mg.zeros(2, requires_grad=True), mg.zeros(2, requires_grad=True)
    opt = mg.optim.Adam([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["betas"] == (0.9, 0.999)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        mg.optim.SGD([{"params": [a]}, {"params": [a]}], lr=0.1)
    with pytest.raises(
        ValueError, match="Nesterov momentum requires a momentum and zero dampening"
    ):
        mg.optim.SGD([a], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid weight_decay value: -1"):
        mg.optim.AdamW([a], weight_decay=-1)
    with pytest.raises(ValueError, match="Invalid alpha value"):
        mg.optim.RMSprop([a], alpha=-0.1)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        mg.optim.SGD(a, lr=0.1)


def test_state_dict_round_trip():
    def run(opt, params, steps):
        for _ in range(steps):
            opt.zero_grad()
            mg_loss(params, x, y).backward()
            opt.step()

    start, x_np, y_np = problem()
    x, y = mg.tensor(x_np), mg.tensor(y_np)
    ref = [mg.tensor(a, requires_grad=True) for a in start]
    ref_opt = mg.optim.Adam(ref, lr=0.05)
    run(ref_opt, ref, 6)
    resumed = [mg.tensor(a, requires_grad=True) for a in start]
    first = mg.optim.Adam(resumed, lr=0.05)
    run(first, resumed, 3)
    saved = first.state_dict()
    second = mg.optim.Adam(resumed, lr=0.7)
    second.load_state_dict(saved)
    assert second.param_groups[0]["lr"] == 0.05
    run(second, resumed, 3)
    for p, q in zip(ref, resumed):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


@pytest.mark.parametrize(
    "make, versions",
    [
        (lambda p: mg.optim.SGD(p, lr=0.1, momentum=0.9), 1),
        (lambda p: mg.optim.Adam(p), 1),
        (lambda p: mg.optim.AdamW(p), 2),  # decay, then the step: two changes, as torch's
        (lambda p: mg.optim.RMSprop(p), 1),
    ],
)
def test_step_changes_the_same_memory_in_place(make, versions):
    model = mg.nn.MLP([3, 4, 2])
    params = list(model.parameters())
    buffers = [p.data for p in params]
    opt = make(model.parameters())
    model(mg.randn(5, 3)).sum().backward()
    opt.step()
    assert all(p.data is b for p, b in zip(params, buffers))  # written into, not replaced
    assert all(p._version == versions and p.grad_fn is None for p in params)
