"""Sphinx configuration for the minigrad course site.

One command builds it:  sphinx-build -b html docs docs/_build/html

The lesson notebooks live in ../lessons (the single source). At the start of
each build they are copied into docs/lessons/ (ignored by git) and executed by
MyST-NB, so the site shows their outputs: plots, and the SVG graphs mg.draw
produces. The API reference is generated from the package's docstrings.
"""

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

# Copy the lessons in (the site reads them; it never edits them).
_lessons = HERE / "lessons"
_lessons.mkdir(exist_ok=True)
for old in _lessons.glob("*.ipynb"):
    old.unlink()
for notebook in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb")):
    shutil.copy2(notebook, _lessons / notebook.name)

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

# Execute every lesson at build time; a failing cell fails the build.
nb_execution_mode = os.environ.get("MINIGRAD_DOCS_EXECUTE", "force")
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_in_temp = False
# Prefer SVG for graphs and plots: sharp at any zoom.
nb_mime_priority_overrides = [("html", "image/svg+xml", 5)]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autosummary_generate = True

html_theme = "furo"
html_title = "minigrad: autodiff, built lesson by lesson"
myst_enable_extensions = ["colon_fence", "dollarmath"]
