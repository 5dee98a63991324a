"""In-place operations, with PyTorch's semantics (lesson 06; issue 12).

``x += y``, ``x.add_(y)``, ``x.zero_()``, ``x[i] = v`` change the tensor ``x``
itself: afterwards the name ``x`` still refers to the same Python object. That
is the whole point of an optimizer step, ``with mg.no_grad(): p -= lr * p.grad``:
the model holds ``p``, so ``p`` must change, not a new tensor called ``p``.

Each in-place operation first computes its result out of place, with the
ordinary differentiable operations (``x + y``, ``where``, ``index_put``), checks
it, then makes ``x`` hold it. Which of two ways it takes depends on whether the
change must be differentiated:

1. **Not recorded** (inside ``no_grad``, or when nothing involved requires grad
   or carries a forward-mode tangent): the numbers are *written into x's own
   memory* (``np.copyto`` or NumPy slice assignment on the CPU, a device-to-device
   copy on the GPU) and the version of that memory goes up by one. Every tensor
   that shares the memory (a view such as ``x.T``, ``x[0]``, ``x.reshape(...)``,
   or ``x.detach()``) sees the new numbers and the new version, as in PyTorch.
2. **Recorded** (gradient mode on and ``x``, or an operand, requires grad; or
   tangents): the numbers are written into x's memory as well, and ``x`` gets
   the new result's record, whose parent is ``x``'s old record. This is
   PyTorch's "rebase of history": ``y = x * 2; y[1:] = 0`` makes ``y`` a tensor
   whose graph is ``index_put(mul(x, 2), 0)``, so ``y.sum().backward()`` gives
   ``x.grad = [2, 0, 0]``. A change *through a view* rebases the tensor it is a
   view of: ``y[1:].mul_(x[:2])`` makes ``y``'s graph ``index_put(y, y[1:] *
   x[:2])``, and every view of ``y`` (a basic slice, a reshape, a transpose)
   is given a graph read from ``y``'s new one, so views and base agree in their
   numbers and their gradients (``note_view`` in ``base.py``), on the CPU and
   on a GPU. A view made under ``no_grad`` may not be changed with grad mode
   on (PyTorch's error), nor may a broadcast view that repeats elements.

A leaf that requires grad cannot be changed in place while gradient mode is on
(PyTorch's error), nor through a view of it: the change would not be part of
any graph, so the gradient would be of a function that never ran. Change it
inside ``no_grad``.

**Versions.** A record that saves a value for backward notes that value's
version (``base.py``, ``record.py``). If the value is changed in place later,
its version no longer matches, and backward refuses with PyTorch's error
instead of differentiating with the wrong numbers. This covers saved inputs
(``y = a * b; a.add_(1)``), saved outputs (``y = x.exp(); y += 1``) and memory
shared with a view (``x @ w.T`` saves a view of ``w``; an optimizer step on
``w`` before ``backward()`` is caught).

The result keeps ``x``'s dtype and shape: ``x += y`` may cast (float64 into
float32) but not across kinds (a float result into an integer tensor is an
error, as in PyTorch), and ``y`` must broadcast to ``x``'s shape (an in-place
operation cannot make ``x`` bigger).

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> (p * p).sum().backward()
    >>> with mg.no_grad():
    ...     p -= 0.25 * p.grad
    >>> p, p._version
    (tensor([0.5, 1. ], requires_grad=True), 1)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import backends
from minigrad.backends.contract import StandIn, TracerError
from minigrad.backends.quiet import quietly
from minigrad.tensor import dtypes
from minigrad.tensor.base import (
    NO_GRAD_ROOTS,
    NO_GRAD_VIEW,
    Box,
    MultiOutputView,
    StaleView,
    buffer_of,
    set_version,
    version_of,
    view_of,
    views_from,
)
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.mode import current
from minigrad.tensor.ops import arithmetic
from minigrad.tensor.ops import elementwise as ew
from minigrad.tensor.ops import math as em
from minigrad.tensor.ops.broadcasting import BROADCAST_TO, stretch_to
from minigrad.tensor.ops.movement import (
    DIAGONAL,
    GETITEM,
    RESHAPE,
    _batch_axis_after,
    _moved_axis,
    astype,
    diagonal_positions,
    index_error,
    reshape,
    transpose,
)
from minigrad.tensor.primitive import Primitive, moved_to_front
from minigrad.tensor.record import apply, zeros_like

LEAF_MESSAGE = (
    "a leaf Variable that requires grad is being used in an in-place operation.\n"
    "(its change would not be recorded, so no gradient could account for it; to update a "
    "parameter, change it inside `with mg.no_grad():`)"
)

# PyTorch's names for dtypes in its casting error; where a bound is a Python number
# (``x.clamp_(0.5)``), PyTorch names the dtype changed in place as C++ does.
TORCH_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes
CPP_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
             "bool": "bool", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}  # fmt: skip


# -- x[index] = v as a primitive --------------------------------------------------------
def _index_put(backend: Any, x: Any, v: Any, index: Any) -> Any:
    """A copy of ``x`` with ``x[index] = v`` (``v`` already shaped like ``x[index]``).

    The backends have no kernel that writes into part of an array, so this one
    runs NumPy's slice assignment on the host: free on the CPU (``to_numpy`` is
    the array itself), a round trip on the GPU.
    """
    try:
        out = np.array(backend.to_numpy(x))  # a copy: arrays are never changed after made
        out[index] = backend.to_numpy(v)
    except TracerError:  # tracing (lesson 13): only the result's shape and dtype, x's
        return (x if isinstance(x, StandIn) else v).like(x.shape, x.dtype)
    return backend.from_numpy(out)


# ``index_put(x, v)`` is linear in the pair (x, v): the elements at ``index``
# come from v, the rest from x. Its transpose sends the cotangent of the
# untouched elements to x (zeros where v was written) and gathers the rest for v.
def _index_put_batched(xs: list, batched: list, index: Any) -> Tensor:
    """``x[index] = v`` in every example: ``x[:, index] = v`` with v's batch axis where
    NumPy puts it (see ``shape._getitem_batched``), lesson 14."""
    x, v = xs
    size = len(x) if batched[0] else len(v)
    x = moved_to_front(x, batched[0], size)
    index = index if isinstance(index, tuple) else (index,)
    if not batched[1]:  # the same values for every example
        region = np.broadcast_to(np.empty((), x.dtype), x.shape[1:])[index].shape
        v = v.broadcast_to((size, *region))
    v = _moved_axis(v, 0, _batch_axis_after(index))
    return apply(INDEX_PUT, (x, v), index=(slice(None), *index))


INDEX_PUT = Primitive(
    "index_put",
    _index_put,
    linear=(
        lambda g, x, v, index: apply(INDEX_PUT, (g, zeros_like(v)), index=index),
        lambda g, x, v, index: apply(GETITEM, (g,), index=index),
    ),
    batch=_index_put_batched,
)


def _host_index(index: Any) -> Any:
    """Tensors and lists inside an index -> NumPy arrays (``_index_put`` runs on the host)."""
    if isinstance(index, tuple):
        return tuple(_host_index(part) for part in index)
    if isinstance(index, Tensor):
        if index.dtype.kind == "f":
            raise IndexError(
                f"tensors used as indices must be long, int or bool tensors (got {index.dtype})"
            )
        return index._numpy()
    if isinstance(index, list):
        return np.asarray(index)
    return index


def _as_tensor(value: Any, like: Tensor) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return Tensor.concrete(value, dtype=like.dtype, device=like.device)


# -- the two ways of changing x --------------------------------------------------------
def _alias(x: Tensor) -> Tensor:
    """A second tensor object for ``x``'s present state: what the out-of-place result reads.

    Records made while computing the result save the alias, not ``x``, so they
    keep referring to the old numbers after ``x`` is re-pointed at the new ones.
    """
    old = type(x)._wrap(x.data, x.device, x.requires_grad)
    old._node, old._tangents = x._node, x._tangents
    return old


def _recorded(x: Tensor, operands: tuple) -> bool:
    """Whether the change must be part of a graph (reverse or forward mode)."""
    tensors = [t for t in (x, *operands) if isinstance(t, Tensor)]
    if any(t._tangents for t in tensors):
        return True
    return current().grad_enabled and any(t.requires_grad for t in tensors)


WIDER_MESSAGE = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
    "Tensor `other` in extra_args that has more elements than `self`. This happened "
    "due to `other` being vmapped over but `self` not being vmapped over in a vmap.\n"
    "Write x = x + y (a new tensor) instead of x += y, or batch x too"
)


def _write(x: Tensor, new: Any) -> None:
    """Copy the backend array ``new`` (x's shape and dtype) into x's own memory."""
    target = x.data
    if isinstance(target, Box):  # inside vmap (lesson 14): the batch writes itself
        target.write(x, new)
        return
    if isinstance(new, Box):  # a batch written into one tensor
        raise RuntimeError(WIDER_MESSAGE)
    if x.device == "cpu":
        if not target.flags.writeable:
            raise RuntimeError(_OVERLAP_MESSAGE.format(shape=x.shape))
        np.copyto(target, new)
        return
    # A CudaArray is a strided view of a flat device buffer: write the elements it
    # covers (one thread each), unless two of them are one memory location.
    if _overlaps(target):
        raise RuntimeError(_OVERLAP_MESSAGE.format(shape=x.shape))
    backends.for_device(x.device).write(target, new)


def _overlaps(data: Any) -> bool:
    """Whether two elements of backend array ``data`` are one memory location (a broadcast)."""
    if type(data) is np.ndarray:
        return not data.flags.writeable
    return any(s == 0 and n > 1 for n, s in zip(data.shape, getattr(data, "strides", ())))


def _copy(data: Any, device: str) -> Any:
    """A copy of backend array ``data`` in memory of its own."""
    if type(data) is np.ndarray:
        return np.array(data)
    backend = backends.for_device(device)
    out = backend.empty(data.shape, data.dtype)
    backend.write(out, data)
    return out


def _store(target: Any, new: Any, device: str) -> None:
    """Write backend array ``new`` into the memory ``target`` covers."""
    if type(target) is np.ndarray:
        np.copyto(target, new)
    else:
        backends.for_device(device).write(target, new)


_OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.\n"
    "(this tensor of shape {shape} is a broadcast view, or otherwise read-only)"
)


def _check_result(x: Tensor, new: Tensor, op: str, cast_check: bool,
                  names: dict = TORCH_NAMES) -> Tensor:  # fmt: skip
    """``new`` in x's dtype, or PyTorch's error if it would change x's shape or kind of dtype
    (``names``: how the error names x's dtype)."""
    if new.shape != x.shape:
        raise RuntimeError(
            f"output with shape {list(x.shape)} doesn't match the broadcast shape "
            f"{list(new.shape)}\n{op}: an in-place operation cannot change the shape of the "
            "tensor it writes to; write x = x op y to get the broadcast result"
        )
    if new.dtype != x.dtype:
        if cast_check and "biuf".index(dtypes.kind(new.dtype)) > "biuf".index(dtypes.kind(x.dtype)):
            raise RuntimeError(
                f"result type {TORCH_NAMES[new.dtype.name]} can't be cast to the desired "
                f"output type {names[x.dtype.name]}\n{op}: the result is {new.dtype.name} "
                f"but the tensor changed in place is {x.dtype.name}; convert it first, "
                f"e.g. x = x.to(mg.{new.dtype.name})"
            )
        new = astype(new, x.dtype)
    return new


def assign(x: Tensor, compute: Any, operands: tuple = (), op: str = "", *,
           cast_check: bool = True, write: Any = None,
           names: dict = TORCH_NAMES) -> Tensor:  # fmt: skip
    """Make ``x`` hold ``compute(old)``, where ``old`` is x before the change; returns ``x``.

    ``operands`` are the other values ``compute`` reads (to tell whether the
    change is recorded). ``write(array)``, if given, writes the change straight
    into a CPU array when nothing is recorded (``x[i] = v`` then touches only
    the elements at ``i``). ``names``: how a casting error names x's dtype.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: expected a Tensor, got {type(x).__name__}")
    state = current()
    if state.grad_enabled and x._node is None and x.requires_grad:
        raise RuntimeError(LEAF_MESSAGE)
    if state.tracing is not None and not isinstance(x.data, Box):
        # Traced (lesson 13): x is re-pointed at the result, a new value of the
        # graph; the tracer refuses what that would get wrong (an argument, a
        # captured tensor, a value with views).
        state.tracing.check_in_place(x, op)
        new = _check_result(x, compute(_alias(x)), op, cast_check, names)
        x.data, x._node, x._tangents = new.data, new._node, new._tangents
        x.requires_grad = new.requires_grad
        return x
    version = version_of(x.data) + 1
    recorded = _recorded(x, operands)
    if state.grad_enabled and view_of(x) is not None:
        _check_view_made_with_grad(x, recorded)
    if not recorded:
        if write is not None and x.device == "cpu" and not isinstance(x.data, Box):
            if not x.data.flags.writeable:
                raise RuntimeError(_OVERLAP_MESSAGE.format(shape=x.shape))
            write(x.data)
        else:
            new = _check_result(x, compute(_alias(x)), op, cast_check, names)
            _write(x, new.data)
        set_version(x.data, version)
        if view_of(x) is not None or getattr(x, "_views", None):  # (else no view to refuse)
            if not _stale_views_of(x) and NO_GRAD_ROOTS:
                _stale_sharing(x)  # a view of an alias (x.detach()[1:]): look by memory
        elif NO_GRAD_ROOTS and id(buffer_of(x.data)) in NO_GRAD_ROOTS:
            _stale_sharing(x)  # an alias that knows no views (x.detach()): look by memory
        return x
    if not isinstance(x.data, Box) and _overlaps(x.data):
        raise RuntimeError(_OVERLAP_MESSAGE.format(shape=x.shape))
    if _writes_through(x):
        _write_recorded(x, compute, op, cast_check, version, names)
        return x
    new = _check_result(x, compute(_alias(x)), op, cast_check, names)
    old_node = x._node
    x.data, x._node, x._tangents = new.data, new._node, new._tangents
    x.requires_grad = new.requires_grad
    set_version(x.data, version)
    if new._node is not None and new._node.saved_out is not None:
        new._node.versions = new._node._versions_now()  # saved just now, at this version
    _mark_stale_outputs(old_node, new._node, version)
    return x


# -- a recorded change written into memory that views share -------------------------------
VIEW_OF_LEAF_MESSAGE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation.\n"
    "(the leaf's change would not be recorded; change the leaf inside `with mg.no_grad():`, "
    "or change a clone of it)"
)


NO_GRAD_VIEW_MESSAGE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked)."
)


_MULTI_OUTPUT_MESSAGE = (
    " This view is the output of a function that returns multiple views. Such functions do "
    "not allow the output views to be modified inplace. You should replace the inplace "
    "operation by an out-of-place one."
)

# PyTorch's names for the view a message is about.
_VIEW_NAMES = {"getitem": "Slice", "reshape": "View", "transpose": "Permute",
               "broadcast_to": "Expand", "diagonal": "Diagonal"}  # fmt: skip


def _check_view_made_with_grad(x: Tensor, recorded: bool) -> None:
    """PyTorch's error for a change, with gradient mode on, through a view made under
    ``no_grad`` (or a view of one) of a tensor in a graph, or through one of several
    views a function returned: whether the change should reach the base's graph is
    unclear, so PyTorch forbids it."""
    message = _refusal(x, recorded)
    if message is not None:
        raise RuntimeError(message)


def _refusal(x: Tensor, recorded: bool) -> str | None:
    """The message of ``_check_view_made_with_grad`` for ``x``, or None if the change is allowed."""
    link, first, in_graph = view_of(x), True, recorded
    while link is not None:
        base, prim, params = link
        in_graph = in_graph or base.requires_grad
        if isinstance(params, MultiOutputView) and in_graph:
            name, i = params.origin
            if not first:
                name, i = _VIEW_NAMES.get(view_of(x)[1].name, "View"), 0
                if name == "Slice" and isinstance(view_of(x)[2]["index"], int):
                    name = "Select"
            start = (
                f"Output {i} of {name} is a view and is being modified inplace."
                if base.requires_grad or not recorded
                else NO_GRAD_VIEW_MESSAGE[:88]
            )
            return start + _MULTI_OUTPUT_MESSAGE
        if prim is NO_GRAD_VIEW:
            if not in_graph:
                return None
            if first:
                return NO_GRAD_VIEW_MESSAGE
            name = _VIEW_NAMES.get(view_of(x)[1].name, "View")
            if name == "Slice" and isinstance(view_of(x)[2]["index"], int):
                name = "Select"
            return (f"Output 0 of {name} is a view of a view which was created in "
                    + NO_GRAD_VIEW_MESSAGE[len("A view was created in "):])  # fmt: skip
        link, first = view_of(base), False
    return None


# -- views whose memory changed under them ------------------------------------------------
# PyTorch rebases an ordinary view onto its base's new graph when the base changes
# (``_refresh_views``). A view made under no_grad, or one of several a function
# returned, it cannot rebase: it refuses the view in any later recorded operation
# ("... its base or another view of its base has been modified inplace ..."). The
# refusal is set here, when the memory changes, so using a view costs nothing more.
def _marked(view: Tensor) -> bool:
    """Whether ``view`` is one PyTorch cannot rebase (made under no_grad, one of several
    outputs), or a view of one."""
    link = view_of(view)
    while link is not None:
        if link[1] is NO_GRAD_VIEW or isinstance(link[2], MultiOutputView):
            return True
        link = view_of(link[0])
    return False


def _stale(view: Tensor) -> None:
    """Refuse ``view`` and the views made of it in later recorded operations."""
    message = _refusal(view, True)
    if message is not None:
        view._node = StaleView(message.replace("is being modified", _INDIRECTLY, 1))
        view.requires_grad = True
    for inner in views_from(view):
        _stale(inner)


_INDIRECTLY = "its base or another view of its base has been modified"


def _stale_views_of(x: Tensor) -> bool:
    """After a change of x's memory that recorded nothing: refuse the marked views that
    share it, if the tensor they are views of requires grad (PyTorch's test at their next
    use in a graph). Returns whether it does."""
    root = x
    while view_of(root) is not None:
        root = view_of(root)[0]
    if root.requires_grad:
        _stale_marked(root)
    return root.requires_grad


def _stale_sharing(x: Tensor) -> None:
    """After a change through ``x``, which knows no views of its memory (``y.detach()``):
    refuse the no_grad views of the tensor that owns that memory, if it requires grad, as
    PyTorch does (its version counter is shared by every alias)."""
    buffer = buffer_of(x.data)
    ref = NO_GRAD_ROOTS.get(id(buffer))
    root = ref() if ref is not None else None
    if root is not None and buffer_of(root.data) is buffer and root.requires_grad:
        _stale_marked(root)


def _stale_marked(base: Tensor) -> None:
    for view in views_from(base):
        if _marked(view):
            _stale(view)
        else:
            _stale_marked(view)


def _writes_through(x: Tensor) -> bool:
    """Whether a recorded change of ``x`` goes into its memory (and so into its views).

    Into memory that is x's own, or that of the tensor x is a known view of
    (``base.note_view``), on the CPU and on a GPU. Otherwise (x's array is a view
    made inside some operation, which others may share) x is re-pointed at the
    new numbers instead.
    """
    data = x.data
    if type(data) is np.ndarray:
        owns = data.base is None
    elif hasattr(data, "buffer"):  # a CudaArray: its own when it covers its whole buffer
        owns = data.offset == 0 and data.contiguous and data.size == data.buffer.size
    else:
        return False
    return owns or view_of(x) is not None or bool(views_from(x))


def _place(prim: Any, params: dict, base: Tensor, view_value: Tensor) -> Tensor:
    """The base, with the elements that the view ``prim(base, **params)`` reads replaced."""
    if prim is GETITEM:
        return apply(INDEX_PUT, (base, view_value), index=params["index"])
    if prim is DIAGONAL:  # PyTorch's diagonal_scatter: the two axes last, the diagonal put
        d1, d2, shape = params["dim1"], params["dim2"], base.shape
        order = (*(d for d in range(base.ndim) if d not in (d1, d2)), d1, d2)
        index = (Ellipsis, *diagonal_positions(shape[d1], shape[d2], params["offset"]))
        placed = apply(INDEX_PUT, (transpose(base, order), view_value), index=index)
        return transpose(placed, tuple(int(a) for a in np.argsort(order)))
    if prim is RESHAPE or prim is BROADCAST_TO:  # the view covers the whole base, once
        return reshape(view_value, base.shape)
    inverse = tuple(int(a) for a in np.argsort(params["axes"]))  # TRANSPOSE
    return transpose(view_value, inverse)


def _write_recorded(x: Tensor, compute: Any, op: str, cast_check: bool, version: int,
                    names: dict = TORCH_NAMES) -> None:  # fmt: skip
    """A recorded change of ``x``, as PyTorch makes it: the new numbers go into x's
    memory, so every view of that memory sees them, and the graphs of x, of the
    tensor it is a view of (its *root*) and of the root's other views are rebased
    onto the change (PyTorch's CopySlices): root = place(root, new), view = view(root).
    """
    chain = [x]  # x, the tensor it is a view of, ..., the root
    while view_of(chain[-1]) is not None:
        chain.append(view_of(chain[-1])[0])
    root = chain[-1]
    if root is not x and root._node is None and root.requires_grad and current().grad_enabled:
        raise RuntimeError(VIEW_OF_LEAF_MESSAGE)
    # What the change reads is a copy of x's numbers: the records it makes may save
    # it, and x's memory is about to change.
    old = _alias(x)
    old.data = _copy(x.data, x.device)
    new = _check_result(x, compute(old), op, cast_check, names)
    value = new
    for view in chain[:-1]:  # rebuild each tensor of the chain around the new part
        base, prim, params = view_of(view)
        value = _place(prim, params, _alias(base), value)
    old_node = x._node
    _store(x.data, new.data, x.device)
    set_version(x.data, version)
    root._node, root._tangents, root.requires_grad = (
        value._node,
        value._tangents,
        value.requires_grad,
    )
    _refresh_views(root)
    if NO_GRAD_ROOTS:  # and the views of aliases that know none (x.detach()): by memory
        _stale_sharing(root)
    if x is root:
        if new._node is not None and new._node.saved_out is not None:
            new._node.versions = new._node._versions_now()
        x._node, x._tangents = new._node, new._tangents  # the very record (saved output)
    elif new._node is not None and new._node.saved_out is new.data:
        # The change's record saved its result (``y[1:].exp_()``), which now lives in the
        # root's memory: it is saved there, so that a later change through any view of that
        # memory (``y[:2].zero_()``) is caught at backward, as PyTorch's version check does.
        new._node.saved_out = x.data
        new._node.versions = new._node._versions_now()
    _mark_stale_outputs(old_node, x._node, version)


def _refresh_views(base: Tensor) -> None:
    """Give every live view of ``base`` (and their views) a graph made from base's new one;
    the views PyTorch cannot rebase are refused instead (``_stale``)."""
    for view in views_from(base):
        _, prim, params = view_of(view)
        if prim is NO_GRAD_VIEW or isinstance(params, MultiOutputView):
            _stale(view)
            continue
        again = apply(prim, (base,), **params)  # the same view, now of the changed base
        view._node, view._tangents, view.requires_grad = (again._node, again._tangents,
                                                          again.requires_grad)  # fmt: skip
        _refresh_views(view)


def _mark_stale_outputs(old_node: Any, new_node: Any, version: int) -> None:
    """Tell the records that saved x's earlier values as their output that x changed.

    As in PyTorch, such a record may no longer be differentiated. Those are the
    record that made x and, if x was changed in place before, the ones it
    already told (passed on from record to record, so a second ``+=`` updates them).
    """
    if old_node is None:
        return
    stale = [r for r in (old_node, *old_node.__dict__.get("stale_outputs", ()))
             if r.saved_out is not None]  # fmt: skip
    for r in stale:
        was = r.out_changed[0] if r.out_changed else (r.versions[-1] if r.versions else 0)
        r.out_changed = (was, version)
    if stale and new_node is not None:
        new_node.stale_outputs = tuple(stale)


# -- the operations ----------------------------------------------------------------------
def add_(x: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``x += alpha * other`` in place (PyTorch's ``Tensor.add_``); returns ``x``.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0])
    >>> x.add_(mg.tensor([1.0, 1.0]), alpha=10) is x, x
    (True, tensor([11., 12.]))
    """
    return assign(x, lambda old: ew.add(old, other, alpha=alpha), (other,), "add_",
                  write=_written("add", x, other, alpha))  # fmt: skip


def sub_(x: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``x -= alpha * other`` in place; returns ``x``."""
    return assign(x, lambda old: ew.sub(old, other, alpha=alpha), (other,), "sub_",
                  write=_written("sub", x, other, alpha))  # fmt: skip


def _written(op: str, x: Any, other: Any, alpha: Any) -> Any:
    """For ``add_``/``sub_`` of a float tensor of x's shape and dtype (an optimizer's step):
    how to write the sum straight into x's memory, or None (then computed, then copied).

    The same arithmetic as ``x op alpha * other`` (the product rounded to x's
    dtype first), without the new array that result would be: for a big
    parameter, a fresh array costs more than the sum itself.
    """
    if not (isinstance(other, Tensor) and isinstance(x, Tensor)):
        return None
    a, b = x.data, other.data
    if not (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype.kind == "f"):
        return None
    if b.dtype != a.dtype or b.shape != a.shape or type(alpha) not in (int, float):
        return None
    ufunc = np.add if op == "add" else np.subtract

    @quietly  # (silent at inf and NaN, as in apply)
    def write(target: np.ndarray) -> None:
        term = b if alpha == 1 else np.multiply(b, np.asarray(alpha, a.dtype))
        ufunc(target, term, out=target)

    return write


def mul_(x: Tensor, other: Any) -> Tensor:
    """``x *= other`` in place; returns ``x``."""
    return assign(x, lambda old: ew.mul(old, other), (other,), "mul_")


def div_(x: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """``x /= other`` in place; returns ``x``. True division (an integer ``x`` is an error)
    unless ``rounding_mode`` is ``"trunc"`` or ``"floor"`` (``mg.div``'s)."""
    if rounding_mode is None:
        return assign(x, lambda old: ew.div(old, other), (other,), "div_")
    return assign(x, lambda old: arithmetic.div(old, other, rounding_mode=rounding_mode),
                  (other,), "div_")  # fmt: skip


def pow_(x: Tensor, exponent: Any) -> Tensor:
    """``x **= exponent`` in place; returns ``x``."""
    return assign(x, lambda old: ew.power(old, exponent), (exponent,), "pow_")


def fill_(x: Tensor, value: Any) -> Tensor:
    """Set every element of ``x`` to ``value`` (a number or a 0-d tensor); returns ``x``.

    >>> import minigrad as mg
    >>> mg.ones(3).fill_(7)
    tensor([7., 7., 7.])
    """
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value.ndim} dimensions.\nfill_: to write a whole tensor use x.copy_(src)"
        )
    return assign(x, lambda old: ew.where(True, value, old), (value,), "fill_", cast_check=False)


def zero_(x: Tensor) -> Tensor:
    """Set every element of ``x`` to 0; returns ``x``."""
    return fill_(x, 0)


def copy_(x: Tensor, src: Any) -> Tensor:
    """Copy ``src`` (broadcast to x's shape, cast to x's dtype) into ``x``; returns ``x``.

    Differentiable in ``src``, as PyTorch's; ``x``'s old values get gradient 0.

    >>> import minigrad as mg
    >>> mg.zeros(2, 2).copy_(mg.tensor([1.0, 2.0]))
    tensor([[1., 2.],
            [1., 2.]])
    """
    src = _as_tensor(src, x)
    if src.device != x.device:
        src = src.to(x.device)
    return assign(x, lambda old: ew.where(True, src, old), (src,), "copy_", cast_check=False)


def clamp_(x: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Limit ``x`` to ``[min, max]`` in place (either bound may be None); returns ``x``.

    The gradient passes where ``min <= x <= max`` (bounds included), as PyTorch's.

    >>> import minigrad as mg
    >>> mg.tensor([-2.0, 0.5, 3.0]).clamp_(min=0, max=1)
    tensor([0. , 0.5, 1. ])
    """
    if min is None and max is None:
        raise RuntimeError(
            "torch.clamp: At least one of 'min' or 'max' must not be None\n"
            "clamp_: give a lower bound, an upper bound, or both"
        )
    numbers = any(b is not None and not isinstance(b, Tensor) for b in (min, max))
    return assign(x, lambda old: em.clamp(old, min, max), (min, max), "clamp_",
                  names=CPP_NAMES if numbers else TORCH_NAMES)  # fmt: skip


def setitem(x: Tensor, index: Any, value: Any) -> None:
    """``x[index] = value``: basic or advanced ``index``, ``value`` broadcast to ``x[index]``.

    Recorded on non-leaves: the gradient of ``x`` is zero where ``value`` was
    written, and ``value`` gets the gradient of the elements it became. (If an
    advanced index names one element twice, the last write wins in the forward
    pass, but each write gets its gradient: PyTorch leaves that case undefined.)

    >>> import minigrad as mg
    >>> x = mg.zeros(4)
    >>> x[mg.tensor([0, 2])] = mg.tensor([1.0, 3.0])
    >>> x
    tensor([1., 0., 3., 0.])
    """
    index = _host_index(index)
    try:
        target = np.broadcast_to(np.empty((), bool), x.shape)[index].shape
    except IndexError as error:
        raise index_error(error, x.shape, index) from None
    value = _as_tensor(value, x)
    if value.device != x.device:
        value = value.to(x.device)
    if value.dtype != x.dtype:
        value = astype(value, x.dtype)  # x[i] = v casts v to x's dtype, as PyTorch
    try:
        np.broadcast_shapes(value.shape, target)
        if np.broadcast_shapes(value.shape, target) != target:
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(value.shape)} cannot be broadcast to "
            f"indexing result of shape {list(target)}"
        ) from None

    def put(old: Tensor) -> Tensor:
        v = value if value.shape == target else stretch_to(value, target)
        return apply(INDEX_PUT, (old, v), index=index)

    def write(array: np.ndarray) -> None:
        array[index] = value._numpy()

    assign(x, put, (value,), "__setitem__", cast_check=False, write=write)
