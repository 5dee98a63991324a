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
from dataclasses import dataclass, field
from pathlib import Path

from minigrad.grade.spec import docstring_hints
from minigrad.grade.submission import read_regular

MAX_SOURCE_BYTES = 1 * 2**20
MAX_MODULES = 64  # of the submission's own, read beside the exercise file
# Ways to reach a function without naming it where the reader can see.
DYNAMIC = {
    "importlib", "__import__", "import_module", "exec", "eval", "compile", "__builtins__",
    "__dict__", "vars", "globals", "locals", "__getattribute__", "__closure__", "cell_contents",
    "__wrapped__", "gc", "inspect", "ctypes", "modules", "pkgutil", "runpy",
}  # fmt: skip
# Ways to raise the recursion limit or run code the reader cannot see.
RECURSION_ESCAPES = {"setrecursionlimit", "stack_size", "ctypes", "exec", "eval", "compile"}
# Python loops, for exercises that ask for none (a comprehension is one too).
LOOPS = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)
# Ways to reach the probe's instruments (its tracker) from the submission.
INSTRUMENT_REACH = {
    "tracker", "Tracker", "born", "died", "calls", "peak", "live", "gc", "inspect", "weakref",
    "_getframe", "f_back", "f_locals", "modules", "ctypes", "exec", "eval", "compile",
    "__import__", "import_module", "getattr", "setattr", "__dict__", "vars", "globals",
}  # fmt: skip


@dataclass
class Source:
    """A submission file's text and, when it parsed within bounds, its syntax tree.

    ``modules`` are the trees of the submission's own modules it imports (read
    the same way, transitively); ``unread`` says what could not be read.
    """

    text: str
    tree: ast.Module | None
    modules: dict[str, ast.Module] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)


