"""The samples of PyTorch's OpInfos where minigrad keeps another rule (lessons 04-05).

``(OpInfo name[.variant][ (Tensor.method)], dtype or "errors", sample index)`` ->
``(class, reason, the words of docs/api.md that name the rule)``. The test
(test_opinfo.py) fails on any other difference and on a listed sample that
matches again, so this list only shrinks.
"""


def _entries(ops, dtypes, indices, cls, why):
    return {(op, dtype, i): (cls, *why) for op in ops for dtype in dtypes for i in indices}


KNOWN: dict[tuple[str, str, int], tuple[str, str, str]] = {}

# The methods (``x.op(...)``) and in-place methods (``x.op_(...)``, ``F.op(x, inplace=True)``)
# of torch 2.13's OpInfos that minigrad lacks. minigrad has no function of these names either,
# or they need a dtype it lacks (``byte``, ``short``, complex), except ``__rdiv__`` (Python 3
# has no such operator) and ``addbmm_`` (PyTorch resizes x to the product's shape
# where x would broadcast, which no other in-place method does).
MISSING_VARIANTS = {
    "addbmm_", "as_strided", "as_strided_", "byte", "cdouble", "cfloat", "chalf", "char",
    "conj_physical_", "hash_tensor", "istft", "short", "stft",
}  # fmt: skip

# as_strided_scatter: torch 2.13's gradient with respect to input is the incoming gradient at
# the places written and 0 at the others, the wrong way round (torch.autograd.gradcheck fails
# on it); minigrad's is the derivative.
KNOWN.update(
    _entries(
        ["as_strided_scatter", "as_strided_scatter (Tensor.as_strided_scatter)"],
        ["float64"],
        range(2),
        "grad",
        (
            "torch's backward swaps the places written and kept (its own gradcheck fails)",
            "`as_strided_scatter`'s gradient with respect to `input` is the derivative",
        ),
    )
)
