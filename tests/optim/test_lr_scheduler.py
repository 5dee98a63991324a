"""mg.optim.lr_scheduler: every schedule sets the very floats torch's does, step for step."""

import math
import warnings

import pytest
import torch

import minigrad as mg

STEPS = 30


def optimizers(kind="sgd"):
    """The same two-group optimizer in both libraries (the groups' rates differ)."""
    ours = [mg.zeros(2, requires_grad=True), mg.zeros(3, requires_grad=True)]
    theirs = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    if kind == "adam":
        return (
            mg.optim.Adam([{"params": ours[:1], "lr": 0.3}, {"params": ours[1:]}], lr=0.1),
            torch.optim.Adam([{"params": theirs[:1], "lr": 0.3}, {"params": theirs[1:]}], lr=0.1),
        )
    return (
        mg.optim.SGD([{"params": ours[:1], "lr": 0.3}, {"params": ours[1:]}], lr=0.1, momentum=0.5),
        torch.optim.SGD(
            [{"params": theirs[:1], "lr": 0.3}, {"params": theirs[1:]}], lr=0.1, momentum=0.5
        ),
    )


def build(lib, name, opt, kwargs):
    """Make ``name`` from ``lib`` (mg or torch); 'Sequential'/'Chained' build their members."""
    module = lib.optim.lr_scheduler
    if name == "SequentialLR":
        parts = [module.LinearLR(opt, start_factor=0.25, total_iters=4),
                 module.ExponentialLR(opt, gamma=0.9),
                 module.MultiStepLR(opt, milestones=[3, 5], gamma=0.5)]  # fmt: skip
        return module.SequentialLR(opt, parts, milestones=[5, 12])
    if name == "ChainedScheduler":
        parts = [module.ConstantLR(opt, factor=0.5, total_iters=6),
                 module.ExponentialLR(opt, gamma=0.95),
                 module.PolynomialLR(opt, total_iters=20, power=2.0)]  # fmt: skip
        return module.ChainedScheduler(parts)
    if name == "Chained StepLR and CosineAnnealingLR":  # two chainable schedules multiply
        parts = [module.StepLR(opt, step_size=3, gamma=0.5),
                 module.CosineAnnealingLR(opt, T_max=5, eta_min=0.001)]  # fmt: skip
        return module.ChainedScheduler(parts)
    return getattr(module, name)(opt, **kwargs)


CASES = [
    ("StepLR", {"step_size": 4, "gamma": 0.7}, "sgd"),
    ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.01}, "sgd"),
    ("LambdaLR", {"lr_lambda": lambda e: 1 / (1 + e) ** 0.5}, "sgd"),
    ("LambdaLR", {"lr_lambda": [lambda e: 0.9**e, lambda e: 1 + e % 3]}, "sgd"),
    ("MultiplicativeLR", {"lr_lambda": lambda e: 0.97 if e % 2 else 1.01}, "sgd"),
    ("MultiStepLR", {"milestones": [3, 7, 7, 20], "gamma": 0.3}, "sgd"),
    ("MultiStepLR", {"milestones": [5, 10]}, "sgd"),
    ("ConstantLR", {}, "sgd"),
    ("ConstantLR", {"factor": 0.1, "total_iters": 7}, "sgd"),
    ("LinearLR", {}, "sgd"),
    ("LinearLR", {"start_factor": 0.7, "end_factor": 0.1, "total_iters": 13}, "sgd"),
    ("ExponentialLR", {"gamma": 0.93}, "sgd"),
    ("PolynomialLR", {}, "sgd"),
    ("PolynomialLR", {"total_iters": 17, "power": 2.5}, "sgd"),
    ("SequentialLR", {}, "sgd"),
    ("ChainedScheduler", {}, "sgd"),
    ("Chained StepLR and CosineAnnealingLR", {}, "sgd"),
    ("CosineAnnealingWarmRestarts", {"T_0": 4}, "sgd"),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.01}, "sgd"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": STEPS + 1}, "sgd"),
    ("OneCycleLR", {"max_lr": [0.5, 2.0], "epochs": 4, "steps_per_epoch": 8,
                    "anneal_strategy": "linear", "three_phase": True, "pct_start": 0.2}, "adam"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 40, "cycle_momentum": False,
                    "div_factor": 5.0, "final_div_factor": 100.0}, "sgd"),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4}, "sgd"),
    ("CyclicLR", {"base_lr": [0.01, 0.02], "max_lr": 0.5, "step_size_up": 3,
                  "step_size_down": 5, "mode": "triangular2"}, "adam"),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.2, "step_size_up": 2, "mode": "exp_range",
                  "gamma": 0.9, "base_momentum": 0.7, "max_momentum": 0.95}, "sgd"),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.2, "step_size_up": 3,
                  "scale_fn": lambda x: 1 / (1 + x), "scale_mode": "iterations",
                  "cycle_momentum": False}, "sgd"),
]  # fmt: skip


