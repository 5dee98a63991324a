"""The Gradescope autograder bundle: ``python -m minigrad.grade gradescope OUT.zip``.

Gradescope unpacks the zip into ``/autograder/source``, runs its ``setup.sh``
once when it builds the image, then runs ``run_autograder`` for each
submission; the student's files are in ``/autograder/submission`` and the
score goes to ``/autograder/results/results.json``. The bundle holds the
package (its grader computes every reference itself), never ``solutions/``.

``run_autograder`` takes its root from ``AUTOGRADER_ROOT`` (default
``/autograder``) and its interpreter from ``MINIGRAD_PYTHON`` (default the
virtual environment ``setup.sh`` made), so a test can run the bundle
anywhere. Extra arguments go to the grader (``--exercise 1``).

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
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends python3 python3-venv python3-pip
python3 -m venv /autograder/venv
/autograder/venv/bin/python -m pip install -q --upgrade pip
# numba-cuda: exercises 11.x run on numba's CUDA simulator (no GPU needed).
/autograder/venv/bin/python -m pip install -q ".[cuda]"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for each submission. Outside Gradescope (tests):
#   AUTOGRADER_ROOT=DIR MINIGRAD_PYTHON=python bash run_autograder [grader args...]
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
python=${MINIGRAD_PYTHON:-$root/venv/bin/python}
submission=$root/submission
# Students may upload the lesson files alone or their whole exercises/ folder.
if [[ -d $submission/exercises ]]; then
    submission=$submission/exercises
fi
mkdir -p "$root/results"
cd "$root/source"
# The grader exits 0 whenever it graded, whatever the score.
exec "$python" -m minigrad.grade "$submission" \\
    --json "$root/results/results.json" --timeout TIMEOUT "$@"
"""

BUNDLE_SCRIPTS = {"setup.sh": SETUP, "run_autograder": RUN_AUTOGRADER}
PACKAGED = ["minigrad", "pyproject.toml", "README.md"]


def bundle(course: Path, out: Path, timeout: float = 30.0) -> list[str]:
    """Write the autograder zip for ``course`` to ``out``; return the names in it.

    ``setup.sh`` and ``run_autograder`` sit at the zip's root (executable), the
    package beside them so that ``pip install .`` works in ``setup.sh``.
    """
    names = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in BUNDLE_SCRIPTS.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o100755 << 16  # a regular file, rwxr-xr-x
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text.replace("TIMEOUT", f"{timeout:g}"))
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
