"""Every operation of the correctness database under ``mg.vmap`` (lesson 14).

For each case, a batch of three examples is made from its inputs (the same
values in other orders, so each example stays in the operation's domain) and

- ``mg.vmap(case.mg_fn)`` on the batch equals ``torch.func.vmap(case.torch_fn)``
  (or, where torch cannot vmap the function, the torch function run once per
  example), with every input batched, and with only the first one batched;
- gradients through the batched function equal torch's;
- no primitive falls back to the per-example loop: every row has a batch rule.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from opdb import DATABASE, NO_GRAD, SEEDS
from opdb.oracles import TOLERANCE as ORACLE_TOLERANCE
from opdb.oracles import outputs

import minigrad as mg
from minigrad.transforms.batching import BatchingFallbackWarning

BATCH = 3
# Cases that cannot be batched, and must say so: batch_norm in training mode
# writes the batch's mean into its running statistics in place, one buffer for
# every example (torch.func.vmap refuses it as well).
UNBATCHABLE = {"nn.functional.batch_norm"}
# Issue 22: results that are one Python bool (allclose, equal) or whose shape depends on
# the values (nonzero, unique, bincount).
UNBATCHABLE |= {"allclose", "equal", "equal:self", "nonzero", "unique", "bincount",
                "bincount:weights", "nonzero:int64", "nonzero:bool", "unique:int64",
                "unique:bool"}  # fmt: skip
UNBATCHABLE |= {"histc", "histc:edges", "histogram", "histogram:edges", "unique_consecutive",
                "unique_consecutive:edges", "unique_consecutive:int64",
                "unique_consecutive:bool"}  # fmt: skip
UNBATCHABLE |= {"histogramdd", "histogramdd:edges"}  # counted on the host, as histogram
# An integer masked median checks that no slice is masked out whole (a Python bool, as torch's).
UNBATCHABLE |= {"masked.median:int64"}
# Positions read on the host from the values (argwhere, nonzero_static, unravel_index).
UNBATCHABLE |= {"argwhere", "Tensor.argwhere", "nonzero_static", "Tensor.nonzero_static",
                "unravel_index"}  # fmt: skip
# Cases that draw random numbers (a seeded dropout mask). Under vmap's default
# randomness="error" they raise, as torch.func.vmap does (test_vmap.py checks
# that); with "same" every example gets the one mask the reference draws.
RANDOM = {"nn.functional.dropout", "nn.functional.dropout1d", "nn.functional.dropout2d",
          "nn.functional.dropout3d", "nn.functional.alpha_dropout",
          "nn.functional.feature_alpha_dropout"}  # fmt: skip
# The randomized SVDs draw their random matrix once per call (seeded by the case).
RANDOM |= {"svd_lowrank", "pca_lowrank"}
RANDOM |= {"nn.functional.rrelu:training", "nn.functional.rrelu_", "nn.functional.gumbel_softmax",
           "nn.functional.gumbel_softmax:hard"}  # fmt: skip
TOLERANCE = {"rtol": 1e-10, "atol": 1e-12}
# Where torch.func.vmap's own gradients are wrong, the loop over the examples (vmap's
# definition) is the reference: select_scatter of a 0-d src gives src twice its gradient
# under torch.func.vmap (torch 2.13; the loop gives it once).
LOOP_ONLY = {"select_scatter"}
# nanmedian() of a whole row: torch.func.vmap gives all of the gradient to one of several
# equal elements, where eager torch shares it among them (torch 2.13).
LOOP_ONLY |= {"nanmedian:ties", "nanmedian:nan"}
# ldexp of a 0-d input by an integer exponent: torch.func.vmap's gradient is 2**n, where eager
# torch (one example at a time, or the whole batch) gives its integer-pow slope, 0 for n >= 63
# or n < 0 (torch 2.13). minigrad follows eager torch (tests/opdb/special.py).
LOOP_ONLY |= {"ldexp:int_exponent:float64"}


def _examples(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``BATCH`` examples of ``a``: its values, then the same values shuffled."""
    shuffled = [rng.permutation(a.ravel()).reshape(a.shape) for _ in range(BATCH - 1)]
    return np.stack([a, *shuffled])


