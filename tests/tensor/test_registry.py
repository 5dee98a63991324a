"""The primitive registry: every row read every way, and records that keep only what rules read.

test_forward_mode runs each row's program forward and backward against torch
and finite differences with leaf inputs. Here the same programs run on
*non-leaf* inputs, where a record hands its rules only what the row's
``saves`` names: a rule that reads a value it did not save fails (a record
or a spec has no ``.data``), and the gradients must not change.
"""

import gc
import weakref

import numpy as np
import pytest
from test_forward_mode import PROGRAMS, program_inputs

import minigrad as mg
from minigrad.backends.elementwise_ops import SCALAR_FUNCTIONS
from minigrad.tensor.primitive import REGISTRY, Primitive, TensorSpec, registry_table
from minigrad.tensor.record import OpRecord


def test_every_row_states_one_form_of_derivative_and_elementwise_rows_a_scalar_body():
    for name, prim in REGISTRY.items():
        assert prim.name == name
        if prim.differentiable:
            assert prim.form in ("elementwise", "linear", "multilinear", "custom"), name
        if prim.form == "elementwise":
            assert prim.scalar in SCALAR_FUNCTIONS, f"{name}: no scalar body {prim.scalar!r}"
    assert registry_table().count("\n") == len(REGISTRY) + 1


def test_a_row_cannot_be_registered_twice_or_with_two_derivatives():
    with pytest.raises(ValueError, match="already registered"):
        Primitive("exp", lambda backend, x: x, derivatives=(None,))
    with pytest.raises(TypeError, match="one form of derivative"):
        Primitive("both", lambda b, x: x, linear=(None,), vjp=lambda *a: a, register=False)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_rules_read_only_what_their_row_saves(name):
    fn, xs, _ = program_inputs(name)
    leaves = [x.requires_grad_() for x in xs]
    expected = mg.autograd.grad(fn(*leaves).sum(), leaves)
    # Non-leaf inputs: their records, not their values, reach unsaved slots.
    inner = [x * 1.0 for x in leaves]
    out = fn(*inner).sum()
    got = mg.autograd.grad(out, leaves)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)


def test_unsaved_inputs_are_described_not_kept():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2.0
    y = h + mg.tensor([3.0, 4.0])  # add reads nothing: both slots are stand-ins
    record = y.grad_fn
    assert record.saved is None
    assert isinstance(record.parents[0], OpRecord) and record.parents[0] is h.grad_fn
    assert isinstance(record.parents[1], TensorSpec) and record.parents[1].shape == (2,)


def test_a_saved_output_is_kept_as_its_array_so_no_cycle_forms():
    gc.disable()
    try:
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        ref = weakref.ref(y)
        record = y.grad_fn
        assert record.saved_out is y.data
        del y
        assert ref() is None  # freed by reference counting alone
        assert record.saved_out is not None
    finally:
        gc.enable()
