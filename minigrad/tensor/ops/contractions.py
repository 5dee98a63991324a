"""Contractions: ``einsum`` and the products it names (lesson 06).

``einsum("ij,jk->ik", a, b)`` says which axes meet: a subscript in both
operands and not in the output is summed over (contracted), one in both and
in the output is a batch axis, one in a single operand is carried along.
Every contraction is then one ``matmul``: move the batch axes to the front,
the carried ones next and the contracted ones last, flatten each group, and
multiply. A repeated subscript in one operand (``"ii->i"``) reads a diagonal.

So ``einsum`` is a composition of rows the table already has (``transpose``,
``reshape``, ``diagonal``, ``sum``, ``matmul``), not a row of its own: its
derivative is the chain rule through them, which makes the transpose of an
einsum an einsum again (``d/da einsum("ij,jk->ik")`` is ``"ik,jk->ij"``: a
matmul with ``b`` transposed), forward mode and higher order come for free,
and vmap, jit and the CUDA backend need nothing new. PyTorch computes its
einsum the same way, by ``bmm``.

``tensordot``, ``outer``, ``diag``, ``diagonal``, ``trace``, ``tril`` and
``triu`` are written out directly: each is a line or two of the same rows.
``diagonal`` is the ``diagonal`` row (``movement.py``): a view, as in PyTorch, so
``x.diagonal().zero_()`` changes ``x``; ``diag`` of a matrix is a copy, as PyTorch's.
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.base import note_view
from minigrad.tensor.composite import composite
from minigrad.tensor.mode import current
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.elementwise import tensor_arguments, where
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.movement import (
    DIAGONAL,
    SCATTER_ADD,
    diagonal_positions,
    reshape,
    transpose,
)
from minigrad.tensor.ops.rearrange import clone
from minigrad.tensor.ops.reductions import SUM, normalize_axes
from minigrad.tensor.ops.reductions import sum as reduction_sum
from minigrad.tensor.record import apply


def _tensors(xs: Any) -> list[Tensor]:
    """Tensors of one dtype (PyTorch's promotion) from tensors, arrays or numbers."""
    xs = [x if isinstance(x, Tensor) else Tensor.concrete(x) for x in xs]
    common = dtypes.result_dtype([x.dtype for x in xs], [])
    return [x if x.dtype == common else x.to(common) for x in xs]


# -- einsum -------------------------------------------------------------------------
def _index(equation: str, k: int) -> int:
    """Where the ``k``-th character that is not a space sits in ``equation``."""
    return [i for i, c in enumerate(equation) if c != " "][k]


def _parse_term(term: str, equation: str, start: int, operand: int | None = None) -> list[str]:
    """``"i...j"`` -> ``["i", "...", "j"]``, rejecting anything but letters and one ``...``
    (``operand`` numbers an input term; None is the output), with PyTorch's RuntimeErrors.
    ``start`` is where the term begins in the equation without its spaces."""
    where_ = "output" if operand is None else f"operand {operand}"
    labels, i = [], 0
    while i < len(term):
        if term.startswith("...", i) and "..." not in labels:
            labels.append("...")
            i += 3
        elif term[i] == ".":
            if "..." in labels and term.startswith("...", i):
                how = ("but an ellipsis (...) was already found" if operand is None
                       else "for which an ellipsis was already found")  # fmt: skip
            else:
                how = ("that is not part of any ellipsis (...)" if operand is None
                       else "that is not part of any ellipsis")  # fmt: skip
            raise RuntimeError(
                f"einsum(): found '.' for {where_} {how}\n"
                f"equation {equation!r}: one '...' per operand, and no '.' outside it"
            )
        elif term[i].isascii() and term[i].isalpha():
            labels.append(term[i])
            i += 1
        else:
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {_index(equation, start + i)} in the "
                f"equation string, subscripts must be in [a-zA-Z]\nequation {equation!r}: "
                f"{term[i]!r} is not a letter (or part of '...')"
            )
    return labels


