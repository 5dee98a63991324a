"""``python -m minigrad doctor``: what works on this machine, and what to do about the rest.

It imports nothing heavy until asked, compiles no kernel, and never fails:
every missing piece is a line saying what it costs and how to add it. It
checks every third-party module the lesson notebooks import, and draws a tiny
graph through each way ``mg.draw`` can render (Graphviz ``dot``, pygraphviz).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

OK, MISSING, NOTE = "ok", "missing", "note"


def _version(module: str) -> str | None:
    if importlib.util.find_spec(module) is None:
        return None
    try:
        return getattr(importlib.import_module(module), "__version__", "installed")
    except Exception as error:  # a broken install is a finding, not a crash
        return f"broken ({type(error).__name__}: {error})"


def _gpu_driver() -> str | None:
    """The GPU nvidia-smi reports, without importing numba.cuda."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout else None


TINY_GRAPH = 'digraph { a [label="a"]; b [label="tanh"]; a -> b }'
# Import name -> what pip installs, for the lesson imports whose names differ.
PIP_NAMES = {"sklearn": "scikit-learn", "yaml": "pyyaml", "PIL": "pillow"}
# What the lessons need when their notebooks cannot be read (a wheel install).
LESSON_IMPORTS = ["matplotlib", "ml_dtypes", "numba", "numpy", "sklearn", "tqdm"]


def _render_with_dot() -> str | None:
    """None if Graphviz's ``dot`` drew the tiny graph as SVG, else what went wrong."""
    try:
        run = subprocess.run(
            ["dot", "-Tsvg"], input=TINY_GRAPH, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"{type(error).__name__}: {error}"
    if run.returncode != 0 or "<svg" not in run.stdout:
        return (run.stderr.strip() or f"exit status {run.returncode}").splitlines()[0]
    return None


def _render_with_pygraphviz() -> str | None:
    """None if pygraphviz drew the tiny graph as SVG, else what went wrong."""
    try:
        import pygraphviz

        picture = pygraphviz.AGraph(string=TINY_GRAPH).draw(format="svg", prog="dot")
    except Exception as error:  # a broken install is a finding, not a crash
        return f"{type(error).__name__}: {error}".splitlines()[0]
    text = picture.decode("utf-8", "replace") if isinstance(picture, bytes) else str(picture)
    return None if "<svg" in text else "it returned no SVG"


def drawing_paths() -> list[tuple[str, str, str]]:
    """(status, what, detail) for each way mg.draw can render, each tried on a tiny graph."""
    rows = []
    if shutil.which("dot"):
        problem = _render_with_dot()
        rows.append(
            (OK, "graphviz dot", "drew a test graph as SVG: mg.draw uses it")
            if problem is None
            else (MISSING, "graphviz dot", f"found, but drawing failed: {problem}")
        )
    if importlib.util.find_spec("pygraphviz") is not None:
        problem = _render_with_pygraphviz()
        rows.append(
            (OK, "pygraphviz", "drew a test graph as SVG")
            if problem is None
            else (MISSING, "pygraphviz", f"installed, but drawing failed: {problem}")
        )
    if not any(status == OK for status, _, _ in rows):
        rows.append(
            (
                MISSING,
                "graphviz rendering",
                "nothing draws: mg.draw shows DOT text. Fix: `sudo apt-get install graphviz` "
                "(or `pip install pygraphviz`)",
            )
        )
    else:
        used = next(what for status, what, _ in rows if status == OK)
        rows.append((OK, "graphviz rendering", f"mg.draw renders SVG through {used}"))
    return rows


def lesson_imports(lessons: Path | None = None) -> list[str]:
    """The third-party modules the lesson notebooks import (read, never run).

    >>> "numpy" in lesson_imports()
    True
    """
    folder = lessons or Path(__file__).resolve().parents[1] / "lessons"
    found: set[str] = set()
    for notebook in sorted(folder.glob("*.ipynb")):
        try:
            cells = json.loads(notebook.read_text())["cells"]
        except (OSError, ValueError, KeyError):
            continue
        for cell in cells:
            if cell.get("cell_type") != "code":
                continue
            source = "".join(cell.get("source", ""))
            # IPython's %magics and !shell lines are not Python.
            source = "\n".join(
                line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))
            )
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    found |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found.add(node.module.split(".")[0])
    if not found:
        found = set(LESSON_IMPORTS)
    return sorted(m for m in found if m not in sys.stdlib_module_names and m != "minigrad")


def findings() -> list[tuple[str, str, str]]:
    """(status, what, detail) for every piece the course uses."""
    rows = [(OK, "python", f"{platform.python_version()} ({sys.executable})")]
    for module, why, fix in [
        ("numpy", "arrays (required)", "pip install numpy"),
        ("numba", "the parallel CPU backend", "pip install numba"),
        ("graphviz", "mg.draw (required)", "pip install graphviz"),
        ("jupyterlab", "opening the lessons", "bash setup.sh course"),
        ("torch", "the test oracle (tests only)", "see README: CPU-only PyTorch"),
    ]:
        version = _version(module)
        if version is None:
            rows.append((MISSING, module, f"needed for {why}. Fix: {fix}"))
        else:
            rows.append((OK, module, f"{version} ({why})"))
    for module in lesson_imports():
        if module in ("numpy", "numba"):
            continue  # reported above
        version = _version(module)
        package = PIP_NAMES.get(module, module)
        if version is None:
            fix = f"pip install -e '.[lessons]' (or pip install {package})"
            rows.append((MISSING, module, f"a lesson imports it. Fix: {fix}"))
        else:
            rows.append((OK, module, f"{version} (a lesson imports it)"))
    cuda_pkg = importlib.util.find_spec("numba_cuda") is not None
    gpu = _gpu_driver()
    simulator = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    if not cuda_pkg:
        fix = "the GPU backend (lesson 11). Fix: pip install -e '.[cuda]'"
        rows.append((MISSING, "numba-cuda", fix))
    else:
        rows.append((OK, "numba-cuda", "installed"))
    if gpu:
        rows.append((OK, "gpu", f"{gpu}: x.to('cuda') runs on it"))
    else:
        hint = "is on" if simulator else "works: set NUMBA_ENABLE_CUDASIM=1 (slow, small sizes)"
        status = OK if simulator and cuda_pkg else NOTE
        rows.append((status, "gpu", f"no NVIDIA GPU found; the CUDA simulator {hint}"))
    rows += drawing_paths()
    return rows


def doctor() -> int:
    """Print the findings; the exit status is 0 whatever they say."""
    rows = findings()
    width = max(len(what) for _, what, _ in rows)
    print("minigrad doctor\n")
    for status, what, detail in rows:
        mark = {OK: "[ok]  ", MISSING: "[miss]", NOTE: "[note]"}[status]
        print(f"{mark} {what.ljust(width)}  {detail}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["doctor"]:
        return doctor()
    print("usage: python -m minigrad doctor", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
