"""Collectives over a named vmap axis (lesson 18): JAX's semantics, loops, errors, hooks.

The correctness database (opdb/collectives.py) checks values and derivatives
against PyTorch; here: the definitions as loops over the examples, nesting,
data parallelism as a batching rule, and the errors a student will meet.
"""

import numpy as np
import pytest
import torch

import minigrad as mg


def _x(*shape, seed=0):
    return mg.tensor(np.random.default_rng(seed).standard_normal(shape))


def test_each_collective_equals_its_loop_over_the_examples():
    x = _x(3, 3, 2)
    xs = x.numpy()
    n = 3
    got = mg.vmap(lambda r: mg.psum(r, "i"), axis_name="i")(x).numpy()
    for j in range(n):
        np.testing.assert_allclose(got[j], sum(xs[k] for k in range(n)))
    got = mg.vmap(lambda r: mg.all_gather(r, "i"), axis_name="i")(x).numpy()
    for j in range(n):
        np.testing.assert_array_equal(got[j], np.stack([xs[k] for k in range(n)]))
    got = mg.vmap(lambda r: mg.psum_scatter(r, "i"), axis_name="i")(x).numpy()
    for j in range(n):
        np.testing.assert_allclose(got[j], sum(xs[k][j] for k in range(n)))
    got = mg.vmap(lambda r: mg.all_to_all(r, "i", 0, 0), axis_name="i")(x).numpy()
    for j in range(n):
        np.testing.assert_array_equal(got[j], np.stack([xs[k][j] for k in range(n)]))
    got = mg.vmap(lambda r: mg.pbroadcast(r, "i", 2), axis_name="i")(x).numpy()
    for j in range(n):
        np.testing.assert_array_equal(got[j], xs[2])


def test_nested_axes_reduce_over_the_named_one_only():
    x = _x(2, 3, 4)
    inner = mg.vmap(mg.vmap(lambda r: mg.psum(r, "j"), axis_name="j"), axis_name="i")(x)
    outer = mg.vmap(mg.vmap(lambda r: mg.psum(r, "i"), axis_name="j"), axis_name="i")(x)
    both = mg.vmap(mg.vmap(lambda r: mg.psum(r, ("i", "j")), axis_name="j"), axis_name="i")(x)
    xs = x.numpy()
    np.testing.assert_allclose(inner.numpy(), np.broadcast_to(xs.sum(1, keepdims=True), xs.shape))
    np.testing.assert_allclose(outer.numpy(), np.broadcast_to(xs.sum(0, keepdims=True), xs.shape))
    np.testing.assert_allclose(
        both.numpy(), np.broadcast_to(xs.sum((0, 1), keepdims=True), xs.shape)
    )


def test_a_value_that_does_not_vary_along_the_axis_counts_once_per_example():
    x = _x(4, 2)
    w = _x(2, seed=1)
    got = mg.vmap(lambda r: mg.psum(w, "i") + 0 * r, axis_name="i")(x)
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(4 * w.numpy(), (4, 2)))
    assert (
        mg.vmap(lambda r: mg.psum(1, "i") * r, axis_name="i")(x).numpy()[0, 0]
        == 4 * x.numpy()[0, 0]
    )


def test_data_parallel_gradients_are_the_whole_batch_gradient():
    """Each example a worker: pmean of per-worker gradients = gradient of the mean loss."""
    rng = np.random.default_rng(3)
    w = mg.tensor(rng.standard_normal((3, 2)))
    xs, ys = mg.tensor(rng.standard_normal((4, 5, 3))), mg.tensor(rng.standard_normal((4, 5, 2)))
    loss = lambda w, x, y: ((x @ w - y) ** 2).mean()
    per_worker = lambda w, x, y: mg.pmean(mg.grad(loss)(w, x, y), "i")
    got = mg.vmap(per_worker, in_axes=(None, 0, 0), axis_name="i")(w, xs, ys)
    whole = mg.grad(lambda w: loss(w, xs.reshape((20, 3)), ys.reshape((20, 2))))(w)
    for j in range(4):
        np.testing.assert_allclose(got.numpy()[j], whole.numpy(), rtol=1e-12)


def test_a_gradient_inside_the_vmap_runs_the_transpose():
    """d/dx_j of sum_k c_k . psum(x)_k is psum(c): all_reduce's transpose is all_reduce."""
    x, c = _x(3, 2), _x(3, 2, seed=1)
    got = mg.vmap(lambda r, cr: mg.vjp(lambda r: mg.psum(r, "i"), r)[1](cr)[0],
                  axis_name="i")(x, c)  # fmt: skip
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(c.numpy().sum(0), (3, 2)))


def test_errors_name_the_axis_and_the_sizes():
    x = _x(3, 2)
    with pytest.raises(NameError, match="unbound axis name: j"):
        mg.vmap(lambda r: mg.psum(r, "j"), axis_name="i")(x)
    with pytest.raises(NameError, match="unbound axis name: i"):
        mg.psum(x, "i")
    with pytest.raises(ValueError, match="must equal 3"):
        mg.vmap(lambda r: mg.psum_scatter(r, "i"), axis_name="i")(x)
    with pytest.raises(ValueError, match="multiple of 3"):
        mg.vmap(lambda r: mg.all_to_all(r, "i", 0, 0, tiled=True), axis_name="i")(x)
    with pytest.raises(ValueError, match="source must be"):
        mg.vmap(lambda r: mg.pbroadcast(r, "i", 3), axis_name="i")(x)


def test_post_accumulate_grad_hooks_run_after_the_grad_is_written_as_in_torch():
    for lib in (mg, torch):
        seen = []
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        handle = w.register_post_accumulate_grad_hook(
            lambda p, seen=seen: seen.append(p.grad.tolist())
        )
        (w * w).sum().backward()
        (w * 3).sum().backward()
        handle.remove()
        (w * 3).sum().backward()
        assert seen == [[2.0, 4.0], [5.0, 7.0]], lib.__name__
    with pytest.raises(RuntimeError, match="non-leaf"):
        (mg.tensor([1.0], requires_grad=True) * 2).register_post_accumulate_grad_hook(print)
