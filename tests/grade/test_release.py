"""What a teacher hands out: the student edition, safe regeneration, the
Gradescope bundle, and the feedback a student reads (issue 15)."""

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from minigrad.grade import check, grade, select
from minigrad.grade.generate import BEGIN, MANIFEST, ChangedFiles, generate, strip_solutions
from minigrad.grade.gradescope import bundle
from minigrad.grade.release import ReleaseError, answer_runs, find_leaks, release

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS, EXERCISE_DIR = ROOT / "solutions", ROOT / "exercises"


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    target = tmp_path_factory.mktemp("release") / "course"
    written = release(ROOT, target, git=shutil.which("git") is not None)
    return target, written


def test_the_student_edition_has_no_answers(edition):
    target, written = edition
    assert not (target / "solutions").exists()
    assert {p.parts[0] for p in written} >= {"minigrad", "lessons", "exercises", "tests"}
    assert (target / "setup.sh").is_file() and (target / "pyproject.toml").is_file()
    # No solution marker and no run of answer lines, in any file it holds.
    runs = {run for s in SOLUTIONS.glob("lesson*.py") for run in answer_runs(s.read_text())}
    assert runs, "the solutions have answer blocks to look for"
    for file in (p for p in target.rglob("*") if p.is_file() and ".git" not in p.parts):
        text = file.read_text(errors="replace")
        assert not [line for line in text.splitlines() if BEGIN.match(line)], file
        lines = [line.strip() for line in text.splitlines()]
        for run in runs:
            joined = "\n".join(run)
            assert joined not in "\n".join(lines), f"{file} holds {run}"
    assert find_leaks(target, SOLUTIONS) == []
    # Teachers' tests (they read solutions/) stay behind; the rest ship.
    assert not (target / "tests" / "grade" / "test_grade.py").exists()
    assert (target / "tests" / "scalar" / "test_value.py").is_file()
    readme = (target / "README.md").read_text()
    assert "solutions/" not in readme and "python -m minigrad.grade" in readme
    for notebook in (target / "lessons").glob("*.ipynb"):
        cells = json.loads(notebook.read_text())["cells"]
        assert all(not c.get("outputs") for c in cells if c["cell_type"] == "code")


def test_the_student_edition_is_a_fresh_repository(edition):
    target, _ = edition
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    log = _run(["git", "log", "--oneline"], target)
    assert log.returncode == 0 and len(log.stdout.splitlines()) == 1, log.stdout
    tracked = _run(["git", "ls-files"], target).stdout.split()
    assert "exercises/lesson01_derivatives.py" in tracked
    assert not [name for name in tracked if name.startswith("solutions/")]


