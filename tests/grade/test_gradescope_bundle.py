"""The Gradescope bundle on a clean image (issue 21).

What Gradescope does, from scratch, in a folder of its own: unzip the bundle
into ``$AUTOGRADER_ROOT/source``, run its ``setup.sh`` (a fresh virtual
environment made by the system's Python, no CUDA library anywhere on the
library path, nothing from this checkout's environment), then
``run_autograder`` on a submission. The teacher's solutions/ score full marks
(11.x included, on numba's CUDA simulator), the stubs score zero, and a
one-lesson bundle (``gradescope OUT.zip --exercise 13``) grades that lesson
alone, run the way the README's local recipe runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from minigrad.grade import EXERCISES

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS, EXERCISE_DIR = ROOT / "solutions", ROOT / "exercises"
SYSTEM_PYTHON = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}"

pytestmark = pytest.mark.slow


def _clean_env(root: Path, home: Path) -> dict[str, str]:
    """A bare environment: the system's PATH, pip's own settings, no CUDA, no PYTHONPATH."""
    env = {
        "PATH": os.pathsep.join([str(SYSTEM_PYTHON.parent), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "AUTOGRADER_ROOT": str(root),
        "AUTOGRADER_PYTHON": str(SYSTEM_PYTHON),
        "LD_LIBRARY_PATH": "",
    }
    # Where packages come from is the machine's business (a mirror, a wheel folder).
    env.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})
    return env


def _unzip(zipped: Path, root: Path) -> None:
    with zipfile.ZipFile(zipped) as archive:
        for info in archive.infolist():
            archive.extract(info, root / "source")
            mode = info.external_attr >> 16
            if mode:
                (root / "source" / info.filename).chmod(mode & 0o777)


def _grade(root: Path, env: dict, upload: Path, cwd: Path, **extra: str) -> dict:
    submission = root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    shutil.copytree(upload, submission / "exercises", ignore=shutil.ignore_patterns(".*"))
    results = root / "results" / "results.json"
    results.unlink(missing_ok=True)
    run = subprocess.run(
        [str(root / "source" / "run_autograder")],
        cwd=cwd,
        env={**env, **extra},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return json.loads(results.read_text())


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    """The full bundle, unzipped and set up from scratch: (root, env)."""
    if not SYSTEM_PYTHON.is_file():
        pytest.fail(f"no system Python at {SYSTEM_PYTHON} to build the image with")
    base = tmp_path_factory.mktemp("gradescope")
    root = base / "autograder"
    zipped = base / "autograder.zip"
    made = subprocess.run(
        [sys.executable, "-m", "minigrad.grade", "gradescope", str(zipped), "--timeout", "120"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    _unzip(zipped, root)
    env = _clean_env(root, base / "home")
    setup = subprocess.run(
        ["bash", str(root / "source" / "setup.sh")],
        cwd=base,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
    return root, env


def test_setup_makes_its_venv_under_autograder_root_without_cuda_libraries(image):
    root, env = image
    python = root / "venv" / "bin" / "python"
    assert python.is_file()
    installed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    names = {p["name"].lower() for p in json.loads(installed.stdout)}
    assert "minigrad" in names and "numba" in names
    assert not [n for n in names if n.startswith(("numba-cuda", "nvidia-", "cuda-"))], names
    # A kernel runs on the simulator, and no CUDA library was loaded to run it
    # (even on a machine that has one installed).
    code = (
        "from numba import cuda\nimport numpy as np\n"
        "@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] += 1\n"
        "a = np.zeros(4)\nk[1, 4](a)\nassert a.tolist() == [1, 1, 1, 1]\n"
        "import minigrad.grade\n"
        "maps = open('/proc/self/maps').read()\n"
        "print(sorted({line.split('/')[-1] for line in maps.splitlines() if 'cuda' in line}))"
    )
    probe = subprocess.run(
        [str(python), "-c", code],
        env={**env, "NUMBA_ENABLE_CUDASIM": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "[]", probe.stdout


def test_solutions_score_full_marks_and_stubs_zero(image, tmp_path):
    root, env = image
    results = _grade(root, env, SOLUTIONS, tmp_path)
    scores = {t["name"]: (t["score"], t["max_score"]) for t in results["tests"]}
    assert len(scores) == len(EXERCISES)
    assert {name: s for name, s in scores.items() if s[0] != s[1]} == {}
    assert any(name.startswith("11.") for name in scores)
    assert results["score"] == sum(s[1] for s in scores.values()) > 0
    stubs = _grade(root, env, EXERCISE_DIR, tmp_path)
    assert stubs["score"] == 0 and all(t["score"] == 0 for t in stubs["tests"])


def test_a_one_lesson_bundle_grades_that_lesson_run_as_the_readme_says(image, tmp_path):
    root, env = image
    zipped = tmp_path / "lesson13.zip"
    made = subprocess.run(
        [sys.executable, "-m", "minigrad.grade", "gradescope", str(zipped), "--exercise", "13"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    lesson = tmp_path / "autograder"
    _unzip(zipped, lesson)
    # The student uploads one file.
    upload = tmp_path / "upload"
    upload.mkdir()
    shutil.copy(SOLUTIONS / "lesson13_static_graphs.py", upload)
    # The README's local recipe: a relative MINIGRAD_PYTHON, from the folder above.
    venv = tmp_path / ".venv"
    venv.symlink_to(root / "venv", target_is_directory=True)
    results = _grade(
        lesson,
        {**env, "AUTOGRADER_ROOT": "autograder"},
        upload,
        tmp_path,
        MINIGRAD_PYTHON=".venv/bin/python",
    )
    names = [t["name"] for t in results["tests"]]
    assert names and all(name.startswith("13.") for name in names), names
    assert results["score"] == sum(t["max_score"] for t in results["tests"])


def test_the_bundle_refuses_an_unknown_exercise(tmp_path):
    made = subprocess.run(
        [sys.executable, "-m", "minigrad.grade", "gradescope", str(tmp_path / "a.zip"),
         "--exercise", "99"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert made.returncode == 2 and "no exercise called '99'" in made.stderr
    assert "Traceback" not in made.stderr and not (tmp_path / "a.zip").exists()
