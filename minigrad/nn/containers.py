"""Containers: lists and dicts of modules or parameters that a model can see (lesson 06).

A module finds its parameters by walking its attributes, so a plain Python
list of layers held in a ``dict`` would hide them from ``parameters()``,
``state_dict()``, ``to()`` and ``train()``. These four containers hold their
items as attributes of a module, named as PyTorch names them, so nothing is
hidden and checkpoints load in either library:

- ``ModuleList``: modules by position, ``"0"``, ``"1"``, ... (a ``Sequential``
  without a ``forward``);
- ``ModuleDict``: modules by key, in insertion order;
- ``ParameterList`` / ``ParameterDict``: the same for parameters; a plain
  tensor put in one becomes a ``Parameter``, other objects are kept as they are.

    >>> import minigrad as mg
    >>> heads = mg.nn.ModuleDict({"cls": mg.nn.Linear(4, 3), "box": mg.nn.Linear(4, 2)})
    >>> list(heads.state_dict())
    ['cls.weight', 'cls.bias', 'box.weight', 'box.bias']
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from minigrad.nn.module import Module, _indented
from minigrad.nn.parameter import Parameter
from minigrad.tensor.tensor import Tensor


def _position(container: Any, idx: Any) -> str:
    """``idx`` as the name of an item: ``-1`` -> ``"2"`` for three items (PyTorch's check)."""
    idx = operator.index(idx)
    if not -len(container) <= idx < len(container):
        raise IndexError(f"index {idx} is out of range")
    return str(idx % len(container))


def _pairs(items: Any, kind: str) -> Iterator[tuple[Any, Any]]:
    """The (key, value) pairs of an iterable of pairs, with PyTorch's errors for bad ones."""
    for j, pair in enumerate(items):
        if not isinstance(pair, Iterable):
            raise TypeError(
                f"{kind} update sequence element #{j} should be Iterable; is" + type(pair).__name__
            )
        if len(pair) != 2:
            raise ValueError(
                f"{kind} update sequence element #{j} has length {len(pair)}; 2 is required"
            )
        yield pair[0], pair[1]


class ModuleList(Module):
    """Modules held by position; indexed, sliced and changed like a Python list.

    >>> import minigrad as mg
    >>> layers = mg.nn.ModuleList([mg.nn.Linear(2, 2) for _ in range(3)])
    >>> _ = layers.append(mg.nn.ReLU()); len(layers), list(layers.state_dict())[-2:]
    (4, ['2.weight', '2.bias'])
    >>> layers
    ModuleList(
      (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
      (3): ReLU()
    )
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _items(self) -> list[Module]:
        return [vars(self)[str(i)] for i in range(len(self))]

    def _renumber(self, items: list[Module]) -> None:
        """Hold exactly ``items``, named ``"0"``, ``"1"``, ... in order."""
        for i in range(len(self)):
            del vars(self)[str(i)]
        for i, module in enumerate(items):
            self.add_module(str(i), module)

    def __len__(self) -> int:
        n = 0
        while str(n) in vars(self):
            n += 1
        return n

    def __iter__(self) -> Iterator[Module]:
        return iter(self._items())

    def __getitem__(self, idx: int | slice) -> Module | ModuleList:
        if isinstance(idx, slice):
            return type(self)(self._items()[idx])
        return vars(self)[_position(self, idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(_position(self, idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        items = self._items()
        if isinstance(idx, slice):
            del items[idx]
        else:
            del items[int(_position(self, idx))]
        self._renumber(items)

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate([*self, *other]):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index``; a negative ``index`` is PyTorch's KeyError."""
        if index < 0:
            raise KeyError(str(index))
        items = self._items()
        items.insert(index, module)
        self._renumber(items)

    def append(self, module: Module) -> ModuleList:
        """Put ``module`` at the end; returns the list."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: int | slice) -> Module | ModuleList:
        """Take out and return the module (or list of modules) at ``key``."""
        value = self[key]
        del self[key]
        return value

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append every module of ``modules``; returns the list."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def __repr__(self) -> str:
        # PyTorch's: a run of equal reprs is one line, "(0-2): 3 x Linear(...)".
        reprs = [repr(module) for module in self]
        if not reprs:
            return "ModuleList()"
        runs: list[list[Any]] = []  # [first, last, repr]
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = [
            f"({first}): {_indented(text)}" if first == last
            else f"({first}-{last}): {last - first + 1} x {_indented(text)}"
            for first, last, text in runs
        ]  # fmt: skip
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """Modules held by string key, in insertion order; used like a Python dict.

    >>> import minigrad as mg
    >>> acts = mg.nn.ModuleDict([("relu", mg.nn.ReLU()), ("tanh", mg.nn.Tanh())])
    >>> list(acts.keys()), acts["tanh"](mg.tensor([0.0]))
    (['relu', 'tanh'], tensor([0.]))
    """

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        if key not in self._keys:
            raise KeyError(key)
        return vars(self)[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)
        self._keys[key] = None

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        del vars(self)[key]

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def clear(self) -> None:
        """Remove every module."""
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str) -> Module:
        """Take out and return the module under ``key``."""
        value = self[key]
        del self[key]
        return value

    def keys(self) -> Iterable[str]:
        """The keys, in order."""
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        """``(key, module)`` pairs, in order."""
        return [(key, vars(self)[key]) for key in self._keys]

    def values(self) -> Iterable[Module]:
        """The modules, in order."""
        return [vars(self)[key] for key in self._keys]

    def update(self, modules: Any) -> None:
        """Add or replace modules from a mapping or an iterable of ``(key, module)`` pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(modules).__name__
            )
        pairs = modules.items() if isinstance(modules, (Mapping, ModuleDict)) else modules
        for key, module in _pairs(pairs, "ModuleDict"):
            self[key] = module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The modules by key, in the dict's order (PyTorch's names, so state dicts match)."""
        for key in self._keys:
            if vars(self)[key] is not None:
                yield key, vars(self)[key]


def _described(value: Any, by_type: bool = False) -> str:
    """One line of a parameter container's repr, as PyTorch writes it: the dtype
    (ParameterList) or the type string (``by_type``, ParameterDict), shape, device."""
    if not isinstance(value, Tensor):
        return f"Object of type: {type(value).__name__}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    device = f" ({value.device})" if value.device == "cuda" else ""
    size = "x".join(str(n) for n in value.shape)
    dtype = value.type() if by_type else f"torch.{value.dtype.name}"  # (PyTorch's spelling)
    return f"{kind} containing: [{dtype} of size {size}{device}]"


class ParameterList(Module):
    """Parameters held by position (``"0"``, ``"1"``, ...); a plain tensor becomes a Parameter.

    >>> import minigrad as mg
    >>> ps = mg.nn.ParameterList([mg.zeros(2), mg.ones(3)])
    >>> type(ps[0]).__name__, [name for name, _ in ps.named_parameters()]
    ('Parameter', ['0', '1'])
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, _position(self, idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        name = _position(self, idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, name, param)

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> ParameterList:
        """Put ``value`` at the end (a tensor as a Parameter); returns the list."""
        self._size += 1
        try:
            self[self._size - 1] = value
        except BaseException:
            self._size -= 1  # nothing half-added
            raise
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Append every value of ``values``; returns the list."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def _own_parameters(self) -> Iterator[tuple[str, Tensor]]:
        for i in range(len(self)):
            value = vars(self)[str(i)]
            if isinstance(value, Parameter):
                yield str(i), value
        for name, value in super()._own_parameters():
            if not name.isdigit():
                yield name, value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_described(p)}" for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Parameters held by string key, in insertion order; a plain tensor becomes a Parameter.

    Updating from a plain ``dict`` adds its keys in sorted order, as PyTorch does
    (an ``OrderedDict``, a ``ParameterDict`` or a list of pairs keeps its order).

    >>> import minigrad as mg
    >>> ps = mg.nn.ParameterDict({"b": mg.zeros(1), "a": mg.ones(2)})
    >>> list(ps.keys()), list(ps.state_dict())
    (['a', 'b'], ['a', 'b'])
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        name = self._key(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, name, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``self[key]``, first set to ``default`` if ``key`` is not there."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every entry."""
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str) -> Any:
        """Take out and return the entry under ``key``."""
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Take out and return the last ``(key, value)`` pair added."""
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]`` if there, else ``default``."""
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ParameterDict with ``keys``, each holding ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Iterable[str]:
        """The keys, in order."""
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        """``(key, value)`` pairs, in order."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        """The values, in order."""
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        """Add or replace entries from a mapping or an iterable of ``(key, value)`` pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(parameters).__name__
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs: Any = parameters.items()
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = _pairs(parameters, "ParameterDict")
        for key, value in pairs:
            self[key] = value

    def _own_parameters(self) -> Iterator[tuple[str, Tensor]]:
        for key in self._keys:  # in the dict's order, which setattr alone would not keep
            if isinstance(vars(self)[key], Parameter):
                yield key, vars(self)[key]
        for name, value in super()._own_parameters():
            if name not in self._keys:
                yield name, value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_described(p, by_type=True)}" for k, p in self.items())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self
