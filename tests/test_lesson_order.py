"""Lesson order: a module never imports a module of a later lesson.

The package is the course's textbook (DESIGN.md): lesson N uses only what
lessons 1..N built. So every module's docstring names, in its first line, the
lessons that build it: "(lesson 07)", or "(lessons 04-06, 08)" for a module
begun in lesson 04 and finished in lesson 08. A module may import another only
if that one is begun by the time it is finished: ``tensor.py`` (lessons
04-06) may import ``autograd.py`` (lessons 05-06, 08), but no module of lessons
04-10 may import ``batching.py`` (lesson 14) or the abstract backend (13).
A later lesson reaches an earlier one's code by registering itself there
(as the transforms push their interpreters on ``tensor.interpreters``' stack),
never by being imported from below. Imports inside functions count too: a lazy
import is still a dependency a student meets when reading the module.

Exempt: package faces (``__init__.py`` gathers its package's names, whatever
their lesson), ``minigrad/__main__.py`` (the doctor) and the autograder
(``minigrad/grade``), which are tools around the course, not lessons of it.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import test_layers
from test_layers import import_targets, source_files

PACKAGE = Path(__file__).resolve().parents[1] / "minigrad"
LESSON = re.compile(r"\blessons? (\d\d(?:(?:-|, | and )\d\d)*)")


def exempt(path: Path) -> bool:
    rel = path.relative_to(PACKAGE)
    return path.name == "__init__.py" or rel.parts[0] in ("grade", "__main__.py")


def lessons_of(path: Path) -> tuple[int, int] | None:
    """(begun, finished): the first and last lesson the docstring's first line names."""
    doc = ast.get_docstring(ast.parse(path.read_text(), filename=str(path))) or ""
    found = LESSON.findall(doc.strip().split("\n", 1)[0])
    numbers = [int(n) for group in found for n in re.findall(r"\d\d", group)]
    return (min(numbers), max(numbers)) if numbers else None


def file_of(module: str) -> Path:
    """The file of a minigrad module's dotted name (a package: its __init__)."""
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else path / "__init__.py"


def imports(path: Path) -> list[tuple[int, Path]]:
    """(line, file) for every minigrad module the file imports (the import walk of
    test_layers.py, which also finds the package's import cycles)."""
    found = [(line, file_of(module)) for line, module in import_targets(path)]
    return [(line, target) for line, target in found if target != path]


def problems(package: Path | None = None) -> list[str]:
    found = []
    for path in source_files():
        if exempt(path):
            continue
        rel = path.relative_to(PACKAGE)
        mine = lessons_of(path)
        if mine is None:
            found.append(f"{rel}: its docstring's first line names no lesson")
            continue
        for line, target in sorted(set(imports(path))):
            theirs = lessons_of(target)
            if theirs is not None and theirs[0] > mine[1]:
                span = f"{mine[0]:02d}" if mine[0] == mine[1] else f"{mine[0]:02d}-{mine[1]:02d}"
                found.append(
                    f"{rel}:{line} (lesson {span}) imports "
                    f"{target.relative_to(PACKAGE)}, begun in lesson {theirs[0]:02d}"
                )
    return found


def test_no_module_imports_a_later_lesson():
    found = problems()
    assert found == [], f"{len(found)} lesson-order problems:\n" + "\n".join(found)


def test_the_checker_sees_a_later_lesson(tmp_path, monkeypatch):
    # Guard against a checker that passes because it never finds anything.
    fake = tmp_path / "minigrad"
    (fake / "tensor").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "tensor" / "__init__.py").write_text('"""Tensors (lesson 04)."""\n')
    (fake / "tensor" / "batching.py").write_text('"""Batched tensors (lesson 14)."""\n')
    (fake / "tensor" / "mode.py").write_text('"""Gradient mode (lesson 04)."""\n')
    (fake / "tensor" / "lazy.py").write_text('"""Seen before it is finished (lessons 07-09)."""\n')
    (fake / "tensor" / "record.py").write_text(
        '"""apply (lessons 04-07)."""\n'
        "from minigrad.tensor import mode\n"
        "from minigrad.tensor.lazy import x\n"
        "def f():\n"
        "    from .batching import Level\n"
    )
    (fake / "untold.py").write_text('"""A module with no lesson."""\n')
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    monkeypatch.setattr(test_layers, "PACKAGE", fake)
    assert problems() == [
        "tensor/record.py:5 (lesson 04-07) imports tensor/batching.py, begun in lesson 14",
        "untold.py: its docstring's first line names no lesson",
    ]


def test_the_table_of_contents_lists_every_part():
    # minigrad/__init__.py's docstring is the course's table of contents: a new
    # part (a folder or a top-level module) must be listed there, as ``name``.
    contents = ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text())) or ""
    parts = sorted(
        p.stem if p.suffix == ".py" else p.name
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
        or (p.is_dir() and (p / "__init__.py").is_file())
    )
    missing = [name for name in parts if f"``{name}``" not in contents]
    assert missing == [], f"minigrad/__init__.py's table of contents lacks {missing}"


if __name__ == "__main__":
    for problem in problems():
        print(problem)