def _subscripts(equation: str, xs: list[Tensor]) -> tuple[list[list[Any]], list[Any]]:
    """Each operand's subscripts and the output's; the axes of ``...`` become 0, 1, 2..."""
    text = equation.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(xs):
        more = "more" if len(xs) > len(terms) else "fewer"
        raise RuntimeError(
            f"einsum(): {more} operands were provided than specified in the equation\n"
            f"equation {equation!r} names {len(terms)} operand(s), got {len(xs)}"
        )
    starts = [sum(len(t) + 1 for t in terms[:i]) for i in range(len(terms))]
    parsed = [_parse_term(t, equation, starts[i], i) for i, t in enumerate(terms)]
    widths = []
    for i, (labels, x) in enumerate(zip(parsed, xs)):
        letters = len([s for s in labels if s != "..."])
        if "..." not in labels and letters != x.ndim:
            raise ShapeError(
                f"einsum(): the number of subscripts in the equation ({letters}) does not match "
                f"the number of dimensions ({x.ndim}) for operand {i} and no ellipsis was given"
                f"\nequation {equation!r}, operand {i} has shape {x.shape}"
            )
        if letters > x.ndim:
            raise ShapeError(
                f"einsum(): the number of subscripts in the equation ({letters}) is more than "
                f"the number of dimensions ({x.ndim}) for operand {i}\n"
                f"equation {equation!r}, operand {i} has shape {x.shape}"
            )
        widths.append(x.ndim - letters)
    extra = max(widths, default=0)  # the broadcast ellipsis has this many axes
    operands = []
    for labels, width in zip(parsed, widths):
        at = labels.index("...") if "..." in labels else len(labels)
        dots = list(range(extra - width, extra)) if "..." in labels else []
        operands.append([*labels[:at], *dots, *labels[at + 1 :]])
    if arrow:
        output = _parse_term(rhs, equation, len(lhs) + 2)
        inputs = {s for labels in parsed for s in labels}
        for s in output:
            if s != "..." and s not in inputs:
                raise RuntimeError(
                    f"einsum(): output subscript {s} does not appear in the equation for any "
                    f"input operand\nequation {equation!r}"
                )
            if output.count(s) > 1:
                raise RuntimeError(
                    f"einsum(): output subscript {s} appears more than once in the output\n"
                    f"equation {equation!r}"
                )
        at = output.index("...") if "..." in output else len(output)
        output = [*output[:at], *(range(extra) if "..." in output else []), *output[at + 1 :]]
    else:  # implicit: the ellipsis, then every letter used once, in alphabetical order
        letters = [s for labels in parsed for s in labels if s != "..."]
        output = [*range(extra), *sorted(s for s in set(letters) if letters.count(s) == 1)]
    return operands, output


def _sizes(operands: list[list[Any]], xs: list[Tensor], equation: str) -> dict[Any, int]:
    """Each subscript's size; sizes of one subscript agree or are 1 (which broadcasts)."""
    sizes: dict[Any, int] = {}
    seen: dict[Any, tuple[int, int]] = {}
    for i, (labels, x) in enumerate(zip(operands, xs)):
        mine: dict[Any, int] = {}
        for label, n in zip(labels, x.shape):
            if label in mine and mine[label] != n:
                raise ShapeError(
                    f"einsum(): subscript {label} is repeated for operand {i} but the sizes "
                    f"don't match, {n} != {mine[label]}\nequation {equation!r}, shape {x.shape}"
                )
            mine[label] = n
            if label in sizes and n != sizes[label] and 1 not in (n, sizes[label]):
                _, m = seen[label]
                name = "..." if isinstance(label, int) else label
                raise ShapeError(
                    f"einsum(): subscript {name} has size {n} for operand {i} which does not "
                    f"broadcast with previously seen size {m}\nequation {equation!r}, shapes "
                    f"{[t.shape for t in xs]}; sizes of one subscript must agree (or be 1)"
                )
            if label not in sizes or sizes[label] == 1:
                sizes[label], seen[label] = n, (i, n)
    return sizes


def _permute(x: Tensor, labels: list[Any], order: list[Any]) -> Tensor:
    return transpose(x, tuple(labels.index(s) for s in order))


def _sum_out(x: Tensor, labels: list[Any], gone: list[Any]) -> tuple[Tensor, list[Any]]:
    if not gone:
        return x, labels
    axes = tuple(sorted(labels.index(s) for s in gone))
    return apply(SUM, (x,), axes=axes, keepdims=False), [s for s in labels if s not in gone]


