"""What a tensor *is*: a backend array plus autodiff bookkeeping (lesson 04).

``TensorBase`` holds the state every tensor has and answers questions about it
(shape, dtype, device, values). What you can *do* with a tensor (``x + y``,
``x.sum()``) is the subclass ``minigrad.tensor.tensor.Tensor``, which sits at the
top of this layer because its methods call every operation module. Operations
below it only ever make new tensors of their inputs' class, ``type(x)``; the one
place that needs ``Tensor`` itself, turning plain Python data into a tensor, asks
``TensorBase.concrete``, which ``Tensor`` fills in when it is defined. So imports
in this layer run one way, bottom to top, with no cycle.

The fields:

- ``data``: the raw array, owned by the backend of ``device``;
- ``requires_grad`` and ``_node``: for results of recorded operations, the
  ``OpRecord`` that made it (``minigrad.tensor.record``); leaves have none;
- ``grad``: the accumulated gradient (a Tensor) after ``backward()``;
- ``_tangents``: forward-mode tangents, one per open ``jvp`` level (lesson 07).

**Versions.** ``x._version`` counts how often ``x``'s numbers were changed in
place (``x += 1``, ``x.zero_()``; ``minigrad.tensor.ops.inplace``). As in PyTorch,
the count belongs to the memory, not to the tensor object: a view that shares
``x``'s buffer (``x.reshape(...)``, ``x.T``, ``x[0]``, ``x.detach()``) shares its
version. A record that saves a tensor for backward notes its version and
backward compares (``record.py``). Almost no buffer is ever changed in place, so
the counts live in one table keyed by the buffer, holding only the buffers that
were: an operation pays nothing for versions until some in-place change happens.

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, 2.0]])
    >>> x.shape, x.ndim, x.size, x.dtype, x.device
    ((1, 2), 2, 2, dtype('float32'), 'cpu')
"""

from __future__ import annotations

import math
import weakref
from typing import Any, ClassVar

import numpy as np

from minigrad import backends
from minigrad.backends.contract import StandIn
from minigrad.backends.quiet import quietly
from minigrad.tensor import dtypes
from minigrad.tensor.mode import current

NOT_NUMBERS = (
    "cannot make a tensor from this data (ragged lists or non-numbers?); "
    "give numbers, nested lists of equal length, or a NumPy array"
)


def as_raw(data: Any, dtype: Any, device: str) -> Any:
    """Python data, a NumPy array or a tensor -> a fresh backend array on ``device``."""
    return backends.for_device(device).from_numpy(as_array(data, dtype))


@quietly  # (a float that overflows the dtype becomes inf silently, as in PyTorch)
def as_array(data: Any, dtype: Any) -> np.ndarray:
    """Python data, a NumPy array or a tensor -> a fresh NumPy array of the tensor's dtype.

    Without ``dtype``, Python data takes PyTorch's defaults (``natural_dtype``)
    and NumPy data keeps its own. Integers that do not fit the result's type
    are an error, never wrapped around: 2**70 is not a negative number.

    >>> as_array([1, 2], None).dtype, as_array(2**70, "float64")
    (dtype('int64'), array(1.18059162e+21))
    >>> try:
    ...     as_array(2**70, None)
    ... except OverflowError as error:
    ...     print(str(error).splitlines()[1].split(";")[0])
    the integer 1180591620717411303424 does not fit in int64 (-2**63 to 2**63 - 1)
    """
    if isinstance(data, TensorBase):
        array = data._numpy()
    elif isinstance(data, (str, bytes)) or data is None:
        raise TypeError(f"cannot make a tensor from {type(data).__name__} {data!r}")
    else:
        try:
            array = data if isinstance(data, np.ndarray) else np.asarray(data)
        except ValueError as error:  # NumPy refuses ragged nested lists
            raise TypeError(NOT_NUMBERS) from error
    python_data = not isinstance(data, (np.ndarray, np.generic, TensorBase))
    # NumPy hides a Python integer beyond int64 in an object array, a uint64 one
    # or (mixed with small ones, [2**63, 1]) a float array: look at the numbers.
    hidden = python_data and (
        array.dtype == object
        or array.dtype.kind == "u"
        or (array.dtype.kind == "f" and array.size and np.max(np.abs(array)) >= 2.0**63)
    )
    if dtype is not None:
        target = dtypes.as_dtype(dtype)
    elif not python_data:  # NumPy data keeps its dtype
        target = dtypes.as_dtype(array.dtype) if array.dtype.kind != "u" else dtypes.int64
    elif hidden:  # integers stay integers unless a float is among them (PyTorch's rule)
        floats = any(isinstance(v, (float, np.floating)) for v in _flatten(data))
        target = dtypes.DEFAULT_FLOAT if floats else dtypes.int64
    else:
        target = dtypes.natural_dtype(array)
    if array.dtype == object and not all(_is_number(v) for v in array.flat):
        raise TypeError(NOT_NUMBERS)
    if hidden and target.kind in "iu":
        _check_python_ints(_flatten(data), target)
    if array.dtype == object:
        array = array.astype(np.float64 if dtypes.is_floating(target) else target)
    if target.kind in "iu" and array.dtype.kind in "iuf":
        _check_fits(array, target)
    if target == np.float16 and array.dtype == np.float64:
        array = array.astype(np.float32)  # PyTorch rounds float64 to float16 through float32
    return np.array(array, dtype=target, copy=True)  # tensors own their memory


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.number))


