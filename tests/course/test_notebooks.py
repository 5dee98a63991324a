"""The lesson notebooks run top to bottom, and are committed clean.

Each ``lessons/*.ipynb`` is one test (marked ``notebooks``; deselect with
``-m "not notebooks"``). The kernel is a ``python3`` kernel pinned to the
interpreter running the tests (a user-level ``python3`` kernelspec pointing
elsewhere is ignored), started in ``lessons/`` with:

- ``MPLBACKEND=Agg``: plots draw off screen;
- ``MINIGRAD_FAST=1``: lessons read it to shrink training loops under test;
- the repository root on ``PYTHONPATH``: the lessons import this checkout's minigrad.

The kernel's messages travel encrypted (CurveZMQ keys made by the kernel
manager, ``ENCRYPTED``): an unencrypted kernel prints "Kernel is running over
TCP without encryption" on every run, a warning nobody running a lesson caused.
"""

import json
import os
import re
import sys
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


def lesson_id(path: Path) -> str:
    return path.stem


@pytest.mark.notebooks
@pytest.mark.parametrize("path", LESSONS, ids=lesson_id)
def test_lesson_runs(path, monkeypatch, tmp_path):
    lesson_kernel(tmp_path, monkeypatch)
    monkeypatch.setenv("MPLBACKEND", "Agg")
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