def read_text(text: str) -> Source:
    """Parse ``text`` within bounds; a file too long or too deep gives no tree."""
    if len(text) > MAX_SOURCE_BYTES:
        return Source(text[:0], None, unread=["the file is longer than 1 MiB"])
    try:
        return Source(text, ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Source(text, None)


def read(file: Path) -> Source:
    """The regular file at ``file``, read at most ``MAX_SOURCE_BYTES``; else an empty one."""
    try:
        data = read_regular(file, MAX_SOURCE_BYTES)
    except OSError:
        return Source("", None)
    return read_text(data.decode("utf-8", "replace"))


def read_submission(folder: Path, name: str) -> Source:
    """The exercise file ``name`` of the submission in ``folder``, with its own modules.

    Every ``import`` of the file that names a module or package of ``folder``
    (``helper.py``, ``helpers/__init__.py``, ``helpers/x.py``) is read too, and
    theirs in turn, up to ``MAX_MODULES``: the source rules hold across them.
    """
    main = read(folder / name)
    if main.tree is None:
        return main
    pending, seen = [main.tree], {Path(name).stem}
    while pending:
        tree = pending.pop()
        for module in _local_imports(tree):
            if module in seen:
                continue
            seen.add(module)
            path = _module_file(folder, module)
            if path is None:
                continue
            if len(main.modules) >= MAX_MODULES:
                main.unread.append(f"more than {MAX_MODULES} modules of the submission")
                return main
            found = read(path)
            if found.tree is None:
                main.unread.append(f"{path.name} (too long or too deep to parse)")
            else:
                main.modules[module] = found.tree
                pending.append(found.tree)
    return main


def _local_imports(tree: ast.Module) -> set[str]:
    """Dotted names a tree imports (each prefix too: ``a.b`` also imports ``a``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            found = [base] if base else []
            found += [f"{base}.{a.name}" if base else a.name for a in node.names if a.name != "*"]
        else:
            continue
        for name in found:
            parts = name.split(".")
            names.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return names


def _module_file(folder: Path, module: str) -> Path | None:
    """The file of ``folder`` that module ``module`` would load from, if any."""
    base = folder.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        try:
            if path.is_file() and not path.is_symlink():
                return path
        except OSError:
            pass
    return None


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
    """The top-level definition of ``name`` that counts: the last one, as when Python runs it."""
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                found = node
    return found


def shortcut(source: Source, name: str, library: tuple[str, ...]) -> str | None:
    """Why exercise ``name`` counts as minigrad's, when its code uses one of ``library``.

    Read in the exercise's definition (or, without one, the whole file) and in
    every module of the submission the file imports: a name or attribute that
    is one of ``library`` (``mg.graph.topological_order``, ``t.sum_to``), a
    string spelling one, a star import from minigrad, or a dynamic lookup that
    could reach one (``getattr`` with a computed name, ``importlib``, ...).
    A file the grader cannot read scores nothing on such an exercise.
    """
    if not library:
        return None
    if source.tree is None:
        why = "; ".join(source.unread) or "too long or too deep to parse"
        return f"the grader could not read this file ({why}), so it cannot check its rules"
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
    if source.unread:
        return f"the grader could not read all of the submission ({'; '.join(source.unread)})"
    regions = [("this exercise", where), ("this file", source.tree)]
    regions += [(f"{module}.py", tree) for module, tree in source.modules.items()]
    for place, region in regions:
        problem = _reaches(region, library, whole=place.endswith(".py"))
        if problem:
            return f"{place} {problem}: implement it without minigrad's own {'/'.join(library)}"
    return None


def _reaches(region: ast.AST, library: tuple[str, ...], whole: bool) -> str | None:
    """How ``region`` may use one of ``library`` (None: no way the reader can see)."""
    # A name spelled as a call's argument: getattr(module, "sum_to"), not an annotation.
    arguments = {
        id(arg) for call in ast.walk(region) if isinstance(call, ast.Call) for arg in call.args
    }
    for node in ast.walk(region):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            if (node.module or "").split(".")[0] == "minigrad":
                return f"star-imports {node.module}"
        if isinstance(node, ast.Attribute) and node.attr in library:
            return f"uses .{node.attr}"
        if isinstance(node, ast.Constant) and id(node) in arguments:
            if node.value in library:
                return f"spells the name {node.value!r}"
        if whole and isinstance(node, ast.Name) and node.id in library:
            return f"uses {node.id}"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr", "attrgetter", "methodcaller")
            and not all(isinstance(arg, ast.Constant) for arg in node.args[1:2])
        ):
            return f"looks up an attribute by a computed name ({node.func.id})"
    dynamic = sorted(_words(region) & DYNAMIC)
    if dynamic:
        return f"looks names up where the grader cannot read them ({', '.join(dynamic)})"
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
    """Why a check measuring ``measures`` ("recursion", "loops" or "instruments") fails here.

    The submission's own modules that the file imports are read too: a helper
    module is held to the same rule as the exercise.
    """
    if not measures:
        return None
    if source.tree is None or source.unread:
        why = "; ".join(source.unread) or "too long or too deep to parse"
        return f"the grader could not read this file ({why})"
    words = _words(source.tree)
    for tree in source.modules.values():
        words |= _words(tree)
    if measures == "recursion":
        definition = _definition(source.tree, name)
        found = _recursive(definition) if definition is not None else None
        for module, tree in source.modules.items():
            found = found or (f"{module}.{_recursive(tree)}" if _recursive(tree) else None)
        if found:
            return f"{found} calls itself: the exercise asks for no recursion"
        escapes = sorted(words & RECURSION_ESCAPES)
        if escapes:
            return f"the file uses {', '.join(escapes)}: the exercise asks for no recursion"
    if measures == "loops":
        definition = _definition(source.tree, name)
        regions = [definition, *source.modules.values()] if definition else [source.tree]
        for region in regions:
            for node in ast.walk(region):
                if isinstance(node, LOOPS):
                    return (
                        f"{name} loops in Python (line {node.lineno}): the exercise asks for "
                        "every example at once"
                    )
    if measures == "instruments":
        reach = sorted(words & INSTRUMENT_REACH)
        if reach:
            return (
                f"the file uses {', '.join(reach)}, which can reach the grader's counters; "
                "use only layer.forward and layer.vjp"
            )
    return None
