"""CTC, the loss of unaligned sequences: every alignment of a transcript, summed (lesson 06).

A speech or handwriting model emits one distribution over ``C`` labels per
time step, ``T`` steps in all, but the transcript has ``S <= T`` labels and
nobody says which step spells which label. Connectionist temporal
classification (Graves et al., 2006) adds a *blank* label and reads a path of
``T`` labels as the transcript left when repeats are merged and blanks
dropped (``a a _ b b`` and ``a _ _ _ b`` both spell ``ab``). The loss is
``-log`` of the summed probability of every path that spells the transcript.

The paths are summed by dynamic programming over the *extended* transcript
``l' = _ l1 _ l2 _ ... lS _`` (``2S + 1`` states): ``alpha[t, s]`` is the
log-probability of all path prefixes up to step ``t`` that end in state
``s``. A path moves from state ``s`` to ``s``, ``s + 1``, or ``s + 2`` (the
last skips a blank between two *different* labels), so

    alpha[t, s] = logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2]) + log_probs[t, l'[s]]

and ``beta`` is the same recursion run backward from the end. Their sum in
state ``s`` at step ``t`` counts every path through that state, so
``exp(alpha + beta - log p)`` summed over the states of one label is the
posterior probability ``gamma[t, c]`` that step ``t`` emits ``c``.

**The gradient is PyTorch's formula, not the plain derivative.** The
derivative of the loss with respect to ``log_probs[t, c]`` is ``-gamma[t, c]``.
PyTorch's kernel returns ``exp(log_probs[t, c]) - gamma[t, c]`` (for each
step inside the input's length; 0 after it): the derivative with respect to
the *scores* before a ``log_softmax``, which is the same as the plain
derivative once it has passed back through ``log_softmax`` (``log_softmax``'s
backward removes ``exp(log_probs)`` times the sum of the cotangent over the
labels, and the sum of ``gamma`` over the labels is 1). So the two agree for
``log_probs`` that are log-probabilities and differ when they are not;
minigrad's rows give PyTorch's, and the forward-mode rule reads the same
formula (the tangent is ``<that gradient, tangent>``), as reverse mode does.
PyTorch has no derivative of that gradient; neither does minigrad (the
second derivative raises PyTorch's error).

    >>> import minigrad as mg
    >>> log_probs = mg.tensor([[[0.5, 0.5]], [[0.5, 0.5]]]).log()   # T=2, N=1, C=2
    >>> mg.nn.functional.ctc_loss(log_probs, mg.tensor([[1]]), [2], [1], reduction="none")
    tensor([0.2877])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.nn.module import Module
from minigrad.tensor import dtypes, factories
from minigrad.tensor.base import Box, every_value
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.primitive import Primitive, moved_to_front
from minigrad.tensor.record import apply

#: PyTorch's reduction codes, as ``torch.ctc_loss`` takes them (``F.ctc_loss`` takes names).
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


# -- the dynamic programs, on the host (PyTorch's CPU kernel runs there too) ---------------------
def _log_add(*terms: np.ndarray) -> np.ndarray:
    """log(sum(exp(terms))) as PyTorch's kernel writes it: shifted by the largest term (0 when
    every term is -inf, so that -inf - -inf never happens)."""
    top = terms[0]
    for term in terms[1:]:
        top = np.where(term > top, term, top)
    top = np.where(top == -np.inf, 0, top)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.log(sum(np.exp(term - top) for term in terms)) + top


def _extended(targets: Sequence[Sequence[int]], blank: int) -> tuple[np.ndarray, np.ndarray]:
    """The extended transcripts ``l'`` (N, 2 max S + 1), blank-padded, and where a state may be
    reached from two back (a label different from the one two states before)."""
    width = 2 * max((len(t) for t in targets), default=0) + 1
    states = np.full((len(targets), width), blank, dtype=np.int64)
    for b, labels in enumerate(targets):
        states[b, 1 : 2 * len(labels) : 2] = labels
    skip = np.zeros(states.shape, dtype=bool)
    skip[:, 2:] = states[:, 2:] != states[:, :-2]
    return states, skip


def _shifted(a: np.ndarray, k: int) -> np.ndarray:
    """``a[:, s - k]`` at state ``s`` (-inf where that state does not exist)."""
    out = np.full(a.shape, -np.inf, dtype=a.dtype)
    width = a.shape[1]
    if k > 0 and k < width:
        out[:, k:] = a[:, : width - k]
    elif k < 0 and -k < width:
        out[:, : width + k] = a[:, -k:]
    return out


def _emitted(log_probs: np.ndarray, states: np.ndarray) -> np.ndarray:
    """log_probs[t, b, l'[b, s]] as a (T, N, states) array."""
    return np.take_along_axis(log_probs, states[None].repeat(len(log_probs), 0), axis=2)


def _alphas(log_probs, targets, input_lengths, blank):  # fmt: skip
    """The forward variables (T, N, states) and each sequence's negative log-likelihood."""
    steps, batch, _ = log_probs.shape
    states, skip = _extended(targets, blank)
    lengths = np.array([2 * len(t) + 1 for t in targets], dtype=np.int64)
    live = np.arange(states.shape[1])[None] < lengths[:, None]  # (N, states)
    emitted = _emitted(log_probs, states)
    neg_inf = np.array(-np.inf, dtype=log_probs.dtype)
    alpha = np.full((steps, batch, states.shape[1]), neg_inf, dtype=log_probs.dtype)
    if steps:
        alpha[0, :, 0] = emitted[0, :, 0]
        if states.shape[1] > 1:
            alpha[0, :, 1] = np.where(lengths > 1, emitted[0, :, 1], neg_inf)
    for t in range(1, steps):
        before = alpha[t - 1]
        one_back = _shifted(before, 1)
        two_back = np.where(skip, _shifted(before, 2), neg_inf)
        alpha[t] = np.where(live, _log_add(before, one_back, two_back) + emitted[t], neg_inf)
    nll = np.empty(batch, dtype=log_probs.dtype)
    for b, (steps_b, labels) in enumerate(zip(input_lengths, targets)):
        if steps_b == 0:
            nll[b] = 0 if not labels else np.inf
        elif not labels:  # no blank before the end: one way to finish
            nll[b] = -alpha[steps_b - 1, b, 0]
        else:
            last = alpha[steps_b - 1, b, 2 * len(labels) - 1 : 2 * len(labels) + 1]
            nll[b] = -_log_add(last[1], last[0])
    return alpha, nll


def _gradient(g, log_probs, targets, input_lengths, blank, zero_infinity):  # fmt: skip
    """PyTorch's ``_ctc_loss_backward``: ``(exp(log_probs) - gamma) * g`` per step inside
    each input's length, 0 after it (and everywhere for an infinite loss under
    ``zero_infinity``)."""
    steps, batch, classes = log_probs.shape
    alpha, nll = _alphas(log_probs, targets, input_lengths, blank)
    states, skip = _extended(targets, blank)
    width = states.shape[1]
    emitted = _emitted(log_probs, states)
    neg_inf = np.array(-np.inf, dtype=log_probs.dtype)
    beta = np.full(alpha.shape, neg_inf, dtype=log_probs.dtype)
    collected = np.full((batch, steps, classes), neg_inf, dtype=log_probs.dtype)
    ends = np.array(input_lengths, dtype=np.int64) - 1
    last = np.array([2 * len(t) for t in targets], dtype=np.int64)
    rows = np.arange(batch)
    position = np.arange(width)[None]
    live = position <= last[:, None]
    for t in range(steps - 1, -1, -1):
        starting = ends == t
        if starting.any():  # each sequence's last step: end in the final blank or label
            b = rows[starting]
            beta[t, b, last[b]] = emitted[t, b, last[b]]
            collected[b, t, blank] = alpha[t, b, last[b]] + beta[t, b, last[b]]
            labelled = b[last[b] > 0]  # (PyTorch assigns, so a label equal to blank wins)
            s = last[labelled] - 1
            beta[t, labelled, s] = emitted[t, labelled, s]
            collected[labelled, t, states[labelled, s]] = (
                alpha[t, labelled, s] + beta[t, labelled, s]
            )
        inside = ends > t
        if t == steps - 1 or not inside.any():
            continue
        after = beta[t + 1]
        # from s + 2 where l'[s + 2] differs from l'[s]: the same test as skip, two states on
        skip_on = _shifted(skip.astype(log_probs.dtype), -2) == 1
        one_on = np.where(position < last[:, None], _shifted(after, -1), neg_inf)
        two_on = np.where(skip_on & (position < last[:, None] - 1), _shifted(after, -2), neg_inf)
        new = _log_add(after, one_on, two_on) + emitted[t]
        beta[t] = np.where(inside[:, None] & live, new, beta[t])
        both = alpha[t] + beta[t]
        for s in range(width - 1, -1, -1):  # PyTorch's order: the last state first
            b = rows[inside & live[:, s]]
            here = collected[b, t, states[b, s]]
            top = np.maximum(here, both[b, s])
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                added = np.log(np.exp(here - top) + np.exp(both[b, s] - top)) + top
            collected[b, t, states[b, s]] = np.where(here == -np.inf, both[b, s], added)
    lp = log_probs.transpose(1, 0, 2)
    with np.errstate(invalid="ignore", over="ignore"):
        grad = (np.exp(lp) - np.exp(collected + nll[:, None, None] - lp)) * g[:, None, None]
    grad[np.arange(steps)[None, :] >= np.array(input_lengths)[:, None]] = 0
    if zero_infinity:
        grad[nll == np.inf] = 0
    return np.ascontiguousarray(grad.transpose(1, 0, 2).astype(log_probs.dtype))


def _host(backend: Any, x: Any) -> np.ndarray | None:
    try:
        return np.asarray(backend.to_numpy(x))
    except TracerError:  # traced by jit (lesson 13): only the shape and dtype are known
        return None


def _loss_forward(backend, log_probs, targets, input_lengths, blank, zero_infinity):  # fmt: skip
    lp = _host(backend, log_probs)
    if lp is None:
        return backend.unknown((log_probs.shape[1],), log_probs.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        return backend.from_numpy(_alphas(lp, targets, input_lengths, blank)[1])


def _gradient_forward(backend, g, log_probs, targets, input_lengths, blank,
                      zero_infinity):  # fmt: skip
    lp = _host(backend, log_probs)
    grad = _host(backend, g)
    if lp is None or grad is None:
        return backend.unknown(log_probs.shape, log_probs.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        slopes = np.broadcast_to(grad, (lp.shape[1],)).astype(lp.dtype)
        return backend.from_numpy(_gradient(slopes, lp, targets, input_lengths, blank,
                                            zero_infinity))  # fmt: skip


# -- the rows --------------------------------------------------------------------------------
def _loss_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, **params: Any) -> list:
    return [apply(CTC_LOSS_BACKWARD, (g, inputs[0]), **params) if needs[0] else None]


def _loss_jvp(tangents: Any, out: Any, inputs: Any, **params: Any) -> Any:
    """The tangent read from the same formula as the gradient: <gradient, tangent> per sequence."""
    (log_probs,), (tangent,) = inputs, tangents
    if tangent is None:
        return None
    ones = factories.ones((log_probs.shape[1],), dtype=log_probs.dtype, device=log_probs.device)
    return (apply(CTC_LOSS_BACKWARD, (ones, log_probs), **params) * tangent).sum((0, 2))


def _tiled(params: dict, size: int) -> dict:
    """The parameters of ``size`` examples side by side in one batch of sequences."""
    return {**params, "targets": params["targets"] * size,
            "input_lengths": params["input_lengths"] * size}  # fmt: skip


def _loss_batch(xs: list, batched: list, **params: Any) -> Tensor:
    """A vmapped batch of ``(T, N, C)`` inputs as one ``(T, B*N, C)`` batch of sequences."""
    lp = xs[0]
    size, steps, batch, classes = lp.shape
    joined = lp.transpose(1, 0, 2, 3).reshape(steps, size * batch, classes)
    return apply(CTC_LOSS, (joined,), **_tiled(params, size)).reshape(size, batch)


def _gradient_batch(xs: list, batched: list, **params: Any) -> Tensor:
    size = max(x.shape[0] for x, b in zip(xs, batched) if b)
    g, lp = (moved_to_front(x, b, size) for x, b in zip(xs, batched))
    _, steps, batch, classes = lp.shape
    joined = lp.transpose(1, 0, 2, 3).reshape(steps, size * batch, classes)
    grad = apply(CTC_LOSS_BACKWARD, (g.reshape(size * batch), joined), **_tiled(params, size))
    return grad.reshape(steps, size, batch, classes).transpose(1, 0, 2, 3)


def _no_second_derivative(*_: Any, **__: Any) -> Any:
    raise RuntimeError(
        "derivative for aten::_ctc_loss_backward is not implemented\n"
        "ctc_loss: PyTorch has no second derivative of the CTC loss, and neither has minigrad"
    )


# One row each for the loss and for PyTorch's gradient kernel: the loss's derivative is the
# gradient row (alpha-beta in log space), whose own derivative PyTorch does not have.
CTC_LOSS = Primitive("ctc_loss", _loss_forward, vjp=_loss_vjp, jvp=_loss_jvp, saves=(0,),
                     batch=_loss_batch)  # fmt: skip
CTC_LOSS_BACKWARD = Primitive(
    "ctc_loss_backward", _gradient_forward, vjp=_no_second_derivative,
    jvp=_no_second_derivative, saves="inputs", batch=_gradient_batch,
)  # fmt: skip


# -- the functions ---------------------------------------------------------------------------
def _invalid_arguments(*args: Any) -> TypeError:
    names = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    return TypeError(
        f"ctc_loss() received an invalid combination of arguments - got ({names}), but "
        "expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, "
        "tuple of ints target_lengths, int blank = 0, int reduction = Mean, bool zero_infinity "
        "= False)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor "
        "target_lengths, int blank = 0, int reduction = Mean, bool zero_infinity = False)"
    )


def _lengths(value: Any, name: str) -> np.ndarray | None:
    """A tensor's or a list's lengths, as int64 (None where PyTorch's parser refuses them)."""
    if isinstance(value, Tensor):
        if dtypes.kind(value.dtype) not in ("i", "u"):
            raise RuntimeError(f"{name} must be integral")
        return every_value(value).astype(np.int64).reshape(-1)
    if isinstance(value, (list, tuple)) and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value
    ):
        return np.array(value, dtype=np.int64).reshape(-1)
    return None


def _checked(log_probs: Tensor, targets: Tensor, input_lengths: np.ndarray,
             target_lengths: np.ndarray, blank: int) -> tuple:  # fmt: skip
    """PyTorch's checks, in its order; the transcripts as one tuple of labels per sequence."""
    where_ = " (while checking arguments for ctc_loss_allocate_outputs)"
    if log_probs.dtype not in (dtypes.float32, dtypes.float64):
        name = dtypes.scalar_type_name(log_probs.dtype)
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for '{name}'")
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if log_probs.ndim != 3:
        raise RuntimeError(
            f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional tensor for "
            f"argument #1 'log_probs'{where_}"
        )
    if targets.ndim not in (1, 2):
        raise RuntimeError(
            f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional tensor for "
            f"argument #2 'targets'{where_}"
        )
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if input_lengths.size != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if target_lengths.size != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(
                f"Expected target_lengths to have value at least 0, but got value {length}{where_}"
            )
    labels = every_value(targets).astype(np.int64)
    if targets.ndim == 1:
        total = int(target_lengths.sum())
        if targets.shape[0] != total:
            raise RuntimeError(
                f"Expected tensor to have size {total} at dimension 0, but got size "
                f"{targets.shape[0]} for argument #2 'targets'{where_}"
            )
        starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]]).astype(np.int64)
        transcripts = [labels[s : s + n] for s, n in zip(starts, target_lengths)]
    else:
        if targets.shape[0] != batch:
            raise RuntimeError(
                f"Expected tensor to have size {batch} at dimension 0, but got size "
                f"{targets.shape[0]} for argument #2 'targets'{where_}"
            )
        longest = int(target_lengths.max(initial=0))
        if targets.shape[1] < longest:
            raise RuntimeError(
                f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                f"{targets.shape[1]} for argument #2 'targets'{where_}"
            )
        transcripts = [labels[b, :n] for b, n in enumerate(target_lengths)]
    for length in input_lengths:
        if length < 0:
            raise RuntimeError(
                f"Expected input_lengths to have value at least 0, but got value {length}{where_}"
            )
        if length > steps:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {steps}, but got value {length}"
                f"{where_}"
            )
    for labels_b in transcripts:  # PyTorch reads outside log_probs here: refused instead
        bad = labels_b[(labels_b < 0) | (labels_b >= classes)]
        if bad.size:
            raise IndexError(
                f"ctc_loss: target {bad[0]} is out of bounds (there are {classes} labels); "
                "targets are label indices in [0, C)"
            )
    return tuple(tuple(int(v) for v in t) for t in transcripts)