def _flatten(data: Any) -> Any:
    """The numbers of nested lists and tuples, one by one."""
    if isinstance(data, (list, tuple)):
        for part in data:
            yield from _flatten(part)
    else:
        yield data


def _check_python_ints(values: Any, target: np.dtype) -> None:
    """A Python integer among ``values`` that ``target`` cannot hold is an OverflowError."""
    bounds = np.iinfo(target)
    for v in values:
        if isinstance(v, int) and not bounds.min <= v <= bounds.max:
            raise OverflowError(
                f"Overflow when unpacking long long\nthe integer {v} does not fit in "
                f"{target.name} ({_range(target)}); for a number this large use a float "
                "dtype, e.g. dtype=mg.float64"
            )


def _range(target: np.dtype) -> str:
    bits = 8 * target.itemsize
    return f"-2**{bits - 1} to 2**{bits - 1} - 1"


def _check_fits(array: np.ndarray, target: np.dtype) -> None:
    """Values of ``array`` that the integer type ``target`` cannot hold are an OverflowError."""
    if not array.size or (array.dtype.kind in "iu" and np.can_cast(array.dtype, target)):
        return
    bounds = np.iinfo(target)
    # max + 1 as the open upper end: exact as a float too (a power of two), where
    # ``<= max`` would let the float 2.0**63 through into int64.
    with np.errstate(invalid="ignore"):
        inside = (array >= bounds.min) & (array < bounds.max + 1)
    if not inside.all():
        bad = array[~inside].flat[0].item()
        raise OverflowError(
            f"value cannot be converted to type {target.name} without overflow\n"
            f"the value {bad!r} does not fit in {target.name} ({_range(target)}); give values "
            "in that range or a wider dtype, e.g. dtype=mg.float64"
        )


# -- versions: how often a buffer was changed in place ----------------------------
#: id(buffer) -> its version, for the buffers changed in place (and still alive).
#: Empty, as it nearly always is, it means "every version is 0": records test it
#: (``if VERSIONS:``, a few nanoseconds) before they look at versions at all.
VERSIONS: dict[int, int] = {}


def buffer_of(data: Any) -> Any:
    """The object that owns the memory of a backend array (views share it).

    >>> a = np.zeros((2, 3))
    >>> buffer_of(a.T[0]) is a, buffer_of(a) is a
    (True, True)
    """
    if isinstance(data, np.ndarray):
        while isinstance(data.base, np.ndarray):
            data = data.base
        return data
    return getattr(data, "buffer", data)  # a CudaArray: a strided view of a flat buffer


def version_of(data: Any) -> int:
    """How many in-place changes the memory of backend array ``data`` has seen."""
    return VERSIONS.get(id(buffer_of(data)), 0) if VERSIONS else 0


def set_version(data: Any, version: int) -> None:
    """Set the version of ``data``'s memory (forgotten when that memory is freed)."""
    buffer = buffer_of(data)
    key = id(buffer)
    if key not in VERSIONS:  # ids are reused once an object dies: forget it then
        weakref.finalize(buffer, VERSIONS.pop, key, None)
    VERSIONS[key] = version


