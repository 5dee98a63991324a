"""Submissions written to attack the grader (issues 16 and 20): each loses only its own
points, the grader always finishes and writes its results, and the machine is left as it was.

Every test here hands the grader hostile code, so every test takes the
``sandboxed`` fixture (``conftest.py``): it runs only where the grader's
sandbox engages, and is skipped with the reason elsewhere (CI fails instead).
No test changes the permissions of anything it did not create.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from test_grade import _evil_folder

from minigrad.grade import grade, select
from minigrad.grade.sandbox import Limits

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
FIXTURES = Path(__file__).parent / "grade_fixtures"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _submission(tmp_path: Path, fixture: str) -> Path:
    """Solutions, except that exercise 1.1 is the fixture's code; readable by the grading user."""
    folder = _evil_folder(tmp_path, fixture)
    folder.chmod(0o755)
    return folder


def _cli(
    folder: Path,
    tmp_path: Path,
    *extra: str,
    cwd: Path | None = None,
    env: dict | None = None,
    flags: tuple = ("-P",),
) -> tuple:
    """Run the grader's command line; (scores by title, stdout, seconds, peak memory in MiB)."""
    results = tmp_path / "results.json"
    command = [sys.executable, *flags, "-m", "minigrad.grade", str(folder), "--json", str(results)]
    start = time.monotonic()
    with subprocess.Popen(
        [*command, "--exercise", "1.1", "--exercise", "1.2", "--exercise", "2.2", *extra],
        cwd=cwd or tmp_path,
        env={**ENV, "MINIGRAD_TEST_RESULTS": str(results), **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as run:
        # The grader's own peak (VmHWM of its process), read until it exits: the
        # rusage of wait4 would also count the children it reaped (the submission).
        output: list[str] = []
        reader = threading.Thread(target=lambda: output.append(run.stdout.read()))
        reader.start()
        peak_kb = 0
        status_file = Path(f"/proc/{run.pid}/status")
        while run.poll() is None:
            try:
                for line in status_file.read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak_kb = max(peak_kb, int(line.split()[1]))
            except (OSError, ValueError):
                pass
            time.sleep(0.01)
        reader.join()
        stdout = output[0]
    seconds = time.monotonic() - start
    assert run.returncode == 0, stdout
    tests = json.loads(results.read_text())["tests"]
    scores = {t["name"].split()[0]: (t["score"], t["max_score"]) for t in tests}
    return scores, stdout, seconds, peak_kb / 1024


def _only_the_attacker_loses(scores: dict) -> None:
    assert scores == {"1.1": (0, 5), "1.2": (5, 5), "2.2": (5, 5)}


# fixture -> what the report must say about exercise 1.1 (None: only its score counts)
ATTACKS = {
    "forge": "No module named 'minigrad.grade.checks'",  # not in the child's view
    "import_solutions": "No module named 'solutions",
    "debugger": "Operation not permitted",
    "edit_grader": "Read-only file system",
    "kill_parent": None,  # its parent is the sandbox's process 1: the signals do nothing
    "big_int": "an integer beyond 64 bits came back",
    "replace_folder": None,
    "escape": "escaped",
    "peek": None,
    "fill_tmp": "full:",
    "terminal": None,
}


@pytest.mark.parametrize("fixture", list(ATTACKS))
def test_an_attack_loses_only_its_own_points(sandboxed, tmp_path, fixture):
    folder = _submission(tmp_path, fixture)
    canary = tmp_path / "canary"
    canary.write_text("the machine's own file")
    scores, stdout, _, _ = _cli(
        folder, tmp_path, "--timeout", "8", env={"PEEK_PATHS": f"{canary}:{SOLUTIONS}:{ROOT}"}
    )
    _only_the_attacker_loses(scores)
    if ATTACKS[fixture]:
        assert ATTACKS[fixture] in stdout
    assert "FOUND" not in stdout  # peek: nothing it must not see or do
    assert "\x1b" not in stdout and "\x07" not in stdout  # terminal: no control sequence shown
    assert canary.read_text() == "the machine's own file"
    assert Path("/etc/passwd").is_file() and (ROOT / "solutions").is_dir()
    if fixture == "escape":
        time.sleep(4)  # the escaped process would rewrite results.json by now
        assert json.loads((tmp_path / "results.json").read_text())["score"] == 10
    if fixture == "edit_grader":
        assert "close = lambda" not in (ROOT / "minigrad/grade/spec.py").read_text()


def _processes_with(token: str) -> list[int]:
    """Pids on this machine whose command line holds ``token`` (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and token.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def test_a_hung_child_and_its_grandchild_are_killed(sandboxed, tmp_path):
    folder = _submission(tmp_path, "hang")
    token = f"minigrad-grandchild-{uuid.uuid4().hex}"
    file = folder / "lesson01_derivatives.py"
    file.write_text(file.read_text().replace("GRANDCHILD_TOKEN", token))
    scores, stdout, _, _ = _cli(folder, tmp_path, "--timeout", "4")
    _only_the_attacker_loses(scores)
    assert "timed out after 4 s" in stdout and "grandchild started" in stdout
    assert not _processes_with(token)


def test_a_32_mb_reply_costs_little_memory_and_time(sandboxed, tmp_path):
    folder = _submission(tmp_path, "big_reply")
    scores, stdout, seconds, peak = _cli(folder, tmp_path, "--timeout", "10")
    _only_the_attacker_loses(scores)
    print(f"32 MB reply: grader peak {peak:.0f} MiB, {seconds:.1f} s")
    assert "MiB of output back" in stdout
    assert peak < 200 and seconds < 10


def test_a_deep_expression_is_not_parsed_to_death(sandboxed, tmp_path):
    folder = _submission(tmp_path, "")
    file = folder / "lesson01_derivatives.py"
    file.write_text("DEEP = " + "1 + " * 200_000 + "1\n" + file.read_text())
    scores, _stdout, _, _ = _cli(folder, tmp_path, "--timeout", "8")
    assert scores["1.2"] == (0, 5) and scores["2.2"] == (5, 5)  # the file itself cannot compile


def test_a_module_shadowing_the_standard_library_fools_only_its_own_child(sandboxed, tmp_path):
    folder = _submission(tmp_path, "")
    shutil.copy(FIXTURES / "secrets.py", folder / "secrets.py")
    (folder / "lesson01_derivatives.py").write_text(
        "import secrets\n\nsecrets.token_hex(4)\n"
        + (folder / "lesson01_derivatives.py").read_text()
    )
    # Started inside the submission's folder: with -P that folder is not on the grader's path.
    scores, stdout, _, _ = _cli(folder, tmp_path, "--timeout", "8", cwd=folder)
    # The child loads minigrad and NumPy (which imports secrets) before the
    # submission's folder joins its path, so the file shadows nothing: the
    # honest answer in the same file (1.2) keeps its points.
    assert scores == {"1.1": (0, 5), "1.2": (5, 5), "2.2": (5, 5)}
    assert "SHADOWED secrets imported" not in stdout


@pytest.mark.parametrize("bomb", ["fork_bomb", "memory_bomb"])
def test_bombs_stay_inside_their_limits(sandboxed, tmp_path, bomb):
    folder = _submission(tmp_path, bomb)
    limits = Limits(memory=2 * 2**30, processes=48)
    report = grade(folder, select(["1.1", "1.2", "2.2"]), timeout=20, jobs=2, limits=limits)
    scores = {r.exercise.number: (r.score, r.max_score) for r in report.exercises}
    _only_the_attacker_loses(scores)


def test_properties_the_child_could_fake_are_read_from_the_source(sandboxed, tmp_path):
    shutil.copy(FIXTURES / "tracker_patch.py", tmp_path / "lesson09_checkpoint.py")
    # micrograd's recursive walk, with the recursion limit raised so that it passes at run time
    recursive = (FIXTURES / "recursive_topo.py").read_text()
    raised = "import sys\n\nsys.setrecursionlimit(1_000_000)\n\n"
    (tmp_path / "lesson02_graphs.py").write_text(raised + recursive)
    report = grade(tmp_path, select(["9.1", "2.2"]), timeout=20)
    results = {r.exercise.number: r for r in report.exercises}
    failed = {n: [c.name for c in r.checks if not c.passed] for n, r in results.items()}
    assert results["9.1"].score == 4 and all("segments:" in name for name in failed["9.1"])
    assert "tracker" in results["9.1"].checks[-1].problem
    assert failed["2.2"] == ["a chain of 20,000 nodes (no recursion)"]
    assert "visit calls itself" in results["2.2"].checks[-1].problem


def test_a_library_shortcut_scores_zero_and_says_so(sandboxed, tmp_path):
    shutil.copy(FIXTURES / "shortcut_topo.py", tmp_path / "lesson02_graphs.py")
    (result,) = grade(tmp_path, select(["2.2"])).exercises
    assert result.score == 0
    assert "calls minigrad's own topological_order" in result.checks[0].problem


def test_honest_exercises_keep_full_points_beside_every_attack(sandboxed, tmp_path):
    folder = tmp_path / "mixed"
    shutil.copytree(SOLUTIONS, folder)
    folder.chmod(0o755)
    shutil.copy(FIXTURES / "tracker_patch.py", folder / "lesson09_checkpoint.py")
    graphs = (folder / "lesson02_graphs.py").read_text()
    shortcut = (FIXTURES / "shortcut_topo.py").read_text()
    (folder / "lesson02_graphs.py").write_text(graphs + "\n\n" + shortcut)  # replaces 2.2 only
    attacks = ["kill_parent", "fork_bomb", "escape", "big_reply"]
    text = "\n\n".join((FIXTURES / f"{name}.py").read_text() for name in attacks)
    lesson01 = (folder / "lesson01_derivatives.py").read_text()
    (folder / "lesson01_derivatives.py").write_text(lesson01 + "\n\n" + text)  # last 1.1 wins
    start = time.monotonic()
    # 128: the CUDA simulator runs a thread per simulated thread (11.2: 64 a block).
    report = grade(folder, select(), timeout=20, limits=Limits(processes=128))
    seconds = time.monotonic() - start
    print(f"all exercises with attacks mixed in: {seconds:.1f} s")
    attacked = {"1.1", "2.2", "9.1"}
    for result in report.exercises:
        if result.exercise.number not in attacked:
            assert result.score == result.max_score, result.details()
    assert report.exercises[0].score == 0


def test_every_solution_scores_full_marks_in_the_sandbox(sandboxed):
    start = time.monotonic()
    report = grade(SOLUTIONS, select())
    seconds = time.monotonic() - start
    print(f"every solution graded in {seconds:.1f} s")
    failed = [r.details() for r in report.exercises if r.score < r.max_score]
    assert not failed, failed
