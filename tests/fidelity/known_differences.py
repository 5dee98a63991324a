"""The samples of PyTorch's OpInfos where minigrad keeps another rule (lessons 04-05).

``(OpInfo name[.variant], dtype or "errors", sample index)`` ->
``(class, reason, the words of docs/api.md that name the rule)``. The test
(test_opinfo.py) fails on any other difference and on a listed sample that
matches again, so this list only shrinks.
"""

TIES = (
    "tied values (bool): the order of equal elements in PyTorch's unstable sort is its kernel's",
    "among equal elements, which one's index is returned may differ from PyTorch's choice",
)


def _entries(ops, dtypes, indices, cls, why):
    return {(op, dtype, i): (cls, *why) for op in ops for dtype in dtypes for i in indices}


KNOWN: dict[tuple[str, str, int], tuple[str, str, str]] = {
    **_entries(["sort", "argsort"], ["bool"], [0], "value", TIES),
}  # fmt: skip