def ctc_loss_with_codes(log_probs: Tensor, targets: Tensor, input_lengths: Any,
                        target_lengths: Any, blank: int = 0, reduction: Any = 1,
                        zero_infinity: bool = False) -> Tensor:  # fmt: skip
    """``mg.ctc_loss`` (``torch.ctc_loss``): ``nn.functional.ctc_loss`` with ``reduction``
    a code (0 none, 1 mean, 2 sum; PyTorch's ``Reduction`` numbers).

    >>> import minigrad as mg
    >>> log_probs = mg.tensor([[[0.5, 0.5]], [[0.5, 0.5]]]).log()
    >>> mg.ctc_loss(log_probs, mg.tensor([1]), [2], [1], 0, 2)
    tensor(0.2877)
    """
    if (
        not isinstance(log_probs, Tensor)
        or not isinstance(targets, Tensor)
        or not isinstance(reduction, int)
        or isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor)
    ):
        raise _invalid_arguments(log_probs, targets, input_lengths, target_lengths, blank,
                                 reduction, zero_infinity)  # fmt: skip
    for value in (targets, input_lengths, target_lengths):
        if isinstance(value, Tensor) and isinstance(value.data, Box):
            raise RuntimeError(
                "vmap: ctc_loss reads its targets and lengths on the host, one set for the "
                "whole batch; pass them unbatched (in_axes=None), or loop over the examples"
            )
    lengths = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths, "target_lengths")
    if lengths[0] is None or lengths[1] is None:
        raise _invalid_arguments(log_probs, targets, input_lengths, target_lengths, blank,
                                 reduction, zero_infinity)  # fmt: skip
    batched = log_probs.ndim == 3
    if not batched:
        if log_probs.ndim == 0:
            raise IndexError(
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
            )
        log_probs = log_probs.unsqueeze(1)
    transcripts = _checked(log_probs, targets, *lengths, int(blank))
    losses = apply(CTC_LOSS, (log_probs,), targets=transcripts,
                   input_lengths=tuple(int(n) for n in lengths[0]), blank=int(blank),
                   zero_infinity=bool(zero_infinity))  # fmt: skip
    if zero_infinity:
        losses = where(losses == np.inf, 0.0, losses)
    if reduction == 1:
        counts = np.maximum(lengths[1], 1).astype(log_probs.dtype.name)
        return (losses / Tensor.concrete(counts, device=log_probs.device)).mean()
    if reduction == 2:
        return losses.sum()
    return losses if batched else losses.squeeze(0)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> Tensor:  # fmt: skip
    """The CTC loss of ``log_probs`` (T, N, C) (or (T, C), one sequence) against the transcripts.

    ``targets`` is (N, S) padded (row b's first ``target_lengths[b]`` labels are
    its transcript) or 1-D, every transcript one after another; the lengths are
    tensors or lists of ints. ``reduction="mean"`` divides each loss by its
    transcript's length (at least 1) before the mean over the batch, as PyTorch.
    ``zero_infinity=True`` sets the infinite losses of impossible alignments
    (an input too short for its transcript) and their gradients to 0.

    >>> import minigrad as mg
    >>> log_probs = mg.tensor([[0.5, 0.5], [0.5, 0.5]]).log()   # T=2, C=2, one sequence
    >>> mg.nn.functional.ctc_loss(log_probs, mg.tensor([1]), [2], [1])
    tensor(0.2877)
    """
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return ctc_loss_with_codes(log_probs, targets, input_lengths, target_lengths, blank,
                               REDUCTIONS[reduction], zero_infinity)  # fmt: skip


class CTCLoss(Module):
    """``ctc_loss`` as a layer, with its ``blank``, ``reduction`` and ``zero_infinity``.

    >>> import minigrad as mg
    >>> mg.nn.CTCLoss(blank=0)
    CTCLoss()
    """

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Any,
                target_lengths: Any) -> Tensor:  # fmt: skip
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)  # fmt: skip
