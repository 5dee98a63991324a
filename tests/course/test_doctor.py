"""``python -m minigrad doctor`` reports every piece and never fails."""

import os
import subprocess
import sys


def test_doctor_reports_each_piece():
    run = subprocess.run(
        [sys.executable, "-m", "minigrad", "doctor"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    for piece in ("python", "numpy", "numba", "numba-cuda", "gpu", "graphviz rendering"):
        assert f" {piece} " in run.stdout, run.stdout


def test_doctor_explains_missing_graphviz(monkeypatch):
    from minigrad import __main__ as doctor

    monkeypatch.setattr(doctor.shutil, "which", lambda name: None)
    monkeypatch.setattr(doctor.importlib.util, "find_spec", lambda name: None)
    rows = {what: (status, detail) for status, what, detail in doctor.findings()}
    status, detail = rows["graphviz rendering"]
    assert status == doctor.MISSING and "apt-get install graphviz" in detail
    assert rows["numba"][0] == doctor.MISSING and "pip install numba" in rows["numba"][1]


def test_unknown_command_is_a_usage_error():
    run = subprocess.run(
        [sys.executable, "-m", "minigrad", "frobnicate"], capture_output=True, text=True
    )
    assert run.returncode == 2 and "usage" in run.stderr


def test_doctor_checks_every_lesson_import():
    from minigrad import __main__ as doctor

    imports = doctor.lesson_imports()
    assert {"numpy", "matplotlib", "sklearn", "tqdm"} <= set(imports), imports
    reported = {what for _, what, _ in doctor.findings()}
    assert set(imports) <= reported, (imports, reported)


def test_doctor_draws_through_each_path_and_reports_a_broken_one(tmp_path):
    # A `dot` that is installed but cannot draw must not count as working.
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\necho 'Error: renderer for svg is unavailable' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(
        [sys.executable, "-m", "minigrad", "doctor"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if " graphviz dot " in x)
    assert line.startswith("[miss]") and "renderer for svg is unavailable" in line, line
