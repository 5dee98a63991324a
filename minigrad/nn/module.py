"""``Module``: a function with parameters, and modules made of modules (lesson 06).

A model is a function of its input *and* of numbers we want to learn. A
``Module`` keeps those numbers (leaf tensors with ``requires_grad=True``) as
attributes, and ``forward`` says how to compute the output from the input.
Because parameters are ordinary leaves, ``loss.backward()`` fills their
``.grad``; the module only has to find them again for the optimizer, which
``parameters()`` does by walking the attributes: tensors, submodules, and
lists or tuples of either.

A module may also hold numbers that are *not* learned but belong to the
model, such as BatchNorm's running averages: ``register_buffer`` marks an
attribute as such a *buffer*. Parameters and buffers together are the
module's state: ``state_dict()`` names each one by its path
(``"layers.0.weight"``), ``load_state_dict()`` copies saved numbers back into
the same tensor objects, and ``mg.save`` / ``mg.load`` write them to a file.
``train()`` and ``eval()`` switch the layers that act differently while
training (Dropout, BatchNorm), here and in every submodule.

The names follow PyTorch's ``torch.nn``, so code written here reads the same there.
"""

from __future__ import annotations

import math
import operator
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from minigrad.nn.parameter import Buffer, Parameter
from minigrad.tensor import dtypes
from minigrad.tensor.mode import current, no_grad
from minigrad.tensor.ops import elementwise, inplace
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.tensor import Tensor


