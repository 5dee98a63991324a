"""The lesson notebooks run top to bottom, and are committed clean.

Each ``lessons/*.ipynb`` is one test (marked ``notebooks``; deselect with
``-m "not notebooks"``). The kernel is a ``python3`` kernel pinned to the
interpreter running the tests (a user-level ``python3`` kernelspec pointing
elsewhere is ignored), started in ``lessons/`` with:

- matplotlib's inline backend, as in Jupyter: plots become PNG outputs (the course site
  shows these very outputs: a lesson that ran cleanly goes to the site's execution cache);
- ``MINIGRAD_FAST=1``: lessons read it to shrink training loops under test;
- the repository root on ``PYTHONPATH``: the lessons import this checkout's minigrad.

The kernel's messages travel encrypted (CurveZMQ keys made by the kernel
manager, ``ENCRYPTED``): an unencrypted kernel prints "Kernel is running over
TCP without encryption" on every run, a warning nobody running a lesson caused.
"""

import copy
import json
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from traitlets.config import Config

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted((ROOT / "lessons").glob("*.ipynb"))
CELL_TIMEOUT_S = 600
# The kernel manager gives the kernel CurveZMQ keys, and refuses to start one it cannot.
ENCRYPTED = Config({"KernelManager": {"transport_encryption": "required"}})
UNENCRYPTED_WARNING = "without encryption"


def lesson_kernel(tmp_path, monkeypatch):
    """A ``python3`` kernelspec for this interpreter (see the module docstring), on JUPYTER_PATH."""
    spec = tmp_path / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "Python 3", "language": "python",
              "metadata": {"supported_encryption": ["curve"]}}  # fmt: skip
    (spec / "kernel.json").write_text(json.dumps(kernel))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))


def lesson_client(notebook, folder: Path, config=ENCRYPTED) -> NotebookClient:
    return NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
        config=config,
    )


# -- pictures placed side by side (lesson 13's before/after pairs) ----------------------------
# Widths, in CSS pixels, that a notebook's output and the site's text column have: JupyterLab's
# notebook panel in a 1280-pixel window with its file browser open (about 1000), a half-screen
# window (640), and the site's column (furo: 46em less 3em of padding each side, at 16 px).
PAGE_WIDTHS = {"JupyterLab": 1000, "JupyterLab, half a screen": 640, "site": 640}
MIN_TEXT_PX = 8  # as the site's browser test asks of the widest graph
PX_PER_PT = 4 / 3
_VOID = {"br", "img", "hr", "input", "meta", "link", "wbr"}


def _style(text: str) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in (text or "").split(";") if ":" in part)
    return {k.strip().lower(): v.strip().lower() for k, v in pairs}


def _length_px(value: str) -> float:
    """A CSS length in pixels (pt, px and em at 16 px)."""
    number = float(re.match(r"[\d.]+", value).group())
    return number * {"pt": PX_PER_PT, "px": 1.0, "em": 16.0}[re.search(r"[a-z]+$", value).group()]