def hyper(opt):
    """Every group's rate and momentum (or beta1): the schedulers may set both."""
    return [(g["lr"], g.get("momentum"), g.get("betas", (None,))[0]) for g in opt.param_groups]


@pytest.mark.parametrize(
    "name, kwargs, kind", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_schedule_is_torchs_exactly(name, kwargs, kind):
    opt, topt = optimizers(kind)
    sched, tsched = build(mg, name, opt, kwargs), build(torch, name, topt, kwargs)
    seen = set()
    for step in range(STEPS):
        # The same floats (==, not approximately), every group, rate and momentum alike.
        assert sched.get_last_lr() == tsched.get_last_lr(), step
        assert hyper(opt) == hyper(topt), step
        seen.add(tuple(sched.get_last_lr()))
        opt.step(), topt.step()
        sched.step(), tsched.step()
    assert len(seen) >= 2  # the schedule moved


@pytest.mark.parametrize("name, kwargs, kind", [CASES[i] for i in (1, 5, 10, 15, 16, 18, 20, 23)])
def test_state_dict_round_trip_resumes_the_schedule(name, kwargs, kind):
    opt, topt = optimizers(kind)
    sched, tsched = build(mg, name, opt, kwargs), build(torch, name, topt, kwargs)
    for _ in range(7):
        opt.step(), topt.step(), sched.step(), tsched.step()
    saved, opt_saved = sched.state_dict(), opt.state_dict()
    assert "optimizer" not in saved
    theirs = tsched.state_dict()
    assert all(saved[k] == theirs[k] for k in ("last_epoch", "base_lrs", "_last_lr") if k in theirs)
    # A fresh pair, restored, goes on exactly as the first would have.
    opt2, _ = optimizers(kind)
    sched2 = build(mg, name, opt2, kwargs)
    opt2.load_state_dict(opt_saved)
    sched2.load_state_dict(saved)
    for _ in range(10):
        opt.step(), opt2.step(), topt.step()
        sched.step(), sched2.step(), tsched.step()
        assert sched2.get_last_lr() == sched.get_last_lr() == tsched.get_last_lr()
        assert hyper(opt2) == hyper(topt)


@pytest.mark.parametrize("name, kwargs", [CASES[0][:2], CASES[1][:2], CASES[11][:2]])
def test_resuming_at_last_epoch_is_torchs(name, kwargs):
    opt, topt = optimizers()
    for o in (opt, topt):
        for group in o.param_groups:
            group["initial_lr"] = group["lr"] * 2
    sched = build(mg, name, opt, {**kwargs, "last_epoch": 5})
    tsched = build(torch, name, topt, {**kwargs, "last_epoch": 5})
    for step in range(10):
        assert sched.get_last_lr() == tsched.get_last_lr(), step
        opt.step(), topt.step(), sched.step(), tsched.step()
    opt, _ = optimizers()
    with pytest.raises(KeyError, match=r"param 'initial_lr' is not specified in param_groups\[0\]"):
        build(mg, name, opt, {**kwargs, "last_epoch": 5})


def test_lambda_state_dict_saves_callable_objects_not_functions():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate**epoch

    results = []
    for lib in (mg, torch):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)] * 1, lr=1.0)
        sched = lib.optim.lr_scheduler.LambdaLR(opt, [Decay()])
        state = sched.state_dict()
        results.append(state["lr_lambdas"])
        fn = Decay()
        fn.rate = 0.1
        sched2 = lib.optim.lr_scheduler.LambdaLR(opt, [fn])
        sched2.load_state_dict(state)
        results.append(fn.rate)
        f = lib.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0).state_dict()["lr_lambdas"]
        results.append(f)
    assert results[:3] == results[3:] == [[{"rate": 0.5}], 0.5, [None]]


@pytest.mark.parametrize(
    "mode, threshold_mode, kwargs",
    [("min", "rel", {}), ("min", "abs", {"patience": 2, "cooldown": 2, "factor": 0.5}),
     ("max", "rel", {"patience": 1, "min_lr": [0.05, 0.001]}),
     ("max", "abs", {"patience": 0, "threshold": 0.5, "eps": 0.02, "factor": 0.3})],
)  # fmt: skip
def test_reduce_on_plateau_is_torchs(mode, threshold_mode, kwargs):
    opt, topt = optimizers()
    args = {"mode": mode, "threshold_mode": threshold_mode, **kwargs}
    sched = mg.optim.lr_scheduler.ReduceLROnPlateau(opt, **args)
    tsched = torch.optim.lr_scheduler.ReduceLROnPlateau(topt, **args)
    for step in range(40):
        metric = 1.0 + math.sin(step / 3) / (1 + step) + (step % 7 == 0)
        sched.step(mg.tensor(metric)), tsched.step(torch.tensor(metric))
        assert sched.get_last_lr() == tsched.get_last_lr(), step
        assert (sched.num_bad_epochs, sched.cooldown_counter, sched.best) == (
            tsched.num_bad_epochs, tsched.cooldown_counter, tsched.best)  # fmt: skip
    assert sched.get_last_lr() != [0.3, 0.1]  # it cut the rates at least once
    fresh = mg.optim.lr_scheduler.ReduceLROnPlateau(optimizers()[0], **args)
    fresh.load_state_dict(sched.state_dict())
    assert fresh.state_dict() == sched.state_dict()


