"""The Tensor's operators and methods, each one line pointing into the table (lesson 04).

``x * y`` is ``elementwise.mul(x, y)``, ``x.sum(0)`` is ``reductions.sum(x, 0)``:
the class only spells the operations; the primitive table defines them.
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor import broadcasting, elementwise, linalg, reductions, shape

ew = elementwise


def attach(Tensor: type) -> None:
    """Give ``Tensor`` its operators and methods."""
    binary = {
        "add": ew.add,
        "sub": ew.sub,
        "mul": ew.mul,
        "truediv": ew.div,
        "pow": ew.power,
        "matmul": linalg.matmul,
    }
    for name, fn in binary.items():
        setattr(Tensor, f"__{name}__", fn)
        setattr(Tensor, f"__r{name}__", _reflected(fn))
    for name in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(Tensor, f"__{name}__", _comparison(name))
    Tensor.__and__ = _comparison("logical_and")
    Tensor.__or__ = _comparison("logical_or")
    Tensor.__invert__ = ew.logical_not
    Tensor.__neg__ = ew.neg
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = ew.abs
    Tensor.__getitem__ = shape.getitem
    for fn in (ew.exp, ew.log, ew.sqrt, ew.tanh, ew.sigmoid, ew.relu, ew.abs, ew.sign):
        setattr(Tensor, fn.__name__, fn)
    Tensor.where = lambda self, cond, other: ew.where(cond, self, other)
    Tensor.maximum = ew.maximum
    Tensor.minimum = ew.minimum
    for fn in (reductions.sum, reductions.mean, reductions.max, reductions.min,
               reductions.var, reductions.logsumexp):  # fmt: skip
        setattr(Tensor, fn.__name__, fn)
    Tensor.reshape = shape.reshape
    Tensor.view = shape.reshape
    Tensor.transpose = shape.transpose
    Tensor.permute = shape.transpose
    Tensor.swapaxes = shape.swapaxes
    Tensor.squeeze = shape.squeeze
    Tensor.unsqueeze = shape.unsqueeze
    Tensor.flatten = lambda self: shape.reshape(self, -1)
    Tensor.broadcast_to = broadcasting.broadcast_to
    Tensor.expand = broadcasting.broadcast_to
    Tensor.sum_to = broadcasting.sum_to
    Tensor.astype = shape.astype
    Tensor.T = property(lambda self: shape.transpose(self))
    Tensor.mT = property(lambda self: shape.swapaxes(self, -1, -2))
    Tensor.any = lambda self: bool(reductions.max((self != 0).to("int64")).item())
    Tensor.all = lambda self: bool(reductions.min((self != 0).to("int64")).item())


def _reflected(fn):
    def method(self: Any, other: Any) -> Any:
        return fn(other, self)

    method.__name__ = f"r{fn.__name__}"
    return method


def _comparison(name: str):
    def method(self: Any, other: Any) -> Any:
        return ew.compare(name, self, other)

    method.__name__ = f"__{name}__"
    return method
