"""Randomness that composes (lessons 09, 13, 14): jit draws at each call, keys are values.

- the global generator under jit: a draw is an operation of the program, so
  ``jit(dropout)`` gets a new mask per call, the numbers eager mode draws;
- vmap's ``randomness`` modes hold under jit;
- explicit keys (``mg.random``): pure functions of the key, the same under
  jit and vmap as eagerly;
- checkpoint replays the same numbers in its recomputation, eagerly and under jit,
  and keeps its recomputation under jit (an optimization barrier).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

F = mg.nn.functional


def test_jit_dropout_draws_a_new_mask_per_call_the_same_as_eager():
    fast = mg.jit(lambda x: F.dropout(x, 0.5))
    x = mg.ones(64)
    mg.manual_seed(7)
    eager = [F.dropout(x, 0.5).numpy() for _ in range(3)]
    mg.manual_seed(7)
    compiled = [fast(x).numpy() for _ in range(3)]
    assert len(fast.compiled) == 1  # traced once, drawn three times
    for a, b in zip(eager, compiled):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(compiled[0], compiled[1])
    assert "draw(" in str(fast.graph(x))


def test_two_draws_of_one_shape_are_not_merged_and_an_unused_draw_still_draws():
    def f(x):
        mg.rand(3)  # unused: eager mode still advances the generator
        return x + mg.randn(3) - mg.randn(3)

    x = mg.zeros(3)
    mg.manual_seed(1)
    want = [f(x).numpy() for _ in range(2)]
    mg.manual_seed(1)
    fast = mg.jit(f)
    got = [fast(x).numpy() for _ in range(2)]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert np.abs(got[0]).max() > 0  # the two randn draws differ


@pytest.mark.parametrize("mode", ["different", "same"])
def test_vmap_randomness_modes_hold_under_jit(mode):
    def f(x):
        return x + mg.randn(4)

    batched = mg.vmap(f, randomness=mode)
    fast = mg.jit(batched)
    xs = mg.zeros(3, 4)
    mg.manual_seed(2)
    eager = batched(xs).numpy()
    mg.manual_seed(2)
    first, second = fast(xs).numpy(), fast(xs).numpy()
    np.testing.assert_array_equal(first, eager)
    assert not np.array_equal(first, second)  # new numbers per call
    rows_equal = np.array_equal(first[0], first[1])
    assert rows_equal == (mode == "same")


def test_keys_are_values_the_numbers_a_pure_function_of_them():
    key = mg.random.key(0)
    assert key.dtype == mg.int64 and key.shape == (2,)
    k1, k2 = mg.random.split(key)
    assert mg.random.split(key, 5).shape == (5, 2)
    a = mg.random.normal(k1, (4,))
    np.testing.assert_array_equal(a.numpy(), mg.random.normal(k1, (4,)).numpy())
    assert not np.array_equal(a.numpy(), mg.random.normal(k2, (4,)).numpy())
    big = mg.random.normal(k1, (200_000,), dtype=mg.float64).numpy()
    assert abs(big.mean()) < 0.01 and abs(big.std() - 1) < 0.01
    u = mg.random.uniform(k2, (200_000,), minval=-2.0, maxval=6.0).numpy()
    assert u.dtype == np.float32 and u.min() >= -2 and u.max() < 6 and abs(u.mean() - 2) < 0.03
    b = mg.random.bernoulli(k2, 0.25, (200_000,)).numpy()
    assert b.dtype == bool and abs(b.mean() - 0.25) < 0.01
    p = mg.tensor([0.0, 1.0])
    np.testing.assert_array_equal(mg.random.bernoulli(k1, p).numpy(), [False, True])
    with pytest.raises(TypeError, match="expected a key"):
        mg.random.normal(mg.ones(2), (3,))


def test_keys_under_jit_and_vmap_give_the_eager_numbers():
    keys = mg.random.split(mg.random.key(3), 4)
    draw = lambda k: mg.random.normal(k, (2, 3))
    eager = np.stack([draw(k).numpy() for k in keys])
    np.testing.assert_array_equal(mg.vmap(draw)(keys).numpy(), eager)
    np.testing.assert_array_equal(mg.jit(mg.vmap(draw))(keys).numpy(), eager)
    np.testing.assert_array_equal(mg.jit(draw)(keys[1]).numpy(), eager[1])
    # a different key per call: no retrace, new numbers
    fast = mg.jit(lambda k, x: x + mg.random.uniform(k, (3,)))
    one, two = fast(keys[0], mg.zeros(3)), fast(keys[1], mg.zeros(3))
    assert len(fast.compiled) == 1 and not np.array_equal(one.numpy(), two.numpy())


def _block(x, w):
    return F.dropout(mg.tanh(x @ w), 0.5)


def test_checkpoint_replays_random_numbers_eagerly_and_under_jit():
    w, x = mg.randn(4, 4), mg.randn(3, 4)
    plain = lambda w, x: (_block(x, w) ** 2).sum()
    checkpointed = lambda w, x: (mg.checkpoint(_block, x, w) ** 2).sum()
    mg.manual_seed(3)
    value, want = mg.value_and_grad(plain)(w, x)
    for f in (mg.value_and_grad(checkpointed), mg.jit(mg.value_and_grad(checkpointed))):
        mg.manual_seed(3)
        got_value, got = f(w, x)
        np.testing.assert_allclose(got_value.numpy(), value.numpy(), rtol=1e-6)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_checkpoint_under_jit_keeps_its_recomputation_and_closed_over_weights_work():
    w = mg.randn(4, 4, requires_grad=True)
    x = mg.randn(3, 4)
    plain = lambda x: (mg.tanh(mg.tanh(x @ w) @ w) ** 2).sum()
    checkpointed = lambda x: (mg.checkpoint(lambda x: mg.tanh(mg.tanh(x @ w) @ w), x) ** 2).sum()
    np.testing.assert_allclose(
        mg.jit(mg.grad(checkpointed))(x).detach().numpy(),
        mg.grad(plain)(x).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    names = lambda f: [op.prim.name for op in mg.jit(mg.grad(f)).graph(x).ops]
    ours, theirs = names(checkpointed), names(plain)
    assert "optimization_barrier" in ours
    assert ours.count("tanh") == theirs.count("tanh") + 2  # the recomputation survived CSE


def test_grad_of_a_jitted_function_that_draws_runs_the_draw_through_apply():
    f = lambda x: (F.dropout(x, 0.5) * x).sum()
    x = mg.ones(16)
    mg.manual_seed(4)
    want = mg.grad(f)(x).numpy()
    mg.manual_seed(4)
    got = mg.grad(mg.jit(f))(x).numpy()  # x requires grad inside grad: the apply path
    np.testing.assert_array_equal(got, want)
    assert 0 < (got == 0).sum() < 16
