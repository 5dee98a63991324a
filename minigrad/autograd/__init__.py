"""``mg.autograd``: PyTorch's ``torch.autograd`` namespace (lessons 05-08).

The names a PyTorch user reaches for, gathered from where minigrad builds
them: ``grad`` and ``backward`` (reverse mode, ``tensor/autograd.py``),
``Function`` and ``once_differentiable`` (custom operations,
``tensor/function.py``), ``gradcheck`` / ``gradgradcheck`` (``check``),
``functional`` (derivatives at a point) and ``forward_ad`` (dual tensors),
and the grad-mode switches.

minigrad has no anomaly mode, so ``detect_anomaly`` and
``set_detect_anomaly`` are not here.

    >>> import minigrad as mg
    >>> x = mg.tensor(2.0, requires_grad=True)
    >>> mg.autograd.grad(x**3, x)
    (tensor(12.),)
"""

from minigrad.autograd import forward_ad, functional
from minigrad.autograd.checks import gradcheck, gradgradcheck
from minigrad.check import GradcheckError
from minigrad.tensor.autograd import backward, grad
from minigrad.tensor.function import Function, FunctionCtx, once_differentiable
from minigrad.tensor.mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "backward",
    "enable_grad",
    "forward_ad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "no_grad",
    "once_differentiable",
    "set_grad_enabled",
]
