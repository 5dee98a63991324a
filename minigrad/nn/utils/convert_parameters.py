"""A model's parameters as one vector and back (lesson 06).

Some methods (a line search, a second-order step, averaging weights) treat
a model's parameters as one long vector. ``parameters_to_vector`` joins them,
flattened, in ``parameters()`` order (the result is in the graph: its
gradient flows back to each parameter); ``vector_to_parameters`` writes a
vector's consecutive pieces back into the parameters' values.

    >>> import minigrad as mg
    >>> layer = mg.nn.Linear(2, 1)
    >>> v = mg.nn.utils.parameters_to_vector(layer.parameters())
    >>> v.shape
    (3,)
    >>> mg.nn.utils.vector_to_parameters(mg.arange(3.0), layer.parameters())
    >>> layer.weight, layer.bias
    (Parameter containing:
    tensor([[0., 1.]], requires_grad=True), Parameter containing:
    tensor([2.], requires_grad=True))
"""

from __future__ import annotations

from collections.abc import Iterable

from minigrad.tensor.ops.rearrange import cat
from minigrad.tensor.tensor import Tensor


def _same_device(param: Tensor, device: str | None) -> str:
    if device is not None and str(param.device) != device:
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return str(param.device)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters, each flattened, joined into one 1-D tensor (differentiable).

    >>> import minigrad as mg
    >>> mg.nn.utils.parameters_to_vector([mg.ones(2, 2), mg.zeros(1)])
    tensor([1., 1., 1., 1., 0.])
    """
    device, pieces = None, []
    for param in parameters:
        device = _same_device(param, device)
        pieces.append(param.reshape(-1))
    return cat(pieces)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive pieces of ``vec`` into the parameters' values (``param.data``).

    Each parameter takes the next ``param.numel()`` entries, reshaped to its
    shape; entries left over are ignored. A ``vec`` too short raises before
    any parameter is changed.
    """
    if not isinstance(vec, Tensor):
        kind = type(vec)
        name = (
            kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        )
        raise TypeError(f"expected torch.Tensor, but got: {name}")
    pieces, device, start = [], None, 0
    for param in parameters:  # cut every piece first: a short vector changes nothing
        device = _same_device(param, device)
        size = param.numel()
        piece = vec[start : start + size]
        if piece.numel() != size:
            raise RuntimeError(
                f"shape '{list(param.shape)}' is invalid for input of size {piece.numel()}\n"
                f"vector_to_parameters: the vector's {vec.numel()} entries are fewer than the "
                "parameters'"
            )
        pieces.append((param, piece))
        start += size
    for param, piece in pieces:
        param.data = piece.reshape(param.shape).detach()