# -- views: which tensor a view was cut from ----------------------------------------------
# A view (a basic slice, a reshape, a transpose, a diagonal or an expand of a tensor,
# CPU or CUDA) lives in its base's memory. It carries ``_view = (base, primitive,
# params)``: it is ``primitive(base, **params)``; the base carries ``_views``, weak
# references to its views. An in-place change through a view changes the base, and
# every graph involved learns of it (``inplace.py``). A view keeps its base alive, as
# in PyTorch. A view made under ``no_grad`` carries ``_view = (base, NO_GRAD_VIEW,
# None)``: a change through it with gradient mode on is PyTorch's error, and so is
# using it in a graph after its memory was changed in place (``StaleView``); it is
# among its base's ``_views`` only where that can happen, if the tensor it is a view
# of requires grad (not, say, in a backward pass). Both fields are None on every
# other tensor.

#: The primitive slot of ``_view`` for a view made with gradient mode off (PyTorch's
#: CreationMeta::NO_GRAD_MODE).
NO_GRAD_VIEW = "made under no_grad"


def shares_memory(data: Any, base: Any) -> bool:
    """Whether backend array ``data`` is a view into the memory of backend array ``base``."""
    if type(data) is np.ndarray:
        own = data.base
        if own is None or type(base) is not np.ndarray:
            return False
        return own is base or own is base.base or buffer_of(data) is buffer_of(base)
    buffer = getattr(data, "buffer", None)  # a CudaArray
    return buffer is not None and buffer is getattr(base, "buffer", None)


def note_view(view: Any, base: Any, prim: Any, params: dict, grad_enabled: bool = True) -> None:
    """Remember that ``view`` (made by ``prim`` from ``base``) shares ``base``'s memory."""
    if view is base or not shares_memory(view.data, base.data):
        return
    if not grad_enabled:
        view._view = (base, NO_GRAD_VIEW, None)
        if type(base) is TensorBase._raw:
            return  # a backward pass's value (lean.py): never in a graph
        root = base
        while getattr(root, "_view", None) is not None:
            root = root._view[0]
        if root.requires_grad:  # a change through an alias of its memory refuses it too
            note_root(root)
        # Known to its base even if nothing requires grad yet: the base may come to
        # (x.requires_grad_(), x.mul_(w)), and a change of it with gradient mode on then
        # refuses this view, as PyTorch does.
    else:
        view._view = (base, prim, params)
    views = getattr(base, "_views", None)
    if views is None:
        views = base._views = []
    elif len(views) >= 8 and not len(views) & (len(views) - 1):  # at powers of two
        views[:] = [r for r in views if r() is not None]  # forget the dead ones
    views.append(weakref.ref(view))


#: The tensors whose views made under ``no_grad`` a change of their memory refuses (they
#: require grad), by the id of their array: a change through another tensor on that memory,
#: ``x.detach()`` say, finds them here (``inplace.py``), as PyTorch's version counter, which
#: every alias shares, tells such views. Keyed by the id of the memory's owner
#: (``buffer_of``), and checked against it when read (ids are reused).
NO_GRAD_ROOTS: dict[int, Any] = {}


def note_root(root: Any) -> None:
    """List ``root`` (which requires grad) in NO_GRAD_ROOTS, by its memory."""
    data = root.data  # (its memory's owner: itself, but for a CudaArray or a NumPy view)
    key = id(data if type(data) is np.ndarray and data.base is None else buffer_of(data))
    known = NO_GRAD_ROOTS.get(key)
    if known is None or known() is not root:  # (an id is reused once its array dies)
        _note_root(root, key)


def _note_root(root: Any, key: int) -> None:
    if len(NO_GRAD_ROOTS) >= 64 and not len(NO_GRAD_ROOTS) & (len(NO_GRAD_ROOTS) - 1):
        for dead in [k for k, ref in NO_GRAD_ROOTS.items() if ref() is None]:
            del NO_GRAD_ROOTS[dead]  # (at powers of two: forget the dead ones)
    NO_GRAD_ROOTS[key] = weakref.ref(root)


class MultiOutputView(dict):
    """The params of a view that is one of several a function returns (``split``, ``chunk``,
    ``unbind``): PyTorch forbids changing such a view in place in a graph. ``origin`` is
    (PyTorch's name of the function, which output)."""

    origin: tuple[str, int] = ("", 0)


def multi_output_views(views: tuple, name: str) -> tuple:
    """Mark each of ``views`` (the outputs of ``name``) as one of several views."""
    for i, view in enumerate(views):
        link = getattr(view, "_view", None)
        if link is not None and link[1] is not NO_GRAD_VIEW:
            params = MultiOutputView(link[2])
            params.origin = (name, i)
            view._view = (link[0], link[1], params)
    return views


