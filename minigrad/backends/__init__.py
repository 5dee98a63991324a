"""Backends: kernels over raw arrays, chosen per device (lessons 04, 10, 11).

A backend knows nothing of ``Tensor`` or autodiff. It is a small contract of
kernels over raw arrays (``contract.Backend`` states what each must
guarantee; ``numpy_backend.NumpyBackend`` is the reference):

- ``map(op, x)``: one elementwise function of one array,
- ``zip(op, x, y)``: one elementwise function of two arrays (NumPy broadcasting),
- ``reduce(op, x, axes, keepdims)``: sum / max / min along axes,
- ``matmul(a, b)``: batched matrix product,

plus the data movement the primitives need (broadcast, reshape, transpose,
indexing, scatter-add, concatenate, casts) and storage (``from_numpy``,
``to_numpy``, ``full``). The op names of ``map`` and ``zip`` are the keys of
the lines of ``elementwise_ops.OPS``: each op is one plain Python function
of numbers, compiled by the numba CPU kernels and the numba.cuda kernels alike.

CPU tensors run on the backend named by ``current()``; ``use("numpy")`` switches
for a ``with`` block, in the thread that runs it only (each thread has its own
choice, so a trace in one thread never changes what another computes on).
CUDA tensors run on the ``cuda`` backend. Backends are
imported on first use, so ``import minigrad`` never compiles or probes a GPU.

    >>> from minigrad import backends
    >>> with backends.use("numpy"):
    ...     backends.current()
    'numpy'
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import importlib.util
import os
import threading
from collections.abc import Iterator
from typing import Any

# name -> (module, class); imported lazily.
_REGISTRY = {
    "numpy": ("minigrad.backends.numpy_backend", "NumpyBackend"),
    "numba": ("minigrad.backends.numba_backend", "NumbaBackend"),
    "cuda": ("minigrad.backends.cuda_backend", "CudaBackend"),
    "abstract": ("minigrad.backends.abstract_backend", "AbstractBackend"),  # tracing (lesson 13)
}
_CPU_BACKENDS = ("numpy", "numba")
_loaded: dict[str, Any] = {}
# The default CPU backend: numba's parallel kernels when numba is installed (a
# cheap check: nothing is imported or compiled), else the NumPy reference.
# The environment variable MINIGRAD_BACKEND overrides it.
_DEFAULT_CPU = "numba" if importlib.util.find_spec("numba") is not None else "numpy"
_default = [os.environ.get("MINIGRAD_BACKEND", _DEFAULT_CPU)]


class _Choice:
    """One thread's open ``use`` (or ``abstract``) blocks, innermost last; none: the default."""

    __slots__ = ("cpu", "cuda")

    def __init__(self) -> None:
        self.cpu: list[str] = []
        self.cuda: list[str] = []


# One _Choice per thread, as for gradient mode (``minigrad.tensor.mode``): a new
# thread starts with an empty context and gets the default on first use.
_CHOICE: contextvars.ContextVar[_Choice] = contextvars.ContextVar("minigrad_backend")
_CHOICE.set(_Choice())
_get_choice = _CHOICE.get


def _choice() -> _Choice:
    choice = _get_choice(None)
    if choice is None:
        choice = _Choice()
        _CHOICE.set(choice)
    return choice


# How many use()/abstract() blocks are open, in all threads together. Every
# operation asks for its backend; while no block is open anywhere (nearly
# always), the answer is the default without looking up this thread's choice.
_open_blocks = [0]
_counting = threading.Lock()


@contextlib.contextmanager
def _block(stacks: list[list[str]], name: str) -> Iterator[None]:
    """Push ``name`` on each of this thread's ``stacks`` for a ``with`` block."""
    with _counting:
        _open_blocks[0] += 1
    for stack in stacks:
        stack.append(name)
    try:
        yield
    finally:
        for stack in stacks:
            stack.pop()
        with _counting:
            _open_blocks[0] -= 1


def get(name: str) -> Any:
    """The backend object called ``name`` ("numpy", "numba" or "cuda")."""
    backend = _loaded.get(name)
    if backend is None:
        if name not in _REGISTRY:
            raise ValueError(f"unknown backend {name!r}; choose one of {sorted(_REGISTRY)}")
        module_name, class_name = _REGISTRY[name]
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise RuntimeError(
                f"the {name!r} backend is not available here ({error}); "
                "run `python -m minigrad doctor` to see what is missing"
            ) from error
        backend = _loaded[name] = getattr(module, class_name)()
    return backend


def current() -> str:
    """The name of the backend CPU tensor operations run on now (in this thread)."""
    stack = _choice().cpu
    return stack[-1] if stack else _default[0]


def for_device(device: str) -> Any:
    """The backend that runs operations on tensors living on ``device``."""
    if _open_blocks[0]:  # some thread chose: is it this one?
        choice = _get_choice(None) or _choice()
        cpu = choice.cpu[-1] if choice.cpu else _default[0]
        cuda = choice.cuda[-1] if choice.cuda else "cuda"
    else:
        cpu, cuda = _default[0], "cuda"
    if device == "cpu":
        return _loaded.get(cpu) or get(cpu)
    if device == "cuda":
        return _loaded.get(cuda) or get(cuda)
    raise ValueError(f"unknown device {device!r}; minigrad knows 'cpu' and 'cuda'")


@contextlib.contextmanager
def use(name: str) -> Iterator[None]:
    """Run CPU tensor operations on backend ``name`` inside a ``with`` block."""
    if name not in _CPU_BACKENDS:
        raise ValueError(
            f"use() picks the CPU backend, one of {list(_CPU_BACKENDS)}; got {name!r}. "
            "For the GPU, move tensors with x.to('cuda')."
        )
    get(name)  # fail here, not at the first operation
    with _block([_choice().cpu], name):
        yield


@contextlib.contextmanager
def abstract() -> Iterator[None]:
    """Send every operation to the abstract backend (shapes only) inside a ``with`` block.

    Tracing (lesson 13) runs a program this way: CPU and CUDA tensors alike
    then hold ``AbstractArray`` data, and nothing is computed.
    """
    get("abstract")
    choice = _choice()
    with _block([choice.cpu, choice.cuda], "abstract"):
        yield


def set_default(name: str) -> None:
    """Make ``name`` the CPU backend from now on, outside ``use`` blocks, in every thread."""
    if name not in _CPU_BACKENDS:
        raise ValueError(f"the CPU backend must be one of {list(_CPU_BACKENDS)}; got {name!r}")
    get(name)
    _default[0] = name


def available() -> dict[str, bool]:
    """Which backends can run here, without compiling any kernel.

    >>> available()["numpy"]
    True
    """
    found = {"numpy": True}
    found["numba"] = importlib.util.find_spec("numba") is not None
    simulator = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    gpu = False
    if found["numba"] and not simulator:
        try:
            from numba import cuda

            gpu = bool(cuda.is_available())
        except Exception:  # a broken driver is "not available", never a crash
            gpu = False
    found["cuda"] = gpu
    found["cuda_simulator"] = found["numba"] and simulator
    return found