def overwrite(target: Tensor, value: Any) -> None:
    """Write ``value``'s numbers into the tensor ``target`` itself, outside any graph.

    ``target`` stays the same object, so whatever holds it (a module, an
    optimizer) sees the new numbers. Used where PyTorch writes in place under
    ``no_grad``: ``load_state_dict`` and BatchNorm's running statistics.

    >>> import minigrad as mg
    >>> t = mg.zeros(2)
    >>> overwrite(t, [1.0, 2.0]); t
    tensor([1., 2.])
    """
    with no_grad():
        target.copy_(value)  # into target's own memory; its version counter moves on


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` found missing or unexpected (PyTorch's ``_IncompatibleKeys``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


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
        self._buffer_names: dict[str, bool] = {}  # name -> persistent (saved in state_dict)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function\n'
            f"(a subclass of Module must define forward(...))"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # -- finding parameters, buffers and submodules ----------------------------
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
        """The submodules held directly by this module."""
        return (module for _, module in self.named_children())

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """This module (named ``prefix``, ``""`` by default) and every module below it.

        A module held twice is listed once, unless ``remove_duplicate=False``;
        ``memo``, a set of modules, lists those as seen already (PyTorch's arguments).

        >>> import minigrad as mg
        >>> model = mg.nn.Sequential(mg.nn.Linear(2, 2), mg.nn.ReLU())
        >>> [name for name, _ in model.named_modules()]
        ['', '0', '1']
        """
        seen: set[int] = {id(m) for m in memo} if memo is not None else set()
        todo = [(prefix, self)]
        while todo:  # depth first, children in order: PyTorch's order
            name, module = todo.pop()
            if remove_duplicate:
                if id(module) in seen:
                    continue
                seen.add(id(module))
                if memo is not None:
                    memo.add(module)
            yield name, module
            below = [
                (_join(name, child_name), child) for child_name, child in module.named_children()
            ]
            todo.extend(reversed(below))

    def modules(self) -> Iterator[Module]:
        """This module and every module below it, once each."""
        return (module for _, module in self.named_modules())

    def _own_parameters(self) -> Iterator[tuple[str, Tensor]]:
        """Parameters held directly here (in lists too): every ``Parameter``, frozen or not,
        and the other leaf tensors while they require grad."""
        buffers = self._buffers_here()
        for name, value in vars(self).items():
            items = enumerate(value) if isinstance(value, (list, tuple)) else [(None, value)]
            for i, item in items:
                if isinstance(item, Parameter) or (
                    isinstance(item, Tensor) and item.requires_grad and item.is_leaf
                ):
                    if name not in buffers:
                        yield (name if i is None else f"{name}.{i}"), item

    def _buffers_here(self) -> dict[str, bool]:
        return vars(self).get("_buffer_names", {})

    def named_parameters(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``("layers.0.weight", tensor)`` pairs; a parameter shared twice is listed once.

        A module's own parameters come first, then its submodules' in order
        (PyTorch's order, so the two name and order parameters alike).

        >>> import minigrad as mg
        >>> [name for name, _ in mg.nn.Linear(3, 2).named_parameters()]
        ['weight', 'bias']
        """
        seen: set[int] = set()
        modules = self.named_modules(prefix=prefix) if recurse else iter([(prefix, self)])
        for module_name, module in modules:
            for name, p in module._own_parameters():
                if id(p) not in seen:
                    seen.add(id(p))
                    yield _join(module_name, name), p

    def parameters(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every parameter of this module and its submodules, each once.

        >>> import minigrad as mg
        >>> sum(p.size for p in mg.nn.Linear(3, 2).parameters())  # 3*2 weights + 2 biases
        8
        """
        return (p for _, p in self.named_parameters(recurse=recurse))

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Keep ``tensor`` as the attribute ``name``: model state that is not learned.

        A buffer (BatchNorm's running mean) is never among ``parameters()``, so
        no optimizer changes it, but it is saved by ``state_dict()`` unless
        ``persistent=False``.

        >>> import minigrad as mg
        >>> m = Module()
        >>> m.register_buffer("count", mg.tensor(0))
        >>> list(m.state_dict()), list(m.parameters())
        (['count'], [])
        """
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(f"buffer name can't contain \".\", and can't be empty; got {name!r}")
        if hasattr(self, name) and name not in self._buffers_here():
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(Tensor or None required)"
            )
        vars(self).setdefault("_buffer_names", {})[name] = persistent
        setattr(self, name, tensor)

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        """``("bn.running_mean", tensor)`` pairs for every buffer, each once."""
        seen: set[int] = set()
        modules = self.named_modules(prefix=prefix) if recurse else iter([(prefix, self)])
        for module_name, module in modules:
            for name in module._buffers_here():
                t = getattr(module, name)
                if t is not None and id(t) not in seen:
                    seen.add(id(t))
                    yield _join(module_name, name), t

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer of this module and its submodules, each once."""
        return (t for _, t in self.named_buffers(recurse=recurse))

    def __setattr__(self, name: str, value: Any) -> None:
        # While a function is traced (lesson 13), replacing a tensor the module
        # holds (a buffer updated as self.count = self.count + 1) is noted first,
        # so that the trace can put it back: a traced value must not outlive its trace.
        tracing = current().tracing
        if tracing is not None and isinstance(vars(self).get(name), Tensor):
            tracing.remember(self, name)
        if isinstance(value, Buffer):  # an nn.Buffer registers itself, as in PyTorch
            held = vars(self).get(name)
            if isinstance(held, Parameter):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            if hasattr(self, name) and name not in self._buffers_here():
                raise KeyError(f"attribute '{name}' already exists")
            vars(self).setdefault("_buffer_names", {})[name] = value.persistent
        elif isinstance(value, Parameter):  # a parameter now, no longer a buffer
            self._buffers_here().pop(name, None)
        elif isinstance(vars(self).get(name), Parameter) and value is not None:
            raise TypeError(
                f"cannot assign '{_typename(value)}' as parameter '{name}' "
                "(torch.nn.Parameter or None expected)"
            )
        elif isinstance(value, Module):  # a submodule now, no longer a buffer
            self._buffers_here().pop(name, None)
        elif name in self._buffers_here() and value is not None and not isinstance(value, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(value)}' as buffer '{name}' "
                "(torch.nn.Buffer, torch.Tensor or None expected)"
            )
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._buffers_here().pop(name, None)  # a deleted buffer is no longer one
        object.__delattr__(self, name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Hold ``module`` as the submodule ``name`` (``setattr`` with PyTorch's checks).

        >>> import minigrad as mg
        >>> m = Module()
        >>> m.add_module("head", mg.nn.Linear(2, 1))
        >>> list(m.state_dict())
        ['head.weight', 'head.bias']
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and not isinstance(getattr(self, name), (Module, type(None))):
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        setattr(self, name, module)

    register_module = add_module

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Hold ``param`` (a ``Parameter``, or None) as the parameter ``name``.

        >>> import minigrad as mg
        >>> m = Module()
        >>> m.register_parameter("scale", mg.nn.Parameter(mg.ones(1)))
        >>> [name for name, _ in m.named_parameters()]
        ['scale']
        """
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and not isinstance(getattr(self, name), (Tensor, type(None))):
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        setattr(self, name, param)

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""`` is this module).

        >>> import minigrad as mg
        >>> mg.nn.Sequential(mg.nn.Linear(1, 1)).get_submodule("0")
        Linear(in_features=1, out_features=1, bias=True)
        """
        module = self
        if target == "":
            return module
        for item in target.split("."):
            children = dict(module.named_children())
            if item not in children:
                if not hasattr(module, item):
                    raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
                raise AttributeError(f"`{item}` is not an nn.Module")
            module = children[item]
        return module

    def zero_grad(self) -> None:
        """Forget the accumulated gradients (``.grad = None``, PyTorch's default)."""
        tracing = current().tracing  # while traced (lesson 13): noted, to be put back
        for p in self.parameters():
            if tracing is not None:
                tracing.remember(p, "grad")
            p.grad = None

    # -- state: saving and loading ------------------------------------------------
    def state_dict(self, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict[str, Tensor]:  # fmt: skip
        """Every parameter and persistent buffer by its dotted name, as PyTorch names them.

        The values are detached tensors sharing the numbers of the model's own
        (``keep_vars=True`` gives the objects themselves). Each module lists
        its parameters, then its buffers, then its submodules' entries.

        >>> import minigrad as mg
        >>> model = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.ReLU(), mg.nn.Linear(3, 1))
        >>> list(model.state_dict())
        ['0.weight', '0.bias', '2.weight', '2.bias']
        """
        out = OrderedDict() if destination is None else destination
        for name, p in self._own_parameters():
            out[prefix + name] = p if keep_vars else p.detach()
        for name, persistent in self._buffers_here().items():
            t = getattr(self, name)
            if persistent and t is not None:
                out[prefix + name] = t if keep_vars else t.detach()
        for name, child in self.named_children():
            child.state_dict(out, prefix + name + ".", keep_vars)
        return out

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True
    ) -> IncompatibleKeys:
        """Copy ``state_dict``'s numbers into this module's parameters and buffers.

        The numbers go *into* the existing tensors (cast to their dtype), so
        an optimizer that holds them keeps working. All or nothing: every
        value is checked and converted to its target's shape, dtype and
        device before the first one is copied, so an error changes nothing.
        With ``strict=True`` (the default) a missing or unexpected name is an
        error too; with ``strict=False`` they are returned instead.

        >>> import minigrad as mg
        >>> a, b = mg.nn.Linear(2, 1), mg.nn.Linear(2, 1)
        >>> b.load_state_dict(a.state_dict())
        <All keys matched successfully>
        >>> bool((a.weight == b.weight).all())
        True
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [name for name in own if name not in state_dict]
        unexpected = [name for name in state_dict if name not in own]
        errors = []
        if strict and missing:
            errors.append(f"Missing key(s) in state_dict: {_quoted(missing)}. ")
        if strict and unexpected:
            errors.append(f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
        staged = []  # (target, value already in target's dtype and on its device)
        for name, target in own.items():
            if name not in state_dict:
                continue
            value = state_dict[name]
            if not isinstance(value, (Tensor, np.ndarray)):
                errors.append(
                    f'While copying the parameter named "{name}", expected Tensor or NumPy '
                    f"array from checkpoint but received {type(value)}"
                )
            elif tuple(value.shape) != target.shape:
                errors.append(
                    f"size mismatch for {name}: copying a param with shape {tuple(value.shape)} "
                    f"from checkpoint, the shape in current model is {target.shape}."
                )
            else:
                try:
                    staged.append((target, _converted(value, target)))
                except (TypeError, ValueError, RuntimeError, OverflowError) as error:
                    errors.append(
                        f'While copying the parameter named "{name}", whose dimensions in the '
                        f"model are {target.shape} and whose dimensions in the checkpoint are "
                        f"{tuple(value.shape)}, an exception occurred : {error}"
                    )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        for target, value in staged:  # nothing below can fail: same shape, dtype, device
            overwrite(target, value)
        return IncompatibleKeys(missing, unexpected)

    # -- modes -------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``mode=True``) or evaluation mode here and in every submodule.

        Dropout drops only while training; BatchNorm normalizes with the
        batch's statistics while training and with its running averages in
        evaluation. Returns the module itself.

        >>> import minigrad as mg
        >>> model = mg.nn.Sequential(mg.nn.Dropout(0.5))
        >>> model.train(False)[0].training
        False
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode here and below: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Freeze (``False``) or unfreeze every parameter here and below; returns the module.

        Frozen parameters get no gradient, so an optimizer leaves them alone,
        but they stay parameters: still in ``parameters()`` and ``state_dict()``.

        >>> import minigrad as mg
        >>> layer = mg.nn.Linear(2, 2).requires_grad_(False)
        >>> [p.requires_grad for p in layer.parameters()], list(layer.state_dict())
        ([False, False], ['weight', 'bias'])
        """
        for p in list(self.parameters()):
            p.requires_grad_(requires_grad)
        return self

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every submodule, then on this module (PyTorch's order); returns it.

        >>> import minigrad as mg
        >>> seen = []
        >>> _ = mg.nn.Sequential(mg.nn.Linear(1, 1), mg.nn.ReLU()).apply(
        ...     lambda m: seen.append(type(m).__name__))
        >>> seen
        ['Linear', 'ReLU', 'Sequential']
        """
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # -- devices and dtypes --------------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move the parameters and buffers to a device, or cast them to a float dtype.

        ``to("cuda")``, ``to(mg.float64)``, ``to(device=..., dtype=...)`` or
        ``to(tensor)`` (its device and dtype). The tensors change *in place*
        (the same objects, new numbers), so an optimizer holding them keeps
        working; their ``.grad`` moves with them. A dtype applies to floating
        point tensors only (integer buffers keep theirs). Returns the module.

        >>> import minigrad as mg
        >>> layer = mg.nn.Linear(2, 1).to(mg.float64)
        >>> layer.weight.dtype, layer(mg.ones(1, 2, dtype=mg.float64)).dtype
        (dtype('float64'), dtype('float64'))
        """
        device, dtype = _device_and_dtype(args, kwargs)
        tensors = [*self.parameters(), *self.buffers()]
        # Every new array first, then the swap: a failure (no GPU) leaves the module as it was.
        moved = [
            (t, _moved(t, device, dtype), _moved(t.grad, device, dtype) if t.grad is not None
             else None)
            for t in tensors
        ]  # fmt: skip
        for t, new, grad in moved:
            t.data, t.device = new.data, new.device
            if grad is not None:
                t.grad = grad
        return self

    def cpu(self) -> Module:
        """Parameters and buffers to the CPU: ``to("cpu")``."""
        return self.to("cpu")

    def cuda(self, device: Any = None) -> Module:
        """Parameters and buffers to the GPU: ``to("cuda")``."""
        return self.to("cuda")

    def float(self) -> Module:
        """Floating point parameters and buffers to float32."""
        return self.to(dtypes.float32)

    def double(self) -> Module:
        """Floating point parameters and buffers to float64."""
        return self.to(dtypes.float64)

    def half(self) -> Module:
        """Floating point parameters and buffers to float16 (lesson 15)."""
        return self.to(dtypes.float16)

    def bfloat16(self) -> Module:
        """Floating point parameters and buffers to bfloat16 (lesson 15; needs ml_dtypes)."""
        return self.to(dtypes.as_dtype("bfloat16"))

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        # PyTorch's layout: the extra_repr lines, then one "(name): repr" line per child.
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [(name.split(".")[-1], child) for name, child in self.named_children()]
        lines += [f"({name}): {_indented(repr(child))}" for name, child in children]
        if len(lines) == 1 and not children:
            return f"{type(self).__name__}({lines[0]})"
        if not lines:
            return f"{type(self).__name__}()"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


def _indented(text: str) -> str:
    """``text`` with every line after the first moved two spaces right (a child's repr)."""
    return text.replace("\n", "\n  ")


def _typename(value: Any) -> str:
    """PyTorch's ``torch.typename``: a tensor's type string, else the class's dotted name."""
    if isinstance(value, Tensor):
        return value.type()
    kind = type(value)
    module = kind.__module__
    return kind.__qualname__ if module in ("builtins", None) else f"{module}.{kind.__qualname__}"


def _device_and_dtype(args: tuple, kwargs: dict) -> tuple[str | None, Any]:
    """The device and dtype of ``Module.to``'s arguments, PyTorch's ways of giving them."""
    device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for arg in args:
        if isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, str) and arg.split(":")[0] in ("cpu", "cuda"):
            device = arg.split(":")[0]
        elif arg is not None and not isinstance(arg, bool):
            dtype = arg
    if device is not None and device.split(":")[0] not in ("cpu", "cuda"):
        raise ValueError(f"unknown device {device!r}; minigrad knows 'cpu' and 'cuda'")
    if device is not None:
        device = device.split(":")[0]
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if not dtypes.is_floating(dtype):
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype.name}"
            )
    return device, dtype


def _moved(t: Tensor, device: str | None, dtype: Any) -> Tensor:
    """``t``'s numbers on ``device`` and, if ``t`` is floating point, in ``dtype`` (no graph)."""
    with no_grad():
        new = t.detach()
        if device is not None:
            new = new.to(device)
        if dtype is not None and dtypes.is_floating(t.dtype):
            new = new.to(dtype)
    return new


def _converted(value: Tensor | np.ndarray, target: Tensor) -> Tensor:
    """``value`` as a new tensor with ``target``'s dtype and device (a checkpoint's entry)."""
    with no_grad():
        if isinstance(value, Tensor):
            return value.detach().to(target.device).to(target.dtype)
        return Tensor.concrete(value, dtype=target.dtype, device=target.device)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _quoted(names: list[str]) -> str:
    return ", ".join(f'"{name}"' for name in names)


class Sequential(Module):
    """Modules applied one after the other: ``Sequential(f, g)(x) == g(f(x))``.

    The layers are submodules named ``"0"``, ``"1"``, ... (or by the keys of
    an ``OrderedDict``), PyTorch's names, so state dicts match. Indexing,
    slicing (a ``Sequential`` keeping the names), ``append``, ``insert``,
    ``extend``, ``pop``, ``del``, ``+`` and ``*`` work as PyTorch's.

    >>> import minigrad as mg
    >>> model = Sequential(mg.nn.Linear(4, 3), ReLU(), mg.nn.Linear(3, 2))
    >>> model(mg.zeros(5, 4)).shape, len(model), list(model[1:].state_dict())
    ((5, 2), 3, ['2.weight', '2.bias'])
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input: Any) -> Any:
        for layer in self:
            input = layer(input)
        return input

    def _layers(self) -> list[tuple[str, Module]]:
        return [(k, v) for k, v in vars(self).items() if isinstance(v, Module)]

    def _key(self, idx: Any) -> str:
        size = len(self)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        return self._layers()[idx % size][0]

    def _renumber(self, modules: list[Module]) -> None:
        """Hold exactly ``modules``, named ``"0"``, ``"1"``, ... (PyTorch's renumbering)."""
        for key, _ in self._layers():
            del vars(self)[key]
        for i, module in enumerate(modules):
            self.add_module(str(i), module)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(self._layers()[idx]))
        return getattr(self, self._key(idx))

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        layers = [m for _, m in self._layers()]
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[[k for k, _ in self._layers()].index(self._key(idx))]
        self._renumber(layers)

    def __len__(self) -> int:
        return len(self._layers())

    def __iter__(self) -> Iterator[Module]:
        return iter([m for _, m in self._layers()])

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def __add__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                f"add operator supports only objects of Sequential class, but {type(other)} is "
                "given."
            )
        return Sequential(*self, *other)

    def __iadd__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                f"add operator supports only objects of Sequential class, but {type(other)} is "
                "given."
            )
        offset = len(self)
        for i, module in enumerate(list(other)):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, other: Any) -> Sequential:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return Sequential(*(list(self) * other))

    __rmul__ = __mul__

    def __imul__(self, other: Any) -> Sequential:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        layers, offset = list(self), len(self)
        for i, module in enumerate(layers * (other - 1)):
            self.add_module(str(offset + i), module)
        return self

    def append(self, module: Module) -> Sequential:
        """Put ``module`` at the end; returns the Sequential."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` before position ``index`` (``-len <= index <= len``)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        layers = list(self)
        layers.insert(index if index >= 0 else index + n, module)
        self._renumber(layers)
        return self

    def extend(self, sequential: Any) -> Sequential:
        """Append every module of ``sequential``; returns the Sequential."""
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key: int | slice) -> Any:
        """Take out and return the module (or Sequential of modules) at ``key``."""
        value = self[key]
        del self[key]
        return value