def test_epoch_argument_warns_and_uses_the_closed_form():
    opt, topt = optimizers()
    sched = mg.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    tsched = torch.optim.lr_scheduler.MultiStepLR(topt, milestones=[2, 4], gamma=0.5)
    opt.step(), topt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
        sched.step(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tsched.step(5)
    assert sched.get_last_lr() == tsched.get_last_lr() == [0.075, 0.025]
    opt, topt = optimizers()
    sched = mg.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
    tsched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(topt, T_0=3, T_mult=2)
    for epoch in (0.5, 4.25, 12.0, 2.0):
        sched.step(epoch), tsched.step(epoch)
        assert sched.get_last_lr() == tsched.get_last_lr()
        assert (sched.T_cur, sched.T_i, sched.last_epoch) == (
            tsched.T_cur, tsched.T_i, tsched.last_epoch)  # fmt: skip


def _error(make):
    try:
        make()
    except Exception as e:
        return type(e), str(e).splitlines()[0]
    return None


@pytest.mark.parametrize(
    "make",
    [
        lambda L, o: L.LambdaLR(o, [lambda e: 1.0]),
        lambda L, o: L.MultiplicativeLR(o, 0.5),
        lambda L, o: L.ConstantLR(o, factor=1.5),
        lambda L, o: L.LinearLR(o, start_factor=0),
        lambda L, o: L.LinearLR(o, end_factor=1.5),
        lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=0),
        lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5),
        lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"),
        lambda L, o: L.OneCycleLR(o, max_lr=1.0),
        lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=0),
        lambda L, o: L.OneCycleLR(o, max_lr=1.0, epochs=2, steps_per_epoch=0),
        lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=5, pct_start=1),
        lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=5, anneal_strategy="exp"),
        lambda L, o: L.OneCycleLR(o, max_lr=[1.0], total_steps=5),
        lambda L, o: L.CyclicLR(o, 0.1, 1.0, mode="sine"),
        lambda L, o: L.ReduceLROnPlateau(o, factor=1.0),
        lambda L, o: L.ReduceLROnPlateau(o, mode="up"),
        lambda L, o: L.ReduceLROnPlateau(o, threshold_mode="x"),
        lambda L, o: L.ReduceLROnPlateau(o, min_lr=[0.1]),
        lambda L, o: L.SequentialLR(o, [], milestones=[]),
        lambda L, o: L.SequentialLR(o, [L.ExponentialLR(o, 0.5)], milestones=[3]),
        lambda L, o: L.SequentialLR(o, [L.ReduceLROnPlateau(o)], milestones=[]),
        lambda L, o: L.ChainedScheduler([]),
        lambda L, o: L.StepLR(None, 2),
    ],
)
def test_errors_are_torchs(make):
    opt, topt = optimizers()
    ours = _error(lambda: make(mg.optim.lr_scheduler, opt))
    theirs = _error(lambda: make(torch.optim.lr_scheduler, topt))
    assert theirs is not None
    assert ours == theirs


@pytest.mark.filterwarnings("ignore:Detected call of")
def test_stepping_past_one_cycle_and_mixed_optimizers_raise_as_torch():
    for lib in (mg, torch):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
        sched.step()
        sched.step()
        with pytest.raises(
            ValueError, match=r"Tried to step 3 times\. The specified number of total steps is 2"
        ):
            sched.step()
        other = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        with pytest.raises(
            ValueError, match="expects all schedulers to belong to the same optimizer"
        ):
            lib.optim.lr_scheduler.ChainedScheduler(
                [lib.optim.lr_scheduler.ExponentialLR(opt, 0.5),
                 lib.optim.lr_scheduler.ExponentialLR(other, 0.5)])  # fmt: skip
        rms = lib.optim.RMSprop([lib.zeros(1, requires_grad=True)], lr=1.0)
        del rms.defaults["momentum"]
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
            lib.optim.lr_scheduler.CyclicLR(rms, 0.1, 1.0)


def test_stepping_the_scheduler_first_warns_as_torch():
    for lib in (mg, torch):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler\.step\(\)` before"):
            sched.step()
        opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sched.step()  # once only
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sched.step()  # the right order: no warning
