"""Evil exercise 1.1: starts a long-lived grandchild, then never returns."""

import subprocess
import sys


def numerical_derivative(f, x, h=1e-5):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print(f"grandchild pid {sleeper.pid}", flush=True)
    while True:
        pass
