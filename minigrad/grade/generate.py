"""Make ``exercises/`` from ``solutions/``, the single source (the autograder).

Usage, from the repository root (teachers only):

    python -m minigrad.grade.generate            # rewrite exercises/ where it is safe
    python -m minigrad.grade.generate --check    # exit 1 if exercises/ drifted
    python -m minigrad.grade.generate --force    # rewrite changed files too, backed up

It never destroys work: it records the hash of every file it writes in
``exercises/.generated.json`` and rewrites only files that still have that
hash. A file changed since (an answer someone wrote) stops it: it names the
files and writes nothing; ``--force`` copies them to ``exercises/.backup/`` first.

Each exercise is a top-level function or class whose docstring starts with
``Exercise N.M:`` and holds a paragraph ``Hint (lesson NN): ...``; a helper
function that belongs to it starts its docstring ``Part of exercise N.M``. Inside its
functions, the answer sits between ``# BEGIN SOLUTION`` and ``# END SOLUTION``
comment lines; the generated file has, in its place,
``raise NotImplementedError("Exercise N.M: <hint>")`` at the same indentation.

    >>> source = '''
    ... def double(x):
    ...     \"\"\"Exercise 0.1: twice x.
    ...
    ...     Hint (lesson 00): add x to itself.
    ...     \"\"\"
    ...     # BEGIN SOLUTION
    ...     return x + x
    ...     # END SOLUTION
    ... '''
    >>> print(strip_solutions(source).splitlines()[-1])
        raise NotImplementedError("Exercise 0.1: add x to itself. (lesson 00)")
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import shutil
import sys
import textwrap
import time
from pathlib import Path

from minigrad.grade.spec import HINT, exercise_hints

BEGIN = re.compile(r"^(\s*)# BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*# END SOLUTION\s*$")
PART = re.compile(r"^(?:Exercise|Part of exercise) (\d+\.\d+)\b")
LINE_LENGTH = 100
HEADER = (
    "# Generated from solutions/ by `python -m minigrad.grade.generate`: replace each\n"
    "# `raise NotImplementedError(...)` with your code, then run `python -m minigrad.grade`.\n"
)


def _owner(tree: ast.Module, line: int) -> tuple[ast.AST, ast.AST]:
    """The top-level exercise and the innermost function around ``line`` (1-based)."""
    top = next(
        (n for n in tree.body if n.lineno <= line <= (n.end_lineno or n.lineno)),
        None,
    )
    if not isinstance(top, (ast.FunctionDef, ast.ClassDef)):
        raise ValueError(f"line {line}: a solution block must sit inside an exercise")
    inner: ast.AST = top
    for node in ast.walk(top):
        if (
            isinstance(node, (ast.FunctionDef, ast.ClassDef))
            and node.lineno <= line <= (node.end_lineno or node.lineno)
            and node.lineno >= getattr(inner, "lineno", 0)
        ):
            inner = node
    if not isinstance(inner, ast.FunctionDef):
        raise ValueError(f"line {line}: a solution block must sit inside a function body")
    return top, inner


def _raise_line(indent: str, text: str) -> list[str]:
    """The stub statement, laid out the way ``ruff format`` lays it out."""
    one_line = f"{indent}raise NotImplementedError({_literal(text)})\n"
    if len(one_line) - 1 <= LINE_LENGTH:
        return [one_line]
    width = LINE_LENGTH - len(indent) - 7  # the inner indent, two quotes, a space
    pieces = textwrap.wrap(text, width, break_long_words=False, drop_whitespace=False)
    body = [f"{indent}    {_literal(piece)}\n" for piece in pieces]
    return [f"{indent}raise NotImplementedError(\n", *body, f"{indent})\n"]


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def strip_solutions(source: str) -> str:
    """``source`` with every solution block replaced by its NotImplementedError stub."""
    tree = ast.parse(source)
    hints = exercise_hints(source)
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    i = 0
    while i < len(lines):
        begin = BEGIN.match(lines[i])
        if END.match(lines[i]):
            raise ValueError(f"line {i + 1}: END SOLUTION without BEGIN SOLUTION")
        if not begin:
            out.append(lines[i])
            i += 1
            continue
        top, _ = _owner(tree, i + 1)
        title = PART.match(ast.get_docstring(top) or "")
        if not title or title.group(1) not in hints:
            raise ValueError(
                f"line {i + 1}: the enclosing docstring must start 'Exercise N.M:' "
                "or 'Part of exercise N.M' (an exercise in the same file)"
            )
        number = title.group(1)
        # A helper may carry its own hint (sum_to in lesson 05 is exercise 4.2 again).
        own = [p.strip() for p in (ast.get_docstring(top) or "").split("\n\n")]
        own_hint = next((" ".join(p.split()) for p in own if HINT.match(p)), None)
        hint = HINT.match(own_hint or hints[number])
        text = f"{hint.group(2)} (lesson {hint.group(1)})" if hint else "see the docstring"
        out += _raise_line(begin.group(1), f"Exercise {number}: {text}")
        j = i + 1
        while j < len(lines) and not END.match(lines[j]):
            if BEGIN.match(lines[j]):
                raise ValueError(f"line {j + 1}: BEGIN SOLUTION inside a solution block")
            j += 1
        if j == len(lines):
            raise ValueError(f"line {i + 1}: BEGIN SOLUTION without END SOLUTION")
        i = j + 1
    return HEADER + "".join(out)


MANIFEST = ".generated.json"
BACKUPS = ".backup"


def fingerprint(text: str) -> str:
    """The SHA-256 of a file's text, as ``generate`` records it.

    >>> fingerprint("")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(text.encode()).hexdigest()


