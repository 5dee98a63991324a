"""The Gradescope autograder bundle: ``python -m minigrad.grade gradescope OUT.zip``.

Gradescope unpacks the zip into ``/autograder/source``, runs its ``setup.sh``
once when it builds the image, then runs ``run_autograder`` for each
submission; the student's files are in ``/autograder/submission`` and the
score goes to ``/autograder/results/results.json``. The bundle holds the
package with the grader's references (``minigrad/grade/references.py``, which
the student edition lacks), never ``solutions/``. Each submission is graded
on fresh inputs (a new seed), so no stored answer helps.

Both scripts take their root from ``AUTOGRADER_ROOT`` (default
``/autograder``); ``setup.sh`` makes ``$AUTOGRADER_ROOT/venv`` with
``AUTOGRADER_PYTHON`` (default ``python3``), installing the package without
any CUDA library (exercises 11.x run on numba's simulator), and
``run_autograder`` runs ``MINIGRAD_PYTHON`` (default that venv's), so a test
can run the bundle anywhere. ``bundle(..., exercises=["13"])`` makes a
one-lesson assignment; extra arguments to ``run_autograder`` go to the grader.

    >>> sorted(BUNDLE_SCRIPTS)
    ['run_autograder', 'setup.sh']
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from minigrad.grade.release import SKIPPED_NAMES

SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source, to build the image.
# Outside Gradescope (tests): AUTOGRADER_ROOT=DIR [AUTOGRADER_PYTHON=python3] bash setup.sh
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
mkdir -p "$root"
root=$(cd "$root" && pwd)
python=${AUTOGRADER_PYTHON:-python3}
venv=$root/venv
cd "$(dirname "${BASH_SOURCE[0]}")"
# Debian's python3 has no venv module until python3-venv is installed.
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -m venv --help >/dev/null 2>&1 \\
    || ! "$python" -c 'import ensurepip' >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends python3 python3-venv python3-pip
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
# The package, NumPy/numba, and ml_dtypes (bfloat16, for lesson 15's checks) only.
# Exercises 11.x run on numba's own CUDA simulator, which needs no GPU, no CUDA
# toolkit and no numba-cuda.
"$venv/bin/python" -m pip install -q ".[bfloat16]"
NUMBA_ENABLE_CUDASIM=1 "$venv/bin/python" -c "from numba import cuda; import minigrad.grade"
echo "autograder ready in $venv"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for each submission. Outside Gradescope (tests):
#   AUTOGRADER_ROOT=DIR MINIGRAD_PYTHON=python bash run_autograder [grader args...]
set -euo pipefail
root=$(cd "${AUTOGRADER_ROOT:-/autograder}" && pwd)
python=${MINIGRAD_PYTHON:-$root/venv/bin/python}
# A relative path (.venv/bin/python) means the folder this was started from.
if [[ $python == */* && $python != /* ]]; then
    python=$PWD/$python
fi
submission=$root/submission
# Students may upload the lesson files alone or their whole exercises/ folder.
if [[ -d $submission/exercises ]]; then
    submission=$submission/exercises
fi
mkdir -p "$root/results"
cd "$root/source"
# The grader exits 0 whenever it graded, whatever the score. Its inputs are
# fresh for every submission (a new seed, printed with the scores).
exec "$python" -m minigrad.grade "$submission" \\
    --json "$root/results/results.json" --timeout TIMEOUT SELECTION "$@"
"""

BUNDLE_SCRIPTS = {"setup.sh": SETUP, "run_autograder": RUN_AUTOGRADER}
PACKAGED = ["minigrad", "pyproject.toml", "README.md"]


def bundle(
    course: Path, out: Path, timeout: float = 30.0, exercises: list[str] | None = None
) -> list[str]:
    """Write the autograder zip for ``course`` to ``out``; return the names in it.

    ``setup.sh`` and ``run_autograder`` sit at the zip's root (executable), the
    package beside them so that ``pip install .`` works in ``setup.sh``.
    ``exercises`` (names as ``--exercise`` takes them: ``"13"``, ``"13.2"``)
    makes an assignment of those exercises only; unknown names raise ``ValueError``.
    """
    from minigrad.grade import select
    from minigrad.grade.answers import references

    if references() is None or not (course / "minigrad" / "grade" / "references.py").is_file():
        raise ValueError(
            "the Gradescope bundle needs the grader's references: make it from the teacher's "
            "course (the one with solutions/), not from a student edition"
        )
    chosen = select(exercises) if exercises else []
    selection = " ".join(f"--exercise {ex.number}" for ex in chosen)
    names = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in BUNDLE_SCRIPTS.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o100755 << 16  # a regular file, rwxr-xr-x
            info.compress_type = zipfile.ZIP_DEFLATED
            text = text.replace("TIMEOUT", f"{timeout:g}")
            archive.writestr(info, text.replace(" SELECTION", f" {selection}" if selection else ""))
            names.append(name)
        for top in PACKAGED:
            path = course / top
            for file in [path] if path.is_file() else sorted(path.rglob("*")):
                relative = file.relative_to(course)
                if (
                    file.is_file()
                    and file.suffix != ".pyc"
                    and not SKIPPED_NAMES & set(relative.parts)
                ):
                    archive.write(file, relative.as_posix())
                    names.append(relative.as_posix())
    return names
