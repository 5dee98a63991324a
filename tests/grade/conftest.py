"""Hostile code runs only inside an engaged sandbox: ``sandboxed`` skips a test otherwise.

The grader's own attack tests hand it submissions written to do harm. They
run only where the grader's sandbox engages (as root, or as a user allowed to
create user namespaces); elsewhere they are skipped with the reason, and CI
(``CI`` set) fails instead of skipping, so the attacks are always exercised there.
"""

import os

import pytest

from minigrad.grade.runner import Run
from minigrad.grade.sandbox import SandboxError


@pytest.fixture(scope="session")
def sandboxed() -> str:
    """The sandbox's mode ("root" or "user"), or a skip when it cannot engage."""
    try:
        run = Run(1)
    except SandboxError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the grader's attack tests, but {error}")
        pytest.skip(f"hostile fixtures run only inside the grader's sandbox, and {error}")
    mode = run.isolation.mode
    run.close()
    return mode
