"""Evil exercise 1.1: starts a long-lived grandchild, then never returns."""

import os
import subprocess
import sys


def numerical_derivative(f, x, h=1e-5):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(os.environ["MINIGRAD_TEST_PIDFILE"], "w") as file:
        file.write(str(sleeper.pid))
    while True:
        pass
