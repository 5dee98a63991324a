"""Positions, combinations, real parts and more spellings against torch (issue 22): the
functions with no tensor to differentiate (tril/triu_indices, broadcast_shapes,
scalar_tensor, imag) and every function's refusals (type and first line)."""

import math

import pytest
import torch

import minigrad as mg


def _outcome(lib, call):
    """``("ok", value as lists)`` or ``(exception type name, first line)``."""
    try:
        out = call(lib)
    except Exception as error:  # the type is compared: RuntimeError, TypeError, ...
        kind = "RuntimeError" if isinstance(error, RuntimeError) else type(error).__name__
        return kind, str(error).splitlines()[0]
    if isinstance(out, (tuple, list, torch.Size)):
        return "ok", [_plain(o) for o in out]
    return "ok", _plain(out)


def _plain(value):
    if isinstance(value, (torch.Tensor, mg.Tensor)):
        values = [str(v) for v in value.flatten().tolist()]  # NaN equals NaN as text
        return str(value.dtype).split(".")[-1], tuple(value.shape), values
    return value


CALLS = {
    "tril_indices": lambda L: L.tril_indices(3, 4, -1),
    "tril_indices:offset": lambda L: L.tril_indices(4, 3, 2),
    "tril_indices:empty": lambda L: L.tril_indices(0, 3),
    "tril_indices:int32": lambda L: L.tril_indices(2, 2, dtype=L.int32),
    "tril_indices:negative": lambda L: L.tril_indices(3, -1),
    "triu_indices": lambda L: L.triu_indices(3, 3, 1),
    "triu_indices:below": lambda L: L.triu_indices(2, 5, -3),
    "broadcast_shapes": lambda L: tuple(L.broadcast_shapes((2, 1), (3,), 1)),
    "broadcast_shapes:none": lambda L: tuple(L.broadcast_shapes()),
    "broadcast_shapes:zero": lambda L: tuple(L.broadcast_shapes((0,), (1,))),
    "broadcast_shapes:mismatch": lambda L: L.broadcast_shapes((2, 3), (4, 3)),
    "broadcast_shapes:negative": lambda L: L.broadcast_shapes((2, -1)),
    "scalar_tensor": lambda L: L.scalar_tensor(3),
    "scalar_tensor:bool": lambda L: L.scalar_tensor(True),
    "scalar_tensor:dtype": lambda L: L.scalar_tensor(2.5, dtype=L.float64),
    "imag": lambda L: L.imag(L.tensor([1.0])),
    "Tensor.imag": lambda L: L.tensor([1.0]).imag,
    "Tensor.real": lambda L: L.tensor([1.0, -0.0]).real,
    "unravel_index:float": lambda L: L.unravel_index(L.tensor([1.0]), (2, 4)),
    "unravel_index:int_shape": lambda L: L.unravel_index(L.tensor([3, -1]), 8),
    "unravel_index:0d": lambda L: L.unravel_index(L.tensor(5), (2, 4)),
    "unravel_index:wraps": lambda L: L.unravel_index(L.tensor([-1, 9]), (2, 4)),
    "cartesian_prod:2d": lambda L: L.cartesian_prod(L.ones(2, 2)),
    "cartesian_prod:none": lambda L: L.cartesian_prod(),
    "combinations:2d": lambda L: L.combinations(L.ones(2, 2)),
    "combinations:negative": lambda L: L.combinations(L.tensor([1, 2]), r=-1),
    "combinations:too_many": lambda L: L.combinations(L.tensor([1, 2, 3]), r=4),
    "block_diag:none": lambda L: L.block_diag(),
    "block_diag:3d": lambda L: L.block_diag(L.ones(2, 2, 2)),
    "block_diag:dtypes": lambda L: L.block_diag(L.tensor(1), L.tensor([2.5]), L.tensor([[True]])),
    "split_with_sizes:sum": lambda L: L.split_with_sizes(L.ones(3), [1, 1]),
    "fill:1d_value": lambda L: L.fill(L.ones(2), L.ones(2)),
    "fill:int": lambda L: L.fill(L.tensor([1, 2]), 3.7),
    "rsub:number_first": lambda L: L.rsub(5, L.tensor([1, 2])),
    "rsub:float_alpha_int": lambda L: L.rsub(L.tensor([1, 2]), L.tensor([3, 4]), alpha=0.5),
    "nonzero_static:negative": lambda L: L.nonzero_static(L.tensor([1, 0]), size=-1),
    "angle:int": lambda L: L.angle(L.tensor([-3, 0, 2])),
    "angle:edges": lambda L: L.angle(L.tensor([-math.inf, -0.0, math.nan, math.inf])),
    "isreal:0d": lambda L: L.isreal(L.tensor(2.0)),
    "constant_pad_nd:crop_too_much": lambda L: L.constant_pad_nd(L.ones(1), (0, -2)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_as_torch(name):
    assert _outcome(mg, CALLS[name]) == _outcome(torch, CALLS[name])


def test_the_real_part_functions_give_the_tensor_itself():
    x = mg.tensor([1.0, -2.0], requires_grad=True)
    for name in ("conj", "conj_physical", "resolve_conj", "resolve_neg", "real"):
        assert getattr(mg, name)(x) is x
    assert x.real is x and x.conj() is x


def test_block_diag_of_an_empty_vector_takes_the_next_blocks_own_gradient():
    # torch 2.13's forward makes an empty 1-D input a (1, 0) row, as minigrad's does, but
    # its backward then reads the following block's gradient one row too high (here
    # g[0, 0] = 1 for the scalar at row 1). minigrad gives the derivative, g[1, 0].
    g = [[1.0], [2.0]]
    empty = mg.zeros(0, requires_grad=True)
    scalar = mg.tensor(0.5, requires_grad=True)
    out = mg.block_diag(empty, scalar)
    assert out.tolist() == [[0.0], [0.5]]
    _, slope = mg.autograd.grad(out, [empty, scalar], grad_outputs=[mg.tensor(g)])
    assert slope.item() == 2.0
    t_empty = torch.zeros(0, requires_grad=True)
    t_scalar = torch.tensor(0.5, requires_grad=True)
    t_out = torch.block_diag(t_empty, t_scalar)
    _, t_slope = torch.autograd.grad(t_out, [t_empty, t_scalar], torch.tensor(g))
    assert t_out.tolist() == out.tolist() and t_slope.item() == 1.0  # torch's reading
