"""The losses as layers (``nn.MSELoss``, ``nn.CrossEntropyLoss`` ...) against PyTorch's."""

import contextlib

import numpy as np
import pytest
import torch

import minigrad as mg


def _data(rng, kind):
    """(input, target) as NumPy arrays for a loss of ``kind``."""
    if kind == "labels":
        scores = rng.normal(size=(5, 4))
        return scores, rng.integers(0, 4, size=5)
    if kind == "log_probs":
        scores = rng.normal(size=(5, 4))
        return scores - np.log(np.exp(scores).sum(1, keepdims=True)), rng.integers(0, 4, size=5)
    if kind == "probabilities":
        return rng.uniform(0.05, 0.95, size=(3, 4)), rng.uniform(0, 1, size=(3, 4))
    if kind == "kl":
        p = rng.dirichlet(np.ones(4), size=3)
        return np.log(rng.dirichlet(np.ones(4), size=3)), p
    return rng.normal(size=(3, 4)), rng.normal(size=(3, 4))


W4 = np.array([1.0, 2.0, 0.5, 3.0])
CASES = [
    ("L1Loss", {}, "values"),
    ("L1Loss", {"reduction": "sum"}, "values"),
    ("MSELoss", {}, "values"),
    ("MSELoss", {"reduce": False}, "values"),
    ("MSELoss", {"size_average": False}, "values"),
    ("NLLLoss", {"weight": W4, "ignore_index": 2}, "log_probs"),
    ("CrossEntropyLoss", {}, "labels"),
    ("CrossEntropyLoss", {"weight": W4, "label_smoothing": 0.2, "reduction": "sum"}, "labels"),
    ("BCELoss", {"weight": W4}, "probabilities"),
    ("BCEWithLogitsLoss", {"pos_weight": W4, "reduction": "none"}, "values"),
    ("SmoothL1Loss", {"beta": 0.5}, "values"),
    ("HuberLoss", {"delta": 0.7, "reduction": "sum"}, "values"),
    ("KLDivLoss", {"reduction": "batchmean"}, "kl"),
    ("KLDivLoss", {"reduction": "sum", "log_target": True}, "values"),
]


@pytest.mark.parametrize(("name", "settings", "kind"), CASES, ids=lambda v: str(v))
def test_a_loss_layer_is_torchs_in_value_gradient_state_and_repr(name, settings, kind):
    rng = np.random.default_rng(len(name) + len(settings))
    x, y = _data(rng, kind)
    theirs = getattr(torch.nn, name)(**{k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                                        for k, v in settings.items()})  # fmt: skip
    legacy = {"size_average", "reduce"} & set(settings)
    with (
        pytest.warns(UserWarning, match="size_average and reduce args will be deprecated")
        if legacy
        else contextlib.nullcontext()
    ):
        ours = getattr(mg.nn, name)(**{k: mg.tensor(v) if isinstance(v, np.ndarray) else v
                                       for k, v in settings.items()})  # fmt: skip
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.parameters()) == []
    # the class family is torch's too (CrossEntropyLoss is not an NLLLoss there)
    for other in ("NLLLoss", "BCELoss"):
        assert isinstance(ours, getattr(mg.nn, other)) == isinstance(
            theirs, getattr(torch.nn, other)
        )
    xm, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ym, yt = mg.tensor(y), torch.tensor(y)
    got, want = ours(xm, ym), theirs(xt, yt)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-14)
    cotangent = rng.normal(size=want.shape)
    got.backward(mg.tensor(cotangent))
    want.backward(torch.tensor(cotangent))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_class_weights_are_buffers_that_move_with_the_layer():
    loss = mg.nn.CrossEntropyLoss(weight=mg.tensor([1.0, 2.0], dtype=mg.float32))
    assert loss.weight.dtype == mg.float32
    loss.double()
    assert loss.weight.dtype == mg.float64
    assert list(mg.nn.BCEWithLogitsLoss().state_dict()) == []


def test_a_bad_reduction_is_torchs_error_at_the_call():
    loss = mg.nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        loss(mg.tensor([1.0]), mg.tensor([2.0]))
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        torch.nn.MSELoss(reduction="avg")(torch.tensor([1.0]), torch.tensor([2.0]))


def test_a_loss_at_the_ends_of_its_domain_is_silent_as_torchs():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = mg.nn.BCELoss()(mg.tensor([1.0, 0.0, 0.5]), mg.tensor([1.0, 0.0, 1.0]))
    want = torch.nn.BCELoss()(torch.tensor([1.0, 0.0, 0.5]), torch.tensor([1.0, 0.0, 1.0]))
    np.testing.assert_allclose(loss.numpy(), want.numpy(), rtol=1e-6)
