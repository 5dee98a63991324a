"""Shared test settings.

Hypothesis profiles: ``dev`` (the default) and ``ci`` (chosen automatically
when the environment variable ``CI`` is set, or with
``--hypothesis-profile=ci``). ``ci`` draws the same number of examples but
derandomized, so a CI failure reproduces on the next run and on a laptop.
Neither has a deadline: the first call of a numba kernel compiles it, and a
compile is not a slow test. A test's own ``@settings`` take precedence.
"""

import os

from hypothesis import HealthCheck, settings

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