def _prepare(x: Tensor, labels: list[Any], sizes: dict[Any, int]) -> tuple[Tensor, list[Any]]:
    """Read repeated subscripts' diagonals; drop size-1 axes that broadcast against others."""
    for label in labels:
        while labels.count(label) > 1:
            first = labels.index(label)
            second = labels.index(label, first + 1)
            x = _diagonal(x, 0, first, second)  # the diagonal becomes the last axis
            labels = [s for k, s in enumerate(labels) if k not in (first, second)] + [label]
    keep = [k for k, s in enumerate(labels) if x.shape[k] == sizes[s]]
    return reshape(x, tuple(x.shape[k] for k in keep)), [labels[k] for k in keep]


def _contract(x, xl, y, yl, keep, sizes):
    """One pair of operands: a matmul over the summed subscripts (or a product if none)."""
    batch = [s for s in xl if s in yl and s in keep]
    summed = [s for s in xl if s in yl and s not in keep]
    left = [s for s in xl if s not in yl]
    right = [s for s in yl if s not in xl]
    n = [sizes[s] for s in batch]
    if not summed:  # an outer product per batch element: broadcasting, elementwise
        x = reshape(_permute(x, xl, batch + left), (*n, *(sizes[s] for s in left),
                                                    *(1 for _ in right)))  # fmt: skip
        y = reshape(_permute(y, yl, batch + right), (*n, *(1 for _ in left),
                                                     *(sizes[s] for s in right)))  # fmt: skip
        return x * y, batch + left + right
    count = [math.prod(sizes[s] for s in group) for group in (left, summed, right)]
    x = reshape(_permute(x, xl, batch + left + summed), (*n, count[0], count[1]))
    y = reshape(_permute(y, yl, batch + summed + right), (*n, count[1], count[2]))
    out = reshape(matmul(x, y), (*n, *(sizes[s] for s in left + right)))
    return out, batch + left + right


