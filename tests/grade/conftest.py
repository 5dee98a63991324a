"""Hostile code runs only inside an engaged sandbox: ``sandboxed`` skips a test otherwise.

The grader's own attack tests hand it submissions written to do harm. They
run only where the grader's sandbox engages (as root, or as a user allowed to
create user namespaces); elsewhere they are skipped with the reason, and CI
(``CI`` set) fails instead of skipping, so the attacks are always exercised there.
"""

import os

import pytest

from minigrad.grade import sandbox
from minigrad.grade.runner import Run
from minigrad.grade.sandbox import SandboxError


@pytest.fixture(autouse=True)
def no_namespaces(monkeypatch):
    """With ``MINIGRAD_TEST_SANDBOX=account`` (set by test_sandbox.py's account test), the
    grader finds no namespaces, as in a container that allows none: it uses the account sandbox.
    """
    if os.environ.get("MINIGRAD_TEST_SANDBOX") == "account":
        monkeypatch.setattr(sandbox, "_namespaces_work", lambda unshare: False)


@pytest.fixture(scope="session")
def sandboxed() -> str:
    """The sandbox's mode ("root" or "user"), or a skip when it cannot engage."""
    if os.environ.get("MINIGRAD_TEST_SANDBOX") == "account":
        sandbox._namespaces_work = lambda unshare: False  # the session fixture runs first
    try:
        run = Run(1)
    except SandboxError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the grader's attack tests, but {error}")
        pytest.skip(f"hostile fixtures run only inside the grader's sandbox, and {error}")
    mode = run.isolation.mode
    run.close()
    return mode
