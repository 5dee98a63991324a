"""Recording operations: ``apply``, the one door, and the ``OpRecord`` it leaves (lessons 04-07).

Every operation runs through ``apply(prim, inputs, **params)``. When no
transform is open (the eager base), it calls the primitive's kernel, and if
reverse mode may need it (gradient mode on, an input requires grad) it leaves
an ``OpRecord`` on the result: which primitive ran, with which parameters,
and what its derivative rules will read (the row's ``saves``).

When transforms are open (``mg.jvp``, ``mg.vmap``, ``mg.jit``: lessons 07,
13, 14), ``apply`` is a *bind*: it hands the operation to the innermost
level that claims its inputs, which binds again below itself
(``minigrad.tensor.mode``, "the stack of interpreters").

**What a record keeps.** A record points at its *parents' records* (or, for a
leaf, at the leaf tensor), never at the parents' values. Values are kept only
when the row's ``saves`` names them: ``tanh`` keeps its output, ``mul`` both
inputs, ``add`` nothing at all. This is why an activation that no rule reads
is freed as soon as the program drops it, as in PyTorch (lesson 09 measures it).
A saved *output* is kept as its raw array, not as the tensor, so that the
tensor -> record -> tensor cycle never forms and reference counting frees
graphs; backward wraps the array again, attached to the record, so the rule
sees a tensor that is still part of the graph (higher-order gradients need it).

Records follow the node protocol of ``minigrad.graph``: ``_parents``, ``_op``,
``label``, plus the output's ``shape``, ``dtype`` and ``device``. So a record
also stands in, inside the rules, for an input that was not saved: rules may
ask it for shapes, not for values.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from minigrad import backends
from minigrad.tensor.base import VERSIONS, TensorBase, version_of
from minigrad.tensor.mode import _get_state, claiming, current
from minigrad.tensor.primitive import Primitive, TensorSpec

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed). Saved intermediate values of the graph "
    "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
    "you need to backward through the graph a second time or if you need to access saved "
    "tensors after calling backward."
)


# How many records have been made: a clock. A record with ``serial >= t`` was
# made after time ``t``; checkpoint (lesson 09) reads it to tell what a function
# just recorded from the older graph it closed over. (A list, not a class
# attribute: changing a class attribute on every operation would empty
# Python's cache of the class's attributes each time.)
_made = [0]


def records_made() -> int:
    """How many operations have been recorded so far (in this process)."""
    return _made[0]


class OpRecord:
    """How a non-leaf tensor was made: ``prim(*inputs, **params)``, and what backward needs."""

    # Set on every record; the rarely set fields below live in ``__dict__``
    # with class defaults, so recording an operation does not pay for them.
    __slots__ = (
        "__dict__", "__weakref__", "device", "dtype", "params", "parents", "prim", "saved",
        "saved_out", "serial", "shape",
    )  # fmt: skip
    requires_grad = True  # a record exists only on the way to something that requires grad
    is_leaf = False
    freed = False  # set by free()
    retained = None  # a weak reference to the tensor that wants .grad (retain_grad)
    hooks = None  # functions that see and may replace the cotangent first (register_hook)
    out_tangents = None  # the output's forward-mode tangents, if it had any
    label = ""  # a human name, shown by draw
    segment = None  # the checkpointed segment that made it (lesson 09), shown by draw
    outside_inputs: tuple = ()  # inputs made before a checkpoint began (mode.keep_inputs)
    versions = None  # the saved values' versions, if any buffer was ever changed in place
    out_changed = None  # (was, now): the output was changed in place on a non-leaf

    def __init__(self, prim: Primitive, inputs: tuple, params: dict, out_data: Any,
                 device: str, outside_since: int | None = None) -> None:  # fmt: skip
        # A parent is the input's own record, the input itself if it is a leaf
        # that requires grad, or (a constant) only its description. (The truth test
        # of ``x._node`` is where a view refused in graphs raises: base.StaleView.)
        if len(inputs) == 2:  # (most operations: spelled out, no list made)
            x, y = inputs
            parents = (
                x._node or (x if x.requires_grad else _spec(x)),
                y._node or (y if y.requires_grad else _spec(y)),
            )
        else:
            parents = tuple([x._node or (x if x.requires_grad else _spec(x)) for x in inputs])
        self.parents = parents
        keep = prim.saved_inputs
        if keep is None or len(keep) == len(inputs):
            self.saved = inputs
        elif keep:
            self.saved = tuple(
                [x if i in keep else p for i, (x, p) in enumerate(zip(inputs, parents))]
            )
        else:
            self.saved = None  # the parents (records, leaves, specs) describe the inputs
        self.saved_out = out_data if prim.saves_output else None
        if VERSIONS and (self.saved is not None or self.saved_out is not None):
            self.versions = self._versions_now()  # else all are 0 (nothing changed yet)
        self.prim = prim
        self.params = params
        self.shape = out_data.shape
        self.dtype = out_data.dtype
        self.device = device
        self.serial = _made[0]
        _made[0] += 1
        if outside_since is not None:  # inside mode.keep_inputs (checkpoint)
            self.outside_inputs = tuple(
                x for x in inputs
                if x.requires_grad and (x._node is None or x._node.serial < outside_since)
            )  # fmt: skip

    # -- the node protocol ----------------------------------------------------
    @property
    def _parents(self) -> tuple:
        return self.parents

    @property
    def _op(self) -> str:
        return self.prim.name

    @property
    def ndim(self) -> int:
        return len(self.shape)

    # -- what backward reads ---------------------------------------------------
    def unpack(self, like: type) -> tuple[Any, tuple]:
        """``(out, inputs)`` for the rules: saved tensors where saved, else descriptions."""
        if self.freed:
            raise RuntimeError(FREED_MESSAGE)
        if VERSIONS or self.out_changed:
            self._check_versions()
        out: Any = self
        if self.saved_out is not None:
            out = like._wrap(self.saved_out, self.device, requires_grad=True)
            out._node = self
            out._tangents = self.out_tangents  # forward over reverse differentiates it too
        return out, (self.saved if self.saved is not None else self.parents)

    # -- in-place changes (minigrad.tensor.ops.inplace) -----------------------------
    def _versions_now(self) -> tuple:
        """The version of each saved input (None where not saved), then of the saved output."""
        saved = self.saved or ()
        inputs = [version_of(x.data) if isinstance(x, TensorBase) else None for x in saved]
        out = version_of(self.saved_out) if self.saved_out is not None else None
        return (*inputs, out)

    def _check_versions(self) -> None:
        """Refuse to differentiate with a saved value that was changed in place since."""
        n = len(self.saved or ())
        expected = self.versions or (0,) * (n + 1)  # none saved: all were 0 then
        now = self._versions_now()
        if self.out_changed is not None and self.saved_out is not None:
            expected, now = (*expected[:n], self.out_changed[0]), (*now[:n], self.out_changed[1])
        for i, (was, is_) in enumerate(zip(expected, now)):
            if is_ is not None and is_ != was:
                data = self.saved[i].data if i < n else self.saved_out
                role = f"input {i}" if i < n else "output 0"
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: [{data.dtype.name} tensor of shape {tuple(data.shape)}"
                    f"], which is {role} of {self.prim.name}, is at version {is_}; expected "
                    f"version {was} instead.\nHint: {self.prim.name} saved this value for "
                    "backward, and an in-place operation (+=, add_, x[i] = ..., an optimizer "
                    "step) changed it afterwards. Change a copy instead (x = x + 1, or "
                    "x.clone()), or make the in-place change before the value is used."
                )

    def retain(self, tensor: TensorBase) -> None:
        """Give ``tensor`` (made by this record) its ``.grad`` after backward."""
        self.retained = weakref.ref(tensor)

    def free(self) -> None:
        """Drop the saved values: what ``retain_graph=False`` does after a rule has run."""
        self.saved = ()
        self.saved_out = None
        self.out_tangents = None
        self.params = {}
        self.parents = ()
        self.freed = True

    def __repr__(self) -> str:
        return f"<{self.prim.name} record, shape {self.shape}>"


def _spec(x: TensorBase) -> TensorSpec:
    spec = TensorSpec(x.data.shape, x.data.dtype, x.device)
    if x._label:  # a constant keeps its name in the graph (draw shows it)
        spec.label = x._label
    return spec


def _check_devices(inputs: Sequence[TensorBase]) -> None:
    device = inputs[0].device
    for t in inputs:
        if t.device != device:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {device} and {t.device}! Move one with .to({device!r}) or "
                f".to({t.device!r})."
            )


def apply(prim: Primitive, inputs: tuple, **params: Any) -> Any:
    """Run primitive ``prim`` on tensors ``inputs``: the one door of every operation.

    A *bind* (``mode.py``): if a transform is open and claims the inputs
    (they carry its tangents, its batch...), that level processes the
    operation, and it binds again for the levels below it. Otherwise this is
    the base: call the kernel and record the eager tape.
    """
    # (Written for speed: one and two inputs, nearly every operation, take
    # the short paths; the general path does the same for any number.)
    state = _get_state(None) or current()
    if state.stack:
        level = claiming(state, inputs, params)
        if level is not None:
            return level.process(prim, inputs, params)
    if prim.multiple_results:  # control flow (lesson 16): several results, its own base
        return prim.base(inputs, params)
    if len(inputs) == 2:
        x, y = inputs
        device = x.device
        if y.device != device:
            _check_devices(inputs)
        data = prim.forward(backends.for_device(device), x.data, y.data, **params)
        wants_grad = x.requires_grad or y.requires_grad
    elif len(inputs) == 1:
        x = inputs[0]
        device = x.device
        data = prim.forward(backends.for_device(device), x.data, **params)
        wants_grad = x.requires_grad
    else:
        _check_devices(inputs)
        x = inputs[0]
        device = x.device
        data = prim.forward(backends.for_device(device), *[t.data for t in inputs], **params)
        wants_grad = any([t.requires_grad for t in inputs])
    if "device" in params:
        device = params["device"]
    out = type(x)._wrap(data, device)
    if wants_grad and state.grad_enabled and prim.differentiable:
        out.requires_grad = True
        out._node = OpRecord(prim, inputs, params, data, device, state.keep_inputs)
    return out


def record(prim: Primitive, inputs: tuple, params: dict, out: Any) -> None:
    """Leave the eager tape's record of ``prim(*inputs)`` on ``out``, if reverse mode may need it.

    For an interpreter whose result was not made by the base (batching keeps
    a record of the logical operation too, lesson 14).
    """
    state = current()
    if state.grad_enabled and prim.differentiable and any([t.requires_grad for t in inputs]):
        out.requires_grad = True
        out._node = OpRecord(prim, inputs, params, out.data, out.device, state.keep_inputs)


def full_like(x: Any, value: float) -> Any:
    """A constant tensor shaped like ``x`` (a tensor or a description of one)."""
    backend = backends.for_device(x.device)
    return TensorBase.concrete._wrap(backend.full(tuple(x.shape), value, x.dtype), x.device)


def zeros_like(x: Any) -> Any:
    """A zero tangent for ``x``."""
    return full_like(x, 0)