_NO_OPERANDS = (
    "einsum(): must specify the equation string and at least one operand, or at least one "
    "operand and its subscripts list\n"
    'einsum: e.g. mg.einsum("ij,jk->ik", a, b) or mg.einsum(a, [0, 1], b, [1, 2])'
)


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``.

    Implicit output (``"ij,jk"``: the subscripts used once, alphabetically),
    repeated subscripts (``"ii->i"`` a diagonal, ``"ii"`` the trace), ``...``
    for broadcast leading axes; operands may also come as one list, or in PyTorch's sublist
    form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (subscripts 0-51, ``...`` as Ellipsis).

    >>> import minigrad as mg
    >>> a, b = mg.ones((2, 3)), mg.ones((3, 4))
    >>> mg.einsum("ij,jk->ik", a, b).shape, mg.einsum("ii", mg.eye(3)).item()
    ((2, 4), 3.0)
    """
    if isinstance(equation, Tensor) and not operands:
        operands = ()  # one tensor alone: no subscripts (PyTorch's ValueError below)
    elif isinstance(equation, Tensor):  # PyTorch's sublist form: einsum(a, [0, 1], b, [1, 2])
        equation, operands = _from_sublists((equation, *operands))
    if not operands:
        raise ValueError(_NO_OPERANDS)
    if not isinstance(equation, str):
        raise TypeError(
            f"einsum(): argument 'equation' (position 1) must be str, not "
            f'{type(equation).__name__}\neinsum: the equation is a str such as "ij,jk->ik"'
        )
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
        if not operands:
            raise ValueError(_NO_OPERANDS)
    xs = _tensors(operands)
    labels, output = _subscripts(equation, xs)
    sizes = _sizes(labels, xs, equation)
    terms = [_prepare(x, ls, sizes) for x, ls in zip(xs, labels)]
    # A subscript in one operand only, and not in the output, is summed there at once.
    for k, (x, ls) in enumerate(terms):
        elsewhere = {s for j, (_, other) in enumerate(terms) if j != k for s in other}
        terms[k] = _sum_out(x, ls, [s for s in ls if s not in elsewhere and s not in output])
    x, xl = terms[0]
    for k in range(1, len(terms)):
        keep = set(output) | {s for _, later in terms[k + 1 :] for s in later}
        x, xl = _contract(x, xl, *terms[k], keep, sizes)
    x, xl = _sum_out(x, xl, [s for s in xl if s not in output])
    return _permute(x, xl, output)


def _from_sublists(args: tuple) -> tuple[str, tuple]:
    """``(a, [0, 1], b, [1, 2], [0, 2])`` -> ``("AB,BC->AC", (a, b))``: subscripts 0-25 are
    A-Z and 26-51 a-z, ``...`` is ``Ellipsis``, as in PyTorch."""

    def letters(sublist: Any) -> str:
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
                continue
            if not 0 <= operator.index(s) < 52:
                raise ValueError(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)"
                    f"\neinsum: got {s}; subscripts are 0-51 (or ...)"
                )
            out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
        return "".join(out)

    pairs = len(args) // 2
    terms = [letters(args[2 * k + 1]) for k in range(pairs)]
    tensors = tuple(args[2 * k] for k in range(pairs))
    output = "->" + letters(args[-1]) if len(args) % 2 else ""
    return ",".join(terms) + output, tensors


# -- the products einsum names ----------------------------------------------------------
def tensordot(a: Any, b: Any, dims: Any = 2, *, axes: Any = None) -> Tensor:
    """Sum over ``dims`` pairs of axes: an int ``n`` pairs ``a``'s last n with ``b``'s first n.

    ``dims`` may also be two lists, ``([axes of a], [axes of b])`` (NumPy's ``axes=``).
    A contracted axis of size 1 broadcasts against its partner (PyTorch's rule).

    >>> import minigrad as mg
    >>> mg.tensordot(mg.ones((2, 3, 4)), mg.ones((3, 4, 5))).shape
    (2, 5)
    """
    for value in (a, b):  # PyTorch's tensordot asks the number for its ``dim()``
        if isinstance(value, numbers.Number):
            raise AttributeError(
                f"'{dtypes.type_name(value)}' object has no attribute 'dim'\n"
                "tensordot takes tensors, as PyTorch's: give the number as a tensor, "
                "e.g. mg.tensor(2.0)"
            )
    a, b = _tensors([a, b])
    dims = axes if axes is not None else dims
    if dtypes.is_integer(dims):
        if not 0 <= dims <= min(a.ndim, b.ndim):
            raise ShapeError(
                "tensordot expects dims >= 0 and <= the number of dimensions of both tensors, "
                f"got {dims} for shapes {a.shape} and {b.shape}"
            )
        ours, theirs = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        ours, theirs = ([d] if dtypes.is_integer(d) else list(d) for d in dims)
        if len(ours) != len(theirs):
            raise ShapeError(f"both dimension lists should have same length, got {ours} and "
                             f"{theirs}")  # fmt: skip
        ours = [normalize_axes(d, a.ndim)[0] for d in ours]
        theirs = [normalize_axes(d, b.ndim)[0] for d in theirs]
    for i, j in zip(ours, theirs):
        # A size-1 axis broadcasts against its partner, as in PyTorch: the other side is
        # summed along it first (sum_k a_k b_0 = (sum_k a_k) b_0), then 1 meets 1.
        if b.shape[j] == 1 and a.shape[i] != 1:
            a = reduction_sum(a, i, keepdims=True, dtype=a.dtype)
        elif a.shape[i] == 1 and b.shape[j] != 1:
            b = reduction_sum(b, j, keepdims=True, dtype=b.dtype)
        if a.shape[i] != b.shape[j]:
            raise ShapeError(
                f"contracted dimensions need to match, but first has size {a.shape[i]} in dim "
                f"{i} and second has size {b.shape[j]} in dim {j}\n(shapes {a.shape} and {b.shape})"
            )
    free_a = [d for d in range(a.ndim) if d not in ours]
    free_b = [d for d in range(b.ndim) if d not in theirs]
    kept_a, kept_b = [a.shape[d] for d in free_a], [b.shape[d] for d in free_b]
    n = math.prod(a.shape[d] for d in ours)
    left = reshape(transpose(a, tuple(free_a + ours)), (math.prod(kept_a), n))
    right = reshape(transpose(b, tuple(theirs + free_b)), (n, math.prod(kept_b)))
    return reshape(matmul(left, right), (*kept_a, *kept_b))


def outer(a: Any, b: Any) -> Tensor:
    """``out[i, j] = a[i] * b[j]`` for vectors ``a`` and ``b`` (a broadcast product).

    >>> import minigrad as mg
    >>> mg.outer(mg.tensor([1, 2]), mg.tensor([1, 10, 100]))
    tensor([[  1,  10, 100],
            [  2,  20, 200]])
    """
    tensor_arguments("outer", a, b, names=("input", "vec2"))
    a, b = _tensors([a, b])
    for name, v in (("self", a), ("vec2", b)):
        if v.ndim != 1:
            raise ShapeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D\n"
                             f"(shapes {a.shape} and {b.shape})")  # fmt: skip
    return reshape(a, (-1, 1)) * reshape(b, (1, -1))


def diagonal(x: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1, *,
             axis1: Any = None, axis2: Any = None) -> Tensor:  # fmt: skip
    """The ``offset``-th diagonal of the matrices in axes ``dim1``, ``dim2``, as the last axis.

    >>> import minigrad as mg
    >>> mg.diagonal(mg.arange(9).reshape(3, 3), 1)
    tensor([1, 5])
    """
    dim1 = axis1 if axis1 is not None else dim1
    dim2 = axis2 if axis2 is not None else dim2
    return _diagonal(x, offset, dim1, dim2)


def _diagonal(x: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    if not dtypes.is_integer(offset):
        raise TypeError(
            f"diagonal(): argument 'offset' (position 2) must be int, not {type(offset).__name__}"
        )
    # A 0-d tensor's dims 0 and -1 both name its one (absent) axis, as in PyTorch.
    d1, d2 = ((normalize_axes(d, x.ndim) or (0,))[0] for d in (dim1, dim2))
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    params = {"offset": int(offset), "dim1": d1, "dim2": d2}
    out = apply(DIAGONAL, (x,), **params)
    note_view(out, x, DIAGONAL, params, current().grad_enabled)  # a view, as in PyTorch
    return out


def diag(x: Tensor, diagonal: int = 0, *, k: Any = None) -> Tensor:
    """A vector onto the ``diagonal``-th diagonal of a square matrix, or a matrix's diagonal.

    >>> import minigrad as mg
    >>> mg.diag(mg.tensor([1.0, 2.0]), 1)
    tensor([[0., 1., 0.],
            [0., 0., 2.],
            [0., 0., 0.]])
    """
    offset = int(k if k is not None else diagonal)
    if x.ndim == 2:
        return clone(_diagonal(x, offset, 0, 1))  # a copy, as PyTorch's
    if x.ndim != 1:
        raise ShapeError(f"diag(): Supports 1D or 2D tensors. Got {x.ndim}D\n(shape {x.shape})")
    n = x.shape[0] + abs(offset)
    index = diagonal_positions(n, n, offset)
    return apply(SCATTER_ADD, (x,), index=index, shape=(n, n))


@composite("trace")
def trace(x: Tensor) -> Tensor:
    """The sum of a matrix's diagonal.

    >>> import minigrad as mg
    >>> mg.trace(mg.arange(9).reshape(3, 3))
    tensor(12)
    """
    if x.ndim != 2:
        raise ShapeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}\n"
                         f"(shape {x.shape})")  # fmt: skip
    if x.dtype == dtypes.bool_:
        raise NotImplementedError(
            "\"trace\" not implemented for 'Bool'\ntrace: convert first, e.g. x.to(mg.int64)"
        )
    return apply(SUM, (_diagonal(x, 0, 0, 1),), axes=(0,), keepdims=False)


def _triangle(name: str, x: Tensor, diagonal: int, k: Any) -> Tensor:
    offset = int(k if k is not None else diagonal)
    if x.ndim < 2:
        raise ShapeError(f"{name}: input tensor must have at least 2 dimensions\n"
                         f"(shape {x.shape})")  # fmt: skip
    n1, n2 = x.shape[-2:]
    lower = np.tri(n1, n2, offset if name == "tril" else offset - 1, dtype=bool)
    keep = Tensor.concrete(lower if name == "tril" else ~lower, device=x.device)
    return where(keep, x, False if x.dtype == dtypes.bool_ else 0)


def tril(x: Tensor, diagonal: int = 0, *, k: Any = None) -> Tensor:
    """The lower triangle of the last two axes (on and below the ``diagonal``-th diagonal).

    >>> import minigrad as mg
    >>> mg.tril(mg.ones((2, 3)))
    tensor([[1., 0., 0.],
            [1., 1., 0.]])
    """
    return _triangle("tril", x, diagonal, k)


def triu(x: Tensor, diagonal: int = 0, *, k: Any = None) -> Tensor:
    """The upper triangle of the last two axes (on and above the ``diagonal``-th diagonal).

    >>> import minigrad as mg
    >>> mg.triu(mg.ones((2, 3)), 1)
    tensor([[0., 1., 1.],
            [0., 0., 1.]])
    """
    return _triangle("triu", x, diagonal, k)