class ChangedFiles(Exception):
    """Exercise files changed since ``generate`` wrote them; it rewrote nothing."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        super().__init__(", ".join(names))


def _recorded(exercises: Path) -> dict[str, str]:
    try:
        data = json.loads((exercises / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def changed_since_generated(exercises: Path) -> list[str]:
    """Exercise files whose text is not what ``generate`` last wrote (someone's work)."""
    recorded = _recorded(exercises)
    return sorted(
        path.name
        for path in exercises.glob("lesson*.py")
        if recorded.get(path.name) != fingerprint(path.read_text())
    )


def generate(
    solutions: Path, exercises: Path, check: bool = False, force: bool = False
) -> list[str]:
    """Write (or with ``check``, compare) ``exercises/`` from ``solutions/``.

    Returns the names of the exercise files that differ from what the
    solutions generate (written unless ``check``). It rewrites a file only if
    it is unchanged since ``generate`` wrote it (the hashes in ``.generated.json``
    say so); otherwise it raises ``ChangedFiles`` naming them and writes nothing.
    With ``force`` it copies each changed file into ``.backup/<time>/`` first.
    """
    wanted = {
        source.name: strip_solutions(source.read_text())
        for source in sorted(solutions.glob("lesson*.py"))
    }
    drifted = [
        name
        for name, text in wanted.items()
        if not (exercises / name).is_file() or (exercises / name).read_text() != text
    ]
    stale = sorted({p.name for p in exercises.glob("lesson*.py")} - set(wanted))
    if check:
        return drifted + stale
    changed = [
        name
        for name in drifted
        if (exercises / name).is_file() and name in changed_since_generated(exercises)
    ]
    if changed and not force:
        raise ChangedFiles(changed)
    exercises.mkdir(parents=True, exist_ok=True)
    if changed:
        backup = exercises / BACKUPS / time.strftime("%Y%m%d-%H%M%S")
        backup.mkdir(parents=True, exist_ok=True)
        for name in changed:
            shutil.copy2(exercises / name, backup / name)
    for name in drifted:
        (exercises / name).write_text(wanted[name])
    hashes = {name: fingerprint(text) for name, text in wanted.items()}
    (exercises / MANIFEST).write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    return drifted + stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minigrad.grade.generate", description=__doc__)
    parser.add_argument("--solutions", type=Path, default=Path("solutions"))
    parser.add_argument("--exercises", type=Path, default=Path("exercises"))
    parser.add_argument("--check", action="store_true", help="only report drift; exit 1 if any")
    parser.add_argument(
        "--force",
        action="store_true",
        help="rewrite changed exercise files too, keeping a copy in exercises/.backup/",
    )
    args = parser.parse_args(argv)
    if not args.solutions.is_dir():
        parser.error(f"no solutions folder at {args.solutions}")
    try:
        drifted = generate(args.solutions, args.exercises, check=args.check, force=args.force)
    except ChangedFiles as error:
        print(
            f"refusing to overwrite: these files in {args.exercises} changed since they were "
            "generated (someone's work?):",
            file=sys.stderr,
        )
        for name in error.names:
            print(f"    {args.exercises / name}", file=sys.stderr)
        print(
            "Nothing was written. Move them away, or rerun with --force "
            f"(it keeps a copy of each in {args.exercises / BACKUPS}/).",
            file=sys.stderr,
        )
        return 1
    verb = "differ from" if args.check else "rewritten from"
    for name in drifted:
        print(f"{args.exercises / name} {verb} {args.solutions / name}")
    return 1 if args.check and drifted else 0


if __name__ == "__main__":
    sys.exit(main())
