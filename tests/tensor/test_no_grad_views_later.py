"""A view made under no_grad (or a piece of split) whose base comes to require grad only
afterwards (issue 22): a later change of the base's memory with the base requiring grad
refuses the view at its next recorded use, with PyTorch's error, as when the base required
grad from the start; and the view then reports requires_grad=True, as PyTorch's. Checked
against torch on the numpy and numba backends."""

import pytest
import torch

import minigrad as mg


def outcome(call):
    try:
        r = call()
    except RuntimeError as error:
        return "RuntimeError", str(error).splitlines()[0][:120]
    return "ok", r.detach().tolist(), r.requires_grad


def made_then_required(lib, change, use):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0])
    with lib.no_grad():
        views = {"slice": x[1:], "split": x.split(2)[0], "view of a view": x[1:][:2],
                 "reshape": x.reshape(2, 2)}  # fmt: skip
    w = lib.tensor([2.0, 2.0, 2.0, 2.0], requires_grad=True)
    if change == "x.mul_(w)":  # x comes to require grad by an in-place change
        x.mul_(w)
    else:  # x.requires_grad_(), then its memory changes
        x.requires_grad_()
        if change == "no_grad add_":
            with lib.no_grad():
                x.add_(1)
        elif change == "through detach()":
            x.detach().mul_(2)
    v = views[use]
    return [outcome(lambda: v * 2), v.requires_grad if change != "requires_grad_ only" else None]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("change", ["x.mul_(w)", "no_grad add_", "through detach()"])
@pytest.mark.parametrize("use", ["slice", "split", "view of a view", "reshape"])
def test_refused_after_its_base_came_to_require_grad(backend, change, use):
    expected = made_then_required(torch, change, use)
    assert expected[0][0] == "RuntimeError"
    with mg.backends.use(backend):
        assert made_then_required(mg, change, use) == expected
