"""Small tensor methods of PyTorch: ``type``, ``new_tensor``, ``detach_`` (lessons 04-06).

Also ``is_nonzero`` and ``fill_diagonal_``.

``Tensor`` inherits this class. ``x.type()`` names dtype and device in one
string, PyTorch's (``"torch.FloatTensor"``), and ``x.type(mg.float64)`` casts;
``x.new_tensor(data)`` makes a tensor with ``x``'s dtype and device;
``x.detach_()`` cuts ``x`` itself out of the graph; ``x.fill_diagonal_(v)``
writes ``v`` on the main diagonal, in place, by the rules of every in-place
operation (``ops/inplace.py``).

    >>> import minigrad as mg
    >>> x = mg.zeros(3, 3)
    >>> x.type(), x.fill_diagonal_(2.0).trace().item(), x.new_tensor([1, 2]).dtype
    ('torch.FloatTensor', 6.0, dtype('float32'))
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad.tensor import dtypes as dt
from minigrad.tensor.base import StaleView, TensorBase, view_of
from minigrad.tensor.mode import current
from minigrad.tensor.ops import inplace
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.movement import astype, to_device

_DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
    "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
    "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
    "torch/optim/optimizer.py as the solution."
)


class EverydayMethods:
    """Methods of ``Tensor`` (see the module docstring)."""

    __slots__ = ()

    def type(self, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
        """``type()``: PyTorch's type string; ``type(dtype)``: this tensor cast to ``dtype``
        (a dtype, or a type string such as ``"torch.DoubleTensor"``), itself if already so.

        >>> import minigrad as mg
        >>> x = mg.tensor([1.5, 2.5])
        >>> x.type(), x.type("torch.LongTensor"), x.type(mg.float32) is x
        ('torch.FloatTensor', tensor([1, 2]), True)
        """
        if dtype is None:
            return dt.tensor_type_name(self.dtype, self.device)
        device = self.device
        if isinstance(dtype, str):
            named = dt.from_tensor_type_name(dtype)
            if named is None:
                raise ValueError(
                    f"invalid type: '{dtype}'\n(type strings look like 'torch.FloatTensor' or "
                    "'torch.cuda.LongTensor'; or give a dtype, e.g. mg.float64)"
                )
            dtype, device = named
        elif isinstance(dtype, (np.dtype, type)) and not isinstance(dtype, bool):
            try:
                dtype = dt.as_dtype(dtype)
            except (TypeError, ValueError):
                raise TypeError("dtype must be a type, str, or dtype object") from None
        else:
            raise TypeError("dtype must be a type, str, or dtype object")
        if dtype == self.dtype and device == self.device:
            return self
        out = self if dtype == self.dtype else astype(self, dtype)
        return out if device == self.device else to_device(out, device)

    def new_tensor(self, data: Any, *, dtype: Any = None, device: Any = None,
                   requires_grad: bool = False, layout: Any = None,
                   pin_memory: bool = False) -> Any:  # fmt: skip
        """A new leaf holding a copy of ``data``, with this tensor's dtype and device unless
        given (Python ints included: PyTorch's rule, unlike ``mg.tensor``).

        >>> import minigrad as mg
        >>> mg.zeros(2, dtype=mg.float64).new_tensor([1, 2])
        tensor([1., 2.], dtype=float64)
        """
        if isinstance(data, TensorBase):
            warnings.warn(
                "To copy construct from a tensor, it is recommended to use "
                "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                UserWarning,
                stacklevel=2,
            )
        dtype = self.dtype if dtype is None else dt.as_dtype(dtype)
        device = self.device if device is None else str(device).split(":")[0]
        out = TensorBase.concrete(data, dtype=dtype, device=device)
        return out.requires_grad_(True) if requires_grad else out

    def is_nonzero(self) -> bool:
        """Whether the one element of this tensor is not zero (NaN is nonzero).

        >>> import minigrad as mg
        >>> mg.tensor([0.0]).is_nonzero(), mg.tensor(float("nan")).is_nonzero()
        (False, True)
        """
        if self.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self.size > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def detach_(self) -> Any:
        """Cut this tensor itself out of the graph: a leaf that does not require grad.

        A view cannot be detached in place (PyTorch's error): use ``detach()``.

        >>> import minigrad as mg
        >>> y = mg.ones(2, requires_grad=True) * 2
        >>> y.detach_() is y, y.requires_grad, y.is_leaf
        (True, False, True)
        """
        if view_of(self) is not None or isinstance(self._node, StaleView):
            raise RuntimeError(_DETACH_VIEW)
        self._node, self._tangents = None, None
        self.requires_grad = False
        return self

    def fill_diagonal_(self, fill_value: Any, wrap: bool = False) -> Any:
        """Write ``fill_value`` on the main diagonal (every axis of equal length past 2-d);
        ``wrap=True`` restarts it below a tall matrix's square top, every ``cols + 1`` rows.

        >>> import minigrad as mg
        >>> mg.zeros(5, 2).fill_diagonal_(1.0, wrap=True)
        tensor([[1., 0.],
                [0., 1.],
                [0., 0.],
                [1., 0.],
                [0., 1.]])
        """
        if isinstance(fill_value, TensorBase) or not isinstance(
            fill_value, (int, float, bool, np.number, np.bool_)
        ):
            raise TypeError(
                "fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
                f"{type(fill_value).__name__}"
            )
        if self.ndim < 2:
            raise RuntimeError(
                f"dimensions must larger than 1\n(fill_diagonal_ got a {self.ndim}-d tensor)"
            )
        if self.ndim > 2 and len(set(self.shape)) > 1:
            raise RuntimeError(
                f"all dimensions of input must be of equal length\n(shape {self.shape})"
            )
        if current().grad_enabled and self._node is None and self.requires_grad:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
        fill = TensorBase.concrete(np.array(fill_value).astype(self.dtype), device=self.device)
        # Two writes, as PyTorch's two fills (so two versions): the square top's diagonal,
        # then with ``wrap`` the rest of every (cols + 1)-th element of a tall matrix.
        for mask in _diagonals(self.shape, wrap):
            where_ = TensorBase.concrete(mask, device=self.device)
            inplace.assign(self, lambda old, m=where_: where(m, fill, old), (), "fill_diagonal_")
        return self


def _diagonals(shape: tuple[int, ...], wrap: bool) -> list[np.ndarray]:
    """Where the main diagonal of a tensor of ``shape`` is, and with PyTorch's ``wrap``
    where it continues below a tall matrix's square top (a second mask)."""
    mask = np.zeros(shape, dtype=bool)
    rows, cols = shape[0], shape[1]
    mask[(np.arange(min(rows, cols)),) * len(shape)] = True
    if not (wrap and len(shape) == 2 and rows > cols + 1):
        return [mask]
    # Row-major, the diagonal is every (cols + 1)-th element; PyTorch keeps stepping
    # through the whole tensor, so the diagonal starts again at row cols + 1.
    rest = np.zeros(shape, dtype=bool)
    rest.reshape(-1)[:: cols + 1] = True
    return [mask, rest & ~mask]