class _Markup(HTMLParser):
    """The divs and inline SVG pictures of some HTML: each picture with its enclosing divs'
    styles (innermost first), its attributes and the font sizes of its text."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict]] = []
        self.pictures: list[dict] = []
        self.svg_depth = 0
        self.title = None  # the bold text just before a picture (lesson 13: before, after)

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] == "b" and data.strip():
            self.title = data.strip()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.svg_depth:
            if "font-size" in attrs:
                self.pictures[-1]["fonts"].append(float(attrs["font-size"]))
        elif tag == "svg":
            divs = [a for t, a in reversed(self.stack) if t == "div"]
            self.pictures.append({"attrs": attrs, "divs": divs, "fonts": [], "title": self.title})
            self.title = None
        if tag == "svg" or self.svg_depth:
            self.svg_depth += 1
        if tag not in _VOID:
            self.stack.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        if self.svg_depth and "font-size" in dict(attrs):
            self.pictures[-1]["fonts"].append(float(dict(attrs)["font-size"]))

    def handle_endtag(self, tag):
        if self.svg_depth:
            self.svg_depth -= 1
        while self.stack:
            if self.stack.pop()[0] == tag:
                break


def before_after_pictures(html: str) -> list[dict]:
    markup = _Markup()
    markup.feed(html)
    return [p for p in markup.pictures if p["title"] in ("before", "after")]


def picture_problems(html: str, page_px: float) -> list[str]:
    """What keeps the before/after pictures in ``html`` from being readable on a page
    ``page_px`` wide: a flex row lays them out as a browser would (flex-basis, wrapping,
    gap, equal growth), each SVG then scales to its box but not past its own size, and its
    smallest text must stay ``MIN_TEXT_PX`` tall. Also: nothing positioned off the page."""
    rows: dict[int, list[dict]] = {}
    problems = []
    for picture in before_after_pictures(html):
        box, row = (picture["divs"] + [{}, {}])[:2]
        rows.setdefault(id(row), []).append(picture)
        for style in map(_style, (box.get("style"), row.get("style"))):
            if style.get("position") in ("absolute", "fixed") or "-" in style.get("margin", ""):
                problems.append(f"a picture is placed off the flow: {style}")
    for pictures in rows.values():
        row = _style(pictures[0]["divs"][1].get("style")) if len(pictures[0]["divs"]) > 1 else {}
        if row.get("display") != "flex" or row.get("max-width") != "100%":
            problems.append(f"pictures are not in a flex row at most the page's width: {row}")
            continue
        gap = _length_px(row["gap"]) if "gap" in row else 0.0
        sizes = []
        for picture in pictures:
            attrs, box = picture["attrs"], _style(picture["divs"][0].get("style"))
            natural = float(attrs["viewbox"].split()[2])  # points, as Graphviz writes them
            svg = _style(attrs.get("style"))
            if attrs.get("width") != "100%" or "height" in attrs or svg.get("height") != "auto":
                problems.append(f"an SVG does not scale to its box: {attrs}")
            if _length_px(svg.get("max-width", "0pt")) < natural * PX_PER_PT - 1:
                problems.append(f"an SVG is held below its own size: {svg}")
            grow, _shrink, basis = box.get("flex", "0 1 auto").split()
            if box.get("min-width") != "0":
                problems.append(f"a box cannot shrink below its picture (min-width): {box}")
            widths = {"0": 0.0, "auto": natural * PX_PER_PT}
            basis_px = widths[basis] if basis in widths else _length_px(basis)
            margins = sum(_length_px(box[k]) for k in ("margin-left", "margin-right") if k in box)
            sizes.append((natural, basis_px + margins, float(grow), margins))
        # One line while the bases (and gaps) fit; else each picture on a line of its own.
        together = sum(s[1] for s in sizes) + gap * (len(sizes) - 1) <= page_px
        free = page_px - sum(s[1] for s in sizes) - gap * (len(sizes) - 1)
        grows = sum(s[2] for s in sizes) or 1
        for (natural, basis, grow, margins), picture in zip(sizes, pictures):
            box_px = (basis + free * grow / grows if together else page_px) - margins
            shown_px = min(box_px, natural * PX_PER_PT)
            text_px = min(picture["fonts"]) * shown_px / natural
            if text_px < MIN_TEXT_PX:
                problems.append(
                    f"a picture {natural:.0f} pt wide is drawn {shown_px:.0f} px wide on a page "
                    f"{page_px} px wide: its smallest text is {text_px:.1f} px tall"
                )
    return problems


def pairs_in(html: str) -> int:
    """How many rows of before/after pictures ``html`` holds (to check that there are some)."""
    return len({id(p["divs"][1]) for p in before_after_pictures(html) if len(p["divs"]) > 1})


def lesson13_pairs(notebook) -> list[str]:
    """The HTML of every before/after pair in executed lesson 13."""
    found = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            if "<b>before</b>" in html and "<svg" in html:
                found.append(html)
    return found


def test_picture_check_measures_what_a_browser_would():
    font = '<text font-size="10.00">x</text>'
    svg = ('<svg width="100%" style="max-width:{w}pt;height:auto" viewBox="0 0 {w} 900">'
           + font + "</svg>")  # fmt: skip
    pair = lambda box, w=400: (
        "<div style='display:flex;flex-wrap:wrap;gap:1em;max-width:100%'>"
        + "".join(f"<div style='{box}'><b>before</b><br>{svg.format(w=w)}</div>" for _ in "ab")
        + "</div>"
    )
    # Half of 640 px each: 400 pt (533 px) shown 312 px wide, 10-pt text 7.8 px tall.
    assert picture_problems(pair("flex:1 1 0;min-width:0"), 640)
    assert not picture_problems(pair("flex:1 1 0;min-width:0"), 1200)
    # With a basis of 60% of its size each wraps below the other where both do not fit.
    assert not picture_problems(pair("flex:1 1 240pt;min-width:0"), 640)
    assert picture_problems(pair("flex:1 1 240pt"), 640)  # no min-width: may overflow
    fixed = pair("flex:1 1 240pt;min-width:0").replace('width="100%"', 'width="400pt"')
    assert picture_problems(fixed, 1200)
    assert pairs_in(pair("flex:1 1 0;min-width:0")) == 1


@pytest.mark.parametrize("encrypted", [True, False], ids=["lessons' kernel", "control"])
def test_the_kernel_runs_quietly(tmp_path, monkeypatch, encrypted):
    # What the kernel prints to its own stderr (a terminal, a CI log), besides the cells.
    lesson_kernel(tmp_path, monkeypatch)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    client = lesson_client(notebook, tmp_path, ENCRYPTED if encrypted else Config())
    log = tmp_path / "kernel-stderr.txt"
    with open(log, "w") as stderr, client.setup_kernel(stderr=stderr):
        client.execute_cell(notebook.cells[0], 0)
    assert notebook.cells[0].outputs[0]["text"] == "42\n"
    warned = UNENCRYPTED_WARNING in log.read_text()
    assert warned != encrypted, log.read_text()


def give_to_the_site(notebook, path: Path) -> None:
    """Store a lesson that ran cleanly in the course site's execution cache (the one
    docs/conf.py reads under MINIGRAD_FAST=1): it matches a notebook by its code, so the
    site's build (test_docs_site, run after this) shows these outputs instead of running
    the lesson again. Without jupyter-cache (no docs extra) there is no site to feed."""
    try:
        from jupyter_cache import get_cache
        from jupyter_cache.base import CacheBundleIn
    except ImportError:
        return
    executed = copy.deepcopy(notebook)
    for cell in executed.cells:  # the client's timings: not in the notebook the site reads
        cell.metadata.pop("execution", None)
    cache = get_cache(ROOT / "docs" / "_build" / ".jupyter_cache-fast")
    bundle = CacheBundleIn(executed, str(path), data={"executed_by": "test_lesson_runs"})
    cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)


def lesson_id(path: Path) -> str:
    return path.stem


@pytest.mark.notebooks
@pytest.mark.parametrize("path", LESSONS, ids=lesson_id)
def test_lesson_runs(path, monkeypatch, tmp_path):
    lesson_kernel(tmp_path, monkeypatch)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # inline plots, as in Jupyter and the site
    monkeypatch.setenv("MINIGRAD_FAST", "1")
    pythonpath = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), pythonpath])))

    notebook = nbformat.read(path, as_version=4)
    client = lesson_client(notebook, path.parent)
    # Run cell by cell so a failure can name the cell it happened in.
    failure = None
    log = tmp_path / "kernel-stderr.txt"
    with open(log, "w") as stderr, client.setup_kernel(stderr=stderr):
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code":
                continue
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as error:
                plain = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # drop terminal colours
                failure = f"{path.name}, cell {index}:\n{plain}"
                break
    if failure:  # outside the except block, so the report is the cell's error alone
        pytest.fail(failure, pytrace=False)
    assert UNENCRYPTED_WARNING not in log.read_text(), log.read_text()
    give_to_the_site(notebook, path)
    if path.name.startswith("13_"):  # the passes' before/after pictures, readable
        pairs = lesson13_pairs(notebook)
        assert len(pairs) >= 4, "lesson 13 drew fewer before/after pairs than its passes"
        for where, width in PAGE_WIDTHS.items():
            problems = [p for html in pairs for p in picture_problems(html, width)]
            assert not problems, f"{where} ({width} px): {problems}"


@pytest.mark.parametrize("path", LESSONS, ids=lesson_id)
def test_lesson_is_committed_clean(path):
    # Outputs belong to the student's run, not to the repository.
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    dirty = [
        index
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None)
    ]
    assert dirty == [], f"{path.name}: clear the outputs of cells {dirty}"


@pytest.mark.parametrize("path", LESSONS, ids=lesson_id)
def test_lesson_has_the_course_shape(path):
    notebook = nbformat.read(path, as_version=4)
    number = path.name[:2]
    first = notebook.cells[0]
    assert first.cell_type == "markdown"
    assert re.match(rf"# Lesson {number} · \S", first.source), first.source.splitlines()[0]
    markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "What you will build" in markdown
    last = notebook.cells[-1]
    assert last.cell_type == "markdown" and "Your turn" in last.source
    assert f"exercises/lesson{number}_" in last.source
