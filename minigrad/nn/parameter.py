"""``Parameter``: a tensor that a module owns as a learned number (lesson 06).

A module finds its parameters by walking its attributes. A plain tensor with
``requires_grad=True`` counts while it requires grad; but *freezing* a layer
(``w.requires_grad_(False)``, to fine-tune the rest) must not make ``w`` stop
being part of the model: it still belongs in ``state_dict()`` and must still
load. A ``Parameter`` says so by its type, whatever its ``requires_grad``, as
``torch.nn.Parameter`` does. Every layer in ``mg.nn`` keeps its weights in
Parameters.

Arithmetic on a parameter gives plain tensors: ``2 * w`` is a result, not a
new parameter of anything.

    >>> import minigrad as mg
    >>> w = Parameter(mg.ones(2))
    >>> w.requires_grad, type(2 * w).__name__
    (True, 'Tensor')
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor.tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that a ``Module`` lists in ``parameters()`` and ``state_dict()``.

    ``Parameter(data)`` shares ``data``'s memory (no copy) and is a leaf even
    when ``data`` was computed. ``requires_grad`` defaults to True.

    >>> import minigrad as mg
    >>> Parameter(mg.tensor([1.0, 2.0]))
    Parameter containing:
    tensor([1., 2.], requires_grad=True)
    """

    __slots__ = ()

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        if data is None:
            data = Tensor.concrete([])
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(data): data must be a Tensor, not {type(data).__name__}\n"
                "(make one first: mg.nn.Parameter(mg.tensor(...)))"
            )
        # The fields of a leaf (TensorBase's), around data's own array: no copy.
        self.data, self.device, self.grad = data.detach().data, data.device, None
        self._node, self._tangents, self._label = None, None, ""
        self.requires_grad = False
        self.requires_grad_(requires_grad)

    @classmethod
    def _wrap(cls, data: Any, device: str, requires_grad: bool = False) -> Tensor:
        # Operations make results of their input's class; a result is never a parameter.
        return Tensor._wrap(data, device, requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class Buffer(Tensor):
    """A tensor that a ``Module`` keeps as a buffer when it is assigned as an attribute.

    ``module.name = Buffer(t)`` is ``module.register_buffer("name", t, persistent)``:
    model state that is not learned (never among ``parameters()``), saved by
    ``state_dict()`` unless ``persistent=False``. Like ``torch.nn.Buffer`` it
    shares ``data``'s memory and keeps its ``requires_grad``.

    >>> import minigrad as mg
    >>> m = mg.nn.Module()
    >>> m.steps = Buffer(mg.tensor(0))
    >>> m.cache = Buffer(mg.zeros(2), persistent=False)
    >>> list(m.state_dict()), [name for name, _ in m.named_buffers()]
    (['steps'], ['steps', 'cache'])
    """

    __slots__ = ("persistent",)

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        if data is None:
            data = Tensor.concrete([])
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Buffer(data): data must be a Tensor, not {type(data).__name__}\n"
                "(make one first: mg.nn.Buffer(mg.tensor(...)))"
            )
        self.data, self.device, self.grad = data.detach().data, data.device, None
        self._node, self._tangents, self._label = None, None, ""
        self.requires_grad = False
        self.requires_grad_(data.requires_grad)
        self.persistent = persistent

    @classmethod
    def _wrap(cls, data: Any, device: str, requires_grad: bool = False) -> Tensor:
        # Operations on a buffer make plain tensors, as they do on a parameter.
        return Tensor._wrap(data, device, requires_grad)