def _torch_batched(fn, ts, in_axes, loop_only=False):
    """torch.func.vmap of ``fn``, or, where torch cannot vmap it, a loop over the examples.

    The loop is vmap's definition, so where torch.func.vmap's shapes or values
    differ from it, torch is wrong and the loop is the reference: ``argmax(x, dim=None,
    keepdim=True)`` keeps one axis per example, not every axis (torch 2.x).
    """
    per_example = [
        outputs(fn(*[t[i] if axis == 0 else t for t, axis in zip(ts, in_axes)]))
        for i in range(BATCH)
    ]
    stacked = [torch.stack(list(parts)) for parts in zip(*per_example)]
    if loop_only:
        return stacked
    try:
        theirs = outputs(torch.func.vmap(fn, in_dims=in_axes)(*ts))
    except Exception:  # torch's vmap refuses some functions (.item(), data-dependent shapes)
        return stacked
    if [r.shape for r in theirs] != [r.shape for r in stacked]:
        return stacked
    # Nor where its values differ from the loop: torch.func.vmap's median of empty rows
    # returns uninitialised memory (torch 2.x), where each example's median is nan.
    for mine, loop in zip(theirs, stacked):
        if not torch.allclose(mine.detach(), loop.detach(), rtol=1e-12, atol=0, equal_nan=True):
            return stacked
    return theirs


@pytest.mark.parametrize("name", sorted(DATABASE))
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_vmap_matches_torch(name, data):
    case = data.draw(DATABASE[name])
    rng = np.random.default_rng(data.draw(SEEDS))
    arrays = [np.asarray(a, dtype=np.float64) for a in case.arrays]
    all_batched = tuple(0 for _ in arrays)
    first_only = tuple(0 if i == 0 else None for i in range(len(arrays)))
    in_axes = data.draw(st.sampled_from([all_batched, first_only]), label="in_axes")
    grads = name not in NO_GRAD
    values = [_examples(a, rng) if axis == 0 else a for a, axis in zip(arrays, in_axes)]
    xs = [mg.tensor(v, requires_grad=grads) for v in values]
    ts = [torch.tensor(v, requires_grad=grads) for v in values]
    with warnings.catch_warnings():
        warnings.simplefilter("error", BatchingFallbackWarning)  # a fallback fails the test
        if name in UNBATCHABLE:
            with pytest.raises(RuntimeError, match="vmap"):
                mg.vmap(case.mg_fn, in_axes=in_axes)(*xs)
            return
        ours = outputs(mg.vmap(case.mg_fn, in_axes=in_axes, randomness=_randomness(name))(*xs))
    theirs = _torch_batched(case.torch_fn, ts, in_axes, loop_only=name in LOOP_ONLY)
    assert len(ours) == len(theirs), f"{len(ours)} results, torch gives {len(theirs)}"
    for out, ref in zip(ours, theirs):
        want = ref.detach().numpy()
        assert out.shape == want.shape, f"shape {out.shape}, torch gives {want.shape}"
        assert out.dtype == want.dtype, f"dtype {out.dtype}, torch gives {want.dtype}"
        # a float32 result of integer or bool inputs: float32's tolerance (opdb.oracles)
        kept = ORACLE_TOLERANCE[np.float32] if want.dtype == np.float32 else TOLERANCE
        np.testing.assert_allclose(out.detach().numpy(), want, **kept)
    pairs = [(o, r) for o, r in zip(ours, theirs) if r.dtype.is_floating_point and r.requires_grad]
    if not grads or not pairs:
        return
    cotangents = [rng.standard_normal(r.shape) for _, r in pairs]
    mine = mg.autograd.grad(
        [o for o, _ in pairs], xs, grad_outputs=[mg.tensor(c) for c in cotangents],
        allow_unused=True,
    )  # fmt: skip
    try:
        ref = torch.autograd.grad(
            [r for _, r in pairs], ts, grad_outputs=[torch.from_numpy(c) for c in cotangents],
            allow_unused=True,
        )  # fmt: skip
    except RuntimeError:
        # torch.func.vmap's own backward can refuse what the loop differentiates
        # (conv_transpose1d: "grad_weight needs to be contiguous", torch 2.13): the loop,
        # vmap's definition, is then the reference for the gradients too.
        looped = _torch_batched(case.torch_fn, ts, in_axes, loop_only=True)
        looped = [r for r in looped if r.dtype.is_floating_point and r.requires_grad]
        ref = torch.autograd.grad(
            looped, ts, grad_outputs=[torch.from_numpy(c) for c in cotangents],
            allow_unused=True,
        )  # fmt: skip
    for i, (g, t, v) in enumerate(zip(mine, ref, values)):
        expected = np.zeros(v.shape) if t is None else t.detach().numpy()
        got = np.zeros(v.shape) if g is None else g.detach().numpy()
        np.testing.assert_allclose(got, expected, **TOLERANCE, err_msg=f"gradient of input {i}")


