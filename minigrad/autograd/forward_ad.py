"""``mg.autograd.forward_ad``: PyTorch's dual tensors, on minigrad's forward mode (lesson 07).

Inside ``with dual_level():``, ``make_dual(x, t)`` gives a tensor whose value
is ``x`` and whose tangent is ``t``; every operation on it carries a tangent
along (the jvp rules of lesson 07), and ``unpack_dual(y)`` reads ``y``'s value
and tangent back. A level is one ``ForwardLevel`` of ``transforms/forward.py``,
the interpreter under ``mg.func.jvp``, held open for the block. As in
PyTorch, one level may be open at a time, and tangents end with it.

    >>> import minigrad as mg
    >>> import minigrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     y = fwAD.make_dual(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 0.0])) ** 2
    ...     fwAD.unpack_dual(y)
    UnpackedDualTensor(primal=tensor([1., 4.]), tangent=tensor([2., 0.]))
"""

from __future__ import annotations

from typing import NamedTuple

from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.forward import ForwardLevel, alias, seed

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

_open: list[ForwardLevel] = []  # the level of this program (PyTorch allows one)


class UnpackedDualTensor(NamedTuple):
    """``unpack_dual``'s answer: the value and the tangent (None when there is none)."""

    primal: Tensor
    tangent: Tensor | None


def enter_dual_level() -> int:
    """Open a forward-mode level; returns its number (``dual_level`` is the usual door)."""
    if _open:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    level = ForwardLevel()
    level.__enter__()
    _open.append(level)
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the open level: the tangents it carried are gone."""
    if not _open or level not in (None, 0):
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    _open.pop().__exit__(None, None, None)


class dual_level:
    """``with dual_level():`` opens a level for the block (``as`` gives its number)."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: object) -> None:
        exit_dual_level()


def _level(level: int | None, where: str) -> ForwardLevel | None:
    if level not in (None, 0):
        raise RuntimeError(f"{where}: level {level} is not open (only level 0 exists)")
    return _open[-1] if _open else None


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A tensor with ``tensor``'s values that carries ``tangent`` at the open level."""
    found = _level(level, "make_dual")
    if found is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not isinstance(tangent, Tensor) or not isinstance(tensor, Tensor):
        raise TypeError("make_dual(): expected the primal and the tangent to be Tensors")
    if not dtypes.is_floating(tensor.dtype):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if tangent.dtype != tensor.dtype:
        tangent = tangent.to(tensor.dtype)
    return seed(tensor, tangent, found.id)


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor`` at the open level; ``(tensor, None)`` without one."""
    found = _level(level, "unpack_dual")
    tangent = None
    if found is not None and tensor._tangents:
        tangent = tensor._tangents.get(found.id)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with found.lowered():  # the primal: the same values, without this level's tangent
        primal = alias(tensor)
    return UnpackedDualTensor(primal, tangent)