class StaleView:
    """The record slot of a view that PyTorch will not let into a graph any more.

    A view made under ``no_grad`` (or one of several views a function returns,
    ``split``) whose memory was changed in place, its base requiring grad: PyTorch
    cannot tell which graph the view should now have, so it refuses to use the
    view in a recorded operation, with ``message``. The view gets this object as
    its ``_node`` (``inplace.py``); a record names its parent as ``x._node or
    ...`` (``record.py``), and that truth test is the refusal, so a recorded
    operation on the view raises and nothing else pays for the check. Under
    ``no_grad``, or through ``detach()``, the view's numbers are still there.
    """

    __slots__ = ("message",)
    parents: tuple = ()
    label = ""
    segment = None
    requires_grad = True

    class prim:  # what a tensor's repr reads (PyTorch prints grad_fn=<Invalid>)
        name = "Invalid"

    def __init__(self, message: str) -> None:
        self.message = message

    def __bool__(self) -> bool:
        raise RuntimeError(self.message)

    def retain(self, tensor: Any) -> None:
        """``retain_grad()``: accepted, as by PyTorch (no gradient can reach the view)."""


def view_of(t: Any) -> tuple | None:
    """``(base, primitive, params)`` if ``t`` is a known view, else None."""
    return getattr(t, "_view", None)


def views_from(t: Any) -> list:
    """The live known views of ``t``."""
    refs = getattr(t, "_views", None)
    return [v for v in (r() for r in refs) if v is not None] if refs else []


class Box(StandIn):
    """A stand-in that holds a tensor, ``physical``, in place of an array.

    vmap's batches are boxes (lesson 14): the physical tensor holds every
    example, with the batch on axis 0. The core treats a box's data as a
    tensor (adds it with tensor operations, writes into it in place through
    ``write``) without knowing what the box means.
    """

    __slots__ = ()
    #: Every kind of box: ``type(data) in Box.kinds`` is the hot paths' test (a set
    #: lookup costs less than ``isinstance``).
    kinds: ClassVar[set[type]] = set()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Box.kinds.add(cls)

    def write(self, x: Any, new: Any) -> None:
        """Write ``new`` into the tensor ``x`` that holds this box, in place."""
        raise NotImplementedError(type(self).__name__)


def every_value(x: Any) -> np.ndarray:
    """All the values ``x`` holds, as a NumPy array; inside vmap, every example's.

    For checks of values ("labels in range"), whose verdict is one for the
    whole batch, never for math: the array has the batch axes in front.
    """
    data = x.data
    while isinstance(data, Box):
        data = data.physical.data
    return backends.for_device(x.device).to_numpy(data)


class Size(int):
    """A tensor's element count that, called, answers PyTorch's ``size()``.

    >>> import minigrad as mg
    >>> x = mg.zeros(2, 3)
    >>> x.size, x.size(), x.size(-1), x.numel()
    (6, (2, 3), 3, 6)
    """

    def __new__(cls, shape: tuple[int, ...]) -> Size:
        count = super().__new__(cls, math.prod(shape))
        count.shape = tuple(shape)
        return count

    def __call__(self, dim: Any = None) -> Any:
        if dim is None:
            return self.shape
        if not dtypes.is_integer(dim):
            raise TypeError(
                f"size(): argument 'dim' (position 1) must be int, not {dtypes.type_name(dim)}"
            )
        ndim = len(self.shape)
        low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
        if not low <= dim <= high:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[{low}, {high}], but got {dim})"
            )
        return self.shape[dim] if ndim else 1

    def __reduce__(self) -> tuple:  # pickles as the plain count it is
        return (int, (int(self),))


_NUMPY_OF_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)


