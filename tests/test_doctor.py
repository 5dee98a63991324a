"""``python -m minigrad doctor`` reports every piece and never fails."""

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
