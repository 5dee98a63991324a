"""Shared test settings.

Hypothesis profiles: ``dev`` (the default) and ``ci`` (chosen automatically
when the environment variable ``CI`` is set, or with
``--hypothesis-profile=ci``). ``ci`` draws the same number of examples but
derandomized, so a CI failure reproduces on the next run and on a laptop.
Neither has a deadline: the first call of a numba kernel compiles it, and a
compile is not a slow test. A test's own ``@settings`` take precedence.

The tests mirror the package: ``tests/tensor`` tests ``minigrad/tensor`` and
so on; ``test_layers.py`` checks the package as a whole and ``course/`` the
lessons, the site and ``doctor``. Two test modules hold tables that others
reuse (the primitive cases of ``tensor/test_tensor_primitives.py`` and the
per-primitive programs of ``transforms/test_forward_mode.py``), so their
folders are put on the import path here.
"""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

for shared in ("tensor", "transforms"):
    sys.path.insert(0, str(Path(__file__).parent / shared))
# The correctness database (tests/opdb), which every oracle reads: ``import opdb``.
sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile("dev", deadline=None, max_examples=50)
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=50,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
# Hypothesis resolves a setting through a chain of parent settings, one frame per link; in
# one long run the chain reached Python's default limit of 1000 frames mid-suite (at the
# 950th case of the database's largest parametrized tests), and every later case failed
# with a RecursionError inside hypothesis. A deeper stack lets it finish.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

# Submissions crafted to attack the grader: files to hand to it, never to import here.
collect_ignore_glob = ["grade/grade_fixtures/*"]
# Not a module of doctests: collected as one, it would be imported under the
# same name as tests/backends/cuda_sim/conftest.py (pytest's "import file mismatch").
collect_ignore = ["conftest.py"]


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """Remember the hypothesis settings in force once the command line has chosen a
    profile (``--hypothesis-profile``), before any test module is imported."""
    config.stash[_PROFILE] = settings.default


_PROFILE = pytest.StashKey()


@pytest.fixture
def hypothesis_profile(request):
    """The hypothesis settings the session started with (``pytest_configure``)."""
    return request.config.stash[_PROFILE]


def pytest_collection_modifyitems(config, items):
    """The course site's build runs after the lessons' own runs: each lesson that
    ``course/test_notebooks.py`` ran cleanly is handed to the site's execution cache,
    so the site shows those outputs instead of running every lesson a second time.
    Run alone (``-m docs``), the build executes the lessons itself."""
    items.sort(key=lambda item: item.get_closest_marker("docs") is not None)  # stable