class TensorBase:
    """The state of a tensor; ``Tensor`` adds the operations."""

    __slots__ = (
        "__weakref__", "_label", "_node", "_tangents", "_view", "_views", "data", "device",
        "grad", "requires_grad",
    )  # fmt: skip
    #: The class operations return when no input tells them (``Tensor``).
    concrete: ClassVar[type]
    #: The values the rules of a lean reverse pass get (``lean.Raw``); None until it is defined.
    _raw: ClassVar[type | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if TensorBase in cls.__bases__:  # Tensor itself; not a subclass of it (nn.Parameter)
            TensorBase.concrete = cls

    def __init__(
        self,
        data: Any,
        dtype: Any = None,
        requires_grad: bool = False,
        device: str = "cpu",
        label: str = "",
    ) -> None:
        self.data = as_raw(data, dtype, device)
        self.device = device
        self.grad = None
        self._node = None
        self._tangents = None
        self._label = label
        self._view = self._views = None
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    def __getstate__(self) -> tuple:
        """What pickle and deepcopy keep: every field but the view bookkeeping (which
        names objects of this process: a copy owns its memory)."""
        state = {}
        for kind in type(self).__mro__:
            for name in getattr(kind, "__slots__", ()):
                if name not in ("__weakref__", "_view", "_views") and hasattr(self, name):
                    state[name] = getattr(self, name)
        return (None, state)

    @classmethod
    def _wrap(cls, data: Any, device: str, requires_grad: bool = False) -> Any:
        """A tensor around a backend array, without copying or checking (internal)."""
        t = object.__new__(cls)
        t.data = data
        t.device = device
        t.requires_grad = requires_grad
        t.grad = None
        t._node = None
        t._tangents = None
        t._label = ""
        t._view = t._views = None  # (set, not left missing: reading a missing slot is slow)
        return t

    # -- what a tensor is ---------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return len(self.data.shape)

    @property
    def size(self) -> Size:
        """The number of elements, an int that is also PyTorch's ``size()`` method.

        ``x.size`` is NumPy's count (``x.size == 6``); ``x.size()`` is the shape
        and ``x.size(d)`` the length of axis ``d``, as in PyTorch.
        """
        return Size(self.data.shape)

    def numel(self) -> int:
        """The number of elements (PyTorch's name)."""
        return math.prod(self.data.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def _version(self) -> int:
        """How many times this tensor's memory was changed in place (as PyTorch's)."""
        return version_of(self.data)

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    @property
    def grad_fn(self) -> Any:
        """The ``OpRecord`` of the operation that made this tensor (``None`` for a leaf)."""
        return self._node

    # -- the node protocol of minigrad.graph: what draw and the graph walk read.
    # A non-leaf tensor stands for its record, whose parents are records too
    # (or leaves, or the specs of constants): see minigrad.tensor.record.
    @property
    def _parents(self) -> tuple:
        return self._node.parents if self._node is not None else ()

    @property
    def _op(self) -> str:
        return self._node.prim.name if self._node is not None else ""

    @property
    def segment(self) -> str | None:
        """The checkpointed segment that made this tensor, if any (drawn as a box)."""
        return self._node.segment if self._node is not None else None

    @property
    def label(self) -> str:
        return self._node.label if self._node is not None else self._label

    @label.setter
    def label(self, text: str) -> None:
        if self._node is not None:
            self._node.label = text
        self._label = text

    # -- values -----------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The values as a NumPy array (copied to the host for CUDA tensors).

        A tensor that requires grad is refused while gradients are recorded, as in
        PyTorch: the array would be outside the graph, so write ``x.detach().numpy()``
        to say so (under ``mg.no_grad()`` it is allowed). ``force=True`` detaches
        (and, as PyTorch's, copies).

        >>> import minigrad as mg
        >>> w = mg.ones(2, requires_grad=True)
        >>> w.detach().numpy(), w.numpy(force=True)
        (array([1., 1.], dtype=float32), array([1., 1.], dtype=float32))
        """
        if self.requires_grad and current().grad_enabled:
            if not force:
                raise RuntimeError(_NUMPY_OF_GRAD)
            return np.array(self._numpy(), copy=True)
        return self._numpy()

    def _numpy(self) -> np.ndarray:
        """The values as a NumPy array, whether or not the tensor requires grad (internal)."""
        if isinstance(self.data, StandIn):  # traced (lesson 13) or batched (14): it says
            return self.data.to_numpy()
        return backends.for_device(self.device).to_numpy(self.data)

    def item(self) -> float | int | bool:
        if self.size != 1:
            raise RuntimeError(f"a Tensor with {self.size} elements cannot be converted to Scalar")
        return self._numpy().reshape(()).item()

    def tolist(self) -> Any:
        return self._numpy().tolist()

    # -- array protocols: NumPy, DLPack and format() read a tensor's numbers ----------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.asarray(x)``: the values as one NumPy array (a view of CPU memory).

        Refused for a tensor that requires grad while gradients are recorded, as
        ``numpy()`` and PyTorch's are: write ``np.asarray(x.detach())``.
        """
        if self.requires_grad and current().grad_enabled:
            raise RuntimeError(_NUMPY_OF_GRAD)
        array = self._numpy()
        if dtype is not None and array.dtype != dtype:
            return array.astype(dtype)
        return np.array(array, copy=True) if copy else array

    def __dlpack__(self, stream: Any = None, **options: Any) -> Any:
        """A DLPack capsule of this tensor's memory (``torch.from_dlpack(x)``, CPU only)."""
        if self.device != "cpu":
            raise BufferError(
                "minigrad exports only CPU memory through DLPack\n"
                f"this tensor is on {self.device!r}; call .cpu() first"
            )
        if self.requires_grad:
            raise BufferError(
                "Can't export tensors that require gradient, use tensor.detach()\n"
                "(the memory would be outside the graph)"
            )
        return self._numpy().__dlpack__(**({"stream": stream} if stream is not None else {}),
                                       **options)  # fmt: skip

    def __dlpack_device__(self) -> tuple[int, int]:
        """(device type, index) in DLPack's numbering: 1 is the CPU, 2 a CUDA GPU."""
        return (1, 0) if self.device == "cpu" else (2, 0)

    def __format__(self, spec: str) -> str:
        """``f"{x:.2f}"`` formats the number of a one-element 0-d tensor, as PyTorch."""
        if self.ndim == 0:
            return format(self.item(), spec)
        if not spec:
            return str(self)
        raise TypeError(
            "unsupported format string passed to Tensor.__format__\n"
            f"(a tensor of shape {self.shape} has no single number to format with "
            f"{spec!r}; format x.item() of a 0-d tensor, or x.tolist())"
        )

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __bool__(self) -> bool:
        if self.size != 1:
            if isinstance(self.data, StandIn):  # traced (lesson 13): no values either
                error = self.data.values_error(
                    "Boolean value of Tensor with more than one value is ambiguous (shape "
                    f"{self.shape}; use .any() or .all()), and bool() reads the values"
                )
                if error is not None:
                    raise error
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous\n"
                f"(shape {self.shape}); use .any() or .all()"
            )
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        """An integer (or bool) tensor of one element as a Python index, as PyTorch's:
        ``x[:n]``, ``range(n)``, ``[...][n]`` with ``n`` a tensor."""
        if self.size != 1 or self.dtype.kind not in "iub":
            raise TypeError(
                "only integer tensors of a single element can be converted to an index\n"
                f"(a {self.dtype.name} tensor of shape {self.shape}); use int(x.item()) for a "
                "float, or index with the tensor itself"
            )
        return int(self.item())

    # Tensors overload ==, so they must hash by identity (graph walks need it).
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        if isinstance(self.data, StandIn):  # inside vmap (lesson 14): the whole batch
            special = self.data.tensor_repr()
            if special is not None:
                return special
        values = self._numpy()
        if values.dtype.name == "bfloat16":  # NumPy prints it as no float: as float32 (exact)
            values = values.astype(dtypes.float32)
        body = np.array2string(
            values, separator=", ", prefix="tensor(", precision=4, suppress_small=True
        )
        extras = []
        if self.dtype not in (dtypes.float32, dtypes.int64, dtypes.bool_):
            extras.append(f"dtype={self.dtype.name}")
        if self.device != "cpu":
            extras.append(f"device='{self.device}'")
        if self._node is not None:
            extras.append(f"grad_fn=<{self._op}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return f"tensor({body}{''.join(', ' + e for e in extras)})"

    # -- autograd flags ----------------------------------------------------------
    def requires_grad_(self, requires_grad: bool = True) -> Any:
        """Start (or stop) recording operations on this leaf; returns ``self``."""
        if requires_grad and not dtypes.is_floating(self.dtype):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients\n"
                f"(this one is {self.dtype.name}; convert with .to(mg.float32))"
            )
        if not requires_grad and self._node is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables; "
                "use .detach() to get a tensor that does not require grad"
            )
        self.requires_grad = requires_grad
        if requires_grad and getattr(self, "_views", None) and view_of(self) is None:
            note_root(self)  # its views made under no_grad: refused after a change (inplace.py)
        return self

    def detach(self) -> Any:
        """The same values, cut off from the graph (and from forward-mode tangents)."""
        data = self.data
        if isinstance(data, StandIn):  # inside vmap: cut the batch's own graph too
            data = data.detached()
        return type(self)._wrap(data, self.device)

    def zero_grad(self) -> None:
        self.grad = None
