"""The autograder: solutions score full marks, stubs score zero, and no submission
can hang, crash, forge or patch its way past its own exercise (issue 7)."""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from minigrad.grade import EXERCISES, check, find_exercises, grade, select
from minigrad.grade.channel import NotPlainData, decode, encode, message, read_messages
from minigrad.grade.generate import BEGIN, END, strip_solutions
from minigrad.grade.report import Report

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS, EXERCISE_DIR = ROOT / "solutions", ROOT / "exercises"
FIXTURES = Path(__file__).parent / "grade_fixtures"
FULL_SET_SECONDS = 120
# The CLI runs from other folders too: make sure it imports this checkout.
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
}


@pytest.fixture(scope="module")
def solutions_report():
    start = time.monotonic()
    report = grade(SOLUTIONS, EXERCISES)
    return report, time.monotonic() - start


def test_the_exercise_set_covers_every_lesson():
    assert len(EXERCISES) >= 15
    assert {ex.lesson for ex in EXERCISES} >= set(range(1, 12))
    for ex in EXERCISES:
        assert (SOLUTIONS / ex.file).is_file(), ex.title
        assert len(ex.make_checks(np.random.default_rng(0))) >= 4, ex.title


@pytest.mark.parametrize("title", [ex.title for ex in EXERCISES])
def test_solutions_score_full_marks(solutions_report, title):
    report, _ = solutions_report
    (result,) = [r for r in report.exercises if r.exercise.title == title]
    assert result.score == result.max_score > 0, result.details()


def test_grading_the_full_set_takes_under_two_minutes(solutions_report):
    _, seconds = solutions_report
    print(f"full set graded in {seconds:.1f} s")
    assert seconds < FULL_SET_SECONDS