class _Activation(Module):
    """An elementwise function as a layer (no parameters)."""

    function: Callable[[Tensor], Tensor]

    def forward(self, x: Tensor) -> Tensor:
        return type(self).function(x)


class ReLU(_Activation):
    """max(x, 0), elementwise; ``ReLU(inplace=True)`` writes it into its input, as PyTorch's.

    >>> import minigrad as mg
    >>> ReLU()(mg.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    function = staticmethod(elementwise.relu)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, x: Tensor) -> Tensor:
        if self.inplace:
            return inplace.assign(x, elementwise.relu, (), "relu_")
        return elementwise.relu(x)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(_Activation):
    """tanh(x), elementwise."""

    function = staticmethod(elementwise.tanh)


class Sigmoid(_Activation):
    """1 / (1 + e^-x), elementwise."""

    function = staticmethod(elementwise.sigmoid)


class Flatten(Module):
    """Axes ``start_dim`` to ``end_dim`` joined into one: ``(N, C, H, W) -> (N, C*H*W)``.

    The default keeps the batch axis (``start_dim=1``), so a stack of images
    becomes a stack of vectors that a ``Linear`` layer can read.

    >>> import minigrad as mg
    >>> Flatten()(mg.zeros(2, 3, 4, 5)).shape, Flatten(0, 1)(mg.zeros(2, 3, 4)).shape
    ((2, 60), (6, 4))
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        (start,) = normalize_axes(self.start_dim, x.ndim) or (0,)  # a 0-d tensor: one element
        (end,) = normalize_axes(self.end_dim, x.ndim) or (0,)
        if start > end:
            raise RuntimeError(
                "flatten() has invalid args: start_dim cannot come after end_dim\n"
                f"Flatten(start_dim={self.start_dim}, end_dim={self.end_dim}) on an input of "
                f"shape {x.shape}"
            )
        shape = x.shape
        return x.reshape(*shape[:start], math.prod(shape[start : end + 1]), *shape[end + 1 :])

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
