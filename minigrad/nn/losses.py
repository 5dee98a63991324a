"""Loss functions: how wrong a prediction is, as one number to minimize (lesson 06).

Every loss here is a few tensor operations and has no backward rule of its
own: reverse mode, forward mode and higher derivatives come from the rules
of the operations it is made of, by the chain rule. The formulas, defaults
and error texts are PyTorch's (``torch.nn.functional``), so a model trained
here computes the same numbers there.

A loss first gives one number per example (or per element), then
``reduction`` says what to return: ``"none"`` (those numbers), ``"sum"``, or
``"mean"``. The mean of a *weighted* classification loss divides by the sum
of the weights that were used, not by the count: with class weights ``w``,
``nll_loss`` returns ``sum_i w[y_i] l_i / sum_i w[y_i]``, a weighted average.

Class labels (``nll_loss``, ``cross_entropy``) are integers that select one
score per example; they are data, not differentiated. Class scores have
shape ``(N, C)``, ``(C,)`` for one example, or ``(N, C, d1, ...)`` for one
label per position (a segmentation map), as in PyTorch. The labels stay a
tensor and the score is picked by ``gather``, so the same code runs inside
``mg.vmap`` with a batch of labels (per-example gradients of a classifier,
lesson 14) and inside ``mg.jit``; only the range checks read their values.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.l1_loss(mg.tensor([1.0, 2.0]), mg.tensor([2.0, 0.0]), reduction="none")
    tensor([1., 2.])
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.nn.module import Module
from minigrad.tensor import dtypes, factories
from minigrad.tensor.base import every_value
from minigrad.tensor.composite import composite
from minigrad.tensor.mode import is_grad_enabled
from minigrad.tensor.ops import softmax as primitives
from minigrad.tensor.ops.broadcasting import stretch_to, sum_to
from minigrad.tensor.ops.elementwise import abs, exp, log, maximum, where
from minigrad.tensor.ops.indexing import gather
from minigrad.tensor.ops.movement import stack
from minigrad.tensor.ops.reductions import logsumexp
from minigrad.tensor.primitive import Primitive, aligned
from minigrad.tensor.record import apply
from minigrad.tensor.tensor import Tensor

REDUCTIONS = ("mean", "sum", "none")

# PyTorch's names for dtypes, as its errors spell them.
TORCH_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


# -- classification: one integer label per example --------------------------------------
@composite("nll_loss")
def nll_loss(
    input: Tensor,
    target: Any,
    weight: Tensor | None = None,
    *,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood: ``-weight[y] * input[i, y]`` for each label ``y = target[i]``.

    ``input`` holds log-probabilities (``log_softmax`` of scores) of shape
    ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``; ``target`` the integer labels,
    shaped like ``input`` without its class axis. Labels equal to
    ``ignore_index`` add nothing and do not count in the mean. With class
    weights the mean is the weighted average ``sum w[y] l / sum w[y]``.

    >>> import minigrad as mg
    >>> log_probs = mg.tensor([[-1.0, -2.0], [-3.0, -4.0]])
    >>> mg.nn.functional.nll_loss(log_probs, [1, 0])
    tensor(2.5)
    >>> mg.nn.functional.nll_loss(log_probs, [1, 0], weight=mg.tensor([1.0, 3.0]))  # (3*2 + 3)/4
    tensor(2.25)
    """
    _check_reduction(reduction)
    labels, kept = _checked_labels(input, _as_labels(target), weight, ignore_index)
    return _picked_loss(input, labels, kept, weight, reduction)


