"""The stack of interpreters (tensor/mode.py): apply binds to the innermost level that claims."""

import numpy as np

import minigrad as mg
from minigrad.tensor.mode import Level, current
from minigrad.tensor.record import apply


class Seen(Level):
    """A level that sees every operation, writes its name down and passes it on."""

    kind = "seen"

    def __init__(self):
        super().__init__()
        self.names = []

    def process(self, prim, inputs, params):
        self.names.append(prim.name)
        with self.lowered():
            return apply(prim, inputs, **params)


def test_a_level_sees_every_operation_and_the_base_computes_it():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with Seen() as seen:
        y = (x * x).sum()
    assert seen.names == ["mul", "sum"]
    assert current().stack == [] and not seen.open
    (g,) = mg.autograd.grad(y, x)  # the base recorded the eager tape below the level
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])


def test_an_outer_level_sees_the_forward_rule_run_below_the_forward_level():
    x = mg.tensor([0.5, 1.0])
    with Seen() as outer:  # opened before jvp: below its forward level
        _, t = mg.jvp(lambda x: x.tanh(), (x,), (mg.ones(2),))
    assert outer.names[:2] == ["alias", "tanh"]  # the seed, then the value
    assert len(outer.names) > 2  # then the operations of tanh's tangent rule
    np.testing.assert_allclose(t.numpy(), 1 - np.tanh([0.5, 1.0]) ** 2, rtol=1e-6)


def test_inner_level_does_not_see_the_forward_rule():
    x = mg.tensor([0.5, 1.0])
    seen_inside = []

    def f(x):
        with Seen() as inner:
            out = x.tanh()
        seen_inside.extend(inner.names)
        return out

    _, t = mg.jvp(f, (x,), (mg.ones(2),))
    assert seen_inside == ["tanh"]  # the tangent rule runs below the forward level
    np.testing.assert_allclose(t.numpy(), 1 - np.tanh([0.5, 1.0]) ** 2, rtol=1e-6)


def test_a_level_that_claims_nothing_is_skipped():
    class Never(Seen):
        def claims(self, inputs, params):
            return False

    with Never() as never:
        y = mg.tensor([1.0]) + 1
    assert never.names == [] and y.item() == 2.0
