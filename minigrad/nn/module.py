"""``Module``: a function with parameters, and modules made of modules (lesson 06).

A model is a function of its input *and* of numbers we want to learn. A
``Module`` keeps those numbers (leaf tensors with ``requires_grad=True``) as
attributes, and ``forward`` says how to compute the output from the input.
Because parameters are ordinary leaves, ``loss.backward()`` fills their
``.grad``; the module only has to find them again for the optimizer, which
``parameters()`` does by walking the attributes: tensors, submodules, and
lists or tuples of either.

The names follow PyTorch's ``torch.nn``, so code written here reads the same there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from minigrad.tensor import elementwise
from minigrad.tensor.tensor import Tensor


class Module:
    """Base class of every layer and model: parameters found by walking attributes.

    >>> import minigrad as mg
    >>> class Scale(Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.factor = mg.tensor(2.0, requires_grad=True)
    ...     def forward(self, x):
    ...         return self.factor * x
    >>> m = Scale()
    >>> m(mg.tensor([1.0, 3.0])), len(list(m.parameters()))
    (tensor([2., 6.], grad_fn=<mul>), 1)
    """

    def __init__(self) -> None:
        self.training = True

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward(...)")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # -- finding parameters ---------------------------------------------------
    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The submodules held directly by this module (in lists too), with their names."""
        for name, value in vars(self).items():
            if isinstance(value, Module):
                yield name, value
            elif isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    if isinstance(item, Module):
                        yield f"{name}.{i}", item

    def children(self) -> Iterator[Module]:
        return (module for _, module in self.named_children())

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        """``("layers.0.weight", tensor)`` pairs; a parameter shared twice is listed once.

        >>> import minigrad as mg
        >>> [name for name, _ in mg.nn.Linear(3, 2).named_parameters()]
        ['weight', 'bias']
        """
        seen: set[int] = set()
        for name, p in self._walk(prefix):
            if id(p) not in seen:
                seen.add(id(p))
                yield name, p

    def _walk(self, prefix: str) -> Iterator[tuple[str, Tensor]]:
        for name, value in vars(self).items():
            items = enumerate(value) if isinstance(value, (list, tuple)) else [(None, value)]
            for i, item in items:
                full = prefix + name + ("" if i is None else f".{i}")
                if isinstance(item, Tensor) and item.requires_grad and item.is_leaf:
                    yield full, item
                elif isinstance(item, Module):
                    yield from item._walk(full + ".")

    def parameters(self) -> Iterator[Tensor]:
        """Every parameter of this module and its submodules, each once.

        >>> import minigrad as mg
        >>> sum(p.size for p in mg.nn.Linear(3, 2).parameters())  # 3*2 weights + 2 biases
        8
        """
        return (p for _, p in self.named_parameters())

    def zero_grad(self) -> None:
        """Forget the accumulated gradients (``.grad = None``, PyTorch's default)."""
        for p in self.parameters():
            p.grad = None

    # -- modes -------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode here and below (no layer here behaves differently yet)."""
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        children = list(self.named_children())
        if not children:
            return f"{type(self).__name__}({self.extra_repr()})"
        lines = [f"{type(self).__name__}("]
        for name, child in children:
            body = repr(child).replace("\n", "\n  ")
            lines.append(f"  ({name.split('.')[-1]}): {body}")
        return "\n".join([*lines, ")"])


class Sequential(Module):
    """Modules applied one after the other: ``Sequential(f, g)(x) == g(f(x))``.

    >>> import minigrad as mg
    >>> model = Sequential(mg.nn.Linear(4, 3), ReLU(), mg.nn.Linear(3, 2))
    >>> model(mg.zeros(5, 4)).shape, len(model)
    ((5, 2), 3)
    """

    def __init__(self, *layers: Module) -> None:
        super().__init__()
        self.layers = list(layers)

    def forward(self, x: Any) -> Any:
        for layer in self.layers:
            x = layer(x)
        return x

    def __getitem__(self, index: int) -> Module:
        return self.layers[index]

    def __len__(self) -> int:
        return len(self.layers)

    def __iter__(self) -> Iterator[Module]:
        return iter(self.layers)


class _Activation(Module):
    """An elementwise function as a layer (no parameters)."""

    function: Callable[[Tensor], Tensor]

    def forward(self, x: Tensor) -> Tensor:
        return type(self).function(x)


class ReLU(_Activation):
    """max(x, 0), elementwise.

    >>> import minigrad as mg
    >>> ReLU()(mg.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    function = staticmethod(elementwise.relu)


class Tanh(_Activation):
    """tanh(x), elementwise."""

    function = staticmethod(elementwise.tanh)


class Sigmoid(_Activation):
    """1 / (1 + e^-x), elementwise."""

    function = staticmethod(elementwise.sigmoid)
