"""The oracles that every case of the database is held to (lessons 01, 04-05, 08).

1. ``torch_check``: values, dtypes and gradients equal PyTorch's (float64 to
   1e-10; float32 to float32 rounding);
2. ``numerical_vjp_check``: reverse mode agrees with central finite
   differences, <u, J v> numerically equals <J^T u, v> by ``autograd.grad``;
3. ``hessian_vector``: second derivatives (grad of grad, ``create_graph=True``)
   equal PyTorch's.

An operation may return several tensors (``sort`` returns values and
indices, ``split`` a tuple): every output is compared, and gradients flow
from every floating-point output at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import minigrad as mg
from opdb.strategies import Case

TOLERANCE = {
    np.float64: {"rtol": 1e-10, "atol": 1e-12},
    # float32: a few roundings of each input and of the sums inside an op.
    np.float32: {"rtol": 2e-4, "atol": 2e-5},
}


def outputs(result: Any) -> list[Any]:
    """An op's results as a flat list (a tensor, or a tuple/list of them)."""
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in outputs(r)]
    return [result]


def _floating(t: Any) -> bool:
    dtype = t.dtype if isinstance(t, mg.Tensor) else t.detach().numpy().dtype
    return np.dtype(dtype).kind == "f"


def torch_check(case: Case, rng: np.random.Generator, dtype: Any = np.float64,
                grads: bool = True) -> None:  # fmt: skip
    """Values (and, with ``grads``, gradients) of ``case`` equal PyTorch's in ``dtype``."""
    tol = TOLERANCE[dtype]
    arrays = [np.asarray(a, dtype=dtype) for a in case.arrays]
    xs = [mg.tensor(a, requires_grad=grads) for a in arrays]
    ts = [torch.tensor(a, requires_grad=grads) for a in arrays]
    ours, theirs = outputs(case.mg_fn(*xs)), outputs(case.torch_fn(*ts))
    assert len(ours) == len(theirs), f"{len(ours)} results, torch gives {len(theirs)}"
    for out, ref in zip(ours, theirs):
        want = ref.detach().numpy()
        assert out.shape == want.shape, f"shape {out.shape}, torch gives {want.shape}"
        assert out.dtype == want.dtype, f"dtype {out.dtype}, torch gives {want.dtype}"
        if want.dtype.kind == "f":
            np.testing.assert_allclose(out.detach().numpy(), want, **tol)
        else:
            np.testing.assert_array_equal(out.detach().numpy(), want)
    if not grads:
        return
    pairs = [(o, r) for o, r in zip(ours, theirs) if _floating(r) and r.requires_grad]
    if not pairs:
        return
    cotangents = [np.asarray(rng.standard_normal(r.shape), dtype=dtype) for _, r in pairs]
    mine = mg.autograd.grad([o for o, _ in pairs], xs,
                            grad_outputs=[mg.tensor(c) for c in cotangents],
                            allow_unused=True)  # fmt: skip
    ref = torch.autograd.grad([r for _, r in pairs], ts,
                              grad_outputs=[torch.from_numpy(c) for c in cotangents],
                              allow_unused=True)  # fmt: skip
    for i, (g, t, a) in enumerate(zip(mine, ref, arrays)):
        expected = np.zeros(a.shape, dtype) if t is None else t.detach().numpy()
        got = np.zeros(a.shape, dtype) if g is None else g.detach().numpy()
        assert got.dtype == expected.dtype, f"input {i}: gradient dtype {got.dtype}"
        np.testing.assert_allclose(got, expected, **tol, err_msg=f"gradient of input {i}")


def numerical_vjp_check(fn: Any, arrays: list[np.ndarray], rng: np.random.Generator) -> None:
    """<u, J v> by central differences equals <J^T u, v> by reverse mode."""
    eps = 1e-6

    def f(values):
        return [o.detach().numpy() for o in outputs(fn(*[mg.tensor(a) for a in values]))
                if o.dtype.kind == "f"]  # fmt: skip

    us = [np.asarray(rng.standard_normal(o.shape)) for o in f(arrays)]
    vs = [np.asarray(rng.standard_normal(a.shape)) for a in arrays]
    plus = f([a + eps * v for a, v in zip(arrays, vs)])
    minus = f([a - eps * v for a, v in zip(arrays, vs)])
    numerical = sum(np.sum(u * (p - m)) for u, p, m in zip(us, plus, minus)) / (2 * eps)
    xs = [mg.tensor(a, requires_grad=True) for a in arrays]
    outs = [o for o in outputs(fn(*xs)) if o.dtype.kind == "f"]
    grads = mg.autograd.grad(outs, xs, grad_outputs=[mg.tensor(u) for u in us],
                             allow_unused=True)  # fmt: skip
    analytical = sum(np.sum(g.detach().numpy() * v) for g, v in zip(grads, vs) if g is not None)
    assert analytical == pytest.approx(numerical, rel=1e-6, abs=1e-7)


def hessian_vector(lib: Any, fn: Any, arrays: list[np.ndarray], us, w) -> list[np.ndarray]:
    """d/dx <w, d/dx sum_k sum(u_k * fn(x)_k^2)>: grad of grad, in minigrad or torch.

    Squaring the outputs makes every op's second derivative appear (for a
    linear op the first derivative alone would not depend on x).
    """
    grad = mg.autograd.grad if lib is mg else torch.autograd.grad
    make = mg.tensor if lib is mg else torch.tensor
    xs = [make(a, requires_grad=True) for a in arrays]
    outs = [o for o in outputs(fn(*xs)) if _floating(o)]
    loss = sum((o * o * make(u)).sum() for o, u in zip(outs, us))
    firsts = grad(loss, xs, create_graph=True, allow_unused=True)
    terms = [(g * make(wi)).sum() for g, wi in zip(firsts, w) if g is not None]
    if not terms or not any(t.requires_grad for t in terms):
        return [np.zeros(a.shape) for a in arrays]
    seconds = grad(sum(terms), xs, allow_unused=True)
    return [np.zeros(a.shape) if g is None else g.detach().numpy() for g, a in zip(seconds, arrays)]


def single_output(case: Case) -> Case:
    """``case`` with its floating-point results flattened into one vector, if it has several.

    For oracles that expect one output (forward mode, vmap): ``sort``'s values,
    ``split``'s pieces. A case with one result is returned as it is.
    """

    def joined(fn, cat, floating):
        def run(*xs):
            result = fn(*xs)
            if not isinstance(result, (tuple, list)):
                return result
            parts = [o.reshape(-1) for o in outputs(result) if floating(o)]
            # (no floating result, e.g. nonzero(as_tuple=True): the integer ones, joined)
            return cat(parts or [o.reshape(-1) for o in outputs(result)])

        return run

    return Case(
        joined(case.mg_fn, mg.concatenate, lambda o: o.dtype.kind == "f"),
        joined(case.torch_fn, torch.cat, lambda t: t.dtype.is_floating_point),
        case.arrays,
    )
