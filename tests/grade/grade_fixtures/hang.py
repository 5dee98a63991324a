"""Evil exercise 1.1: starts a long-lived grandchild in a session of its own, then never returns."""

import subprocess
import sys


def numerical_derivative(f, x, h=1e-5):
    subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)", "GRANDCHILD_TOKEN"],
        start_new_session=True,
    )
    print("grandchild started", flush=True)
    while True:
        pass
