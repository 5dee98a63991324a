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
            # A float32 result of integer or bool inputs is held to float32's tolerance: its
            # arithmetic is float32's whatever precision the check runs in.
            kept = TOLERANCE[np.float32] if want.dtype == np.float32 else tol
            np.testing.assert_allclose(out.detach().numpy(), want, **kept)
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


# float16 and bfloat16 (lesson 15), compared with PyTorch computing in the same dtype:
# PyTorch's own test tolerances for them (its testing.assert_close uses rtol 1e-3 and
# 1.6e-2), with the same number as atol: one rounding of a result near 1.
LOW_TOLERANCE = {
    "float16": {"rtol": 1e-3, "atol": 1e-3},
    "bfloat16": {"rtol": 1.6e-2, "atol": 1.6e-2},
}


def _as_float32(t: Any) -> np.ndarray:
    """A minigrad or torch result as float32 NumPy values (NumPy has no torch.bfloat16)."""
    if isinstance(t, mg.Tensor):
        return t.detach().to(mg.float32).numpy() if t.dtype.itemsize == 2 else t.detach().numpy()
    return (
        t.detach().float() if t.dtype in (torch.float16, torch.bfloat16) else t.detach()
    ).numpy()


def _close_or_better(got: np.ndarray, want: np.ndarray, exact: Any, tol: dict, what: str) -> None:
    """``got`` within ``tol`` of PyTorch's ``want``, or, where not, at least as close as
    ``want`` to the ``exact`` answer (``exact()``: PyTorch in float64 on the same rounded
    inputs). minigrad may round less than PyTorch (a sum PyTorch adds up in 16 bits,
    minigrad in float32), never more."""
    near = np.isclose(got, want, **tol, equal_nan=True)
    if near.all():
        return
    truth = np.broadcast_to(exact(), got.shape)
    better = np.abs(got - truth) <= np.abs(want - truth)
    if not (near | better).all():
        np.testing.assert_allclose(got, want, **tol, err_msg=what)


def torch_check_low(case: Case, rng: np.random.Generator, name: str, grads: bool = True) -> None:
    """``torch_check`` in float16 or bfloat16 (``name``): the inputs are rounded to it once,
    then minigrad and PyTorch each compute in it; results and gradients agree within
    ``LOW_TOLERANCE`` (or are closer to the float64 answer than PyTorch's) and have
    PyTorch's dtypes."""
    tol = LOW_TOLERANCE[name]
    low = getattr(torch, name)
    arrays = [np.asarray(a, dtype=np.float32) for a in case.arrays]
    ts = [torch.tensor(a).to(low).requires_grad_(grads) for a in arrays]
    xs = [mg.tensor(t.detach().float().numpy()).to(name).requires_grad_(grads) for t in ts]
    ours, theirs = outputs(case.mg_fn(*xs)), outputs(case.torch_fn(*ts))
    assert len(ours) == len(theirs), f"{len(ours)} results, torch gives {len(theirs)}"
    exact = {}  # PyTorch in float64 on the same (rounded) inputs, made when first needed

    def in_float64() -> dict:
        if not exact:
            wide = [t.detach().double().requires_grad_(grads) for t in ts]
            exact["outputs"], exact["inputs"] = outputs(case.torch_fn(*wide)), wide
        return exact

    for k, (out, ref) in enumerate(zip(ours, theirs)):
        assert out.shape == tuple(ref.shape), f"shape {out.shape}, torch gives {ref.shape}"
        want = str(ref.dtype).removeprefix("torch.")
        assert out.dtype.name == want, f"dtype {out.dtype.name}, torch gives {want}"
        if ref.dtype.is_floating_point:
            _close_or_better(_as_float32(out), _as_float32(ref),
                             lambda k=k: in_float64()["outputs"][k].detach().numpy(), tol,
                             f"result {k}")  # fmt: skip
        else:
            np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    if not grads:
        return
    chosen = [k for k, r in enumerate(theirs) if r.dtype.is_floating_point and r.requires_grad]
    if not chosen:
        return
    cotangents = [torch.tensor(rng.standard_normal(theirs[k].shape), dtype=theirs[k].dtype)
                  for k in chosen]  # fmt: skip
    mine = mg.autograd.grad([ours[k] for k in chosen], xs,
                            grad_outputs=[mg.tensor(c.float().numpy()).to(ours[k].dtype)
                                          for c, k in zip(cotangents, chosen)],
                            allow_unused=True)  # fmt: skip
    ref = torch.autograd.grad([theirs[k] for k in chosen], ts, grad_outputs=cotangents,
                              allow_unused=True)  # fmt: skip

    def exact_grad(i: int) -> np.ndarray:
        found = in_float64()
        wide = torch.autograd.grad([found["outputs"][k] for k in chosen], found["inputs"],
                                   grad_outputs=[c.double() for c in cotangents],
                                   allow_unused=True)  # fmt: skip
        return np.zeros(arrays[i].shape) if wide[i] is None else wide[i].numpy()

    for i, (g, t, a) in enumerate(zip(mine, ref, arrays)):
        expected = np.zeros(a.shape, np.float32) if t is None else _as_float32(t)
        got = np.zeros(a.shape, np.float32) if g is None else _as_float32(g)
        if g is not None:
            assert g.dtype.name == name, f"input {i}: gradient dtype {g.dtype.name}"
        _close_or_better(got, expected, lambda i=i: exact_grad(i), tol, f"gradient of input {i}")


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
