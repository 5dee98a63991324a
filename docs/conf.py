"""Sphinx configuration for the minigrad course site.

One command builds it:  sphinx-build -b html docs docs/_build/html

The lesson notebooks live in ../lessons (the single source). At the start of
each build they are copied into docs/lessons/ (ignored by git) and executed by
MyST-NB, so the site shows their outputs: plots, and the SVG graphs mg.draw
produces. The API reference is generated from the package's docstrings.

The site works offline: maths is typeset by a MathJax copied from the
``sphinx-mathjax-offline`` package into the site, and no page loads a script
from the network. Executed notebooks are cached (jupyter-cache, in
docs/_build/.jupyter_cache), so a build with no lesson changed runs none.
"""

import importlib.metadata
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
# The notebook kernels are subprocesses: let them import minigrad from here too.
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
)

# The kernels' messages travel encrypted: the kernel manager gives each kernel CurveZMQ
# keys (ipykernel's kernelspec declares it supports them), so no kernel warns "running
# over TCP without encryption" in the build's log. MyST-NB starts its kernels with no
# configuration of ours, so this sets the manager's default.
import zmq  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402

if zmq.has("curve"):
    KernelManager.transport_encryption.default_value = "auto"

# Copy the lessons in (the site reads them; it never edits them).
_lessons = HERE / "lessons"
_lessons.mkdir(exist_ok=True)
for old in _lessons.glob("*.ipynb"):
    old.unlink()
for notebook in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb")):
    shutil.copy2(notebook, _lessons / notebook.name)

# The primitive registry, enumerated (generated: the table is the code's own).
import minigrad  # noqa: E402, F401  (importing it registers every row)
from minigrad.tensor.primitive import registry_table  # noqa: E402

(HERE / "primitives.md").write_text(
    "# The primitive registry\n\n"
    "Every tensor operation is one row of `minigrad.tensor.primitive.REGISTRY`. "
    "The *derivative* column says how the row states its derivative, which forward "
    "and reverse mode both read (see `minigrad.tensor.primitive`); *saves* is what a "
    "recorded operation keeps for the backward pass; the *scalar body* names the "
    "function in `minigrad.backends.scalar_functions` that computes one element.\n\n"
    + registry_table()
    + "\n"
)

project = "minigrad"
author = "the minigrad authors"
copyright = "2026, the minigrad authors"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]

# Execute each lesson at build time, once per change of its code: the cache
# keys on the notebook's code, so the training-loop length (MINIGRAD_FAST)
# gets a cache of its own. A failing cell fails the build.
_fast = os.environ.get("MINIGRAD_FAST") == "1"
nb_execution_mode = os.environ.get("MINIGRAD_DOCS_EXECUTE", "cache")
_cache = ".jupyter_cache-fast" if _fast else ".jupyter_cache"
nb_execution_cache_path = str(HERE / "_build" / _cache)
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_in_temp = False
nb_merge_streams = True
# A progress bar is live feedback in Jupyter; on a static page its every
# redraw would stay as a line of text. tqdm reads its options from TQDM_*.
os.environ["TQDM_DISABLE"] = "1"
# Prefer SVG for graphs and plots: sharp at any zoom.
nb_mime_priority_overrides = [("html", "image/svg+xml", 5)]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autosummary_generate = True

html_theme = "furo"
html_title = "minigrad: autodiff, built lesson by lesson"
myst_enable_extensions = ["colon_fence", "dollarmath"]
html_static_path = ["_static"]
# Wide graphs keep their natural size (readable text) and scroll sideways.
html_css_files = ["minigrad.css"]


def _local_mathjax() -> str:
    """Copy MathJax (SVG output: no font files needed) into _static/mathjax/."""
    try:
        dist = importlib.metadata.distribution("sphinx-mathjax-offline")
    except importlib.metadata.PackageNotFoundError:
        raise RuntimeError(
            "the course site typesets maths offline with the sphinx-mathjax-offline "
            "package: pip install -e '.[docs]'"
        ) from None
    source = Path(dist.locate_file("sphinx-mathjax-offline/static/mathjax"))
    target = HERE / "_static" / "mathjax"
    if not (target / "tex-svg.js").is_file():
        shutil.copytree(source / "input" / "tex" / "extensions", target / "input/tex/extensions")
        shutil.copy2(source / "tex-svg.js", target / "tex-svg.js")
    return "mathjax/tex-svg.js"


# Relative to _static; MathJax loads its extensions from beside it.
mathjax_path = _local_mathjax()
