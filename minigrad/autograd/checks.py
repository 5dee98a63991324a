"""``mg.autograd.gradcheck`` and ``gradgradcheck`` in PyTorch's signature (lessons 04-08).

The checking itself is ``minigrad.check``'s (lesson 01's central differences,
on float64 copies); this module is PyTorch's door to it: keyword-only
tolerances, only the inputs that require grad are checked (the others are
held fixed), and PyTorch's errors and warnings for what it refuses.

    >>> import minigrad as mg
    >>> x = mg.randn(3, dtype=mg.float64, requires_grad=True)
    >>> gradcheck(lambda x, k: (x * k).sin(), (x, mg.ones(3)))
    True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from minigrad import check
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck"]


def _checked(func: Callable[..., Any], inputs: Any, where: str) -> tuple[Callable, list]:
    """``func`` as a function of the inputs that require grad, and those inputs."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    chosen = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not chosen:
        raise ValueError(
            f"{where} expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )
    for i in chosen:
        if inputs[i].dtype != dtypes.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                stacklevel=3,
            )

    def of_chosen(*xs: Tensor) -> Any:
        full = list(inputs)
        for i, x in zip(chosen, xs):
            full[i] = x
        return func(*full)

    return of_chosen, [inputs[i].detach() for i in chosen]


def _refuse(**flags: bool) -> None:
    on = [name for name, value in flags.items() if value]
    if on:
        raise NotImplementedError(
            f"gradcheck: {', '.join(on)}=True is not implemented in minigrad; the checks it "
            "adds (vmap over the backward pass) are not run"
        )


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """True if ``func``'s derivatives with respect to the inputs that require grad agree with
    central differences; else raises ``GradcheckError`` (a RuntimeError) or, with
    ``raise_exception=False``, returns False.

    ``check_backward_ad`` checks reverse mode, ``check_forward_ad`` forward mode.
    ``nondet_tol``, ``check_undefined_grad``, ``check_grad_dtypes``, ``fast_mode`` and
    ``masked`` are accepted and change nothing (minigrad's backward is deterministic and
    the whole Jacobian is always compared). Unlike PyTorch, inputs that are not float64
    are checked on float64 copies (after PyTorch's warning), so a float32 function can
    pass where PyTorch's finite differences in float32 fail.
    """
    _refuse(
        check_batched_grad=check_batched_grad, check_batched_forward_grad=check_batched_forward_grad
    )
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    of_chosen, xs = _checked(func, inputs, "gradcheck")
    tolerances = {"eps": eps, "atol": atol, "rtol": rtol, "raise_exception": raise_exception}
    with warnings.catch_warnings():  # the float64 warning above is PyTorch's, said once
        warnings.simplefilter("ignore", UserWarning)
        if check_backward_ad:
            return check.gradcheck(of_chosen, xs, check_forward_ad=check_forward_ad, **tolerances)
        return check.check_jvp(of_chosen, xs, **tolerances)


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """``gradcheck`` of ``func``'s backward pass: its second derivatives.

    ``grad_outputs`` (one per output) defaults to fixed random tensors.
    """
    _refuse(check_batched_grad=check_batched_grad, check_fwd_over_rev=check_fwd_over_rev)
    if not check_rev_over_rev:
        return True  # nothing asked for (PyTorch's answer too)
    of_chosen, xs = _checked(func, inputs, "gradgradcheck")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return check.gradgradcheck(
            of_chosen,
            xs,
            grad_outputs,
            eps=eps,
            atol=atol,
            rtol=rtol,
            raise_exception=raise_exception,
        )
