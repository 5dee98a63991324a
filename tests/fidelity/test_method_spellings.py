"""PyTorch's Tensor methods that ask what a tensor is, and its other spellings (lesson 04).

``x.dim()``, ``x.nelement()``, ``x.is_contiguous()``, ``x.type_as(y)``, ``x.H``,
``x.greater(y)``, ``x.arccos_()``, ``x.clip_(...)`` and the rest: each against
PyTorch's on tensors of every dtype minigrad has, on views (a transpose, a
strided slice, an ``expand``) and at the sizes where answers change (0-d, 1-d,
empty).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

DTYPES = {"float64": (torch.float64, mg.float64), "float32": (torch.float32, mg.float32),
          "int64": (torch.int64, mg.int64), "int32": (torch.int32, mg.int32),
          "bool": (torch.bool, mg.bool_)}  # fmt: skip
VIEWS = {
    "plain": lambda x: x,
    "transpose": lambda x: x.T,
    "strided slice": lambda x: x[:, ::2],
    "row slice": lambda x: x[1:],
    "expand": lambda x: x[:1].expand(3, 4),
    "0-d": lambda x: x[0, 0],
    "1-d": lambda x: x[0],
    "empty": lambda x: x[:0],
}
QUESTIONS = {
    "dim": lambda x: x.dim(),
    "ndimension": lambda x: x.ndimension(),
    "nelement": lambda x: x.nelement(),
    "element_size": lambda x: x.element_size(),
    "itemsize": lambda x: x.itemsize,
    "nbytes": lambda x: x.nbytes,
    "is_cuda": lambda x: x.is_cuda,
    "is_cpu": lambda x: x.is_cpu,
    "is_floating_point": lambda x: x.is_floating_point(),
    "is_complex": lambda x: x.is_complex(),
    "is_signed": lambda x: x.is_signed(),
    "is_contiguous": lambda x: x.is_contiguous(),
    "is_same_size": lambda x: (x.is_same_size(x), x.is_same_size(x.reshape(-1))),
    "H": lambda x: x.H.tolist(),
    "mH": lambda x: x.mH.tolist(),
}


def _answer(fn, x):
    try:
        return fn(x)
    except Exception as error:
        return type(error).__name__, str(error).splitlines()[0]


@pytest.mark.parametrize("question", sorted(QUESTIONS))
def test_what_a_tensor_is_as_torch_says(question):
    values = np.arange(12).reshape(3, 4) - 5
    for dtype, (t_dtype, m_dtype) in DTYPES.items():
        for view, make in VIEWS.items():
            t = make(torch.tensor(values).to(t_dtype))
            m = make(mg.tensor(values).to(m_dtype))
            ours, theirs = _answer(QUESTIONS[question], m), _answer(QUESTIONS[question], t)
            assert ours == theirs, (dtype, view)


@pytest.mark.parametrize("target", sorted(DTYPES))
def test_type_as_casts_to_the_other_dtype(target):
    for dtype, (t_dtype, m_dtype) in DTYPES.items():
        values = [-1.5, 0.0, 2.7]
        t = torch.tensor(values).to(t_dtype).type_as(torch.zeros(1, dtype=DTYPES[target][0]))
        m = mg.tensor(values).to(m_dtype).type_as(mg.zeros(1, dtype=DTYPES[target][1]))
        assert str(m.dtype).rstrip("_") == str(t.dtype).removeprefix("torch."), dtype
        assert m.tolist() == t.tolist(), dtype


SPELLINGS = {  # PyTorch's other names: (ours/theirs call, the name it spells)
    "greater": lambda x, y: x.greater(y), "greater_equal": lambda x, y: x.greater_equal(y),
    "less": lambda x, y: x.less(y), "less_equal": lambda x, y: x.less_equal(y),
    "not_equal": lambda x, y: x.not_equal(y),
    "greater_": lambda x, y: x.clone().greater_(y), "less_": lambda x, y: x.clone().less_(y),
    "greater_equal_": lambda x, y: x.clone().greater_equal_(y),
    "less_equal_": lambda x, y: x.clone().less_equal_(y),
    "not_equal_": lambda x, y: x.clone().not_equal_(y),
    "arcsin_": lambda x, y: x.clone().arcsin_(), "arccos_": lambda x, y: x.clone().arccos_(),
    "arctan_": lambda x, y: x.clone().arctan_(), "arcsinh_": lambda x, y: x.clone().arcsinh_(),
    "arccosh_": lambda x, y: x.clone().arccosh_(),
    "arctanh_": lambda x, y: x.clone().arctanh_(), "fix_": lambda x, y: x.clone().fix_(),
    "clip_": lambda x, y: x.clone().clip_(-0.5, 0.5),
    "clip_ max": lambda x, y: x.clone().clip_(max=y),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SPELLINGS))
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_other_spellings_are_torchs(name, dtype):
    a = [np.nan, -np.inf, -0.0, 0.25, 0.9, 3.0] if dtype == "float64" else [-3, 0, 1, 2, 5, 7]
    b = [1.0, -np.inf, 0.0, 0.5, -1.0, np.nan] if dtype == "float64" else [1, 0, 2, 2, -1, 9]

    def run(lib):
        t_dtype = getattr(lib, dtype)
        try:
            out = SPELLINGS[name](lib.tensor(a, dtype=t_dtype), lib.tensor(b, dtype=t_dtype))
        except Exception as error:
            return type(error).__name__, str(error).splitlines()[0]
        return str(out.dtype).split(".")[-1].rstrip("_"), out.numpy()

    ours, theirs = run(mg), run(torch)
    assert ours[0] == theirs[0]
    if isinstance(ours[1], str):
        assert ours[1] == theirs[1]
    else:
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, equal_nan=True)