@composite("cross_entropy")
def cross_entropy(
    input: Tensor,
    target: Any,
    weight: Tensor | None = None,
    *,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Softmax cross-entropy between raw scores ``input`` and class ``target``.

    With integer labels, one example's loss is ``-log softmax(input)[label]``:
    small when the right class gets most of the probability (this is
    ``nll_loss(log_softmax(input), target)``). A float ``target`` shaped like
    ``input`` holds class probabilities instead, and the loss is
    ``-sum_c target_c log softmax(input)_c``. ``label_smoothing`` ``e`` mixes
    the target with the uniform distribution: ``(1 - e) target + e / C``.

    >>> import minigrad as mg
    >>> logits = mg.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> mg.nn.functional.cross_entropy(logits, mg.tensor([0, 2]), reduction="none")
    tensor([0.2395, 1.0986])
    >>> mg.nn.functional.cross_entropy(logits, mg.tensor([0, 2]), label_smoothing=0.3)
    tensor(0.8691)
    """
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    target = target if isinstance(target, Tensor) else factories.tensor(target)
    axis = _class_axis(input)
    log_probs = primitives.log_softmax(input, axis)
    classes = input.shape[axis]
    if target.shape == input.shape:
        return _cross_entropy_probabilities(log_probs, target, weight, ignore_index,
                                            reduction, label_smoothing)  # fmt: skip
    labels, kept = _checked_labels(log_probs, target, weight, ignore_index)
    nll = _picked_loss(log_probs, labels, kept, weight, reduction)
    if label_smoothing == 0.0:
        return nll
    # The uniform part: -sum_c w_c log p_c for each example, 0 where the label is ignored.
    if weight is not None:
        log_probs = log_probs * weight.reshape(_along(axis, input.ndim))
    smooth = -log_probs.sum(axis=axis)
    if kept is not None:
        smooth = smooth * kept.to(input.dtype)
    if reduction == "mean":  # divided by what nll_loss's weighted mean divides by
        w = _label_weights(weight, labels, kept, input)
        smooth = smooth.sum() / (w.sum() if w is not None else labels.size)
    else:
        smooth = _reduce(smooth, reduction)
    return (1 - label_smoothing) * nll + (label_smoothing / classes) * smooth


def _cross_entropy_probabilities(log_probs, target, weight, ignore_index, reduction,
                                 label_smoothing):  # fmt: skip
    """Cross-entropy against class probabilities; the mean divides by the example count."""
    if not dtypes.is_floating(target.dtype):
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got "
            f"{TORCH_NAMES.get(target.dtype.name, target.dtype.name)}\ntarget has the shape "
            f"of the scores {target.shape}, so it is read as class probabilities; give "
            "integer labels without the class axis instead"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    axis = _class_axis(log_probs)
    classes = log_probs.shape[axis]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = log_probs * target
    if weight is not None:
        terms = terms * weight.reshape(_along(axis, log_probs.ndim))
    return _reduce(-terms.sum(axis=axis), reduction)


def _picked_loss(log_probs: Tensor, labels: Tensor, kept: Tensor | None,
                 weight: Tensor | None, reduction: str) -> Tensor:  # fmt: skip
    """``-w[y] log_probs[..., y]`` for each label ``y``; the mean is weighted by ``w[y]``.

    The pick is a ``gather`` along the class axis, with the labels as its
    index tensor: a row with a batch rule and a derivative (a scatter-add into
    the picked scores), so a batch of labels inside vmap needs nothing else.
    """
    axis = _class_axis(log_probs)
    picked = gather(log_probs, axis, labels.unsqueeze(axis)).squeeze(axis)
    w = _label_weights(weight, labels, kept, log_probs)
    losses = -(picked if w is None else picked * w)
    if reduction == "mean" and w is not None:
        return losses.sum() / w.sum()
    return _reduce(losses, reduction)


def _label_shape(input: Tensor) -> tuple[int, ...]:
    """The shape of the labels for scores ``input``: its shape without the class axis."""
    axis = _class_axis(input)
    return input.shape[:axis] + input.shape[axis + 1 :]


def _class_axis(input: Tensor) -> int:
    """Scores are ``(C,)`` or ``(N, C, ...)``: the class axis is 0 or 1."""
    if input.ndim == 0:
        raise ValueError(
            "Expected 1 or more dimensions (got 0)\nclass scores have shape (N, C) for a "
            "batch, (C,) for one example or (N, C, d1, ...) for one label per position"
        )
    return 0 if input.ndim == 1 else 1


def _along(axis: int, ndim: int) -> tuple[int, ...]:
    """The shape that broadcasts a ``(C,)`` vector along ``axis`` of an ``ndim`` tensor."""
    return (-1, *([1] * (ndim - axis - 1)))


def _as_labels(target: Any) -> Tensor:
    return target if isinstance(target, Tensor) else factories.tensor(target)


def _checked_labels(input: Tensor, target: Tensor, weight: Tensor | None,
                    ignore_index: int) -> tuple[Tensor, Tensor | None]:  # fmt: skip
    """The labels to read and which of them count, after PyTorch's checks.

    Returns ``(labels, kept)``: ``labels`` shaped like the scores without their
    class axis, an ignored label replaced by 0 (a real class, whose score is
    then weighed 0); ``kept`` the bool tensor of labels that count, or None if
    every one counts. Inside vmap the checks read every example's labels.
    """
    axis = _class_axis(input)
    classes = input.shape[axis]
    if target.dtype.kind not in "iu":
        name = TORCH_NAMES.get(target.dtype.name, target.dtype.name)
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {name}\nclass labels must be "
            "an integer tensor (e.g. mg.tensor([0, 2, 1])); for class probabilities pass a "
            "float tensor shaped like the scores to cross_entropy"
        )
    if target.device != input.device:
        target = target.to(input.device)  # labels are data: they follow the scores
    expected = _label_shape(input)
    if input.ndim == 1 and target.shape == (1,):
        target = target.reshape(())  # one example: a label of shape () or (1,)
    if input.ndim >= 2 and (target.ndim == 0 or target.shape[0] != input.shape[0]):
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0] if target.ndim else target.shape})."
        )
    if target.shape != expected:
        raise RuntimeError(
            f"Expected target size {list(expected)}, got {list(target.shape)}\nscores of "
            f"shape {input.shape} need one label per position, without the class axis"
        )
    if weight is not None and weight.shape != (classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
        )
    try:
        values = every_value(target)
    except TracerError:  # traced by jit (lesson 13): no values to check yet
        values = None
    if values is not None:
        counted = values[values != ignore_index]
        bad = counted[(counted < 0) | (counted >= classes)]
        if bad.size:
            raise IndexError(f"Target {bad[0]} is out of bounds. (there are {classes} classes)")
        if counted.size == values.size:  # no label is ignored (in any example)
            return target, None
    kept = target != ignore_index
    return target * kept, kept


def _label_weights(weight: Tensor | None, labels: Tensor, kept: Tensor | None,
                   input: Tensor) -> Tensor | None:  # fmt: skip
    """Each label's class weight, 0 where ignored; ``None`` when every weight is 1."""
    if weight is None:
        return None if kept is None else kept.to(input.dtype)
    w = gather(weight, 0, labels.reshape(-1)).reshape(labels.shape)  # ignored: class 0, then 0
    return w if kept is None else w * kept.to(w.dtype)


# -- two classes: a probability per element ------------------------------------------------
# PyTorch's floor under the product p (1 - p) in the slope: a float constant, 1e-12 rounded
# to float32, in every dtype.
_BCE_EPS = float(np.float32(1e-12))


def _bce_forward(backend: Any, p: Any, t: Any, *weight: Any, reduction: str) -> Any:
    """PyTorch's kernel: ``(t - 1) max(log1p(-p), -100) - t max(log p, -100)``, weighed, reduced."""
    floor = backend.full((), -100, p.dtype)
    with np.errstate(divide="ignore"):  # log 0 = -inf, floored at -100: PyTorch is silent too
        log_q = backend.zip("maximum", backend.map("log1p", backend.map("neg", p)), floor)
        log_p = backend.zip("maximum", backend.map("log", p), floor)
    t_minus_1 = backend.zip("sub", t, backend.full((), 1, t.dtype))
    loss = backend.zip("sub", backend.zip("mul", t_minus_1, log_q), backend.zip("mul", t, log_p))
    if weight:
        loss = backend.zip("mul", loss, weight[0])
    if reduction == "none":
        return loss
    total = backend.reduce("sum", loss, tuple(range(loss.ndim)), False)
    if reduction == "sum":
        return total
    return backend.zip("div", total, backend.full((), int(np.prod(loss.shape)), total.dtype))


def _bce_scaled(slope: Tensor, p: Any, weight: Any, reduction: str) -> Tensor:
    """A slope times the weight, divided by the count for a mean: PyTorch's order."""
    if weight:
        slope = slope * weight[0]
    return slope / p.numel() if reduction == "mean" else slope


def _bce_vjp(g: Any, out: Any, inputs: Any, needs: Any, reduction: str) -> Any:
    """PyTorch's backward: ``g (p - t) / max(p (1 - p), eps)`` for the probabilities (finite
    at p = 0 and 1), ``-g logit(p)`` for the targets; each weighed, then divided by the
    count for a mean. The weight has none (PyTorch refuses one that requires grad). Each
    slope is a row of its own, whose derivatives are PyTorch's double-backward formulas."""
    p, _, *weight = inputs
    grads: list[Any] = [None] * len(inputs)
    if needs[0]:
        grads[0] = apply(BCE_SLOPE, (g, *inputs), reduction=reduction)
    if needs[1]:
        grads[1] = apply(BCE_TARGET_SLOPE, (g, p, *weight), reduction=reduction)
    return grads


# -- the slopes' own derivatives: PyTorch's formulas (FunctionsManual.cpp) -----------------------
# PyTorch differentiates its BCE backward with its own formulas, which add eps = 1e-12 to p
# and 1 - p, where differentiating the clamped slope would not: so at p = 0 or 1 the second
# derivatives are PyTorch's (0, or about 1e24), not the clamp's 1e12. ``c`` is the cotangent
# (reverse mode) or the tangent (forward mode): each term is linear in it.
def _mean(x: Tensor, p: Any, reduction: str) -> Tensor:
    return x / p.numel() if reduction == "mean" else x


def _weighed(x: Tensor, weight: Any) -> Tensor:
    return x * weight[0] if weight else x


def _slope_by_g(c: Tensor, p: Any, t: Any, weight: Any, reduction: str) -> Tensor:
    """binary_cross_entropy_double_backward_grad_output."""
    return _mean(_weighed((p - t) / ((p + 1e-12) * (1 - p + 1e-12)) * c, weight), p, reduction)


def _slope_by_p(c: Tensor, g: Any, p: Any, t: Any, weight: Any, reduction: str) -> Tensor:
    """binary_cross_entropy_double_backward: ``(p^2 - 2 p t + t) / ((p + eps) (1 - p + eps))^2``."""
    a, b = p + 1e-12, 1 - p + 1e-12
    slope = (p * p - 2 * p * t + t) / ((a * a) * (b * b)) * (c * g)
    return _mean(_weighed(slope, weight), p, reduction)


def _slope_by_t(c: Tensor, g: Any, p: Any, weight: Any, reduction: str) -> Tensor:
    """binary_cross_entropy_double_backward_target: PyTorch clamps ``(1 - p) p`` in place under
    no_grad, so the clamp moves the value and the slope stays that of ``(1 - p) p``."""
    spread = (1 - p) * p
    floor = spread + (maximum(spread, p.new_full((), 1e-12)) - spread).detach()
    return _mean(_weighed(-c * g, weight) / floor, p, reduction)


def _target_slope_by_p(c: Tensor, g: Any, p: Any, weight: Any, reduction: str) -> Tensor:
    """Through ``-logit(p) g``: logit's slope ``1 / (p (1 - p))``, infinite at 0 and 1."""
    return -(_weighed(_mean(c, p, reduction), weight) * g) / (p * (1 - p))


def _target_slope_by_g(c: Tensor, p: Any, weight: Any, reduction: str) -> Tensor:
    return _weighed(_mean(c, p, reduction), weight) * -log(p / (1 - p))


def _slope_forward(backend: Any, g: Any, p: Any, t: Any, *weight: Any, reduction: str) -> Any:
    """``g (p - t) / max((1 - p) p, eps)``, weighed, over the count for a mean: PyTorch's
    kernel's arithmetic, one operation at a time (a 16-bit count is divided exactly)."""
    one = backend.full((), 1, p.dtype)
    floor = backend.zip("maximum", backend.zip("mul", backend.zip("sub", one, p), p),
                        backend.full((), _BCE_EPS, p.dtype))  # fmt: skip
    slope = backend.zip("div", backend.zip("mul", g, backend.zip("sub", p, t)), floor)
    return _forward_scaled(backend, slope, p, weight, reduction)


def _target_slope_forward(backend: Any, g: Any, p: Any, *weight: Any, reduction: str) -> Any:
    """``-logit(p) g`` (``log(p / (1 - p))``), weighed, over the count for a mean."""
    one = backend.full((), 1, p.dtype)
    logit = backend.map("log", backend.zip("div", p, backend.zip("sub", one, p)))
    slope = backend.zip("mul", backend.map("neg", logit), g)
    return _forward_scaled(backend, slope, p, weight, reduction)


def _forward_scaled(backend: Any, slope: Any, p: Any, weight: Any, reduction: str) -> Any:
    if weight:
        slope = backend.zip("mul", slope, weight[0])
    if reduction == "mean":
        count = int(np.prod(p.shape))
        exact = np.float32 if p.dtype.itemsize == 2 else p.dtype  # (as x / n computes it)
        slope = backend.zip("div", slope, backend.full((), count, np.dtype(exact)))
    return slope


def _slope_vjp(v: Any, out: Any, inputs: Any, needs: Any, reduction: str) -> Any:
    g, p, t, *weight = inputs
    grads: list[Any] = [None] * len(inputs)
    if needs[0]:
        grads[0] = sum_to(_slope_by_g(v, p, t, weight, reduction), g.shape)
    if needs[1]:
        grads[1] = sum_to(_slope_by_p(v, g, p, t, weight, reduction), p.shape)
    if needs[2]:
        grads[2] = sum_to(_slope_by_t(v, g, p, weight, reduction), t.shape)
    return grads


def _slope_jvp(tangents: Any, out: Any, inputs: Any, reduction: str) -> Any:
    g, p, t, *weight = inputs
    tg, tp, tt = tangents[:3]
    terms = []
    if tp is not None:
        terms.append(_slope_by_p(tp, g, p, t, weight, reduction))
    if tt is not None:
        terms.append(_slope_by_t(tt, g, p, weight, reduction))
    if tg is not None:
        terms.append(_slope_by_g(tg, p, t, weight, reduction))
    return _total(terms, out.shape)


def _target_slope_vjp(v: Any, out: Any, inputs: Any, needs: Any, reduction: str) -> Any:
    g, p, *weight = inputs
    grads: list[Any] = [None] * len(inputs)
    if needs[0]:
        grads[0] = sum_to(_target_slope_by_g(v, p, weight, reduction), g.shape)
    if needs[1]:
        grads[1] = sum_to(_target_slope_by_p(v, g, p, weight, reduction), p.shape)
    return grads


def _target_slope_jvp(tangents: Any, out: Any, inputs: Any, reduction: str) -> Any:
    g, p, *weight = inputs
    tg, tp = tangents[:2]
    terms = []
    if tp is not None:
        terms.append(_target_slope_by_p(tp, g, p, weight, reduction))
    if tg is not None:
        terms.append(_target_slope_by_g(tg, p, weight, reduction))
    return _total(terms, out.shape)


def _total(terms: list, shape: tuple) -> Any:
    if not terms:
        return None
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return stretch_to(total, shape)


def _slope_batch(row: Primitive, xs: Any, batched: Any, reduction: str) -> Tensor:
    """Per example: the row unreduced on the lined-up operands, over one example's count."""
    parts = aligned(xs, batched)
    slope = apply(row, tuple(parts), reduction="none")
    p = xs[1]
    shape = p.shape[1:] if batched[1] else p.shape  # one example's probabilities
    size = max(x.shape[0] for x, b in zip(xs, batched) if b)
    slope = stretch_to(slope, (size, *shape))
    return slope / int(np.prod(shape)) if reduction == "mean" else slope


# The slopes of binary_cross_entropy, as rows: their values are PyTorch's backward kernel's,
# and their derivatives (second derivatives of the loss) PyTorch's double-backward formulas.
BCE_SLOPE = Primitive(
    "binary_cross_entropy_backward", _slope_forward, vjp=_slope_vjp, jvp=_slope_jvp,
    saves="inputs", batch=lambda xs, batched, reduction: _slope_batch(
        BCE_SLOPE, xs, batched, reduction),
)  # fmt: skip
BCE_TARGET_SLOPE = Primitive(
    "binary_cross_entropy_target_backward", _target_slope_forward, vjp=_target_slope_vjp,
    jvp=_target_slope_jvp, saves="inputs", batch=lambda xs, batched, reduction: _slope_batch(
        BCE_TARGET_SLOPE, xs, batched, reduction),
)  # fmt: skip


def _bce_jvp(tangents: Any, out: Any, inputs: Any, reduction: str) -> Any:
    """PyTorch's forward-mode rule: the two slopes on the tangents, weighed, then reduced."""
    p, t, *weight = inputs
    total = None
    if tangents[0] is not None:
        total = tangents[0] * (p - t) / maximum((1 - p) * p, p.new_full((), _BCE_EPS))
    if tangents[1] is not None:
        term = -log(p / (1 - p)) * tangents[1]
        total = term if total is None else total + term
    if total is None:
        return None
    total = stretch_to(total * weight[0] if weight else total, p.shape)
    return total if reduction == "none" else _reduce(total, reduction)


def _bce_batch(xs: Any, batched: Any, reduction: str) -> Tensor:
    """Per example: the unreduced row, then each example's sum or mean."""
    losses = apply(BINARY_CROSS_ENTROPY, tuple(aligned(xs, batched)), reduction="none")
    size = max(x.shape[0] for x, b in zip(xs, batched) if b)
    shape = xs[0].shape[1:] if batched[0] else xs[0].shape  # one example's probabilities
    losses = stretch_to(losses, (size, *shape))
    if reduction == "none":
        return losses
    axes = tuple(range(1, losses.ndim))
    return losses.sum(axes) if reduction == "sum" else losses.mean(axes)


# One row, so that its slope is PyTorch's own formula (finite where p is 0 or 1, where the
# clamped logs' slopes would not be) and weighed and averaged in PyTorch's order.
BINARY_CROSS_ENTROPY = Primitive(
    "binary_cross_entropy", _bce_forward, vjp=_bce_vjp, jvp=_bce_jvp, saves="inputs",
    batch=_bce_batch,
)  # fmt: skip


@composite("binary_cross_entropy")
def binary_cross_entropy(
    input: Tensor, target: Any, weight: Tensor | None = None, *, reduction: str = "mean"
) -> Tensor:
    """``-(y log x + (1 - y) log(1 - x))`` for probabilities ``x`` and targets ``y`` in [0, 1].

    As in PyTorch, each log is clamped at -100, so the loss stays finite where
    ``x`` is exactly 0 or 1, and the slope is PyTorch's ``(x - y) / max(x (1 -
    x), 1e-12)``, finite there too (0 where ``x`` equals ``y``). The slope for
    the targets is ``-logit(x)``; ``weight`` gets none (PyTorch refuses a weight
    that requires grad).

    >>> import minigrad as mg
    >>> mg.nn.functional.binary_cross_entropy(mg.tensor([0.5, 1.0]), mg.tensor([1.0, 0.0]))
    tensor(50.3466)
    """
    _check_reduction(reduction)
    target = _as_target(target, input)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if target.dtype != input.dtype:
        names = [TORCH_NAMES.get(t.dtype.name, t.dtype.name) for t in (target, input)]
        raise RuntimeError(
            f"Found dtype {names[0]} but expected {names[1]}\nbinary_cross_entropy: give the "
            "target the probabilities' dtype (target.to(input.dtype))"
        )
    for name, t in (("input", input), ("target", target)):
        values = every_value(t)  # (inside vmap: every example's)
        if values.size and not ((values >= 0) & (values <= 1)).all():
            raise RuntimeError(
                f"all elements of {name} should be between 0 and 1\nbinary_cross_entropy "
                "reads probabilities; for raw scores use binary_cross_entropy_with_logits"
            )
    _refuse_weight_grad("binary_cross_entropy", weight)
    inputs = (input, target) if weight is None else (input, target, weight.to(input.dtype))
    return apply(BINARY_CROSS_ENTROPY, inputs, reduction=reduction)


def _refuse_weight_grad(name: str, weight: Tensor | None) -> None:
    if weight is not None and weight.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{name}' is not differentiable with respect to argument 'weight'. "
            "This input cannot have requires_grad True."
        )