def test_the_student_edition_grades_its_stubs_from_a_lesson_folder(edition):
    target, _ = edition
    results = target / "out" / "deep" / "results.json"  # --json makes the folders
    run = _run(
        [sys.executable, "-m", "minigrad.grade", "--exercise", "1", "--exercise", "4",
         "--json", str(results)],
        cwd=target / "lessons",
        PYTHONPATH=str(target),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    scores = json.loads(results.read_text())
    assert scores["score"] == 0 and len(scores["tests"]) == 4
    for test in scores["tests"]:
        number = test["name"].split()[0]
        assert f"NotImplementedError: Exercise {number}:" in test["output"], test["output"]
    assert str(target / "exercises") in run.stdout or "total" in run.stdout


def test_release_refuses_a_folder_with_files(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(ReleaseError, match="not empty"):
        release(ROOT, tmp_path)
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_generate_refuses_to_overwrite_work_and_force_keeps_a_backup(tmp_path):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    shutil.copytree(SOLUTIONS, solutions)
    assert generate(solutions, exercises) == sorted(p.name for p in solutions.glob("*.py"))
    assert (exercises / MANIFEST).is_file()
    answer = exercises / "lesson01_derivatives.py"
    answer.write_text(answer.read_text() + "\n# my answer\n")
    untouched = exercises / "lesson04_broadcasting.py"
    # The teacher edits two solutions: one file is someone's work, one is not.
    for name in ("lesson01_derivatives.py", "lesson04_broadcasting.py"):
        (solutions / name).write_text((solutions / name).read_text() + "\n# edited\n")
    with pytest.raises(ChangedFiles) as refused:
        generate(solutions, exercises)
    assert refused.value.names == ["lesson01_derivatives.py"]
    assert answer.read_text().endswith("# my answer\n")  # nothing was written
    assert not untouched.read_text().endswith("# edited\n")

    cli = _run(
        [sys.executable, "-m", "minigrad.grade.generate", "--solutions", str(solutions),
         "--exercises", str(exercises)],
        cwd=tmp_path,
        PYTHONPATH=str(ROOT),
    )  # fmt: skip
    assert cli.returncode == 1 and "lesson01_derivatives.py" in cli.stderr
    assert "Traceback" not in cli.stderr and "--force" in cli.stderr

    generate(solutions, exercises, force=True)
    (backup,) = (exercises / ".backup").iterdir()
    assert (backup / "lesson01_derivatives.py").read_text().endswith("# my answer\n")
    assert answer.read_text() == strip_solutions((solutions / answer.name).read_text())
    assert untouched.read_text().endswith("# edited\n")


def test_the_committed_exercises_match_their_recorded_hashes():
    recorded = json.loads((EXERCISE_DIR / MANIFEST).read_text())
    assert sorted(recorded) == sorted(p.name for p in SOLUTIONS.glob("lesson*.py"))
    assert generate(SOLUTIONS, EXERCISE_DIR, check=True) == []


def test_the_gradescope_bundle_grades_a_submission_end_to_end(tmp_path):
    zipped = tmp_path / "bundle" / "autograder.zip"
    bundle(ROOT, zipped, timeout=20)
    root = tmp_path / "autograder"
    with zipfile.ZipFile(zipped) as archive:
        names = archive.namelist()
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
        archive.extractall(root / "source")
    assert {"setup.sh", "run_autograder", "pyproject.toml"} <= set(names)
    assert all(modes[n] & stat.S_IXUSR for n in ("setup.sh", "run_autograder"))
    assert not [n for n in names if n.startswith("solutions/") or "exercises/" in n]
    assert _run(["bash", "-n", str(root / "source" / "setup.sh")], tmp_path).returncode == 0
    # A student's upload: their whole exercises/ folder, lesson 01 done, lesson 02 not.
    upload = root / "submission" / "exercises"
    upload.mkdir(parents=True)
    shutil.copy(SOLUTIONS / "lesson01_derivatives.py", upload)
    shutil.copy(EXERCISE_DIR / "lesson02_graphs.py", upload)
    (root / "source" / "run_autograder").chmod(0o755)
    run = _run(
        ["bash", str(root / "source" / "run_autograder"), "--exercise", "1", "--exercise", "2"],
        cwd=tmp_path,
        AUTOGRADER_ROOT=str(root),
        MINIGRAD_PYTHON=sys.executable,
    )
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    scores = {t["name"]: (t["score"], t["max_score"]) for t in results["tests"]}
    assert scores["1.1 numerical_derivative"] == (5, 5)
    assert scores["1.2 numerical_gradient"] == (5, 5)
    assert [s[0] for name, s in scores.items() if name.startswith("2.")] == [0, 0]
    assert results["score"] == 10
    assert results["execution_time"] > 0 and results["visibility"] == "visible"
    assert all(t["visibility"] == "visible" for t in results["tests"])


def test_feedback_names_each_value_and_gives_each_hint_once(tmp_path):
    (result,) = grade(EXERCISE_DIR, select(["5.2"])).exercises
    details = result.details()
    hint = "grad_a = g @ b^T and grad_b = a^T @ g"
    assert details.count(hint) == 1, details
    assert "Hint (lesson 05)" not in details  # the stub's error already reads it out
    # A wrong answer: the value that is wrong is named, not numbered.
    wrong = (SOLUTIONS / "lesson05_vjps.py").read_text()
    right = "return sum_to(grad_a, a.shape), sum_to(grad_b, b.shape)"
    assert right in wrong
    wrong = wrong.replace(right, "return sum_to(grad_a, a.shape), 2 * sum_to(grad_b, b.shape)")
    (tmp_path / "lesson05_vjps.py").write_text(wrong)
    (result,) = grade(tmp_path, select(["5.2"])).exercises
    details = result.details()
    assert "grad_b: expected" in details and "result 1" not in details, details
    assert details.count("Hint (lesson 05)") == 1, details


def test_check_in_a_notebook_shows_one_report(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    from traitlets.config import Config

    spec = tmp_path / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "language": "python", "metadata": {"supported_encryption": ["curve"]}}
    (spec / "kernel.json").write_text(json.dumps(kernel))
    code = f"import minigrad.grade\nminigrad.grade.check('1.2', directory={str(SOLUTIONS)!r})"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    env = {"JUPYTER_PATH": str(tmp_path), "PYTHONPATH": str(ROOT)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        # Encrypted, as the lessons' kernels are (no "running over TCP without encryption").
        encrypted = Config({"KernelManager": {"transport_encryption": "required"}})
        nbclient.NotebookClient(
            notebook, timeout=120, kernel_name="python3", config=encrypted
        ).execute()
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    outputs = notebook.cells[0].outputs
    shown = [o for o in outputs if o.output_type in ("display_data", "execute_result")]
    assert len(shown) == 1, outputs
    assert "1.2 numerical_gradient" in shown[0]["data"]["text/html"]
    # The report check() returns still shows itself when asked again.
    report = check("1.2", directory=SOLUTIONS)
    assert report.shown is False and "<table>" in report.to_html()


def test_the_student_edition_holds_no_references_and_grades_with_stored_answers(edition):
    """Issue 21: the grader's answer key stays behind; the edition grades the inputs whose
    answers release stored (seed 0) exactly as the teacher's course does."""
    target, _ = edition
    assert not (target / "minigrad" / "grade" / "references.py").exists()
    assert (target / "minigrad" / "grade" / "answers.json").is_file()
    picked = ["3.1", "4.2", "5.2", "12.1", "12.2", "13.1", "13.2", "13.3", "14.3"]
    command = [sys.executable, "-m", "minigrad.grade", str(SOLUTIONS), "--json"]
    for seed, json_name in ((None, "stored.json"), (7, "fresh.json")):
        args = [*command, str(target / json_name)]
        args += [arg for number in picked for arg in ("--exercise", number)]
        args += ["--seed", str(seed)] if seed is not None else []
        run = _run(args, cwd=target, PYTHONPATH=str(target))
        assert run.returncode == 0, run.stderr
    stored = json.loads((target / "stored.json").read_text())
    assert [t["name"].split()[0] for t in stored["tests"]] == picked
    assert all(t["score"] == t["max_score"] > 0 for t in stored["tests"]), stored
    # Other inputs have no stored answer: those checks fail, saying why.
    fresh = json.loads((target / "fresh.json").read_text())
    assert all(t["score"] < t["max_score"] for t in fresh["tests"])
    assert all("stores the expected answers" in t["output"] for t in fresh["tests"])


def test_batch_sum_allows_a_negative_bdim_and_its_feedback_shows_the_call():
    """Issue 21: 14.1's checks pass bdim=-1; its docstring says so, and each check names bdim."""
    (exercise,) = select(["14.1"])
    checks = exercise.make_checks(np.random.default_rng(0))
    assert all("bdim=" in check.name and "axis=" in check.name for check in checks)
    assert any(check.args["bdim"] is not None and check.args["bdim"] < 0 for check in checks)
    text = " ".join((EXERCISE_DIR / "lesson14_vmap.py").read_text().split())
    assert "``bdim`` may be negative, counting from the end of ``x``'s axes" in text


def test_an_edge_check_alone_scores_nothing(tmp_path):
    """A function that hands its input back passes 13.3's "nothing to fold" case, and 4.2's
    same-shape case: those count only beside a check of the general case (issue 21)."""
    stub = (EXERCISE_DIR / "lesson13_static_graphs.py").read_text()
    (tmp_path / "lesson13_static_graphs.py").write_text(
        stub + "\n\ndef fold_constants(program):\n    return list(program)\n"
    )
    (result,) = grade(tmp_path, select(["13.3"]), seed=0).exercises
    assert result.score == 0
    assert "counts once a check of the general case passes" in result.details()
    (result,) = grade(SOLUTIONS, select(["13.3"]), seed=0).exercises
    assert result.score == result.max_score
