"""The samples of PyTorch's OpInfos where minigrad keeps another rule (lessons 04-05).

``(OpInfo name[.variant], dtype or "errors", sample index)`` ->
``(class, reason, the words of docs/api.md that name the rule)``. The test
(test_opinfo.py) fails on any other difference and on a listed sample that
matches again, so this list only shrinks.
"""

TIES = (
    "tied values (int64, bool): PyTorch's index among equals comes from its kernel's order",
    "among equal elements, which one's index is returned may differ from PyTorch's choice",
)
MODE_NOT_IMPLEMENTED = (
    "NotImplementedError: the mode is PyTorch's but not minigrad's",
    "`interpolate`'s modes `bicubic`, `trilinear`, `area` and `nearest-exact`",
)
NO_SINGULAR_VALUES = (
    "NotImplementedError: minigrad computes no SVD",
    "matrix norms that need singular values (`ord='nuc'`, 2 and -2)",
)
INTEGERS = "integer inputs of `conv1d`, `conv2d`, `conv_transpose1d`, `conv_transpose2d`, `avg_pool1d` and `avg_pool2d`"  # fmt: skip
INTEGER_CONVOLUTION = ("TypeError: minigrad convolves floating-point tensors only", INTEGERS)
INTEGER_POOLING = ("TypeError: minigrad average-pools floating-point tensors only", INTEGERS)


def _entries(ops, dtypes, indices, cls, why):
    return {(op, dtype, i): (cls, *why) for op in ops for dtype in dtypes for i in indices}


KNOWN: dict[tuple[str, str, int], tuple[str, str, str]] = {
    **_entries(["kthvalue", "topk"], ["int64"], [0, 1], "value", TIES),
    **_entries(["sort", "argsort"], ["bool"], [0], "value", TIES),
    **_entries(
        [f"nn.functional.interpolate.{mode}" for mode in ("nearest-exact", "bicubic", "trilinear", "area")],
        ["float64", "float32"], [0, 1], "missing_feature", MODE_NOT_IMPLEMENTED,
    ),
    **_entries(["norm.nuc"], ["float64", "float32"], [0, 1], "missing_feature", NO_SINGULAR_VALUES),
    **_entries(
        [f"nn.functional.{op}" for op in ("conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d")],
        ["int64"], [0, 1], "missing_feature", INTEGER_CONVOLUTION,
    ),
    **_entries(
        ["nn.functional.avg_pool1d", "nn.functional.avg_pool2d"], ["int64"], [0, 1],
        "missing_feature", INTEGER_POOLING,
    ),
}  # fmt: skip