@pytest.mark.parametrize("name", sorted(DATABASE))
@settings(max_examples=2, deadline=None)
@given(data=st.data())
def test_per_example_gradients_match_torch(name, data):
    """``vmap(grad(f))``: the graph is recorded on batched tensors, its rules run batched."""
    if name in NO_GRAD or name in UNBATCHABLE:
        return
    case = data.draw(DATABASE[name])
    rng = np.random.default_rng(data.draw(SEEDS))
    arrays = [np.asarray(a, dtype=np.float64) for a in case.arrays]
    batch = [_examples(a, rng) for a in arrays]
    examples = outputs(case.torch_fn(*map(torch.tensor, arrays)))
    weights = [rng.standard_normal(r.shape) for r in examples]

    def loss(fn, tensor, *xs):
        return _weighted(outputs(fn(*xs)), weights, tensor)

    argnums = tuple(range(len(arrays)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", BatchingFallbackWarning)
        per_example = mg.grad(lambda *xs: loss(case.mg_fn, mg.tensor, *xs), argnums)
        ours = mg.vmap(per_example, randomness=_randomness(name))(*[mg.tensor(b) for b in batch])
    torch_grad = torch.func.grad(lambda *xs: loss(case.torch_fn, torch.tensor, *xs), argnums)
    try:
        expected = torch.func.vmap(torch_grad)(*[torch.tensor(b) for b in batch])
    except Exception:  # torch cannot vmap it: one example at a time, by eager autograd
        # (torch.func.grad refuses some functions too: ctc_loss reads a wrapped tensor's data)
        rows = [_eager_grad(lambda *xs: loss(case.torch_fn, torch.tensor, *xs),
                            [torch.tensor(b[i]) for b in batch]) for i in range(BATCH)]  # fmt: skip
        expected = [torch.stack(list(parts)) for parts in zip(*rows)]
    for i, (g, t) in enumerate(zip(ours, expected)):
        np.testing.assert_allclose(
            g.detach().numpy(), t.detach().numpy(), **TOLERANCE, err_msg=f"input {i}"
        )


def _eager_grad(fn, xs):
    xs = [x.requires_grad_() for x in xs]
    return torch.autograd.grad(fn(*xs), xs, allow_unused=True, materialize_grads=True)


def _randomness(name):
    return "same" if name in RANDOM else "error"


def _weighted(outs, weights, tensor):
    """sum over the floating outputs of <output, weight>: a scalar loss of every output."""
    total = 0.0
    for o, w in zip(outs, weights):
        floating = o.dtype.is_floating_point if isinstance(o, torch.Tensor) else o.dtype.kind == "f"
        if floating:
            total = total + (o * tensor(w, dtype=o.dtype)).sum()
    return total
