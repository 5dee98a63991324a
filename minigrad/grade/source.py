"""What the grader reads from a submission's source, never running it (the autograder).

Some facts cannot be measured inside the child, where the submission may patch
anything: it can raise the recursion limit and pass "no recursion", or reach
the probe's tracker and pass "checkpointed". Others are rules: a submission
must not call minigrad's own implementation of the very function it is asked
to write. So the grader also reads the file, in its own process: the parse is
bounded (``MAX_SOURCE_BYTES``; a parser error or recursion gives no tree,
never an exception), and

- ``shortcut`` names the library function an exercise's code calls instead of
  implementing it (zero for that exercise, with this message),
- ``faked`` says why a check that measures a property cannot be trusted:
  recursion, or code that reaches the grader's instruments,
- ``hints`` reads the exercise hints from the docstrings.

    >>> text = read_text("from minigrad.graph import topological_order\\n")
    >>> shortcut(text, "topological_order", ("topological_order",))[:38]
    "calls minigrad's own topological_order"
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from minigrad.grade.spec import docstring_hints

MAX_SOURCE_BYTES = 1 * 2**20
# Ways to raise the recursion limit or run code the reader cannot see.
RECURSION_ESCAPES = {"setrecursionlimit", "stack_size", "ctypes", "exec", "eval", "compile"}
# Ways to reach the probe's instruments (its tracker) from the submission.
INSTRUMENT_REACH = {
    "tracker", "Tracker", "born", "died", "calls", "peak", "live", "gc", "inspect", "weakref",
    "_getframe", "f_back", "f_locals", "modules", "ctypes", "exec", "eval", "compile",
    "__import__", "import_module", "getattr", "setattr", "__dict__", "vars", "globals",
}  # fmt: skip


@dataclass
class Source:
    """A submission file's text and, when it parsed within bounds, its syntax tree."""

    text: str
    tree: ast.Module | None


def read_text(text: str) -> Source:
    """Parse ``text`` within bounds; a file too long or too deep gives no tree."""
    if len(text) > MAX_SOURCE_BYTES:
        return Source(text[:0], None)
    try:
        return Source(text, ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Source(text, None)


def read(file: Path) -> Source:
    """The file at ``file``, read at most ``MAX_SOURCE_BYTES``; missing gives an empty one."""
    try:
        with open(file, "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError:
        return Source("", None)
    return read_text(data.decode("utf-8", "replace"))


def hints(source: Source) -> dict[str, str]:
    """``{"N.M": hint}`` from the exercise docstrings."""
    return docstring_hints(source.tree) if source.tree is not None else {}


def _library_names(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted minigrad name, for every import from minigrad."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "minigrad":
                    names[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else "minigrad"
                    )
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "minigrad":
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.AST, library: dict[str, str]) -> str | None:
    """``mg.graph.topological_order`` -> ``minigrad.graph.topological_order`` (else None)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in library:
        return ".".join([library[node.id], *reversed(parts)])
    return None


def _definition(tree: ast.Module, name: str) -> ast.AST | None:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return node
    return None


def shortcut(source: Source, name: str, library: tuple[str, ...]) -> str | None:
    """Why exercise ``name`` counts as minigrad's, when its code uses one of ``library``."""
    if source.tree is None or not library:
        return None
    imported = _library_names(source.tree)
    definition = _definition(source.tree, name)
    # Without its own definition, the module body is what binds the exercise's name.
    where = definition if definition is not None else source.tree
    for node in ast.walk(where):
        dotted = _dotted(node, imported) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if definition is None and isinstance(node, ast.alias) and node.name.split(".")[-1] == name:
            dotted = imported.get(node.asname or node.name)
        if dotted and dotted.split(".")[-1] in library:
            used = dotted.split(".")[-1]
            return f"calls minigrad's own {used} ({dotted}) instead of implementing it"
    return None


def _words(node: ast.AST) -> set[str]:
    """Every name, attribute and imported module name in ``node``, and string constants."""
    words: set[str] = set()
    docstrings = {
        id(item.value)
        for item in ast.walk(node)
        if isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant)
    }
    for item in ast.walk(node):
        if isinstance(item, ast.Name):
            words.add(item.id)
        elif isinstance(item, ast.Attribute):
            words.add(item.attr)
        elif isinstance(item, ast.alias):
            words.update(item.name.split("."))
        elif isinstance(item, ast.Constant) and isinstance(item.value, str):
            if id(item) not in docstrings:  # a name spelled in a string: getattr(sys, "...")
                words.update(re.findall(r"\w+", item.value))
    return words


def _recursive(definition: ast.AST) -> str | None:
    """The name of a function inside ``definition`` that calls itself, if any."""
    for node in ast.walk(definition):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for call in ast.walk(node):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id == node.name
                ):
                    return node.name
    return None


def faked(source: Source, measures: str, name: str) -> str | None:
    """Why a check measuring ``measures`` ("recursion" or "instruments") fails on this source."""
    if not measures:
        return None
    if source.tree is None:
        return "the grader could not read this file (too long or too deep to parse)"
    words = _words(source.tree)
    if measures == "recursion":
        definition = _definition(source.tree, name)
        found = _recursive(definition) if definition is not None else None
        if found:
            return f"{found} calls itself: the exercise asks for no recursion"
        escapes = sorted(words & RECURSION_ESCAPES)
        if escapes:
            return f"the file uses {', '.join(escapes)}: the exercise asks for no recursion"
    if measures == "instruments":
        reach = sorted(words & INSTRUMENT_REACH)
        if reach:
            return (
                f"the file uses {', '.join(reach)}, which can reach the grader's counters; "
                "use only layer.forward and layer.vjp"
            )
    return None