@composite("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Any,
    weight: Tensor | None = None,
    *,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """``binary_cross_entropy(sigmoid(x), y)``, computed from the scores ``x`` themselves.

    ``-log sigmoid(x) = log(1 + e^-x) = logsumexp(0, -x)``: written as a
    logsumexp of two numbers, it is finite for any ``x`` (the same trick as
    ``log_softmax``), where ``log(sigmoid(x))`` would be ``log 0`` for
    ``x < -104`` in float32. The loss is ``(1 - y) x + (1 + (p - 1) y)
    log(1 + e^-x)``, with ``p = pos_weight`` weighting the positive examples.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.binary_cross_entropy_with_logits(mg.tensor([0.0, -1000.0]), mg.tensor([1.0, 1.0]),
    ...                                    reduction="none")
    tensor([   0.6931, 1000.    ])
    """
    _check_reduction(reduction)
    target = _as_target(target, input)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    _refuse_weight_grad("binary_cross_entropy_with_logits", weight)
    minus_log_sigmoid = logsumexp(stack([factories.zeros_like(input), -input]), axis=0)
    positive = minus_log_sigmoid if pos_weight is None else (
        (1 + (pos_weight - 1) * target) * minus_log_sigmoid
    )  # fmt: skip
    losses = (1 - target) * input + positive
    return _reduce(losses if weight is None else losses * weight, reduction)


# -- regression: a number per element ------------------------------------------------------
@composite("mse_loss")
def mse_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """Mean squared error: the average of ``(input - target) ** 2``.

    >>> import minigrad as mg
    >>> mg.nn.functional.mse_loss(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 4.0]))
    tensor(2.)
    """
    _check_reduction(reduction)
    _warn_if_shapes_differ(input, target)
    diff = input - target
    return _reduce(diff * diff, reduction)


@composite("l1_loss")
def l1_loss(input: Tensor, target: Any, *, reduction: str = "mean") -> Tensor:
    """Mean absolute error: the average of ``|input - target|``.

    >>> import minigrad as mg
    >>> mg.nn.functional.l1_loss(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 4.0]))
    tensor(1.)
    """
    _check_reduction(reduction)
    _warn_if_shapes_differ(input, target)
    return _reduce(abs(input - target), reduction)


@composite("smooth_l1_loss")
def smooth_l1_loss(input: Tensor, target: Any, *, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:  # fmt: skip
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``, for ``d = input - target``.

    Quadratic near 0 (a smooth minimum), linear far away (outliers pull with
    a bounded force). ``beta = 0`` is ``l1_loss``.

    >>> import minigrad as mg
    >>> mg.nn.functional.smooth_l1_loss(mg.tensor([0.5, 3.0]), mg.zeros(2), reduction="none")
    tensor([0.125, 2.5  ])
    """
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _warn_if_shapes_differ(input, target)
    diff = input - target
    size = abs(diff)
    if beta == 0:
        return _reduce(size, reduction)
    return _reduce(where(size < beta, 0.5 * diff * diff / beta, size - 0.5 * beta), reduction)


@composite("huber_loss")
def huber_loss(input: Tensor, target: Any, reduction: str = "mean",
               delta: float = 1.0) -> Tensor:  # fmt: skip
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``: ``delta`` x smooth L1.

    >>> import minigrad as mg
    >>> mg.nn.functional.huber_loss(mg.tensor([0.5, 3.0]), mg.zeros(2), reduction="none", delta=2.0)
    tensor([0.125, 4.   ])
    """
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _warn_if_shapes_differ(input, target)
    diff = input - target
    size = abs(diff)
    linear = delta * (size - 0.5 * delta)
    return _reduce(where(size < delta, 0.5 * diff * diff, linear), reduction)


# -- distributions ----------------------------------------------------------------------------
@composite("kl_div")
def kl_div(input: Tensor, target: Any, *, reduction: str = "mean",
           log_target: bool = False) -> Tensor:  # fmt: skip
    """Kullback-Leibler divergence ``sum target (log target - input)``, ``input`` in log space.

    ``input`` holds log-probabilities; ``target`` probabilities (or, with
    ``log_target=True``, log-probabilities). Where ``target`` is 0 the term is
    0 (``0 log 0 = 0``). ``reduction="batchmean"`` divides the sum by the
    batch size, which is the KL divergence's definition; ``"mean"`` (the
    default, kept for PyTorch's sake) divides by the number of elements and
    warns, as PyTorch does.

    >>> import minigrad as mg
    >>> p = mg.tensor([[0.5, 0.5]])
    >>> mg.nn.functional.kl_div(mg.tensor([[0.25, 0.75]]).log(), p, reduction="batchmean")
    tensor(0.1438)
    """
    _check_reduction(reduction, (*REDUCTIONS, "batchmean"))
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            UserWarning,
            stacklevel=2,
        )
    target = _as_target(target, input)
    if log_target:
        losses = exp(target) * (target - input)
    else:
        # target log target, with 0 log 0 = 0 (log sees 1 there, so its slope stays finite)
        positive = target != 0
        losses = where(positive, target * log(where(positive, target, 1.0)), 0.0) - target * input
    if reduction == "batchmean":
        return losses.sum() / input.shape[0] if input.ndim else losses.sum()
    return _reduce(losses, reduction)


# -- shared ---------------------------------------------------------------------------------
def _as_target(target: Any, input: Tensor) -> Tensor:
    """A target given as Python numbers or NumPy data becomes a tensor of ``input``'s dtype."""
    if isinstance(target, Tensor):
        return target
    return factories.tensor(target, dtype=input.dtype, device=input.device)


def _warn_if_shapes_differ(input: Tensor, target: Any) -> None:
    if isinstance(target, Tensor) and target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _check_reduction(reduction: str, allowed: tuple[str, ...] = REDUCTIONS) -> None:
    if reduction not in allowed:
        raise ValueError(
            f"{reduction} is not a valid value for reduction\nreduction: choose one of {allowed}"
        )


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses


def _legacy(size_average: Any, reduce: Any, reduction: str) -> str:
    """PyTorch's deprecated ``size_average``/``reduce`` flags, read as a ``reduction``
    (with PyTorch's warning)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{reduction}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return reduction


# -- the same losses as layers (PyTorch's nn.*Loss) -------------------------------------------
class _Loss(Module):
    """A loss as a layer: ``loss(input, target)`` with its settings kept on the module.

    Class weights (``weight``, ``pos_weight``) are buffers, as in PyTorch: saved by
    ``state_dict()``, moved by ``.to()``, never learned.
    """

    def __init__(self, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__()
        self.reduction = _legacy(size_average, reduce, reduction)


class L1Loss(_Loss):
    """``l1_loss`` as a layer.

    >>> import minigrad as mg
    >>> mg.nn.L1Loss()(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 4.0]))
    tensor(1.)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """``mse_loss`` as a layer."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return mse_loss(input, target, reduction=self.reduction)


class _WeightedLoss(_Loss):
    """A loss with class weights, kept as the buffer ``weight``."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class NLLLoss(_WeightedLoss):
    """``nll_loss`` as a layer, with its class weights as a buffer."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                        reduction=self.reduction)  # fmt: skip


class CrossEntropyLoss(_WeightedLoss):
    """``cross_entropy`` as a layer: raw scores in, class labels (or probabilities) as target.

    >>> import minigrad as mg
    >>> mg.nn.CrossEntropyLoss()(mg.tensor([[0.0, 0.0]]), mg.tensor([1]))  # log 2
    tensor(0.6931)
    """

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                             reduction=self.reduction,
                             label_smoothing=self.label_smoothing)  # fmt: skip


class BCELoss(_WeightedLoss):
    """``binary_cross_entropy`` as a layer: probabilities in, targets in [0, 1]."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """``binary_cross_entropy_with_logits`` as a layer: raw scores in."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return binary_cross_entropy_with_logits(input, target, self.weight,
                                                reduction=self.reduction,
                                                pos_weight=self.pos_weight)  # fmt: skip


class SmoothL1Loss(_Loss):
    """``smooth_l1_loss`` as a layer."""

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 beta: float = 1.0) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """``huber_loss`` as a layer."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """``kl_div`` as a layer: log-probabilities in."""

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 log_target: bool = False) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
