"""The ``*_copy`` functions (ops/copies.py): torch's values and errors, and results that
are copies (changing one in place leaves the input alone, unlike the views they copy)."""

import pytest
import torch

import minigrad as mg


def outcome(call):
    """``("ok", values)`` or ``(exception type, first line)``."""
    try:
        r = call()
    except Exception as error:  # a ShapeError is a RuntimeError and a ValueError
        kind = "RuntimeError" if isinstance(error, RuntimeError) else type(error).__name__
        return kind, str(error).splitlines()[0]
    if isinstance(r, tuple):
        return "ok", [x.tolist() for x in r]
    return "ok", r.tolist()


def _x(m):
    return m.arange(24.0).reshape(2, 3, 4)


CASES = {
    "narrow_copy dim past the end": lambda m: m.narrow_copy(_x(m), 3, 0, 0),
    "narrow_copy dim far past the end": lambda m: m.narrow_copy(_x(m), 7, 0, 0),
    "narrow_copy dim before the start": lambda m: m.narrow_copy(_x(m), -4, 0, 0),
    "narrow_copy negative length": lambda m: m.narrow_copy(_x(m), 2, -3, -1),
    "narrow_copy too long": lambda m: m.narrow_copy(_x(m), 2, 3, 2),
    "narrow_copy start a tensor": lambda m: _x(m).narrow_copy(1, m.tensor(1), 2),
    "narrow_copy 0-d": lambda m: m.narrow_copy(m.tensor(1.0), 0, 0, 1),
    "expand_copy": lambda m: m.expand_copy(m.ones((3, 1)), (2, -1, 4)),
    "expand_copy too few sizes": lambda m: m.expand_copy(m.ones((3, 1)), (4,)),
    "permute_copy repeated": lambda m: m.permute_copy(_x(m), (0, 0, 1)),
    "view_copy transposed": lambda m: m.view_copy(_x(m).transpose(0, 2), (-1,)),
    "view_copy wrong size": lambda m: m.view_copy(_x(m), (5, -1)),
    "squeeze_copy dims": lambda m: m.squeeze_copy(m.ones((1, 2, 1)), (0, -1)),
    "unbind_copy": lambda m: m.unbind_copy(_x(m), -1),
    "unfold_copy too big": lambda m: m.unfold_copy(_x(m), 1, 4, 1),
    "t_copy 3-d": lambda m: m.t_copy(_x(m)),
    "transpose_copy a number": lambda m: m.transpose_copy(2.0, 0, 1),
    "diagonal_copy same dims": lambda m: m.diagonal_copy(_x(m), 0, 1, 1),
    "as_strided_copy": lambda m: m.as_strided_copy(_x(m), (2, 2), (1, 5), 3),
    "as_strided_copy stride 0": lambda m: m.as_strided_copy(_x(m), (3,), (0,), 7),
    "as_strided_copy lengths": lambda m: m.as_strided_copy(_x(m), (2, 2), (1,), 1),
    "as_strided_copy negative size": lambda m: m.as_strided_copy(_x(m), (-1, 2), (1, 1)),
    "as_strided_copy negative offset": lambda m: m.as_strided_copy(_x(m), (2,), (1,), -1),
    "as_strided_copy past the end": lambda m: m.as_strided_copy(_x(m).long(), (2,), (5,), 20),
    "as_strided_copy empty": lambda m: m.as_strided_copy(_x(m), (0, 3), (100, 100), 50),
    "as_strided_copy 0-d": lambda m: m.as_strided_copy(_x(m), (), (), 5),
    "as_strided_copy size an int": lambda m: m.as_strided_copy(_x(m), 2, 1),
    "as_strided_copy of a 0-d": lambda m: m.as_strided_copy(m.tensor(3.0), (2,), (0,)),
    "as_strided_copy of nothing": lambda m: m.as_strided_copy(m.ones(0), (1,), (0,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_copies_are_torch(name):
    assert outcome(lambda: CASES[name](mg)) == outcome(lambda: CASES[name](torch))


COPIES = {
    "expand_copy": lambda x: mg.expand_copy(x[:1], (2, 3)),
    "diagonal_copy": lambda x: mg.diagonal_copy(x),
    "permute_copy": lambda x: mg.permute_copy(x, (1, 0)),
    "t_copy": lambda x: mg.t_copy(x),
    "transpose_copy": lambda x: mg.transpose_copy(x, 0, 1),
    "squeeze_copy": lambda x: mg.squeeze_copy(x[:1]),
    "unsqueeze_copy": lambda x: mg.unsqueeze_copy(x, 0),
    "view_copy": lambda x: mg.view_copy(x, (6,)),
    "unbind_copy": lambda x: mg.unbind_copy(x)[1],
    "unfold_copy": lambda x: mg.unfold_copy(x, 1, 2, 1),
    "alias_copy": lambda x: mg.alias_copy(x),
    "narrow_copy": lambda x: mg.narrow_copy(x, 1, 1, 2),
    "as_strided_copy": lambda x: mg.as_strided_copy(x, (2,), (2,), 1),
}


@pytest.mark.parametrize("name", sorted(COPIES))
def test_a_copy_changed_in_place_leaves_its_input_alone(name):
    x = mg.arange(6.0).reshape(2, 3)
    y = COPIES[name](x)
    y.mul_(0.0).add_(-1.0)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert set(y.reshape(-1).tolist()) <= {-1.0}


def test_view_copy_into_a_dtype_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="view_copy"):
        mg.view_copy(mg.ones(2), mg.int32)