def test_generated_exercises_score_zero_and_the_cli_exits_0(tmp_path):
    results = tmp_path / "results.json"
    run = subprocess.run(
        [sys.executable, "-m", "minigrad.grade", str(EXERCISE_DIR), "--json", str(results)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=FULL_SET_SECONDS,
    )
    assert run.returncode == 0, run.stderr
    assert "total" in run.stdout
    gradescope = json.loads(results.read_text())
    assert gradescope["score"] == 0
    assert len(gradescope["tests"]) == len(EXERCISES)
    for test in gradescope["tests"]:
        assert test["score"] == 0 and test["max_score"] > 0
        number = test["name"].split()[0]
        # Each stub ran and raised its own message: the grader did not fail instead.
        # (The CUDA simulator puts the thread's coordinates before the message.)
        stub = rf"NotImplementedError: (tid=.*?: )?Exercise {re.escape(number)}:"
        assert re.search(stub, test["output"]), test["output"]
        # The stub's error carries the hint, so the table does not repeat it.
        assert f"(lesson {int(number.split('.')[0]):02d})" in test["output"]
        assert "Hint (lesson" not in test["output"], test["output"]


def test_exercises_are_generated_from_solutions_without_drift():
    names = sorted(p.name for p in SOLUTIONS.glob("lesson*.py"))
    assert names == sorted(p.name for p in EXERCISE_DIR.glob("lesson*.py"))
    for name in names:
        expected = strip_solutions((SOLUTIONS / name).read_text())
        assert (EXERCISE_DIR / name).read_text() == expected, (
            f"exercises/{name} drifted: run python -m minigrad.grade.generate"
        )


def _split_solution(text: str) -> tuple[list[list[str]], set[str]]:
    """The solution blocks' lines, and the lines outside every block (stripped)."""
    blocks, outside, current = [], set(), None
    for line in text.splitlines():
        if BEGIN.match(line):
            current = []
        elif END.match(line):
            blocks.append(current)
            current = None
        elif current is not None:
            current.append(line.strip())
        else:
            outside.add(line.strip())
    return blocks, outside


def test_no_answer_text_leaks_into_exercises():
    for solution in SOLUTIONS.glob("lesson*.py"):
        blocks, outside = _split_solution(solution.read_text())
        assert blocks, f"{solution.name} has no solution block"
        exercise = {
            line.strip() for line in (EXERCISE_DIR / solution.name).read_text().splitlines()
        }
        assert "# BEGIN SOLUTION" not in exercise and "# END SOLUTION" not in exercise
        for block in blocks:
            # Lines that also stand outside any block (given code) may appear; none other.
            secret = {line for line in block if len(line) > 12 and not line.startswith("#")}
            leaked = (secret - outside) & exercise
            assert not leaked, f"{solution.name} leaks {leaked}"


def test_the_generator_refuses_malformed_markers():
    body = 'def f(x):\n    """Exercise 0.1: x.\n\n    Hint (lesson 00): h.\n    """\n'
    with pytest.raises(ValueError, match="without END"):
        strip_solutions(body + "    # BEGIN SOLUTION\n    return x\n")
    with pytest.raises(ValueError, match="without BEGIN"):
        strip_solutions(body + "    return x\n    # END SOLUTION\n")
    class_level = 'class C:\n    """Exercise 0.2: c.\n\n    Hint (lesson 00): h.\n    """\n\n'
    with pytest.raises(ValueError, match="function body"):
        strip_solutions(class_level + "    # BEGIN SOLUTION\n    x = 1\n    # END SOLUTION\n")
    stub = strip_solutions(body + "    # BEGIN SOLUTION\n    return x\n    # END SOLUTION\n")
    assert 'raise NotImplementedError("Exercise 0.1: h. (lesson 00)")' in stub
    assert "return x" not in stub
    ast.parse(stub)


def _evil_folder(tmp_path: Path, fixture: str) -> Path:
    """A submission: solutions, except that exercise 1.1 is the evil fixture's (if any)."""
    folder = tmp_path / "submission"
    folder.mkdir()
    shutil.copy(SOLUTIONS / "lesson02_graphs.py", folder)
    solution = (SOLUTIONS / "lesson01_derivatives.py").read_text()
    gradient = next(
        ast.get_source_segment(solution, node)
        for node in ast.parse(solution).body
        if isinstance(node, ast.FunctionDef) and node.name == "numerical_gradient"
    )
    evil = (FIXTURES / f"{fixture}.py").read_text() if fixture else ""
    header = "from collections.abc import Callable\n\nimport numpy as np\n\n"
    (folder / "lesson01_derivatives.py").write_text(evil + "\n\n" + header + gradient + "\n")
    return folder


# fixture -> what the report must say about exercise 1.1
EVIL = {
    "hang": "timed out after 4 s",
    "flood": "timed out after 4 s",
    "sys_exit": "SystemExit: 0",
    "os_exit": "ended early (exit status 0)",
    "crash": "killed by SIGSEGV",
    "forge": "",
    "patch": "returned an object of type AlwaysEqual",
}


@pytest.mark.parametrize("fixture", list(EVIL))
def test_an_evil_exercise_loses_only_its_own_points(sandboxed, tmp_path, fixture):
    pidfile = tmp_path / "grandchild.pid"
    folder = _evil_folder(tmp_path, fixture)
    results = tmp_path / "results.json"
    start = time.monotonic()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "minigrad.grade",
            str(folder),
            "--timeout",
            "4",
            "--exercise",
            "1.1",
            "--exercise",
            "1.2",
            "--exercise",
            "2.2",
            "--json",
            str(results),
        ],
        cwd=tmp_path,
        env={**ENV, "MINIGRAD_TEST_PIDFILE": str(pidfile)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert time.monotonic() - start < 30
    scores = {
        t["name"]: (t["score"], t["max_score"]) for t in json.loads(results.read_text())["tests"]
    }
    assert scores["1.1 numerical_derivative"] == (0, 5)
    assert scores["1.2 numerical_gradient"] == (5, 5)
    assert scores["2.2 topological_order"] == (5, 5)
    assert json.loads(results.read_text())["score"] == 10
    assert re.search(r"total\s+10/15", run.stdout)
    assert EVIL[fixture] in run.stdout
    if fixture == "hang":
        assert "grandchild started" in run.stdout  # killed with its sandbox: see the attacks


def test_channel_accepts_only_plain_data():
    assert decode(json.loads(json.dumps(encode({"a": (1, 2.5), "b": np.eye(2)}))))["a"] == [1, 2.5]
    for forged in [
        {"__ndarray__": "AAAAAAAA8D8=", "shape": [3]},
        {"__ndarray__": ["1"], "shape": [1]},
        {"__ndarray__": "AAAAAAAA8D8=", "shape": [1], "passed": True},
    ]:
        with pytest.raises(NotPlainData):
            decode(forged)

    class Sneaky(float):
        def __eq__(self, other):
            return True

    for output in [Sneaky(1.0), object(), np.array(["text"]), {1: 2}]:
        with pytest.raises(NotPlainData):
            encode(output)


def test_channel_keeps_the_first_message_with_the_right_token():
    raw = b"".join(
        [
            b"garbage\n",
            message(0, output=1.0),
            message(0, output=2.0),
            message(7, output=3.0),
            b'{"check": 1, "output": 1.0, "error": "both"}\n',
        ]
    )
    assert read_messages(raw, 2) == {0: {"output": 1.0}}


def test_select_and_find_exercises(tmp_path):
    assert [ex.title for ex in select(["numerical_derivative"])] == ["1.1 numerical_derivative"]
    assert {ex.number for ex in select(["5"])} == {"5.1", "5.2"}
    with pytest.raises(ValueError, match="no exercise called"):
        select(["nope"])
    (tmp_path / "exercises").mkdir()
    (tmp_path / "lessons").mkdir()
    assert find_exercises(tmp_path / "lessons") == (tmp_path / "exercises").resolve()


def test_check_grades_one_exercise_and_prints_the_table(capsys):
    report = check("1.2", directory=SOLUTIONS)
    assert isinstance(report, Report)
    assert report.score == report.max_score == 5
    assert "1.2 numerical_gradient" in capsys.readouterr().out
    assert "1.2 numerical_gradient" in report.to_html()


def test_the_cli_fails_only_when_it_cannot_grade(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "minigrad.grade", str(tmp_path / "missing")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0 and "no folder" in run.stderr
    empty = subprocess.run(
        [sys.executable, "-m", "minigrad.grade", str(tmp_path), "--exercise", "4.1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert empty.returncode == 0 and "not found" in empty.stdout


def test_checks_earn_partial_credit(tmp_path):
    shutil.copy(FIXTURES / "recursive_topo.py", tmp_path / "lesson02_graphs.py")
    (result,) = grade(tmp_path, select(["2.2"])).exercises
    failed = [c for c in result.checks if not c.passed]
    assert result.score == result.max_score - 1
    assert [c.name for c in failed] == ["a chain of 20,000 nodes (no recursion)"]
    # Read from the source (a submission cannot patch that): visit calls itself.
    assert "calls itself" in failed[0].problem


LAUNCHERS = {
    # Values alone do not show that a kernel ran: NumPy's a * x + y has them too.
    "NumPy only": "    return a * x + y\n",
    "one thread per block": (
        "    d_out = cuda.device_array(x.size)\n"
        "    axpy_kernel[x.size, 1](a, cuda.to_device(x), cuda.to_device(y), d_out)\n"
        "    return d_out.copy_to_host()\n"
    ),
}


@pytest.mark.parametrize("launcher", LAUNCHERS, ids=list(LAUNCHERS))
def test_the_axpy_launcher_must_launch_the_kernel(tmp_path, launcher):
    solution = (SOLUTIONS / "lesson11_cuda.py").read_text()
    (tmp_path / "lesson11_cuda.py").write_text(solution)
    (result,) = grade(tmp_path, select(["11.1"])).exercises
    assert result.score == result.max_score, result.details()
    # The last definition is the one Python runs, and the one graded.
    replaced = f"\n\ndef axpy(a, x, y, threads_per_block=128):\n{LAUNCHERS[launcher]}"
    (tmp_path / "lesson11_cuda.py").write_text(solution + replaced)
    (result,) = grade(tmp_path, select(["11.1"])).exercises
    failed = {c.name: c.problem for c in result.checks if not c.passed}
    assert sorted(failed) == sorted(c.name for c in result.checks if c.name.startswith("axpy:"))
    why = "did not launch" if launcher == "NumPy only" else "threads per block"
    assert all(why in problem for problem in failed.values()), failed
