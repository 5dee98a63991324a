"""Correctness-database rows: ctc_loss, rrelu and gumbel_softmax (see ``opdb/__init__.py``).

ctc_loss's scores are the differentiated input; the transcripts and lengths are drawn
inside the strategy and closed over by both functions (padded or concatenated, lists or
tensors, empty transcripts, inputs too short for theirs). ``:log_softmax`` passes the scores
through ``log_softmax`` first, the use PyTorch's gradient formula is made for (there it is the
plain derivative, and finite differences confirm it); the plain key gives the scores to the
loss as they are, where PyTorch's gradient is its own formula (``exp(log_probs) - gamma``),
which finite differences do not confirm. PyTorch has no second derivative of the loss.

rrelu (training) and gumbel_softmax draw from minigrad's generator; torch's side
rebuilds the same draws from it after the same seed, as the dropout rows do.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal

F = mg.nn.functional
TF = torch.nn.functional


def _edges(rng, shape):
    """Normal scores, with NaN, +-inf and +-0 among them now and then."""
    x = np.asarray(rng.standard_normal(shape))
    if x.size and rng.random() < 0.3:
        flat = x.reshape(-1)
        flat[rng.integers(0, flat.size)] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0])
    return x


@st.composite
def ctc_case(draw, normalized):
    steps, batch, classes = (
        draw(st.integers(1, 5)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 4)),
    )
    unbatched = batch == 1 and draw(st.booleans())
    shape = (steps, classes) if unbatched else (steps, batch, classes)
    arrays, views, rng = draw(inputs([shape], [normal]))
    blank = draw(st.integers(0, classes - 1))
    # Labels: any class in the plain key (a label equal to blank is PyTorch's to take; at a
    # sequence's last step its kernel then keeps only the label's share of the gradient);
    # the others, as CTC means them, under log_softmax.
    labels = np.array([c for c in range(classes) if c != blank or not normalized])
    longest = draw(st.integers(0, 3)) if labels.size else 0
    target_lengths = [int(n) for n in rng.integers(0, longest + 1, batch)]
    input_lengths = [int(n) for n in rng.integers(0, steps + 1, batch)]
    padded = draw(st.booleans())
    if padded:
        targets = rng.choice(labels, (batch, longest)) if labels.size else np.zeros((batch, 0))
    else:
        targets = rng.choice(labels, sum(target_lengths)) if labels.size else np.zeros(0)
    targets = np.asarray(targets, dtype=np.int64)
    as_tensors = draw(st.booleans())
    reduction = draw(st.sampled_from(["none", "mean", "sum"]))
    # Log-probabilities: the infinite losses of impossible alignments set to 0 (their slope
    # too), so that finite differences have a function to differentiate.
    zero_infinity = normalized or draw(st.booleans())

    def lengths(module, values):
        return module.tensor(values) if as_tensors or unbatched else list(values)

    def ours(x):
        x = F.log_softmax(x, -1) if normalized else x
        return F.ctc_loss(x, mg.tensor(targets), lengths(mg, input_lengths),
                          lengths(mg, target_lengths), blank, reduction, zero_infinity)  # fmt: skip

    def theirs(t):
        t = t.log_softmax(-1) if normalized else t
        # (lists: torch.func's transforms refuse the lengths as tensors, torch 2.13)
        return TF.ctc_loss(t, torch.tensor(targets), input_lengths, target_lengths, blank,
                           reduction, zero_infinity)  # fmt: skip

    return Case(_viewed(ours, views), _viewed(theirs, views), arrays)


@st.composite
def rrelu_case(draw, training, in_place=False):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    arrays, views, _ = draw(inputs([shape], [_edges]))
    lower = draw(st.sampled_from([0.0, 0.1, 1 / 8, -1.0]))
    upper = draw(st.sampled_from([1 / 3, 0.3, 2.0])) if lower != 0.0 else lower
    seed = draw(st.integers(0, 2**31))

    def ours(x):
        mg.manual_seed(seed)
        if in_place:
            return F.rrelu_(x * 1, lower, upper, training)
        return F.rrelu(x, lower, upper, training)

    def theirs(t):
        if not training:
            return TF.rrelu(t, lower, upper, False)
        mg.manual_seed(seed)  # a slope (upper - lower) u + lower per element, used where t <= 0
        u = mg.rand(*t.shape, dtype=mg.float64).numpy()
        slope = torch.tensor((upper - lower) * u + lower, dtype=t.dtype)
        return torch.where(t <= 0, t * slope, t)

    return Case(_viewed(ours, views), _viewed(theirs, views), arrays)


@st.composite
def gumbel_softmax_case(draw, hard):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    arrays, views, _ = draw(inputs([shape], [normal]))
    dim = draw(st.integers(-len(shape), len(shape) - 1)) if shape else -1
    tau = draw(st.sampled_from([1.0, 0.5, 3.0]))
    seed = draw(st.integers(0, 2**31))

    def ours(x):
        mg.manual_seed(seed)
        return F.gumbel_softmax(x, tau=tau, hard=hard, dim=dim)

    def theirs(t):
        mg.manual_seed(seed)  # torch's gumbels: -log of exponential draws, in t's dtype
        dtype = mg.float64 if t.dtype == torch.float64 else mg.float32
        noise = mg.empty(*t.shape, dtype=dtype).exponential_().numpy()
        soft = ((t - torch.tensor(noise).log()) / tau).softmax(dim)
        if not hard:
            return soft
        index = soft.max(dim, keepdim=True)[1]
        return torch.zeros_like(t).scatter_(dim, index, 1.0) - soft.detach() + soft

    return Case(_viewed(ours, views), _viewed(theirs, views), arrays)


CASES = {
    "nn.functional.ctc_loss": ctc_case(normalized=False),
    "nn.functional.ctc_loss:log_softmax": ctc_case(normalized=True),
    "nn.functional.rrelu": rrelu_case(training=False),
    "nn.functional.rrelu:training": rrelu_case(training=True),
    "nn.functional.rrelu_": rrelu_case(training=True, in_place=True),
    "nn.functional.gumbel_softmax": gumbel_softmax_case(hard=False),
    "nn.functional.gumbel_softmax:hard": gumbel_softmax_case(hard=True),
}
# PyTorch's ctc gradient is not the derivative of the loss for scores that are not
# log-probabilities; rrelu's kink at 0 and its NaN/inf edges; the one-hot of hard
# gumbel_softmax (straight through: its gradient is the soft sample's, by definition).
NOT_SMOOTH: set[str] = {"nn.functional.ctc_loss", "nn.functional.rrelu",
                        "nn.functional.rrelu:training", "nn.functional.rrelu_",
                        "nn.functional.gumbel_softmax:hard"}  # fmt: skip
NO_GRAD: set[str] = set()
# PyTorch has no derivative of its ctc gradient (nor has minigrad).
FIRST_ORDER_ONLY: set[str] = {"nn.functional.ctc_loss", "nn.functional.ctc_loss:log_softmax"}
